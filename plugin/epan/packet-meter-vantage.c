/* packet-meter-vantage.c: the copy of each CoAP message at the other
 * vantage point of a merged capture (packet-meter-vantage.h). A frame with
 * 802.15.4 in it is the radio's; any other (Ethernet, Linux cooked) the IP
 * side's. The fields appear only once both have shown a message.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/packet.h>
#include <epan/proto_data.h>
#include "ws_compat.h"
#include "frame_hash.h"
#include "vantage.h"
#include "meter-proto.h"
#include "meter-session.h"
#include "packet-meter-vantage.h"

static int hf_vantage = -1, hf_vantage_other = -1, hf_vantage_delta = -1, hf_vantage_offset = -1;
static gint ett_vantage = -1;

/* The session's slot. */
typedef struct {
    vantage_map_t *map;
    gboolean radio_seen;     /* the file has shown an 802.15.4 frame (first pass, so far) */
    int proto_wpan;
} vantage_state_t;

static const value_string vantage_names[] = {
    { VANTAGE_RADIO, "radio (IEEE 802.15.4)" },
    { VANTAGE_IP, "IP (the gateway's side)" },
    { 0, NULL },
};

static void *vantage_state_new(void)
{
    vantage_state_t *v = g_new0(vantage_state_t, 1);

    v->map = vantage_map_new();
    v->proto_wpan = meter_proto_id("wpan");
    return v;
}

static void vantage_state_free(void *state)
{
    vantage_state_t *v = (vantage_state_t *)state;

    vantage_map_free(v->map);
    g_free(v);
}

/* A frame's stamp in microseconds, for stamps from 1970 to 9999 only (as
 * the tracker's clock takes them): others, a broken capture's, take no
 * part in the pairing, and no difference of two overflows. */
static gboolean stamp_us(const nstime_t *ts, gint64 *us)
{
    if (ts->secs < 0 || ts->secs > G_GINT64_CONSTANT(253402300799) || ts->nsecs < 0 || ts->nsecs >= 1000000000)
        return FALSE;
    *us = (gint64)ts->secs * 1000000 + ts->nsecs / 1000;
    return TRUE;
}

/* The message's identity at either end: its endpoints (addresses after
 * 6LoWPAN decompression, ports) and every byte of it. */
static guint64 message_key(tvbuff_t *msg, packet_info *pinfo)
{
    guint64 h = frame_hash_u64(frame_hash_tvb(msg, 0), (guint64)pinfo->srcport << 16 | pinfo->destport);
    if (pinfo->src.type == AT_IPv6 && pinfo->dst.type == AT_IPv6)
        h = frame_hash_bytes(frame_hash_bytes(h, pinfo->src.data, 16), pinfo->dst.data, 16);
    return h;
}

static guint64 address_hash(const address *a)
{
    return frame_hash_bytes(frame_hash_u64(0, (guint64)a->type), a->data, a->len > 0 ? (guint)a->len : 0);
}

static void add_relative(proto_tree *t, int hf, tvbuff_t *tvb, gint64 us)
{
    nstime_t ns;

    ns.secs = (time_t)(us / 1000000);
    ns.nsecs = (int)(us % 1000000) * 1000;
    proto_item_set_generated(proto_tree_add_time(t, hf, tvb, 0, 0, &ns));
}

void meter_vantage_message(meter_session_t *session, tvbuff_t *ds_tvb, gint start, gint length, guint index,
                           packet_info *pinfo, proto_tree *tree)
{
    vantage_state_t *v = (vantage_state_t *)meter_session_part(session, METER_PART_VANTAGE);
    vantage_map_t *map = v->map;
    vantage_kind_t kind;
    guint32 other;
    gint64 other_us, offset_us;

    gint64 mine;
    if (!map || length <= 0 || !stamp_us(&pinfo->abs_ts, &mine))
        return;
    if (!PINFO_FD_VISITED(pinfo)) {
        tvbuff_t *msg = tvb_new_subset_length(ds_tvb, start, length);
        kind = meter_frame_has(pinfo, v->proto_wpan) ? VANTAGE_RADIO : VANTAGE_IP;
        /* CoAP's code, the second byte: 0.01-0.31 are requests. */
        guint8 code = length >= 2 ? tvb_get_uint8(msg, 1) : 0;
        vantage_note(map, message_key(msg, pinfo), kind, address_hash(&pinfo->src), address_hash(&pinfo->dst),
                     code >= 1 && code < 32, pinfo->num, index, mine);
    }
    if (!tree || !vantage_both_seen(map) || !vantage_other(map, pinfo->num, index, &kind, &other, &other_us, &offset_us))
        return;
    proto_item *ti = proto_tree_add_item(tree, proto_meter, ds_tvb, start, length, ENC_NA);
    proto_item_append_text(ti, ", copy at the other vantage point: frame %u", other);
    proto_tree *t = proto_item_add_subtree(ti, ett_vantage);
    proto_item_set_generated(proto_tree_add_uint(t, hf_vantage, ds_tvb, 0, 0, kind));
    proto_item_set_generated(proto_tree_add_uint(t, hf_vantage_other, ds_tvb, 0, 0, other));
    add_relative(t, hf_vantage_delta, ds_tvb, mine - other_us);
    add_relative(t, hf_vantage_offset, ds_tvb, offset_us);
}

gboolean meter_vantage_second_copy(meter_session_t *session, packet_info *pinfo)
{
    vantage_state_t *v = (vantage_state_t *)meter_session_part(session, METER_PART_VANTAGE);
    gboolean radio = meter_frame_has(pinfo, v->proto_wpan);

    v->radio_seen |= radio;
    return v->radio_seen && !radio;
}

void proto_register_meter_vantage(void)
{
    static hf_register_info hf[] = {
        { &hf_vantage, { "Vantage point", "meter.vantage", FT_UINT8, BASE_DEC, VALS(vantage_names), 0x0,
          "Where this copy was captured, in a file that merges a sniffer's capture and the gateway's", HFILL } },
        { &hf_vantage_other, { "Copy at the other vantage point", "meter.vantage.other", FT_FRAMENUM, BASE_NONE,
          NULL, 0x0, "The same message (same endpoints and bytes) captured at the other point", HFILL } },
        { &hf_vantage_delta, { "Time since that copy", "meter.vantage.delta", FT_RELATIVE_TIME, BASE_NONE, NULL,
          0x0, "This frame's stamp minus the other copy's, each by its own capture's clock", HFILL } },
        { &hf_vantage_offset, { "Clock offset (IP minus radio)", "meter.vantage.clock_offset", FT_RELATIVE_TIME,
          BASE_NONE, NULL, 0x0, "Estimated from the messages seen once at each point (between the delays of "
          "the two directions): subtract it from the time since the other copy for the delay between them",
          HFILL } },
    };
    static gint *ett[] = { &ett_vantage };

    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    meter_session_add_part(METER_PART_VANTAGE, vantage_state_new, vantage_state_free);
}
