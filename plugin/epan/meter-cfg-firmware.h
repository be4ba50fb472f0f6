/* meter-cfg-firmware.h: what the config blob decoder tells the other parts: the
 * firmware that a meter's last config blob announced (key 10 of
 * shared/meter-protocol.md), so the firmware decoder can compare the image it
 * reassembles with the announced size and SHA-256. The registry is
 * meter-cfg-firmware.c; packet-meter-cfg.c records into it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_CFG_FIRMWARE_H
#define METER_CFG_FIRMWARE_H

#include <epan/address.h>

#include "meter_cfg.h"
#include "meter-session.h"

typedef struct {
    const char *version;     /* key 10/1, e.g. "2.1.0"; NULL if absent */
    const char *path;        /* key 10/2, e.g. "firmware/v2.1.0.img", as sent; NULL if absent */
    guint32  size;           /* key 10/3, image size in bytes */
    gboolean has_size;
    guint8   sha256[32];     /* key 10/4, SHA-256 of the image */
    gboolean has_sha256;     /* only when the byte string was exactly 32 bytes */
    guint32  config_version; /* key 2 of the same blob */
    gboolean has_config_version;
    guint32  frame;          /* the frame of the config response that carried it */
} meter_cfg_firmware_t;

/* The firmware announced by the latest config blob for this meter (the
 * meter's address: meter_ctx_t.meter) in a frame <= before_frame, or NULL.
 * Pass G_MAXUINT32 for the latest in the whole file. Blobs are recorded on
 * the first pass only and the lookup is bounded by frame number, so a
 * single-pass and a two-pass run (tshark -2, the GUI) give the same answer.
 * A blob cut short (meter.cfg.truncated) is not recorded. The record lives
 * in file scope: valid until the capture file is closed. */
const meter_cfg_firmware_t *meter_cfg_firmware_for(meter_session_t *session, const address *meter,
                                                   guint32 before_frame);

/* For packet-meter-cfg.c: the registry's slot in the session (once, at
 * registration), and the firmware cfg announces for meter in frame
 * (cfg->firmware must be set). */
void meter_cfg_firmware_register(void);
void meter_cfg_firmware_record(meter_session_t *session, const address *meter, guint32 frame,
                               const meter_cfg_t *cfg);

#endif
