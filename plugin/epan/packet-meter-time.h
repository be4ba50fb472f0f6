/* packet-meter-time.h: the expert infos of the frames whose timestamps the
 * meter's figures do not take as they are (core/ota_clock.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_TIME_H
#define PACKET_METER_TIME_H

#include <epan/packet.h>
#include "ota_clock.h"

void proto_register_meter_time(void);
/* The frame's expert info, if its stamp is zero, out of range or earlier
 * than an earlier frame's (any pass). */
void meter_time_show(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ota_clock_t *clock);

#endif
