/* ota_track_rounds.c: the tracker's CoAP messages (ota_track_state.h):
 * each message of a transfer, its rounds (a transmission forwarded hop by
 * hop) and what each copy shows as it is read: repeats and their causes,
 * round trips, turn-arounds, stalls, block sizes, the image's size.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/to_str.h>
#include "ota_track_state.h"

#define SILENCE_MIN_US   G_GINT64_CONSTANT(1000000)   /* shorter gaps are never stalls */

/* Transfer id of exchange ex, an upload (Block1) or a download. */
static ota_transfer_t *get_transfer(ota_track_t *t, const coap_exchange_t *ex, guint32 id, gboolean upload,
                                    const meter_coap_t *m)
{
    ota_transfer_t *x = (ota_transfer_t *)wmem_map_lookup(t->xfers, GUINT_TO_POINTER(id));

    if (x)
        return x;
    x = wmem_new0(t->scope, ota_transfer_t);
    x->id = id;
    x->meter = address_to_str(t->scope, ex->client);
    x->gateway = address_to_str(t->scope, ex->server);
    x->path = wmem_strdup(t->scope, m->path ? m->path : "");
    x->upload = upload;
    x->szx_first = x->szx = upload ? m->block1.szx : m->block2.szx;
    x->size_hint = -1;
    x->last_response_us = -1;
    x->first_us = -1;
    x->last_us = -1;
    x->msgs = wmem_array_new(t->scope, sizeof(ota_msg_t *));
    x->request_at = wmem_map_new(t->scope, g_direct_hash, g_direct_equal);
    x->silences = wmem_array_new(t->scope, 2 * sizeof(gint64));
    wmem_map_insert(t->xfers, GUINT_TO_POINTER(x->id), x);
    /* Keep the list in id order (ids grow, so appending keeps it sorted). */
    x->slot = wmem_array_get_count(t->xfer_list);
    wmem_array_append_one(t->xfer_list, x);
    return x;
}

static void fill_block(ota_msg_t *msg, const meter_coap_t *m, gboolean upload)
{
    const meter_block_t *b = upload ? &m->block1 : &m->block2;
    guint plen = m->payload ? tvb_reported_length(m->payload) : 0;

    msg->has_block = b->present;
    msg->szx = b->szx;
    msg->more = b->more;
    msg->offset = b->present ? b->num * meter_block_size(b->szx) : 0;
    /* The payload is the block for a download response or an upload request. */
    msg->len = (upload == meter_coap_is_request(m)) ? plen : 0;
}

/* The latest earlier request for the block at offset (not msg itself). */
static ota_msg_t *earlier_request_for_block(ota_transfer_t *x, const ota_msg_t *msg)
{
    ota_msg_t *o = (ota_msg_t *)wmem_map_lookup(x->request_at, GUINT_TO_POINTER(msg->offset + 1));
    return o == msg ? NULL : o;
}

coap_exchange_t *ota_exchange_in(ota_track_t *t, const meter_coap_t *m, const char *src, const char *dst,
                                    const address *src_addr, const address *dst_addr, guint32 frame,
                                    gint64 ts_us, wmem_allocator_t *tmp)
{
    return coap_exchange_for(t->exchanges, m, src, dst, src_addr, dst_addr, frame, ts_us, tmp);
}

static const ota_round_t *first_round(const ota_msg_t *msg)
{
    return msg->rounds.n ? &msg->rounds.at[0] : NULL;
}

/* The exchange's message that m is a copy of: the same direction, Message
 * ID, type and code, block and token, within the MID's lifetime; NULL for a
 * new message. The request comes first in the list. */
static ota_msg_t *exchange_msg(const coap_exchange_t *ex, const ota_transfer_t *x, gboolean from_client,
                               const meter_coap_t *m, const meter_coap_identity_t *id, gint64 ts_us)
{
    for (guint i = ex->msgs.n; i > 0; i--) {
        ota_msg_t *msg = ex->msgs.at[i - 1];
        const ota_round_t *r0 = first_round(msg);
        if (msg->xfer == x && msg->from_client == from_client && msg->mid == m->mid && msg->type == m->type &&
            msg->code == m->code)
            return r0 && (!meter_coap_mid_in_use(msg->type, r0->first_us, ts_us) ||
                          !meter_coap_same_identity(&msg->id, id)) ? NULL : msg;
    }
    return NULL;
}

