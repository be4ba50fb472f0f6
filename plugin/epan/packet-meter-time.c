/* packet-meter-time.c: the frames whose timestamps the meter's figures do
 * not take as they are (packet-meter-time.h). Stock Wireshark shows a
 * negative frame.time_delta where time goes back, but no expert info; the
 * meter says what it did with such a frame.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/packet.h>
#include <epan/expert.h>
#include "meter-proto.h"
#include "packet-meter-time.h"

static expert_field ei_time_zero = EI_INIT, ei_time_earlier = EI_INIT, ei_time_out_of_range = EI_INIT;

void meter_time_show(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ota_clock_t *clock)
{
    expert_field *ei;

    switch (ota_clock_status(clock, pinfo->num, pinfo->abs_ts.secs, pinfo->abs_ts.nsecs)) {
    case OTA_CLOCK_ZERO:
        ei = &ei_time_zero;
        break;
    case OTA_CLOCK_EARLIER:
        ei = &ei_time_earlier;
        break;
    case OTA_CLOCK_OUT_OF_RANGE:
        ei = &ei_time_out_of_range;
        break;
    default:
        return;
    }
    proto_item *ti = proto_tree_add_item(tree, proto_meter, tvb, 0, 0, ENC_NA);
    proto_item_append_text(ti, ", timestamp");
    expert_add_info(pinfo, ti, ei);
}

void proto_register_meter_time(void)
{
    static ei_register_info ei[] = {
        { &ei_time_zero, { "meter.time.zero", PI_ASSUMPTION, PI_NOTE,
          "Timestamp 0 (1970-01-01T00:00:00Z): the capture may carry no times (the meter's durations and "
          "rates are then 0)", EXPFILL } },
        { &ei_time_earlier, { "meter.time.earlier", PI_SEQUENCE, PI_WARN,
          "Timestamp earlier than an earlier frame's: the meter times this frame at the latest time before it, "
          "so that its durations never run backwards", EXPFILL } },
        { &ei_time_out_of_range, { "meter.time.out_of_range", PI_ASSUMPTION, PI_WARN,
          "Timestamp before 1970 or after 9999: not used for the meter's timing (the frame is timed at the "
          "latest time before it)", EXPFILL } },
    };
    expert_module_t *em = expert_register_protocol(proto_meter);

    expert_register_field_array(em, ei, array_length(ei));
}
