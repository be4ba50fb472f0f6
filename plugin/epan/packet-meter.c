/* packet-meter.c: the "meter" protocol and its hook into CoAP.
 *
 * A postdissector: after the stock dissectors have run (802.15.4, ZEP, TAP,
 * 6LoWPAN reassembly, MAC decryption, IPv6/UDP, CoAP), it takes every CoAP
 * message of the frame (noted by a handle on every UDP port that leads to
 * stock CoAP, which it calls) and the frame's link facts (read from the record), recognises the
 * meter's resources by URI path (a response by its request's path),
 * numbers block-wise transfers, feeds the session tracker, and hands
 * payloads to the decoders (packet-meter-cfg.c, -his.c, -fw.c). It never
 * changes how other traffic is decoded, and it never asks for a protocol
 * tree, so tshark builds none on its account.
 *
 * Which request a message answers and which transfer it belongs to is the
 * tracker's to say (core/coap_exchange.c); the file's state is one session
 * (meter-session.c), which this file passes to the parts that need it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/to_str.h>
#include "ws_compat.h"
#include "coap_view.h"
#include "lowpan_view.h"
#include "wpan_view.h"
#include "meter-proto.h"
#include "meter-session.h"
#include "meter-prefs.h"
#include "meter-cfg-keys.h"
#include "meter-cfg-firmware.h"
#include "packet-meter-cfg.h"
#include "packet-meter-his.h"
#include "packet-meter-fw.h"
#include "packet-meter-ota.h"
#include "frame_hash.h"
#include "packet-meter-stats.h"
#include "packet-meter-events.h"
#include "packet-meter-stats-table.h"
#include "packet-meter-time.h"
#include "packet-meter-vantage.h"
#include "radio_timing.h"

void proto_register_meter(void);
void proto_reg_handoff_meter(void);

static int proto_coap_hook = -1;
static dissector_handle_t meter_post_handle;

static int hf_meter_resource = -1;
static int hf_meter_path = -1;
static int hf_meter_transfer = -1;
static int hf_meter_request_in = -1;
static int hf_meter_response_in = -1;
static gint ett_meter = -1;

static const value_string resource_names[] = {
    { METER_RES_OTHER, "other" },
    { METER_RES_CONFIG, "configuration" },
    { METER_RES_HISTORY, "history upload" },
    { METER_RES_FIRMWARE, "firmware download" },
    { 0, NULL },
};

/* What one CoAP message of one frame resolved to, kept for later passes,
 * with where its bytes are: later passes (tshark -2, the GUI) find the
 * message again in the frame's data sources. Its path is its exchange's. */
typedef struct {
    coap_exchange_t *exchange;   /* NULL: an answer to no request seen */
    ota_copy_result_t *ota;   /* its place in its block-wise transfer */
    guint32 transfer_id;      /* as it was when the message was read */
    guint32 ds_length;        /* its data source's length, to be sure ... */
    gint32 start, length;     /* ... and the CoAP message within it */
    guint8 ds_index;          /* data source: its place in pinfo->data_src */
    guint8 resource;          /* meter_resource_t */
    gboolean is_client_side;
} msg_result_t;

#define MAX_MSGS_PER_FRAME 16

/* A frame's record, only for frames with something for later passes: a
 * CoAP message, or a link note (a datagram copy's frame). A frame with only
 * the latter (a FRAGN, a MAC retry) is indexed by the note itself. */
enum { FRAME_MSGS = 1, FRAME_LINK_ONLY = 2 };
typedef struct {
    ota_link_note_t link;     /* link-layer and fragment accounting (0: none) */
    guint n;
    msg_result_t msg[];       /* n of them */
} frame_msgs_t;

static const char *msg_path(const msg_result_t *r)
{
    return r->exchange ? r->exchange->path : NULL;
}

static meter_resource_t classify(const char *path)
{
    if (!path)
        return METER_RES_OTHER;
    const char *cfg = meter_prefs.path_config, *his = meter_prefs.path_history, *fw = meter_prefs.path_firmware;

    if (cfg && *cfg && strcmp(path, cfg) == 0)
        return METER_RES_CONFIG;
    if (his && *his && strcmp(path, his) == 0)
        return METER_RES_HISTORY;
    if (fw && *fw && g_str_has_prefix(path, fw))
        return METER_RES_FIRMWARE;
    return METER_RES_OTHER;
}

