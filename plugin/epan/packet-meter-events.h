/* packet-meter-events.h: `tshark -q -l -z meter,ota,events`, an E record
 * (common/event_record.h) per event of a block-wise transfer, written as
 * the frame that makes it is read: what the analyser's --live mode follows.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_EVENTS_H
#define PACKET_METER_EVENTS_H

#include <epan/packet.h>
#include "ota_track.h"

void proto_register_meter_events(void);
/* Whether a listener wants events (else a frame's results are not worth queueing). */
gboolean meter_events_wanted(void);

/* A frame's block-wise results (first pass), for the events tap. */
typedef struct {
    const ota_copy_result_t *result;
    gboolean                 image;    /* the resource is a firmware image */
} meter_event_msg_t;
typedef struct {
    gint64            ts_us;           /* the frame's time as the tracker takes it */
    guint             n;
    meter_event_msg_t msg[];
} meter_event_frame_t;

/* Queues them (f in the packet pool). */
void meter_events_queue(packet_info *pinfo, const meter_event_frame_t *f);

#endif
