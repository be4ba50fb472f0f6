/* packet-meter-stats-table.h: the OTA statistics as the GUI's Statistics
 * table (and tshark -z meter,ota_table).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_STATS_TABLE_H
#define PACKET_METER_STATS_TABLE_H

void proto_register_meter_stats_table(void);

#endif