static ota_msg_t *exchange_request(const coap_exchange_t *ex, const ota_transfer_t *x)
{
    for (guint i = 0; i < ex->msgs.n; i++) {
        ota_msg_t *msg = ex->msgs.at[i];
        if (msg->is_request && msg->xfer == x)
            return msg;
    }
    return NULL;
}

/* Messages of one MID are kept in the order they began (first_msg_from). */
static void index_by_mid(ota_track_t *t, ota_msg_t *msg)
{
    ota_msg_list_t *same = (ota_msg_list_t *)wmem_map_lookup(t->msgs_by_mid, GUINT_TO_POINTER(msg->mid));

    if (!same) {
        same = wmem_new0(t->scope, ota_msg_list_t);
        wmem_map_insert(t->msgs_by_mid, GUINT_TO_POINTER(msg->mid), same);
    }
    list_append(t->scope, (void **)&same->at, &same->n, &same->cap, &msg, sizeof msg);
    for (guint i = same->n - 1; i > 0 && same->at[i - 1]->rounds.n && msg->rounds.n &&
                                same->at[i - 1]->rounds.at[0].first_us > msg->rounds.at[0].first_us; i--) {
        same->at[i] = same->at[i - 1];
        same->at[i - 1] = msg;
    }
}

/* The request of a response whose transfer began with it (its answer
 * carries block 0) although the request was not read as part of it: a
 * request without Block2 (late negotiation, RFC 7959 2.4) or an upload's
 * (3.3). It becomes the transfer's first request, from what its exchange
 * kept: its first copy, as one round (copies and retransmissions of it
 * before its answer are not told apart). */
static ota_msg_t *join_request(ota_track_t *t, ota_transfer_t *x, coap_exchange_t *ex, gint64 now)
{
    ota_msg_t *req = wmem_new0(t->scope, ota_msg_t);
    ota_copy_result_t *r = wmem_new0(t->scope, ota_copy_result_t);
    ota_round_t r0 = { .first_frame = ex->frame, .last_frame = ex->frame, .first_us = ex->first_us,
                       .last_us = ex->first_us, .start_us = ex->first_us, .result = r };

    req->xfer = x;
    req->is_request = req->from_client = req->joined_late = TRUE;
    req->type = ex->type;
    req->code = ex->code;
    req->mid = ex->mid;
    req->id = ex->id;
    req->not_before = x->last_us >= 0 ? x->last_us : 0;
    list_append(t->scope, (void **)&req->rounds.at, &req->rounds.n, &req->rounds.cap, &r0, sizeof r0);
    r->msg = req;
    r->round = 1;
    r->rtt_first_us = r->rtt_last_us = r->turnaround_us = r->size_hint = -1;
    list_append(t->scope, (void **)&ex->msgs.at, &ex->msgs.n, &ex->msgs.cap, &req, sizeof req);
    wmem_array_append_one(x->msgs, req);
    index_by_mid(t, req);
    wmem_map_insert(x->request_at, GUINT_TO_POINTER(1), req);
    if (x->first_us < 0 || ex->first_us < x->first_us) {
        x->first_us = ex->first_us;
        x->first_frame = ex->frame;
    }
    x->last_us = MAX(x->last_us, ex->first_us);
    x->last_frame = MAX(x->last_frame, ex->frame);
    ota_attribute_copies(t, req, now);
    return req;
}

const ota_copy_result_t *ota_track_joined_request(const coap_exchange_t *ex, guint32 frame)
{
    for (guint i = 0; ex && i < ex->msgs.n; i++) {
        const ota_msg_t *msg = ex->msgs.at[i];
        if (msg->joined_late && msg->rounds.at[0].first_frame == frame)
            return msg->rounds.at[0].result;
    }
    return NULL;
}

const ota_copy_result_t *ota_result_also(const ota_copy_result_t *r)
{
    return r->also;
}

guint32 ota_result_transfer(const ota_copy_result_t *r)
{
    return r->msg->xfer->id;
}

/* A success that ends its transfer: the last block of a download, the
 * answer to an upload's last block. */
static gboolean msg_final(const ota_msg_t *msg)
{
    if (msg->is_request || !msg->request || !coap_code_is_success(msg->code))
        return FALSE;
    return msg->xfer->upload ? !msg->request->more : (!msg->has_block || !msg->more);
}

