/* packet-meter.h: the payload decoders the hook (packet-meter.c) hands
 * each message of the meter's resources to: config blob, history, firmware.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_H
#define PACKET_METER_H

#include "meter-proto.h"

/* Each part registers its fields, subtrees, expert infos and preferences
 * under proto_meter, then dissects payloads through these. tree may be NULL;
 * columns, expert infos and state are updated regardless. */
void proto_register_meter_cfg(void);
void proto_register_meter_his(void);
void proto_register_meter_fw(void);
void proto_reg_handoff_meter_fw(void);

void dissect_meter_cfg(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
void dissect_meter_his(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
void dissect_meter_fw(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
/* Whether the image of this block-wise transfer was reassembled and
 * verified: its SHA-256 matches its TLV, and its signature verifies when a
 * key is configured. */
gboolean meter_fw_transfer_verified(guint32 transfer_id);

#endif
