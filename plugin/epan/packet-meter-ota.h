/* packet-meter-ota.h: the display side of the OTA session tracker
 * (ota_track.h): fields meter.ota.* and meter.frag.*, and expert infos.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_OTA_H
#define PACKET_METER_OTA_H

#include "ota_track.h"

void proto_register_meter_ota(void);
/* Frame-level items (MAC retries, fragments, acknowledgements). */
void meter_ota_show_frame(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ota_link_view_t *f);
/* Message-level items under the Meter subtree of one CoAP message; a
 * silence longer than stall_s before it is a stall. */
void meter_ota_show_message(tvbuff_t *tvb, packet_info *pinfo, proto_tree *root, proto_tree *tree,
                            const ota_copy_result_t *r, const meter_coap_t *m, double stall_s);
/* On the transfer's first request (its first frame, or the frame a
 * fragmented one was reassembled in), once the capture was read: its
 * verdict (common/verdict.h) as a field and an expert info. */
void meter_ota_show_verdict(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ota_copy_result_t *result,
                            const meter_coap_t *m, const meter_transfer_record_t *transfer);

#endif