/* src and dst are the message's endpoints as coap_endpoint_key() gives them;
 * now_us the frame's time as the tracker takes it (core/ota_clock.h). */
static void resolve_first_pass(packet_info *pinfo, ota_track_t *tracker, const meter_coap_t *m,
                               const char *src, const char *dst, gint64 now_us, msg_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->exchange = ota_track_exchange(tracker, m, src, dst, &pinfo->src, &pinfo->dst, pinfo->num, now_us,
                                     pinfo->pool);
    r->is_client_side = meter_coap_is_request(m);
    if (r->exchange)
        r->transfer_id = r->exchange->transfer_id;
    r->resource = (guint8)classify(msg_path(r));
}

/* The transfer a message is in besides its own: the download the answer
 * to an upload's request starts (ota_track.h: also), or the transfer a
 * request joined once its answer came (known on later passes only). */
static const ota_copy_result_t *second_transfer(const msg_result_t *r, packet_info *pinfo)
{
    if (r->ota && ota_result_also(r->ota))
        return ota_result_also(r->ota);
    if (r->is_client_side && PINFO_FD_VISITED(pinfo))
        return ota_track_joined_request(r->exchange, pinfo->num);
    return NULL;
}

static void add_meter_items(proto_tree *tree, tvbuff_t *tvb, gint start, gint length,
                            const msg_result_t *r, proto_tree **subtree, packet_info *pinfo)
{
    proto_item *ti = proto_tree_add_item(tree, proto_meter, tvb, start, length, ENC_NA);
    proto_item *pi;

    *subtree = proto_item_add_subtree(ti, ett_meter);
    proto_item_append_text(ti, ", %s /%s", val_to_str_const(r->resource, resource_names, "?"),
                           msg_path(r) ? msg_path(r) : "");
    pi = proto_tree_add_uint(*subtree, hf_meter_resource, tvb, start, 0, r->resource);
    proto_item_set_generated(pi);
    if (msg_path(r)) {
        pi = proto_tree_add_string(*subtree, hf_meter_path, tvb, start, 0, msg_path(r));
        proto_item_set_generated(pi);
    }
    if (r->transfer_id) {
        pi = proto_tree_add_uint(*subtree, hf_meter_transfer, tvb, start, 0, r->transfer_id);
        proto_item_set_generated(pi);
    }
    const ota_copy_result_t *also = second_transfer(r, pinfo);
    if (also) {
        pi = proto_tree_add_uint(*subtree, hf_meter_transfer, tvb, start, 0, ota_result_transfer(also));
        proto_item_set_generated(pi);
    }
    if (r->exchange && r->exchange->frame != pinfo->num) {
        pi = proto_tree_add_uint(*subtree, hf_meter_request_in, tvb, start, 0, r->exchange->frame);
        proto_item_set_generated(pi);
    }
    if (r->exchange && r->is_client_side && r->exchange->response_frame) {
        pi = proto_tree_add_uint(*subtree, hf_meter_response_in, tvb, start, 0, r->exchange->response_frame);
        proto_item_set_generated(pi);
    }
}

static meter_ctx_t decoder_context(meter_session_t *session, packet_info *pinfo, const msg_result_t *r,
                                   const meter_coap_t *m)
{
    const coap_exchange_t *ex = r->exchange;
    meter_ctx_t ctx = {
        .session = session,
        .msg = m,
        .resource = (meter_resource_t)r->resource,
        .meter = ex ? ex->client : &pinfo->src,
        .gateway = ex ? ex->server : &pinfo->dst,
        .transfer_id = r->transfer_id,
        .request_frame = ex ? ex->frame : 0,
    };
    return ctx;
}

/* The message's Meter items and its payload's decoder; m is the message
 * at r's place in ds_tvb, read already (NULL: read it here). */
