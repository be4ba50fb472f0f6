/* packet-meter.c: the "meter" protocol and its hook into CoAP.
 *
 * A postdissector: after the stock dissectors have run (802.15.4, ZEP, TAP,
 * 6LoWPAN reassembly, MAC decryption, IPv6/UDP, CoAP), it takes every CoAP
 * message of the frame (noted by a handle on UDP 5683 that calls stock
 * CoAP) and the frame's link facts (read from the record), recognises the
 * meter's resources by URI path (a response by its request's path),
 * numbers block-wise transfers, feeds the session tracker, and hands
 * payloads to the decoders (packet-meter-cfg.c, -his.c, -fw.c). It never
 * changes how other traffic is decoded, and it never asks for a protocol
 * tree, so tshark builds none on its account.
 *
 * Requests and responses are matched by Message ID between the same
 * endpoints (piggy-backed responses and empty ACKs) and by token (separate
 * responses), so OpenThread's tokenless follow-up blocks are matched too.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/to_str.h>
#include "ws_compat.h"
#include "packet-meter.h"
#include "wpan_view.h"
#include "packet-meter-ota.h"
#include "packet-meter-stats.h"
#include "coap_view.h"
#include "key_text.h"
#include "lowpan_view.h"
#include "meter-cfg.h"

void proto_register_meter(void);
void proto_reg_handoff_meter(void);

int proto_meter = -1;
module_t *meter_module = NULL;

static int proto_coap = -1;
static dissector_handle_t meter_post_handle;

static int hf_meter_resource = -1;
static int hf_meter_path = -1;
static int hf_meter_transfer = -1;
static int hf_meter_request_in = -1;
static int hf_meter_response_in = -1;
static gint ett_meter = -1;

static const char *pref_path_config = "meter/cfg";
static const char *pref_path_history = "meter/his";
static const char *pref_path_firmware = "firmware/";
/* Off, the CoAP messages are followed but not decoded for display: for a
 * run that only wants the statistics (the analyser), it spares stock CoAP's
 * block reassembly, whose cost grows with the square of the blocks. */
static meter_pref_bool_t pref_coap_decode = TRUE;

static const value_string resource_names[] = {
    { METER_RES_OTHER, "other" },
    { METER_RES_CONFIG, "configuration" },
    { METER_RES_HISTORY, "history upload" },
    { METER_RES_FIRMWARE, "firmware download" },
    { 0, NULL },
};

/* ---- first-pass state: requests by MID and token, transfers by resource ---- */

typedef struct {
    const char *path;
    guint32 frame;          /* the first frame the request was seen in */
    gint64  first_us;       /* ... and when: its MID is in use for an exchange lifetime */
    guint8  type;
    meter_coap_identity_t id;   /* with its MID, what tells it from another request */
    guint32 response_frame; /* the first response to it */
    guint32 transfer_id;
    address client, server;
} request_rec_t;

typedef struct {
    guint32  id;
    gint64   last_request_us;
    guint16  block0_mid;    /* the Message ID of its block-0 request */
    guint8   block0_szx;
    gboolean progressed;    /* a request for a later block was seen */
    gboolean completed;     /* the last block was answered */
} transfer_state_t;

/* What one CoAP message of one frame resolved to, kept for later passes,
 * with where its bytes are: later passes (tshark -2, the GUI) find the
 * message again in the frame's data sources. */
typedef struct {
    meter_resource_t resource;
    const char *path;
    guint32 transfer_id;
    request_rec_t *request;   /* the request (its own record for a request) */
    gboolean is_client_side;
    guint ds_index;           /* data source: its place in pinfo->data_src ... */
    guint ds_length;          /* ... and its length, to be sure */
    gint start, length;       /* the CoAP message within it */
    ota_copy_result_t *ota;   /* its place in its block-wise transfer */
} msg_result_t;

#define MAX_MSGS_PER_FRAME 16

typedef struct {
    guint n;
    msg_result_t **msg;       /* MAX_MSGS_PER_FRAME, allocated with the first message */
    ota_frame_t *link;        /* link-layer and fragment accounting */
} frame_msgs_t;

