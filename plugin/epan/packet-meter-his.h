/* packet-meter-his.h: the history decoder (SenML POSTed to the history path, Block1 or whole), as the hook calls it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_HIS_H
#define PACKET_METER_HIS_H

#include "meter-proto.h"

void proto_register_meter_his(void);
/* tree may be NULL; columns, expert infos and state are updated regardless. */
void dissect_meter_his(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);

#endif
