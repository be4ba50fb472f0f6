/* packet-meter-cfg.h: the config blob decoder (the 2.05 answer to GET /meter/cfg), as the hook calls it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_CFG_H
#define PACKET_METER_CFG_H

#include "meter-proto.h"

void proto_register_meter_cfg(void);
/* tree may be NULL; columns, expert infos and state are updated regardless. */
void dissect_meter_cfg(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);

#endif