void ota_result_view(const ota_copy_result_t *r, ota_msg_view_t *v)
{
    const ota_msg_t *msg = r->msg;
    const ota_transfer_t *x = msg->xfer;

    *v = (ota_msg_view_t){
        .transfer = x->id,
        .transfer_first_frame = x->first_frame,
        .meter = x->meter,
        .path = x->path,
        .upload = x->upload,
        .szx = x->szx,
        .verified = x->image_verified,
        .complete = x->rec.complete,
        .last_frame = x->rec.last_frame,
        .is_request = msg->is_request,
        .code = msg->code,
        .offset = msg->offset,
        .final = msg_final(msg),
        .asked_szx0 = msg->request && msg->request->has_block && msg->request->szx == 0,
        .round_first_frame = r->round >= 1 && r->round <= msg->rounds.n ? msg->rounds.at[r->round - 1].first_frame : 0,
        .round = r->round,
        .prev_tx_frame = r->prev_tx_frame,
        .bytes_so_far = r->bytes_so_far,
        .elapsed_us = r->elapsed_us,
        .rtt_first_us = r->rtt_first_us,
        .rtt_last_us = r->rtt_last_us,
        .turnaround_us = r->turnaround_us,
        .size_hint = r->size_hint,
        .size_at_least = r->size_at_least,
        .stall_us = r->stall_us,
        .cause = (enum ota_cause)r->cause,
        .szx_asked = r->szx_asked,
        .hop_copy = r->hop_copy,
        .retransmission = r->retransmission,
        .rerequest = r->rerequest,
        .duplicate_response = r->duplicate_response,
        .out_of_order = r->out_of_order,
        .gap = r->gap,
        .renegotiation = r->renegotiation,
        .szx_larger = r->szx_larger,
    };
}

/* What the image's size is, from the first source that tells it: Size2
 * (read below) or the size the meter's configuration announced; else the
 * image's own MCUboot header and TLV info, block by block (mcuboot_size.h),
 * which tell only how long it is at least. */
static void learn_size(ota_transfer_t *x, const meter_coap_t *m, const ota_image_hints_t *hints)
{
    gint64 size;

    if (!hints || !hints->image || (x->size_hint >= 0 && !x->size_at_least))
        return;
    if (hints->announced_size > 0) {
        x->size_hint = hints->announced_size;
        x->size_at_least = FALSE;
        return;
    }
    if (!m->payload || !m->block2.present || m->code != COAP_CODE_CONTENT)
        return;
    mcuboot_size_feed(&x->image, (guint64)m->block2.num * meter_block_size(m->block2.szx), m->payload);
    if (mcuboot_size_get(&x->image, &size) != MCUBOOT_SIZE_UNKNOWN) {
        x->size_hint = size;
        x->size_at_least = TRUE;
    }
}