static void dissect_message(meter_session_t *session, packet_info *pinfo, proto_tree *tree, tvbuff_t *ds_tvb,
                            const msg_result_t *r, const meter_coap_t *read)
{
    meter_coap_t m;
    proto_tree *mtree = NULL;

    const ota_copy_result_t *also = second_transfer(r, pinfo);

    if (r->resource == METER_RES_OTHER && !r->transfer_id && !also)
        return;
    if (read)
        m = *read;
    else if (!coap_view_parse(ds_tvb, r->start, r->length, pinfo->pool, &m))
        return;
    m.path = msg_path(r);
    add_meter_items(tree, ds_tvb, r->start, r->length, r, &mtree, pinfo);
    if (r->ota)
        meter_ota_show_message(ds_tvb, pinfo, tree, mtree, r->ota, &m, meter_session_stall_seconds(session));
    if (also)
        meter_ota_show_message(ds_tvb, pinfo, tree, mtree, also, &m, meter_session_stall_seconds(session));
    if (r->ota && PINFO_FD_VISITED(pinfo))
        meter_ota_show_verdict(ds_tvb, pinfo, mtree, r->ota, &m,
                               ota_track_record(meter_session_tracker(session), ota_result_transfer(r->ota)));

    meter_ctx_t ctx = decoder_context(session, pinfo, r, &m);
    if (!m.payload)
        return;
    switch (r->resource) {
    case METER_RES_CONFIG:
        if (!meter_coap_is_request(&m) && coap_code_is_success(m.code))
            dissect_meter_cfg(m.payload, pinfo, mtree, &ctx);
        break;
    case METER_RES_HISTORY:
        if (meter_coap_is_request(&m))
            dissect_meter_his(m.payload, pinfo, mtree, &ctx);
        break;
    case METER_RES_FIRMWARE:
        if (!meter_coap_is_request(&m) && m.code != COAP_CODE_EMPTY) {
            dissect_meter_fw(m.payload, pinfo, mtree, &ctx);
            /* The statistics' "verified": the decoder tells, the hook records. */
            if (r->transfer_id && meter_fw_transfer_verified(session, r->transfer_id))
                ota_track_set_verified(meter_session_tracker(session), r->transfer_id);
        }
        break;
    case METER_RES_OTHER:
        break;
    }
}

/* Where ds_tvb is in the frame's data sources (first pass). */
static guint data_source_index(packet_info *pinfo, tvbuff_t *ds_tvb)
{
    guint i = 0;

    for (GSList *l = pinfo->data_src; l; l = l->next, i++)
        if (get_data_source_tvb((struct data_source *)l->data) == ds_tvb)
            return i;
    return G_MAXUINT;
}

/* The same data source on a later pass: same place, same length. */
static tvbuff_t *data_source_at(packet_info *pinfo, guint index, guint length)
{
    tvbuff_t *tvb = NULL;
    GSList *l = g_slist_nth(pinfo->data_src, index);

    if (l)
        tvb = get_data_source_tvb((struct data_source *)l->data);
    return tvb && tvb_captured_length(tvb) == length ? tvb : NULL;
}

/* The CoAP messages stock CoAP dissected in this frame (first pass), kept
 * in the packet pool until the postdissector runs. Collecting them from the
 * hand-off rather than from protocol-tree fields means the plugin never
 * makes tshark build a tree it would not build anyway. */
typedef struct {
    guint     n_coap;
    tvbuff_t *coap[MAX_MSGS_PER_FRAME];
} frame_scratch_t;

static frame_scratch_t *scratch(packet_info *pinfo, gboolean create)
{
    frame_scratch_t *fs = (frame_scratch_t *)p_get_proto_data(pinfo->pool, pinfo, proto_meter, METER_PDATA_HOOK_SCRATCH);

    if (!fs && create) {
        fs = wmem_new0(pinfo->pool, frame_scratch_t);
        p_add_proto_data(pinfo->pool, pinfo, proto_meter, METER_PDATA_HOOK_SCRATCH, fs);
    }
    return fs;
}

/* CoAP on UDP goes through here: stock CoAP does all the dissecting, and
 * the message is noted for the postdissector. The handle's protocol is a
 * helper of CoAP's (a protocol in name only): it adds no layer of its own to
 * frame.protocols, its filter name is not "coap" (so Decode As "coap" finds
 * one dissector), and it is enabled exactly when CoAP is. */
static dissector_handle_t coap_handle;
static dissector_handle_t coap_hook_handle;
static dissector_table_t udp_port_table;

