/* packet-meter-fw.h: the firmware image decoder (MCUboot images over Block2), as the hook calls it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_FW_H
#define PACKET_METER_FW_H

#include "meter-proto.h"
#include "meter-session.h"

void proto_register_meter_fw(void);
void proto_reg_handoff_meter_fw(void);
/* tree may be NULL; columns, expert infos and state are updated regardless. */
void dissect_meter_fw(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
/* Whether the image of this block-wise transfer was reassembled and
 * verified: its SHA-256 matches its TLV, and its signature verifies when a
 * key is configured. */
gboolean meter_fw_transfer_verified(meter_session_t *session, guint32 transfer_id);

#endif