static wmem_map_t *requests_by_mid;    /* "client|server|mid" */
static wmem_map_t *requests_by_token;  /* "client|server|t<hex>" */
static wmem_map_t *transfers;          /* "client|server|path" */
static guint32 next_transfer_id;

/* Per-frame records by frame number: cheaper than per-packet proto data,
 * which the plugin would add to every frame of the capture. */
static GPtrArray *frame_records;

static frame_msgs_t *frame_record(guint32 num)
{
    return frame_records && num < frame_records->len ? (frame_msgs_t *)g_ptr_array_index(frame_records, num) : NULL;
}

static void frame_record_set(guint32 num, frame_msgs_t *fm)
{
    if (num >= frame_records->len)
        g_ptr_array_set_size(frame_records, MAX(num + 1, frame_records->len * 2));
    g_ptr_array_index(frame_records, num) = fm;
}

static void meter_cleanup(void)
{
    if (frame_records)
        g_ptr_array_free(frame_records, TRUE);
    frame_records = NULL;
}

static void meter_init(void)
{
    meter_cleanup();
    frame_records = g_ptr_array_new();
    next_transfer_id = 0;
}

/* An endpoint as a compact exact key: address type, raw bytes in hex, port.
 * (Cheaper than address_to_str: this runs for every CoAP message.) */
static const char *endpoint_str(wmem_allocator_t *scope, const address *a, guint32 port)
{
    static const char hex[] = "0123456789abcdef";
    const guint8 *d = (const guint8 *)a->data;
    gint len = MIN(a->len, 64);
    char *s = (char *)wmem_alloc(scope, 2 * len + 16);
    char *p = s;

    *p++ = (char)('A' + a->type % 26);
    for (gint i = 0; i < len; i++) {
        *p++ = hex[d[i] >> 4];
        *p++ = hex[d[i] & 15];
    }
    *p++ = '#';
    for (gint shift = 28; shift >= 0; shift -= 4)
        if ((port >> shift) || !shift)
            *p++ = hex[(port >> shift) & 15];
    *p = '\0';
    return s;
}

/* Lookup keys live in the packet pool; a key is copied to the file scope
 * only when it is inserted. */
static char *mid_key(wmem_allocator_t *scope, const char *client, const char *server, guint16 mid)
{
    char buf[KEY_TEXT_MAX];
    guint32 n = mid;

    return wmem_strdup(scope, key_text(buf, client, server, &n, 1));
}

static char *file_key(const char *key)
{
    return wmem_strdup(wmem_file_scope(), key);
}

static char *token_key(wmem_allocator_t *scope, const meter_coap_t *m, const char *client,
                       const char *server)
{
    char buf[KEY_TEXT_MAX];
    /* The token as three numbers: its length and its 8 bytes (zero-padded). */
    guint32 nums[3] = { 0x100u | m->tkl, 0, 0 };

    for (guint i = 0; i < m->tkl && i < 8; i++)
        nums[1 + i / 4] |= (guint32)m->token[i] << (8 * (3 - i % 4));
    return wmem_strdup(scope, key_text(buf, client, server, nums, 3));
}

static meter_resource_t classify(const char *path)
{
    if (!path)
        return METER_RES_OTHER;
    if (pref_path_config && *pref_path_config && strcmp(path, pref_path_config) == 0)
        return METER_RES_CONFIG;
    if (pref_path_history && *pref_path_history && strcmp(path, pref_path_history) == 0)
        return METER_RES_HISTORY;
    if (pref_path_firmware && *pref_path_firmware && g_str_has_prefix(path, pref_path_firmware))
        return METER_RES_FIRMWARE;
    return METER_RES_OTHER;
}

/* The transfer definition (docs/ground-truth.md): a block-0 request with a
 * new Message ID starts a new transfer once the current one completed, went
 * past block 0, asked block 0 with another SZX, or asked nothing for longer
 * than an exchange lifetime (the meter gave it up: its MIDs are free again);
 * otherwise it re-requests block 0 of the current transfer. */