static int meter_coap_wrapper(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    /* Noted first: a payload dissector under CoAP may throw. */
    if (!PINFO_FD_VISITED(pinfo)) {
        frame_scratch_t *fs = scratch(pinfo, TRUE);
        if (fs->n_coap < MAX_MSGS_PER_FRAME)
            fs->coap[fs->n_coap++] = tvb;
    }
    if (!meter_prefs.coap_decode)
        return tvb_captured_length(tvb);
    return call_dissector_only(coap_handle, tvb, pinfo, tree, data);
}

static void collect_coap_port(const gchar *table_name _U_, ftenum_t selector_type _U_, gpointer key,
                              gpointer value, gpointer user_data)
{
    if (dtbl_entry_get_handle((dtbl_entry_t *)value) == coap_handle)
        g_array_append_val((GArray *)user_data, key);
}

/* Decode As (-d udp.port==N,coap) and CoAP's own port preference point a
 * port at stock CoAP's handle after the plugin's handoff; when a file is
 * opened (every setting applied), each such port is led through the hook
 * instead. dissector_change_uint keeps the entry's initial handle, so Decode
 * As still shows and resets it as the user set it. */
static void follow_coap_ports(void)
{
    GArray *ports = g_array_new(FALSE, FALSE, sizeof(gpointer));

    dissector_table_foreach("udp.port", collect_coap_port, ports);
    for (guint i = 0; i < ports->len; i++)
        dissector_change_uint("udp.port", GPOINTER_TO_UINT(g_array_index(ports, gpointer, i)), coap_hook_handle);
    g_array_free(ports, TRUE);
}

/* The ports the hook follows, for the fragments' CoAP headers: once a file
 * is open, every UDP port that leads to CoAP leads through the hook. */
static gboolean is_coap_port(guint16 port)
{
    return dissector_get_uint_handle(udp_port_table, port) == coap_hook_handle;
}

/* Whether stock 802.15.4 handed the frame's payload to a protocol: a
 * secured payload it could not decrypt (no key, or the MIC failed with a
 * wrong one) goes to "data", and garbage may still parse as 6LoWPAN here. */
static int proto_wpan = -1, proto_data = -1, proto_6lowpan = -1;

static gboolean wpan_payload_dissected(packet_info *pinfo)
{
    for (wmem_list_frame_t *l = wmem_list_head(pinfo->layers); l; l = wmem_list_frame_next(l))
        if (GPOINTER_TO_INT(wmem_list_frame_data(l)) == proto_wpan) {
            wmem_list_frame_t *next = wmem_list_frame_next(l);
            return next && GPOINTER_TO_INT(wmem_list_frame_data(next)) != proto_data;
        }
    return FALSE;
}

/* The frame's 802.15.4 and 6LoWPAN facts, for retries, ACKs and fragments,
 * read from the captured bytes (and, for a secured frame, from the payload
 * the 802.15.4 dissector decrypted). */
