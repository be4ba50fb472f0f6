/* meter-prefs.h: every "meter.*" preference value in one struct, registered
 * in one place (meter-prefs.c) under the protocol's module, so that a
 * preference's name, default and reader are found together.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_PREFS_H
#define METER_PREFS_H

#include <epan/prefs.h>
#include <epan/uat.h>
#include "ws_compat.h"

typedef struct {
    /* packet-meter.c, the hook */
    meter_pref_bool_t coap_decode;     /* meter.coap_decode */
    meter_pref_bool_t frame_records;   /* meter.frame_records */
    const char *path_config;           /* meter.path.config */
    const char *path_history;          /* meter.path.history */
    const char *path_firmware;         /* meter.path.firmware: a prefix */
    /* packet-meter-his.c */
    meter_pref_bool_t his_reassemble;  /* meter.his_reassemble */
    guint his_max_records;             /* meter.his_max_records */
    /* packet-meter-fw.c */
    const char *fw_pubkey;             /* meter.fw.pubkey: hex, "" none */
    /* meter-session.c */
    guint ota_stall_seconds;           /* meter.ota.stall_seconds */
    gint ota_timestamps;               /* meter.ota.timestamps: an ota_stamp_kind_t */
} meter_prefs_t;

/* Wireshark writes it as preferences change; the parts only read it. */
extern meter_prefs_t meter_prefs;

/* Registers every preference under module, in the order `tshark -G
 * defaultprefs` lists them; cfg_keys is the config key table's UAT
 * (meter-cfg-keys.c), a preference too. */
void meter_prefs_register(module_t *module, uat_t *cfg_keys);

#endif
