/* meter-cfg-value.h: any CBOR item of the config blob shown generically
 * under meter.cfg.value.* (the values of unknown keys, of wrong types, of
 * keys known only from the key table), from what core/meter_cfg.c read,
 * and the label helpers the config display shares.
 *
 * The fields and expert infos below are defined in meter-cfg-value.c and
 * registered with the other meter.cfg.* ones in packet-meter-cfg.c: one
 * array each, whose order is the order tshark -G fields lists them in.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_CFG_VALUE_H
#define METER_CFG_VALUE_H

#include <epan/packet.h>
#include <epan/expert.h>

#include "meter_cfg.h"

#define METER_CFG_TEXT_MAX 40   /* characters of a string value shown in a label */

extern int hf_meter_cfg_value_uint;
extern int hf_meter_cfg_value_int;
extern int hf_meter_cfg_value_float;
extern int hf_meter_cfg_value_text;
extern int hf_meter_cfg_value_bytes;
extern int hf_meter_cfg_value_bool;
extern int hf_meter_cfg_value_simple;
extern int hf_meter_cfg_value_array;
extern int hf_meter_cfg_value_map;
extern int hf_meter_cfg_value_tag;
extern gint ett_meter_cfg_value;
extern expert_field ei_meter_cfg_bad_cbor;
extern expert_field ei_meter_cfg_too_deep;
extern expert_field ei_meter_cfg_indefinite;
extern const value_string meter_cfg_simple_vals[];

/* One blob's display. */
typedef struct {
    packet_info *pinfo;
    tvbuff_t *tvb;
    gboolean indefinite_flagged;    /* meter.cfg.indefinite is shown once per blob */
} meter_cfg_display_t;

/* meter.cfg.indefinite on pi, if no item of this blob has it yet. */
void meter_cfg_flag_indefinite(meter_cfg_display_t *d, proto_item *pi);

/* Adds item v (NULL: the data ended before it) with everything nested in
 * it: containers to METER_CFG_MAX_DEPTH, deeper content marked
 * meter.cfg.too_deep. *pi (if not NULL) is its tree item, *text (if not
 * NULL) a short text of it for a label. FALSE when the item was cut short:
 * what was read of it is shown, and the caller stops there as the parse did. */
gboolean meter_cfg_value_add(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_value_t *v,
                             proto_item **pi, const char **text);

/* A string for a label: at most max_chars characters, control characters as '.'. */
const char *meter_cfg_printable(wmem_allocator_t *pool, const char *s, glong max_chars);

#endif