static ota_frame_t *track_link(meter_session_t *session, packet_info *pinfo, gboolean has_coap, gint64 now_us,
                               gboolean time_held)
{
    ota_track_t *tracker = meter_session_tracker(session);
    tvbuff_t *frame = pinfo->data_src ? get_data_source_tvb((struct data_source *)pinfo->data_src->data) : NULL;
    gboolean has_fcs = FALSE;
    tvbuff_t *psdu = frame && pinfo->rec ? wpan_view_psdu(frame, pinfo->rec->rec_header.packet_header.pkt_encap,
                                                          &has_fcs) : NULL;
    ota_link_in_t in = { .frame = pinfo->num, .ts_us = now_us, .time_held = time_held, .carries_coap = has_coap };
    wpan_view_t wv;
    ota_frame_t *f;

    /* The same record at the same raw stamp is the same frame captured twice. */
    guint64 record_hash = frame ? frame_hash_tvb(frame, 0) : 0;
    if (frame)
        in.fingerprint = frame_hash_u64(frame_hash_u64(record_hash, (guint64)pinfo->abs_ts.secs),
                                        (guint64)pinfo->abs_ts.nsecs);
    if (!psdu || !wpan_view_parse(psdu, has_fcs, &wv))
        /* No 802.15.4 (the gateway's Ethernet): the messages still need a frame. */
        return has_coap ? ota_track_frame(tracker, &in) : NULL;
    in.has_wpan = TRUE;
    /* With the PHY header and the FCS (a record without the FCS still had
     * one on the air). */
    in.air_us = (tvb_reported_length(psdu) + (has_fcs ? 0 : 2) + RADIO_PHY_HEADER_BYTES) * RADIO_BYTE_US;
    in.frame_type = wv.frame_type;
    in.data_request = wv.frame_type == WPAN_FRAME_COMMAND && wv.command_id == WPAN_CMD_DATA_REQUEST;
    in.seq = wv.seq;
    in.ack_request = wv.ack_request;
    in.src = wv.src;
    in.dst = wv.dst;
    /* The PSDU is often the whole record (link types 195 and 230): hashed once. */
    gboolean whole_record = tvb_raw_offset(psdu) == tvb_raw_offset(frame) &&
                            tvb_captured_length(psdu) == tvb_captured_length(frame);
    in.content_hash = whole_record ? record_hash : frame_hash_tvb(psdu, 0);
    tvbuff_t *payload = NULL;
    if (wv.frame_type == WPAN_FRAME_DATA)
        payload = wv.security ? meter_data_source_tvb(pinfo, "Decrypted IEEE 802.15.4 payload")
                              : tvb_new_subset_length(psdu, wv.payload_offset, wv.payload_end - wv.payload_offset);
    lowpan_view_t lv;
    /* Only what 802.15.4 handed to 6LoWPAN is a datagram: other traffic on
     * the channel (Zigbee, a MAC of its own) reads as garbage headers. */
    gboolean has_lowpan = payload && meter_frame_has(pinfo, proto_6lowpan) &&
                          lowpan_view_parse(payload, 0, (gint)tvb_captured_length(payload), is_coap_port,
                                           &lv);
    /* Secured data frames tell whether the key worked: the 802.15.4
     * dissector hands on a payload even when the MIC fails, so one counts as
     * decrypted when stock 802.15.4 passed it to a protocol (6LoWPAN, or
     * Zigbee NWK for a Zigbee capture), not to "data". */
    in.secured = wv.security && wv.frame_type == WPAN_FRAME_DATA;
    in.decrypted = in.secured && wpan_payload_dissected(pinfo);
    if (in.secured && !in.decrypted)
        meter_session_note_undecrypted(session, wv.security_level, wv.key_id_mode);
    f = ota_track_frame(tracker, &in);
    if (has_lowpan)
        ota_track_lowpan(tracker, f, &lv);
    return f;
}

/* What the tracker needs to know of a firmware image's size besides what
 * it reads itself (Size2, the MCUboot header): the size the meter's config
 * blob announced for this path. */
static ota_image_hints_t image_hints(meter_session_t *session, packet_info *pinfo, const msg_result_t *r,
                                     const meter_coap_t *m)
{
    ota_track_t *tracker = meter_session_tracker(session);
    ota_image_hints_t h = { r->resource == METER_RES_FIRMWARE, -1 };
    const meter_cfg_firmware_t *fw;

    /* The lookup costs more than the rest of the message: once per transfer. */
    if (!h.image || !r->exchange || ota_track_size_known(tracker, r->transfer_id))
        return h;
    fw = meter_cfg_firmware_for(session, r->exchange->client, pinfo->num);
    if (fw && fw->has_size && fw->path && m->path && strcmp(fw->path, m->path) == 0)
        h.announced_size = fw->size;
    return h;
}

/* The statistics tap gets the transfers a frame belongs to: its CoAP
 * messages', and the transfer of the datagram copy a fragment or retry
 * carries, so that a filter on meter.frag.* selects transfers too. Taps run
 * on every pass (tshark -2 and the GUI's retap call them on later passes
 * only, when every copy is attributed). The list is 0-terminated. */