static guint32 transfer_for_request(wmem_allocator_t *scope, const meter_coap_t *m, const char *client,
                                    const char *server, gint64 now)
{
    const meter_block_t *b = m->block2.present ? &m->block2 : &m->block1;
    char *key = wmem_strdup_printf(scope, "%s|%s|%s", client, server, m->path);
    transfer_state_t *t = (transfer_state_t *)wmem_map_lookup(transfers, key);
    guint32 num = b->present ? b->num : 0;
    guint8 szx = b->present ? b->szx : 6;

    if (num == 0) {
        gboolean fresh = !t || t->completed || t->progressed || t->block0_szx != szx ||
                         now - t->last_request_us > COAP_EXCHANGE_LIFETIME_US;
        if (fresh) {
            t = wmem_new0(wmem_file_scope(), transfer_state_t);
            t->id = ++next_transfer_id;
            t->block0_mid = m->mid;
            t->block0_szx = szx;
            wmem_map_insert(transfers, file_key(key), t);
        }
        t->last_request_us = now;
        return t->id;
    }
    if (!t) {
        /* The capture started mid-transfer. */
        t = wmem_new0(wmem_file_scope(), transfer_state_t);
        t->id = ++next_transfer_id;
        t->block0_szx = szx;
        wmem_map_insert(transfers, file_key(key), t);
    }
    t->progressed = TRUE;
    t->last_request_us = now;
    return t->id;
}

/* Every block-wise transfer is followed, on any path. */
static gboolean is_block_wise(const meter_coap_t *m)
{
    return m->block1.present || m->block2.present;
}

static gint64 ts_us(const packet_info *pinfo)
{
    return (gint64)pinfo->abs_ts.secs * 1000000 + pinfo->abs_ts.nsecs / 1000;
}

/* src and dst are the message's endpoints as endpoint_str() gives them. */
static msg_result_t *resolve_first_pass(packet_info *pinfo, const meter_coap_t *m, const char *src,
                                        const char *dst)
{
    msg_result_t *r = wmem_new0(wmem_file_scope(), msg_result_t);
    gint64 now = ts_us(pinfo);

    if (meter_coap_is_request(m)) {
        char *k = mid_key(pinfo->pool, src, dst, m->mid);
        request_rec_t *req = (request_rec_t *)wmem_map_lookup(requests_by_mid, k);
        meter_coap_identity_t id = meter_coap_identity(m);
        if (req && (!meter_coap_mid_in_use(req->type, req->first_us, now) || !meter_coap_same_identity(&req->id, &id)))
            req = NULL;
        if (!req) {
            req = wmem_new0(wmem_file_scope(), request_rec_t);
            req->path = m->path ? wmem_strdup(wmem_file_scope(), m->path) : NULL;
            req->frame = pinfo->num;
            req->first_us = now;
            req->type = m->type;
            req->id = id;
            copy_address_wmem(wmem_file_scope(), &req->client, &pinfo->src);
            copy_address_wmem(wmem_file_scope(), &req->server, &pinfo->dst);
            r->resource = classify(req->path);
            if (req->path && is_block_wise(m))
                req->transfer_id = transfer_for_request(pinfo->pool, m, src, dst, now);
            wmem_map_insert(requests_by_mid, file_key(k), req);
            wmem_map_insert(requests_by_token, file_key(token_key(pinfo->pool, m, src, dst)), req);
        }
        r->request = req;
        r->is_client_side = TRUE;
    } else {
        /* A response (or empty ACK) travels server -> client. */
        request_rec_t *req = NULL;
        if (m->type == 2 || m->type == 3)
            req = (request_rec_t *)wmem_map_lookup(requests_by_mid, mid_key(pinfo->pool, dst, src, m->mid));
        if (req && !meter_coap_mid_in_use(req->type, req->first_us, now))
            req = NULL;
        if (!req && m->code != 0) {
            req = (request_rec_t *)wmem_map_lookup(requests_by_token, token_key(pinfo->pool, m, dst, src));
            /* A token names one exchange too, within its lifetime. */
            if (req && !meter_coap_mid_in_use(0, req->first_us, now))
                req = NULL;
        }
        if (req && m->code != 0) {
            if (!req->response_frame)
                req->response_frame = pinfo->num;
            /* A separate response is a CON of the server's: the client's empty
             * ACK to it (same MID, reversed) belongs to the same exchange. */
            if (m->type == 0)
                wmem_map_insert(requests_by_mid, file_key(mid_key(pinfo->pool, src, dst, m->mid)), req);
            /* A GET without Block2 answered with Block2 (RFC 7959 2.4) is block 0. */
            if (!req->transfer_id && req->path && m->block2.present && m->block2.num == 0) {
                meter_coap_t as_block0 = *m;
                as_block0.path = req->path;
                as_block0.block1.present = FALSE;
                req->transfer_id = transfer_for_request(pinfo->pool, &as_block0, dst, src, now);
            }
            if (req->transfer_id && m->code >= 64 && m->code < 96) {
                const meter_block_t *b = m->block2.present ? &m->block2 : &m->block1;
                gboolean last = b->present ? !b->more : TRUE;
                if (last) {
                    char *key = wmem_strdup_printf(pinfo->pool, "%s|%s|%s", dst, src, req->path);
                    transfer_state_t *t = (transfer_state_t *)wmem_map_lookup(transfers, key);
                    if (t && t->id == req->transfer_id)
                        t->completed = TRUE;
                }
            }
        }
        r->request = req;
    }
    if (r->request) {
        r->path = r->request->path;
        r->resource = classify(r->path);
        r->transfer_id = r->request->transfer_id;
    }
    return r;
}

