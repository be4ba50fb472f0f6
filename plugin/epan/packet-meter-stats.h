/* packet-meter-stats.h: the OTA statistics (tshark -z meter,ota).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_STATS_H
#define PACKET_METER_STATS_H

#include <epan/packet.h>

void proto_register_meter_stats(void);
/* Whether a statistics listener is registered (tshark -z, the GUI's
 * dialog): without one a frame's transfers are not worth collecting. */
gboolean meter_stats_wanted(void);
/* Tells the statistics which transfers this frame belongs to (0-terminated). */
void meter_stats_queue(packet_info *pinfo, const guint32 *transfer_ids);

#endif