static void queue_transfers(packet_info *pinfo, const ota_link_view_t *link, const msg_result_t *msg, guint n)
{
    if (!meter_stats_wanted())
        return;
    guint32 link_transfer = link ? link->transfer : 0;
    if (!n && !link_transfer)
        return;     /* a frame of no transfer */
    guint32 *ids = wmem_alloc0_array(pinfo->pool, guint32, MAX_MSGS_PER_FRAME + 2);
    guint k = 0;

    for (guint i = 0; i < n; i++) {
        const ota_copy_result_t *also = second_transfer(&msg[i], pinfo);
        if (msg[i].transfer_id && msg[i].ota && k < MAX_MSGS_PER_FRAME)
            ids[k++] = msg[i].transfer_id;
        if (also && k < MAX_MSGS_PER_FRAME)
            ids[k++] = ota_result_transfer(also);
    }
    guint i = 0;
    while (i < k && ids[i] != link_transfer)
        i++;
    if (link_transfer && i == k)
        ids[k++] = link_transfer;
    if (k)
        meter_stats_queue(pinfo, ids);
}

/* The events tap gets the frame's block-wise results, as they are now. */
static void queue_events(packet_info *pinfo, const msg_result_t *msg, guint n, gint64 now_us)
{
    if (!meter_events_wanted())
        return;
    meter_event_frame_t *f = (meter_event_frame_t *)wmem_alloc0(
        pinfo->pool, sizeof(meter_event_frame_t) + 2 * n * sizeof(meter_event_msg_t));

    f->ts_us = now_us;
    for (guint i = 0; i < n; i++) {
        const ota_copy_result_t *also = second_transfer(&msg[i], pinfo);
        gboolean image = msg[i].resource == METER_RES_FIRMWARE;
        if (msg[i].ota)
            f->msg[f->n++] = (meter_event_msg_t){ msg[i].ota, image };
        if (also)
            f->msg[f->n++] = (meter_event_msg_t){ also, image };
    }
    if (f->n)
        meter_events_queue(pinfo, f);
}

/* An ACK came for a frame read before: its note says so from now on. */
static void note_ack(meter_session_t *session, guint32 acked, guint32 ack_frame)
{
    guint32 kind = 0;
    meter_frame_record_t record;

    if (!meter_session_frame(session, acked, &kind, &record))
        return;
    if (kind == FRAME_LINK_ONLY) {
        record.value = ota_link_note_acked(record.value, acked, ack_frame);
        meter_session_set_frame(session, acked, kind, record);
    } else if (kind == FRAME_MSGS) {
        frame_msgs_t *fm = (frame_msgs_t *)record.ptr;
        fm->link = ota_link_note_acked(fm->link, acked, ack_frame);
    }
}

/* What later passes need of a frame read now: a record, if it has
 * something for them. */
static void keep_record(meter_session_t *session, guint32 num, guint32 acked, ota_link_note_t note,
                        const msg_result_t *msg, guint n)
{
    if (acked)
        note_ack(session, acked, num);
    if (!n) {
        if (note)
            meter_session_set_frame(session, num, FRAME_LINK_ONLY, (meter_frame_record_t){ .value = note });
        return;
    }
    frame_msgs_t *fm = (frame_msgs_t *)wmem_alloc(wmem_file_scope(), sizeof(frame_msgs_t) + n * sizeof(msg_result_t));
    fm->link = note;
    fm->n = n;
    memcpy(fm->msg, msg, n * sizeof(msg_result_t));
    meter_session_set_frame(session, num, FRAME_MSGS, (meter_frame_record_t){ .ptr = fm });
}

/* The tracker's start copy took over (core/ota_track.h): the records of
 * the frames read so far take its exchanges, results and notes. */
static void rebind_record(guint32 num, guint32 kind, meter_frame_record_t *record, void *data)
{
    const ota_track_t *tracker = (const ota_track_t *)data;

    if (kind == FRAME_LINK_ONLY) {
        record->value = ota_track_counterpart_note(tracker, num);
        return;
    }
    frame_msgs_t *fm = (frame_msgs_t *)record->ptr;
    fm->link = ota_track_counterpart_note(tracker, num);
    for (guint i = 0; i < fm->n; i++) {
        fm->msg[i].exchange = (coap_exchange_t *)ota_track_counterpart(tracker, fm->msg[i].exchange);
        fm->msg[i].ota = (ota_copy_result_t *)ota_track_counterpart(tracker, fm->msg[i].ota);
    }
}

/* First pass: the frame's link facts and the CoAP messages CoAP handed on;
 * a record is kept only for a frame that has something for later passes. */