static void add_meter_items(proto_tree *tree, tvbuff_t *tvb, gint start, gint length,
                            const msg_result_t *r, proto_tree **subtree, packet_info *pinfo)
{
    proto_item *ti = proto_tree_add_item(tree, proto_meter, tvb, start, length, ENC_NA);
    proto_item *pi;

    *subtree = proto_item_add_subtree(ti, ett_meter);
    proto_item_append_text(ti, ", %s /%s", val_to_str_const(r->resource, resource_names, "?"),
                           r->path ? r->path : "");
    pi = proto_tree_add_uint(*subtree, hf_meter_resource, tvb, start, 0, r->resource);
    proto_item_set_generated(pi);
    if (r->path) {
        pi = proto_tree_add_string(*subtree, hf_meter_path, tvb, start, 0, r->path);
        proto_item_set_generated(pi);
    }
    if (r->transfer_id) {
        pi = proto_tree_add_uint(*subtree, hf_meter_transfer, tvb, start, 0, r->transfer_id);
        proto_item_set_generated(pi);
    }
    if (r->request && r->request->frame != pinfo->num) {
        pi = proto_tree_add_uint(*subtree, hf_meter_request_in, tvb, start, 0, r->request->frame);
        proto_item_set_generated(pi);
    }
    if (r->request && r->is_client_side && r->request->response_frame) {
        pi = proto_tree_add_uint(*subtree, hf_meter_response_in, tvb, start, 0, r->request->response_frame);
        proto_item_set_generated(pi);
    }
}