/* The message in one of its exchange's transfers. */
static ota_copy_result_t *track_in(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us, const char *src,
                                   coap_exchange_t *ex, guint32 transfer_id, gboolean upload, const meter_coap_t *m,
                                   const ota_image_hints_t *hints)
{
    ota_copy_result_t *r;
    ota_transfer_t *x;
    ota_msg_t *msg;
    ota_round_t *round = NULL;
    ota_addr_t link;

    t->dirty = TRUE;
    x = get_transfer(t, ex, transfer_id, upload, m);
    r = wmem_new0(t->scope, ota_copy_result_t);
    r->rtt_first_us = r->rtt_last_us = r->turnaround_us = -1;
    /* Without a link layer every copy is its own transmission. */
    link = f && f->src ? f->src : (ota_addr_t)g_str_hash(src);

    gboolean from_client = strcmp(src, ex->client_key) == 0;
    meter_coap_identity_t id = meter_coap_identity(m);
    msg = exchange_msg(ex, x, from_client, m, &id, ts_us);
    if (!msg) {
        msg = wmem_new0(t->scope, ota_msg_t);
        msg->xfer = x;
        msg->is_request = meter_coap_is_request(m);
        msg->from_client = from_client;
        /* A request follows whatever its transfer did before it. */
        msg->not_before = msg->is_request && x->last_us >= 0 ? x->last_us : 0;
        msg->type = m->type;
        msg->code = m->code;
        msg->mid = m->mid;
        msg->id = id;
        fill_block(msg, m, x->upload);
        if (!msg->is_request) {
            msg->request = exchange_request(ex, x);
            /* (An answer whose request the sniffer missed has none: finalize counts it.) */
            if (!msg->request && m->code != COAP_CODE_EMPTY && from_client == FALSE && !ex->request_missed)
                msg->request = join_request(t, x, ex, ts_us);
            if (msg->request)
                msg->not_before = first_round(msg->request)->first_us;
            if (msg->request && msg->code != COAP_CODE_EMPTY)
                list_append(t->scope, (void **)&msg->request->responses.at, &msg->request->responses.n,
                            &msg->request->responses.cap, &msg, sizeof msg);
        }
        list_append(t->scope, (void **)&ex->msgs.at, &ex->msgs.n, &ex->msgs.cap, &msg, sizeof msg);
        wmem_array_append_one(x->msgs, msg);
        index_by_mid(t, msg);
    }
    r->msg = msg;

    guint n_rounds = msg->rounds.n;
    if (n_rounds) {
        round = &msg->rounds.at[n_rounds - 1];
        gboolean used = FALSE;
        for (guint i = 0; i < round->n_links; i++)
            used |= round->links[i] == ota_link_id(link);
        if (used || ts_us - round->last_us > RADIO_HOP_WINDOW_US || round->n_links == G_N_ELEMENTS(round->links))
            round = NULL;
    }
    if (round) {
        r->hop_copy = TRUE;
        round->links[round->n_links++] = ota_link_id(link);
        round->last_frame = frame;
        round->last_us = ts_us;
    } else {
        ota_round_t nr = { .first_frame = frame, .last_frame = frame, .first_us = ts_us, .last_us = ts_us,
                           .links = { ota_link_id(link) }, .n_links = 1, .result = r,
                           .start_us = f && f->copy ? MIN(f->copy->first_us - f->copy->first_air_us, ts_us) : ts_us };
        if (n_rounds) {
            ota_round_t *prev = &msg->rounds.at[n_rounds - 1];
            /* A request sent again; a response sent again is a duplicate
             * response (below), as the statistics count them. */
            r->retransmission = msg->is_request;
            r->prev_tx_frame = prev->first_frame;
        }
        list_append(t->scope, (void **)&msg->rounds.at, &msg->rounds.n, &msg->rounds.cap, &nr, sizeof nr);
    }
    r->round = msg->rounds.n;
    ota_attribute_copies(t, msg, ts_us);
    if (f && f->copy && (!f->copy->msg || f->copy->msg_is_guess)) {
        f->copy->msg = msg;
        f->copy->msg_is_guess = FALSE;
    }

    x->on_radio |= f && f->air_us;
    /* Transfer-level timing and progress, as known at this frame. */
    if (x->first_us < 0 && msg->is_request) {
        x->first_us = ts_us;
        x->first_frame = frame;
        x->meter_link = f ? f->src : 0;
    }
    if (x->last_us >= 0 && x->first_us >= 0) {
        r->stall_us = since_us(ts_us, x->last_us);
        if (r->stall_us >= SILENCE_MIN_US) {
            gint64 gap[2] = { x->last_us, r->stall_us };
            wmem_array_append(x->silences, gap, 1);
        }
    }
    x->last_us = MAX(x->last_us, ts_us);
    x->last_frame = MAX(x->last_frame, frame);
    r->elapsed_us = x->first_us >= 0 ? since_us(ts_us, x->first_us) : 0;

    if (msg->is_request && !r->hop_copy) {
        ota_msg_t *earlier = r->round == 1 ? earlier_request_for_block(x, msg) : NULL;
        if (r->round == 1)
            wmem_map_insert(x->request_at, GUINT_TO_POINTER(msg->offset + 1), msg);
        if (r->round == 1 && earlier) {
            ota_round_t *er = &earlier->rounds.at[earlier->rounds.n - 1];
            r->rerequest = TRUE;
            r->prev_tx_frame = er->first_frame;
        }
        if (r->round == 1 && !r->rerequest) {
            if (x->last_response_us >= 0)
                r->turnaround_us = since_us(ts_us, x->last_response_us);
            /* A gap is bytes neither asked nor answered: a server may answer
             * more than asked (RFC 7959 2.4 forbids it, but it happens). */
            guint32 reach = MAX(x->highest_requested + meter_block_size(msg->szx), x->next_offset);
            if (msg->offset < x->highest_requested)
                r->out_of_order = TRUE;
            else if (msg->offset > reach && msg->offset > 0)
                r->gap = TRUE;
            x->highest_requested = MAX(x->highest_requested, msg->offset);
        }
        if (r->retransmission || r->rerequest) {
            const ota_msg_t *lost_req = r->rerequest ? earlier : msg;
            gint64 since = lost_req->rounds.at[0].first_us;
            gboolean answered = lost_req->responses.n > 0;
            const ota_copy_t *current = f ? f->copy : NULL;
            if (ota_msg_lost_before(t, lost_req, lost_req->type, since, ts_us, current))
                r->cause = OTA_CAUSE_REQUEST_LOST;
            else if (ota_msg_lost_before(t, lost_req, COAP_TYPE_ACK, since, ts_us, current))
                r->cause = OTA_CAUSE_RESPONSE_LOST;
            else if (answered)
                r->cause = OTA_CAUSE_NOT_ACCEPTED;
            else
                r->cause = OTA_CAUSE_NOTHING_VISIBLE;
        }
    }
    if (!msg->is_request && msg->request && m->code != COAP_CODE_EMPTY) {
        ota_msg_t *req = msg->request;
        guint nr = req->rounds.n;
        ota_round_t *r0 = &req->rounds.at[0];
        ota_round_t *rl = &req->rounds.at[nr - 1];
        r->rtt_first_us = since_us(ts_us, r0->first_us);
        r->rtt_last_us = since_us(ts_us, rl->first_us);
        x->last_response_us = ts_us;
        if (r->round > 1 && !r->hop_copy)
            r->duplicate_response = TRUE;
        /* The block size of the answer against the request's (RFC 7959
         * 2.4, 2.5): smaller is a renegotiation, larger not allowed; the
         * transfer goes on by byte offset either way. */
        const meter_block_t *got = x->upload ? &m->block1 : &m->block2;
        if (got->present && coap_code_class(m->code) <= 2) {
            guint8 asked = req->has_block ? req->szx : x->szx;
            if (got->szx < asked && got->szx < x->szx)
                r->renegotiation = TRUE;
            else if (got->szx > asked)
                r->szx_larger = TRUE;
            r->szx_asked = asked;
            x->renegotiated |= got->szx != asked;
            x->szx = got->szx;
        }
        if ((x->size_hint < 0 || x->size_at_least) && m->size2 > 0) {
            x->size_hint = m->size2;
            x->size_at_least = FALSE;
        }
        /* Upload: the request carries the block (a final 2.04 may have no Block1). */
        const ota_msg_t *blk = x->upload ? req : msg;
        if (coap_code_is_success(m->code) && blk->offset == x->next_offset && blk->has_block)
            x->next_offset += blk->len;
    }
    /* A source counts from the message that tells it. */
    learn_size(x, m, hints);
    r->bytes_so_far = x->next_offset;
    r->size_hint = x->size_hint;
    r->size_at_least = x->size_at_least;
    return r;
}