static void first_pass(meter_session_t *session, tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
    ota_track_t *tracker = meter_session_tracker(session);
    frame_scratch_t *fs = scratch(pinfo, FALSE);
    msg_result_t msg[MAX_MSGS_PER_FRAME] = { 0 };
    guint n = 0;
    ota_clock_status_t time_status;
    gint64 now_us = ota_clock_next(meter_session_clock(session), pinfo->num, pinfo->abs_ts.secs,
                                   pinfo->abs_ts.nsecs, &time_status);
    ota_frame_t *link = track_link(session, pinfo, fs && fs->n_coap, now_us,
                                   time_status == OTA_CLOCK_EARLIER || time_status == OTA_CLOCK_OUT_OF_RANGE);
    /* A sniffer's capture merged with the gateway's: transfers are the radio's. */
    gboolean second_copy = meter_vantage_second_copy(session, pinfo);

    for (guint i = 0; fs && i < fs->n_coap && n < MAX_MSGS_PER_FRAME; i++) {
        tvbuff_t *msg_tvb = fs->coap[i];
        tvbuff_t *ds_tvb = tvb_get_ds_tvb(msg_tvb);
        gint start = tvb_raw_offset(msg_tvb) - tvb_raw_offset(ds_tvb), length = (gint)tvb_captured_length(msg_tvb);
        meter_coap_t m;
        /* Read where later passes read it: in its data source. */
        if (!coap_view_parse(ds_tvb, start, length, pinfo->pool, &m))
            continue;
        const char *src = coap_endpoint_key(pinfo->pool, &pinfo->src, pinfo->srcport);
        const char *dst = coap_endpoint_key(pinfo->pool, &pinfo->dst, pinfo->destport);
        msg_result_t *r = &msg[n++];
        resolve_first_pass(pinfo, tracker, &m, src, dst, now_us, r);
        r->ds_index = (guint8)MIN(data_source_index(pinfo, ds_tvb), G_MAXUINT8);
        r->ds_length = tvb_captured_length(ds_tvb);
        r->start = start;
        r->length = length;
        if (r->transfer_id && !second_copy) {
            m.path = msg_path(r);
            ota_image_hints_t hints = image_hints(session, pinfo, r, &m);
            r->ota = ota_track_message(tracker, link, pinfo->num, now_us, src, r->exchange, &m, &hints);
        }
        dissect_message(session, pinfo, tree, ds_tvb, r, &m);
        /* Its copy at the other vantage point: only for a pass that shows it. */
        if (tree || meter_prefs.frame_records)
            meter_vantage_message(session, ds_tvb, r->start, r->length, n - 1, pinfo, tree);
    }
    meter_time_show(tvb, pinfo, tree, meter_session_clock(session));
    ota_link_view_t view;
    if (link) {
        ota_track_frame_view(link, &view);
        meter_ota_show_frame(tvb, pinfo, tree, &view);
    }
    queue_transfers(pinfo, link ? &view : NULL, msg, n);
    queue_events(pinfo, msg, n, link ? ota_frame_time_us(link) : now_us);
    guint32 acked = link ? ota_track_frame_acked(link) : 0;
    ota_link_note_t note = link ? ota_track_frame_done(tracker, link) : 0;
    if (!meter_prefs.frame_records)
        return;
    keep_record(session, pinfo->num, acked, note, msg, n);
    meter_session_frame_read(session);
}