static void dissect_message(packet_info *pinfo, proto_tree *tree, tvbuff_t *ds_tvb,
                            const msg_result_t *r)
{
    meter_coap_t m;
    proto_tree *mtree = NULL;

    if ((r->resource == METER_RES_OTHER && !r->transfer_id) ||
        !coap_view_parse(ds_tvb, r->start, r->length, pinfo->pool, &m))
        return;
    m.path = r->path;
    add_meter_items(tree, ds_tvb, r->start, r->length, r, &mtree, pinfo);
    if (r->ota)
        meter_ota_show_message(ds_tvb, pinfo, tree, mtree, r->ota, &m, r->transfer_id);

    meter_ctx_t ctx = {
        .msg = &m,
        .resource = r->resource,
        .meter = r->request ? &r->request->client : &pinfo->src,
        .gateway = r->request ? &r->request->server : &pinfo->dst,
        .transfer_id = r->transfer_id,
        .request_frame = r->request ? r->request->frame : 0,
    };
    if (!m.payload)
        return;
    switch (r->resource) {
    case METER_RES_CONFIG:
        if (!meter_coap_is_request(&m) && m.code >= 64 && m.code < 96)
            dissect_meter_cfg(m.payload, pinfo, mtree, &ctx);
        break;
    case METER_RES_HISTORY:
        if (meter_coap_is_request(&m))
            dissect_meter_his(m.payload, pinfo, mtree, &ctx);
        break;
    case METER_RES_FIRMWARE:
        if (!meter_coap_is_request(&m) && m.code != 0)
            dissect_meter_fw(m.payload, pinfo, mtree, &ctx);
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

#define SCRATCH_KEY 1

static frame_scratch_t *scratch(packet_info *pinfo, gboolean create)
{
    frame_scratch_t *fs = (frame_scratch_t *)p_get_proto_data(pinfo->pool, pinfo, proto_meter, SCRATCH_KEY);

    if (!fs && create) {
        fs = wmem_new0(pinfo->pool, frame_scratch_t);
        p_add_proto_data(pinfo->pool, pinfo, proto_meter, SCRATCH_KEY, fs);
    }
    return fs;
}

/* CoAP on UDP 5683 goes through here: stock CoAP does all the dissecting,
 * and the message is noted for the postdissector. The handle belongs to
 * CoAP's protocol, so disabling Meter never disables CoAP. */
static dissector_handle_t coap_handle;

static int meter_coap_wrapper(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    /* Noted first: a payload dissector under CoAP may throw. */
    if (!PINFO_FD_VISITED(pinfo)) {
        frame_scratch_t *fs = scratch(pinfo, TRUE);
        if (fs->n_coap < MAX_MSGS_PER_FRAME)
            fs->coap[fs->n_coap++] = tvb;
    }
    if (!pref_coap_decode)
        return tvb_captured_length(tvb);
    return call_dissector_only(coap_handle, tvb, pinfo, tree, data);
}

/* The frame's 802.15.4 and 6LoWPAN facts, for retries, ACKs and fragments,
 * read from the captured bytes (and, for a secured frame, from the payload
 * the 802.15.4 dissector decrypted). */
static ota_frame_t *track_link(packet_info *pinfo, gboolean has_coap)
{
    tvbuff_t *frame = pinfo->data_src ? get_data_source_tvb((struct data_source *)pinfo->data_src->data) : NULL;
    gboolean has_fcs = FALSE;
    tvbuff_t *psdu = frame && pinfo->rec ? wpan_view_psdu(frame, pinfo->rec->rec_header.packet_header.pkt_encap,
                                                          &has_fcs) : NULL;
    ota_link_in_t in = { .frame = pinfo->num, .ts_us = ts_us(pinfo) };
    wpan_view_t wv;
    ota_frame_t *f;

    if (!psdu || !wpan_view_parse(psdu, has_fcs, &wv))
        /* No 802.15.4 (the gateway's Ethernet): the messages still need a frame. */
        return has_coap ? ota_track_frame(meter_ota_tracker(), &in) : NULL;
    in.has_wpan = TRUE;
    /* 250 kbit/s: 32 us a byte, with the 6-byte PHY header and the FCS
     * (a record without the FCS still had one on the air). */
    in.air_us = (tvb_reported_length(psdu) + (has_fcs ? 0 : 2) + 6) * 32;
    in.frame_type = wv.frame_type;
    in.seq = wv.seq;
    in.ack_request = wv.ack_request;
    in.src = wv.src;
    in.dst = wv.dst;
    tvbuff_t *payload = NULL;
    if (wv.frame_type == 1)
        payload = wv.security ? meter_data_source_tvb(pinfo, "Decrypted IEEE 802.15.4 payload")
                              : tvb_new_subset_length(psdu, wv.payload_offset, wv.payload_end - wv.payload_offset);
    lowpan_view_t lv;
    gboolean has_lowpan = payload && lowpan_view_parse(payload, 0, (gint)tvb_captured_length(payload), &lv);
    /* Secured data frames tell whether the key worked: the 802.15.4
     * dissector hands on a payload even when the MIC fails, so only one that
     * reads as 6LoWPAN counts as decrypted. */
    in.secured = wv.security && wv.frame_type == 1;
    in.decrypted = in.secured && has_lowpan;
    f = ota_track_frame(meter_ota_tracker(), &in);
    if (has_lowpan)
        ota_track_lowpan(meter_ota_tracker(), f, &lv);
    return f;
}

/* The image size for "percent": the config blob's, else Size2 (the tracker
 * reads it), else the MCUboot header's header + body. */
static void size_hint(packet_info *pinfo, const meter_coap_t *m, const meter_ctx_t *ctx)
{
    const meter_cfg_firmware_t *fw;

    ota_transfer_t *x = ota_track_transfer(meter_ota_tracker(), ctx->transfer_id);

    if (ctx->resource != METER_RES_FIRMWARE || !x || x->size_hint >= 0)
        return;
    fw = meter_cfg_firmware_for(ctx->meter, pinfo->num);
    if (fw && fw->has_size && fw->path && m->path && strcmp(fw->path, m->path) == 0)
        ota_track_set_size_hint(meter_ota_tracker(), ctx->transfer_id, fw->size);
    if (m->payload && m->block2.present && m->block2.num == 0 && m->code == 69 &&
        tvb_captured_length(m->payload) >= 16 && tvb_get_letohl(m->payload, 0) == 0x96f3b83d)
        ota_track_set_size_hint(meter_ota_tracker(), ctx->transfer_id,
                                tvb_get_letohs(m->payload, 8) + (gint64)tvb_get_letohl(m->payload, 12));
}

/* First pass: the frame's link facts and the CoAP messages CoAP handed on. */
static void first_pass(packet_info *pinfo, proto_tree *tree)
{
    frame_scratch_t *fs = scratch(pinfo, FALSE);
    frame_msgs_t *fm = wmem_new0(wmem_file_scope(), frame_msgs_t);

    frame_record_set(pinfo->num, fm);
    fm->link = track_link(pinfo, fs && fs->n_coap);
    for (guint i = 0; fs && i < fs->n_coap && fm->n < MAX_MSGS_PER_FRAME; i++) {
        tvbuff_t *msg_tvb = fs->coap[i];
        tvbuff_t *ds_tvb = tvb_get_ds_tvb(msg_tvb);
        meter_coap_t m;
        if (!coap_view_parse(msg_tvb, 0, (gint)tvb_captured_length(msg_tvb), pinfo->pool, &m))
            continue;
        const char *src = endpoint_str(pinfo->pool, &pinfo->src, pinfo->srcport);
        const char *dst = endpoint_str(pinfo->pool, &pinfo->dst, pinfo->destport);
        msg_result_t *r = resolve_first_pass(pinfo, &m, src, dst);
        if (!fm->msg) {
            fm->msg = wmem_alloc0_array(wmem_file_scope(), msg_result_t *, MAX_MSGS_PER_FRAME);
        }
        r->ds_index = data_source_index(pinfo, ds_tvb);
        r->ds_length = tvb_captured_length(ds_tvb);
        r->start = tvb_raw_offset(msg_tvb) - tvb_raw_offset(ds_tvb);
        r->length = (gint)tvb_captured_length(msg_tvb);
        if (r->transfer_id) {
            meter_ctx_t ctx = {
                .msg = &m, .resource = r->resource,
                .meter = r->request ? &r->request->client : &pinfo->src,
                .gateway = r->request ? &r->request->server : &pinfo->dst,
                .transfer_id = r->transfer_id,
                .request_frame = r->request ? r->request->frame : 0,
            };
            m.path = r->path;
            ota_exchange_t ex = { ctx.transfer_id, ctx.meter, ctx.gateway, ctx.request_frame };
            r->ota = ota_track_message(meter_ota_tracker(), fm->link, pinfo->num, ts_us(pinfo), src, dst,
                                       &m, &ex);
            size_hint(pinfo, &m, &ctx);
        }
        fm->msg[fm->n++] = r;
        dissect_message(pinfo, tree, ds_tvb, r);
    }
}

/* The statistics tap gets the transfers a frame belongs to: its CoAP
 * messages', and the transfer of the datagram copy a fragment or retry
 * carries, so that a filter on meter.frag.* selects transfers too. Taps run
 * on every pass (tshark -2 and the GUI's retap call them on later passes
 * only, when every copy is attributed). The list is 0-terminated. */
static void queue_transfers(packet_info *pinfo, frame_msgs_t *fm)
{
    if (!meter_stats_wanted())
        return;
    guint32 link_transfer = fm->link ? ota_track_frame_transfer(fm->link) : 0;
    if (!fm->n && !link_transfer)
        return;     /* a frame of no transfer */
    guint32 *ids = wmem_alloc0_array(pinfo->pool, guint32, MAX_MSGS_PER_FRAME + 2);
    guint k = 0;

    for (guint i = 0; i < fm->n; i++)
        if (fm->msg[i]->transfer_id && fm->msg[i]->ota)
            ids[k++] = fm->msg[i]->transfer_id;
    guint i = 0;
    while (i < k && ids[i] != link_transfer)
        i++;
    if (link_transfer && i == k)
        ids[k++] = link_transfer;
    if (k)
        meter_stats_queue(pinfo, ids);
}

static int dissect_meter_post(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    frame_msgs_t *fm = frame_record(pinfo->num);

    if (!fm) {
        if (!PINFO_FD_VISITED(pinfo)) {
            first_pass(pinfo, tree);
            fm = frame_record(pinfo->num);
            if (fm->link)
                meter_ota_show_frame(tvb, pinfo, tree, fm->link);
            queue_transfers(pinfo, fm);
        }
        return tvb_captured_length(tvb);
    }
    /* A later pass: the whole capture has been read once. Finalize first,
     * so that every copy is attributed before the tap hears of this frame. */
    ota_track_finalize(meter_ota_tracker(), meter_ota_stall_seconds());
    queue_transfers(pinfo, fm);
    if (fm->link)
        meter_ota_show_frame(tvb, pinfo, tree, fm->link);
    for (guint i = 0; i < fm->n; i++) {
        tvbuff_t *ds = data_source_at(pinfo, fm->msg[i]->ds_index, fm->msg[i]->ds_length);
        if (ds)
            dissect_message(pinfo, tree, ds, fm->msg[i]);
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

    proto_meter = proto_register_protocol("Metering device CoAP interface (meterscope)",
                                          "Meter", "meter");
    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));

    meter_module = prefs_register_protocol(proto_meter, NULL);
    prefs_register_bool_preference(meter_module, "coap_decode", "Decode CoAP for display",
        "Let stock CoAP decode the messages on UDP 5683 for display (off: the meter hook still "
        "follows them and the statistics are the same, in less time; the analyser turns it off)",
        &pref_coap_decode);
    prefs_register_string_preference(meter_module, "path.config", "Config path",
        "URI path of the configuration resource (no leading slash)", &pref_path_config);
    prefs_register_string_preference(meter_module, "path.history", "History path",
        "URI path the meter POSTs its SenML history to", &pref_path_history);
    prefs_register_string_preference(meter_module, "path.firmware", "Firmware path prefix",
        "URI paths starting with this are firmware images", &pref_path_firmware);

    requests_by_mid = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
    requests_by_token = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
    transfers = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
    register_init_routine(meter_init);
    register_cleanup_routine(meter_cleanup);

    proto_register_meter_cfg();
    proto_register_meter_his();
    proto_register_meter_fw();
    proto_register_meter_ota();
    proto_register_meter_stats();
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
    proto_coap = proto_get_id_by_filter_name("coap");
    meter_post_handle = create_dissector_handle(dissect_meter_post, proto_meter);
    register_postdissector(meter_post_handle);

    coap_handle = find_dissector_add_dependency("coap", proto_meter);
    dissector_add_uint("udp.port", 5683,
                       create_dissector_handle_with_name_and_description(meter_coap_wrapper, proto_coap,
                                                                         "coap_meterscope", "CoAP (meterscope)"));
    proto_reg_handoff_meter_fw();
}
