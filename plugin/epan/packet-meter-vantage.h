/* packet-meter-vantage.h: in a file that merges a sniffer's capture with
 * the gateway's (mergecap), each CoAP message shows its copy at the other
 * vantage point (core/vantage.h): meter.vantage.*.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_VANTAGE_H
#define PACKET_METER_VANTAGE_H

#include <epan/packet.h>
#include "meter-session.h"

void proto_register_meter_vantage(void);
/* The message at start/length of ds_tvb, index-th of the frame: noted on
 * the first pass, and its copy at the other vantage point shown (any pass;
 * on the first, only a copy read before). */
void meter_vantage_message(meter_session_t *session, tvbuff_t *ds_tvb, gint start, gint length, guint index,
                           packet_info *pinfo, proto_tree *tree);

/* First pass, once per frame: whether the frame is the IP side's in a file
 * that has shown 802.15.4 frames before, i.e. the gateway's copy of what
 * the sniffer's capture holds: the transfer tracker follows the radio's. */
gboolean meter_vantage_second_copy(meter_session_t *session, packet_info *pinfo);

#endif