static int dissect_meter_post(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    meter_session_t *session = meter_session_current();

    if (!PINFO_FD_VISITED(pinfo)) {
        first_pass(session, tvb, pinfo, tree);
        return tvb_captured_length(tvb);
    }
    /* A later pass: the whole capture has been read once. Finalize first,
     * so that every copy is attributed before the tap hears of this frame. */
    meter_session_finalize(session);
    meter_time_show(tvb, pinfo, tree, meter_session_clock(session));
    guint32 kind = 0;
    meter_frame_record_t record;
    if (!meter_session_frame(session, pinfo->num, &kind, &record))
        return tvb_captured_length(tvb);
    ota_track_t *tracker = meter_session_tracker(session);
    ota_link_view_t view;
    if (kind == FRAME_LINK_ONLY) {
        ota_track_note_view(tracker, pinfo->num, record.value, &view);
        queue_transfers(pinfo, &view, NULL, 0);
        meter_ota_show_frame(tvb, pinfo, tree, &view);
    }
    if (kind != FRAME_MSGS)
        return tvb_captured_length(tvb);
    frame_msgs_t *fm = (frame_msgs_t *)record.ptr;
    if (fm->link)
        ota_track_note_view(tracker, pinfo->num, fm->link, &view);
    queue_transfers(pinfo, fm->link ? &view : NULL, fm->msg, fm->n);
    if (fm->link)
        meter_ota_show_frame(tvb, pinfo, tree, &view);
    for (guint i = 0; i < fm->n; i++) {
        tvbuff_t *ds = data_source_at(pinfo, fm->msg[i].ds_index, fm->msg[i].ds_length);
        if (ds) {
            dissect_message(session, pinfo, tree, ds, &fm->msg[i], NULL);
            meter_vantage_message(session, ds, fm->msg[i].start, fm->msg[i].length, i, pinfo, tree);
        }
    }
    return tvb_captured_length(tvb);
}

void proto_register_meter(void)
{
    static hf_register_info hf[] = {
        { &hf_meter_resource, { "Resource", "meter.resource", FT_UINT8, BASE_DEC,
          VALS(resource_names), 0x0, "Which of the meter's resources this message belongs to", HFILL } },
        { &hf_meter_path, { "URI path", "meter.path", FT_STRING, BASE_NONE,
          NULL, 0x0, "The resource path (a response: its request's)", HFILL } },
        { &hf_meter_transfer, { "Transfer", "meter.transfer", FT_UINT32, BASE_DEC,
          NULL, 0x0, "Block-wise transfer number in this capture", HFILL } },
        { &hf_meter_request_in, { "Request in", "meter.request_in", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0, "The request this message answers", HFILL } },
        { &hf_meter_response_in, { "Response in", "meter.response_in", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0, "The first response to this request", HFILL } },
    };
    static gint *ett[] = { &ett_meter };

    meter_proto_register();
    proto_coap_hook = proto_register_protocol_in_name_only("CoAP (meterscope)", "CoAP (meterscope)",
                                                           "meter.coap_hook", proto_get_id_by_filter_name("coap"),
                                                           FT_PROTOCOL);
    register_init_routine(follow_coap_ports);
    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));

    meter_prefs_register(meter_module, meter_cfg_keys_register());

    proto_register_meter_cfg();
    proto_register_meter_his();
    proto_register_meter_fw();
    proto_register_meter_ota();
    proto_register_meter_time();
    proto_register_meter_vantage();
    meter_session_register(rebind_record);
    proto_register_meter_stats();
    proto_register_meter_stats_table();
    proto_register_meter_events();
}

/* From 4.4 on, the RF4CE network layer's heuristic on 802.15.4 comes
 * before 6LoWPAN's and takes some decrypted Thread frames (a block-0 GET,
 * say), so transfers lose requests. A meter capture has no RF4CE, so it
 * starts off: enabled and its default both, so that the stock "Enabled
 * Protocols" dialog and --enable-heuristic rf4ce_nwk still turn it back on,
 * and that choice is kept in the profile. 4.0 has no such heuristic. */
void proto_reg_handoff_meter(void)
{
    meter_heuristic_off_by_default("rf4ce_nwk");
    meter_post_handle = create_dissector_handle(dissect_meter_post, proto_meter);
    register_postdissector(meter_post_handle);

    coap_handle = find_dissector_add_dependency("coap", proto_meter);
    coap_hook_handle = create_dissector_handle_with_name_and_description(meter_coap_wrapper, proto_coap_hook,
                                                                         "coap_meterscope", "CoAP (meterscope)");
    /* CoAP's default port, registered here so that it is not a change
     * Decode As would list; other ports follow when a file is opened. */
    dissector_add_uint("udp.port", 5683, coap_hook_handle);
    udp_port_table = find_dissector_table("udp.port");
    proto_wpan = proto_get_id_by_filter_name("wpan");
    proto_data = proto_get_id_by_filter_name("data");
    proto_6lowpan = meter_proto_id("6lowpan");
    proto_reg_handoff_meter_fw();
}