ota_copy_result_t *ota_message_in(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us,
                                     const char *src, coap_exchange_t *ex, const meter_coap_t *m,
                                     const ota_image_hints_t *hints)
{
    ota_copy_result_t *r;

    /* A frame's own time is its end, once the time base is known. */
    if (f)
        ts_us = f->ts_us;
    if (f && t->time_base.kind == OTA_STAMP_UNKNOWN)
        t->time_base.early_messages++;
    if (!ex || !ex->transfer_id || (f && (f->mac_retry || f->sniffer_dup)))
        return NULL;
    r = track_in(t, f, frame, ts_us, src, ex, ex->transfer_id, ex->upload, m, hints);
    /* The answer to an upload's request that starts a download is in both. */
    if (ex->response_transfer_id && !meter_coap_is_request(m))
        r->also = track_in(t, f, frame, ts_us, src, ex, ex->response_transfer_id, FALSE, m, hints);
    return r;
}

gboolean ota_track_size_known(ota_track_t *t, guint32 transfer_id)
{
    const ota_transfer_t *x = ota_track_transfer(t, transfer_id);

    return x && x->size_hint >= 0;
}

void ota_set_verified(ota_track_t *t, guint32 transfer_id)
{
    ota_transfer_t *x = ota_track_transfer(t, transfer_id);

    /* The record is rebuilt at the next finalize. */
    if (x && !x->image_verified) {
        x->image_verified = TRUE;
        t->dirty = TRUE;
    }
}
