/* ota_track_stats.c: a transfer's statistics from its messages and rounds
 * (ota_track_state.h): blocks, bytes and completion, requests and their
 * repeats, round trips and turn-arounds, where the time went (ota_split.c),
 * stalls, the ETA; and its progress points for plots.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include "ota_track_state.h"
#include "eta.h"
#include "ota_split.h"

static int cmp_i64(const void *a, const void *b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the value at rank ceil(p n). */
double ota_quantile_s(wmem_array_t *v, double p)
{
    guint n = wmem_array_get_count(v);

    if (!n)
        return -1;
    qsort(wmem_array_get_raw(v), n, sizeof(gint64), cmp_i64);
    guint rank = (guint)ceil(p * n);
    return *(gint64 *)wmem_array_index(v, MAX(rank, 1) - 1) / 1e6;
}

static const ota_round_t *accepted_round(const ota_msg_t *req, const ota_msg_t **resp)
{
    const ota_msg_list_t *msgs = &req->responses;
    const ota_round_t *best = NULL;
    guint nr = req->rounds.n;
    gint64 last_req = req->rounds.at[nr - 1].first_us;

    for (guint i = 0; i < msgs->n; i++) {
        const ota_msg_t *o = msgs->at[i];
        for (guint k = 0; k < o->rounds.n; k++) {
            const ota_round_t *rd = &o->rounds.at[k];
            if (last_req > rd->last_us)
                continue;               /* followed by a retransmission: not taken */
            if (!best || rd->first_us < best->first_us) {
                best = rd;
                *resp = o;
            }
        }
    }
    return best;
}

/* Was round k of the request (0-based) a spurious retransmission? */
static gboolean round_spurious(const ota_msg_t *req, guint k)
{
    const ota_round_t *rd = k < req->rounds.n ? &req->rounds.at[k] : NULL;
    return rd && rd->result && rd->result->cause == OTA_CAUSE_SPURIOUS;
}

/* How many rounds of the request's responses (duplicates too) had their
 * first copy before t: the answers the meter had by then. */
static guint answers_before(const ota_msg_t *req, gint64 t)
{
    guint n = 0;
    for (guint i = 0; i < req->responses.n; i++) {
        const ota_msg_t *o = req->responses.at[i];
        for (guint k = 0; k < o->rounds.n; k++)
            n += o->rounds.at[k].first_us < t;
    }
    return n;
}

/* ---- where the time went (ota_split.c) ---- */

static void count_stalls(meter_transfer_record_t *s, const ota_transfer_t *x, double stall_s, gint64 end)
{
    for (guint i = 0; i < wmem_array_get_count(x->silences); i++) {
        const gint64 *gap = (const gint64 *)wmem_array_index(x->silences, i);
        if (gap[0] + gap[1] <= end && gap[1] > (gint64)(stall_s * 1e6)) {
            s->stalls++;
            s->stalled_s += gap[1] / 1e6;
        }
    }
}

static gboolean copies_lost(const ota_track_t *t, const ota_msg_t *msg)
{
    for (const ota_copy_t *c = msg->copies; c; c = c->next_of_msg)
        if (ota_copy_lost(t, c, G_MAXINT64))
            return TRUE;
    return FALSE;
}

/* A round's time across every hop, from its first copy's first frame to
 * its last copy, less the time a poll kept it waiting. */
static gint64 round_span(const ota_round_t *rd, const GArray *poll_runs)
{
    return rd->last_us - rd->start_us - ota_runs_cover(poll_runs, rd->start_us, rd->last_us);
}

/* How much longer an incomplete transfer of known size would take at the
 * pace of its blocks so far: the times between blocks taken (the first
 * from the first request) are a sample of the blocks still to come, whose
 * sum has the sample's mean times n; its 90% range counts the spread of
 * n blocks and the uncertainty of the mean measured on N. */
static void estimate_eta(meter_transfer_record_t *s, wmem_array_t *taken_us)
{
    guint N = wmem_array_get_count(taken_us);
    gint64 left = s->size_hint - s->bytes;
    meter_eta_sample_t sample = { 0 };

    s->eta_s = s->eta_low_s = s->eta_high_s = -1;
    if (s->complete || s->size_hint < 0 || left <= 0 || !N || !s->block_size)
        return;
    qsort(wmem_array_get_raw(taken_us), N, sizeof(gint64), cmp_i64);
    double prev = s->first_request_us;
    for (guint i = 0; i < N; i++) {
        double at = *(gint64 *)wmem_array_index(taken_us, i);
        meter_eta_add(&sample, MAX(0.0, at - prev) / 1e6);
        prev = MAX(prev, at);
    }
    meter_eta_estimate(&sample, ceil((double)left / s->block_size), &s->eta_s, &s->eta_low_s, &s->eta_high_s);
}

/* air_spans: its frames' times on the air (gint64 pairs; frames of two
 * hops may overlap), made its runs here. */
/* A client asks for the next block only once it has the one before
 * (RFC 7959 2.5: a download's block after the answer to the one before; an
 * upload's after the server's 2.31 Continue): a request for a block, or an
 * answer to one, proves that every block before it arrived whole, back to
 * the first block the capture shows (what came before the capture began is
 * not the capture's), also those whose answer (or upload request) the
 * capture missed whole. Those count at the size their neighbour's SZX
 * gives. */
static void prove_blocks_before_requests(const ota_transfer_t *x, wmem_map_t *offsets, wmem_allocator_t *tmp)
{
    guint32 first = G_MAXUINT32;
    wmem_map_t *failed = wmem_map_new(tmp, g_direct_hash, g_direct_equal);

    /* Only where the sniffer is seen to miss frames: a client may also skip
     * ahead on its own, and a block answered with an error did not arrive. */
    if (!x->rec.frames_missed_by_sniffer)
        return;
    for (guint i = 0; i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        if (!o->is_request && o->request && !coap_code_is_success(o->code) && o->code != COAP_CODE_EMPTY)
            wmem_map_insert(failed, GUINT_TO_POINTER(o->request->offset + 1), NULL);
        if (o->has_block && !o->joined_late)
            first = MIN(first, o->offset);
    }
    /* From each block the capture shows, back to the one before it that it
     * shows too. */
    for (guint i = 0; i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        guint32 size = meter_block_size(o->szx);
        if (!o->has_block || o->joined_late)
            continue;
        for (guint32 at = o->offset; at >= first + size;) {
            at -= size;
            if (wmem_map_contains(offsets, GUINT_TO_POINTER(at + 1)) || wmem_map_contains(failed, GUINT_TO_POINTER(at + 1)))
                break;
            wmem_map_insert(offsets, GUINT_TO_POINTER(at + 1), GUINT_TO_POINTER(size));
        }
    }
}

/* An answer RFC 7959 does not allow: with more to come, a block must be
 * as long as its SZX says (2.2; an empty 2.05 to an SZX 0 request is the
 * common case); a server may lower the SZX, never raise it (2.4); SZX 7 is
 * reserved (2.2). */
static gboolean answer_breaks_blockwise(const ota_msg_t *o)
{
    if (!o->has_block || !coap_code_is_success(o->code) || o->code == COAP_CODE_CONTINUE)
        return FALSE;
    if (o->szx == 7 || (o->request && o->request->has_block && o->szx > o->request->szx))
        return TRUE;
    return !o->xfer->upload && o->more && o->len != meter_block_size(o->szx);
}

void ota_finalize_transfer(const ota_track_t *t, ota_transfer_t *x, GArray *air_spans, wmem_array_t *polls,
                              double stall_s)
{
    meter_transfer_record_t *s = &x->rec;
    wmem_allocator_t *tmp = wmem_allocator_new(WMEM_ALLOCATOR_BLOCK);
    wmem_array_t *rf = wmem_array_new(tmp, sizeof(gint64)), *rl = wmem_array_new(tmp, sizeof(gint64));
    wmem_array_t *ta = wmem_array_new(tmp, sizeof(gint64)), *rx_after = wmem_array_new(tmp, sizeof(gint64));
    wmem_array_t *req_spans = wmem_array_new(tmp, sizeof(gint64)), *resp_spans = wmem_array_new(tmp, sizeof(gint64));
    wmem_array_t *taken = wmem_array_new(tmp, sizeof(gint64));
    wmem_map_t *taken_at = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    guint np = polls ? wmem_array_get_count(polls) : 0;
    GArray *poll_runs = g_array_sized_new(FALSE, FALSE, 2 * sizeof(gint64), np);
    if (np)
        g_array_append_vals(poll_runs, wmem_array_get_raw(polls), np);
    ota_runs_from_spans(poll_runs);
    wmem_map_t *offsets = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    wmem_map_t *requested = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    wmem_map_t *tries_by_offset = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    GArray *marks = g_array_new(FALSE, FALSE, sizeof(ota_split_mark_t));
    gint64 prev_accepted = -1;
    gboolean have_prev = FALSE;

    /* record_start began s, the datagram loop summed its counters. */
    s->first_request_us = x->first_us;
    s->first_frame = x->first_frame;
    s->last_response_us = -1;
    s->last_activity_us = -1;
    for (guint i = 0; i < wmem_array_get_count(x->msgs); i++) {
        ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        guint nr = o->rounds.n;
        for (guint k = 0; k < nr; k++) {
            ota_round_t *rd = &o->rounds.at[k];
            if (rd->last_us > s->last_activity_us) {
                s->last_activity_us = rd->last_us;
                s->last_frame = rd->last_frame;
            }
        }
        if (!o->is_request) {
            /* Client and server errors: the classes RFC 7252 defines. */
            if (coap_code_class(o->code) == 4 || coap_code_class(o->code) == 5)
                s->error_responses++;
            if (o->request && o->code != COAP_CODE_EMPTY)
                s->duplicate_responses += nr - 1;
            if (answer_breaks_blockwise(o))
                s->protocol_anomalies++;
            if (!x->upload && coap_code_is_success(o->code) && o->has_block && o->len)
                wmem_map_insert(offsets, GUINT_TO_POINTER(o->offset + 1), GUINT_TO_POINTER(o->len));
            if (x->upload && o->request && coap_code_is_success(o->code))
                wmem_map_insert(offsets, GUINT_TO_POINTER(o->request->offset + 1),
                                GUINT_TO_POINTER(o->request->len));
            /* A 2.31 Continue whose request the sniffer missed: a full block. */
            if (x->upload && !o->request && o->code == COAP_CODE_CONTINUE && o->has_block && o->more)
                wmem_map_insert(offsets, GUINT_TO_POINTER(o->offset + 1), GUINT_TO_POINTER(meter_block_size(o->szx)));
            /* A piggybacked answer proves its request, which the sniffer missed. */
            if (!o->request && o->type == COAP_TYPE_ACK && o->code != COAP_CODE_EMPTY)
                s->requests++;
            continue;
        }
        s->requests += nr;
        s->retransmissions += nr - 1;
        /* A block asked again or retransmitted counts once. */
        gpointer tries = wmem_map_lookup(tries_by_offset, GUINT_TO_POINTER(o->offset + 1));
        guint32 total = GPOINTER_TO_UINT(tries) + nr;
        wmem_map_insert(tries_by_offset, GUINT_TO_POINTER(o->offset + 1), GUINT_TO_POINTER(total));
        if (total > 1 && total - nr <= 1)
            s->blocks_retried++;
        if (nr > 1) {
            gint64 after = o->rounds.at[1].first_us - o->rounds.at[0].first_us;
            wmem_array_append_one(rx_after, after);
        }
        for (guint k = 1; k < nr; k++)
            s->spurious_retransmissions += round_spurious(o, k);
        gboolean new_block = !wmem_map_contains(requested, GUINT_TO_POINTER(o->offset + 1));
        if (!new_block)
            s->rerequests++;
        wmem_map_insert(requested, GUINT_TO_POINTER(o->offset + 1), o);

        ota_round_t *r0 = &o->rounds.at[0];
        ota_round_t *rn = &o->rounds.at[nr - 1];
        /* Turn-around: a request for a new block (not the first), from the
         * accepted response of the request just before it. */
        /* (At the gateway an answer may leave after the next request came.) */
        if (new_block && have_prev && prev_accepted >= 0 && prev_accepted <= r0->first_us) {
            gint64 d = r0->first_us - prev_accepted;
            wmem_array_append_one(ta, d);
        }
        have_prev = TRUE;
        const ota_msg_t *resp = NULL;
        const ota_round_t *acc = accepted_round(o, &resp);
        prev_accepted = acc ? acc->last_us : -1;
        /* Each try waits for a timeout, but the last one if it was answered,
         * and one whose answer was only late (a spurious retransmission
         * followed it): that wait is the network's. */
        for (guint k = 0; k < nr; k++)
            ota_split_mark(marks, o->rounds.at[k].first_us,
                      (k + 1 == nr && acc) || round_spurious(o, k + 1) ? OTA_SPLIT_NETWORK : OTA_SPLIT_TIMEOUTS);
        if (!acc)
            continue;
        ota_split_mark(marks, acc->last_us, OTA_SPLIT_TURNAROUND);
        /* The round trip of the transmission the accepted answer answers:
         * the last one, or after spurious retransmissions the one whose
         * turn it is among the answers. */
        const ota_round_t *answered = rn;
        if (round_spurious(o, nr - 1))
            answered = &o->rounds.at[MIN(answers_before(o, acc->first_us), nr - 1)];
        gint64 d1 = since_us(acc->last_us, r0->first_us), d2 = since_us(acc->last_us, answered->first_us);
        wmem_array_append_one(rf, d1);
        wmem_array_append_one(rl, d2);
        /* A clean exchange (one round each way, nothing lost) times a
         * request's and a response's way across the hops. */
        if (nr == 1 && resp->rounds.n == 1 && !copies_lost(t, o) &&
            !copies_lost(t, resp)) {
            gint64 q = round_span(rn, poll_runs), p = round_span(acc, poll_runs);
            wmem_array_append_one(req_spans, q);
            wmem_array_append_one(resp_spans, p);
        }
        const ota_msg_t *blk = x->upload ? o : resp;
        if (coap_code_is_success(resp->code) && blk->has_block && blk->len &&
            !wmem_map_contains(taken_at, GUINT_TO_POINTER(blk->offset + 1))) {
            wmem_map_insert(taken_at, GUINT_TO_POINTER(blk->offset + 1), NULL);
            wmem_array_append_one(taken, acc->last_us);
        }
        gboolean final = coap_code_is_success(resp->code) &&
                         (x->upload ? !o->more : (!resp->has_block || !resp->more));
        if (final && !s->complete) {
            s->complete = TRUE;
            s->last_response_us = acc->last_us;
        }
    }
    prove_blocks_before_requests(x, offsets, tmp);
    /* Blocks and contiguous bytes from offset 0. */
    s->blocks = wmem_map_size(offsets);
    for (guint32 at = 0;;) {
        gpointer len = wmem_map_lookup(offsets, GUINT_TO_POINTER(at + 1));
        if (!len || !GPOINTER_TO_UINT(len))
            break;
        at += GPOINTER_TO_UINT(len);
        s->bytes = at;
    }
    gint64 end = s->complete ? s->last_response_us : s->last_activity_us;
    s->duration_s = (end > s->first_request_us && s->first_request_us >= 0)
                        ? (double)(end - s->first_request_us) / 1e6 : 0;
    s->rate_Bps = s->duration_s > 0 ? s->bytes / s->duration_s : 0;
    s->rtt_first_median_s = ota_quantile_s(rf, 0.5);
    s->rtt_first_p95_s = ota_quantile_s(rf, 0.95);
    s->rtt_last_median_s = ota_quantile_s(rl, 0.5);
    s->rtt_last_p95_s = ota_quantile_s(rl, 0.95);
    s->turnaround_median_s = ota_quantile_s(ta, 0.5);
    s->turnaround_p95_s = ota_quantile_s(ta, 0.95);
    s->request_span_s = ota_quantile_s(req_spans, 0.5);
    s->response_span_s = ota_quantile_s(resp_spans, 0.5);
    s->retransmit_after_median_s = ota_quantile_s(rx_after, 0.5);
    /* On IP, the side the capture was taken on shows in which wait is
     * long: next to the meter a round trip, at the gateway the meter's
     * turn-around with the whole path behind it. */
    s->vantage = x->on_radio ? "radio"
                 : s->rtt_last_median_s >= 0 && s->turnaround_median_s >= 0 &&
                           s->rtt_last_median_s < s->turnaround_median_s ? "gateway" : "meter";
    if (s->first_request_us >= 0 && end > s->first_request_us) {
        gint64 median_turn = s->turnaround_median_s >= 0 ? (gint64)(s->turnaround_median_s * 1e6 + 0.5) : 0;
        gint64 unseen_after = strcmp(s->vantage, "gateway") == 0 ? median_turn + COAP_ACK_TIMEOUT_US : -1;
        GArray *runs = ota_runs_from_spans(air_spans);
        ota_split_time(s, marks, runs, poll_runs, s->first_request_us, end, median_turn, unseen_after);
        count_stalls(s, x, stall_s, end);
    }
    estimate_eta(s, taken);
    g_array_free(marks, TRUE);
    g_array_free(poll_runs, TRUE);
    wmem_destroy_allocator(tmp);
}

/* Was a datagram copy of the request or of one of its responses (with a
 * code) lost on air? Copies are tied to messages by now. */
static gboolean exchange_lost(const ota_track_t *t, const ota_msg_t *req)
{
    const ota_copy_list_t *list = (const ota_copy_list_t *)wmem_map_lookup(t->copies_by_mid,
                                                                          GUINT_TO_POINTER(req->mid));

    for (guint i = 0; list && i < list->n; i++) {
        const ota_copy_t *c = list->at[i];
        if (c->msg && (c->msg == req || (c->msg->request == req && c->msg->code != COAP_CODE_EMPTY)) &&
            ota_copy_lost(t, c, G_MAXINT64))
            return TRUE;
    }
    return FALSE;
}

/* From a request's first round to the first copy of its first answer. */
static gint64 first_answer_delay(const ota_msg_t *req)
{
    gint64 first = G_MAXINT64;

    for (guint i = 0; i < req->responses.n; i++) {
        const ota_msg_t *o = req->responses.at[i];
        for (guint k = 0; k < o->rounds.n; k++)
            first = MIN(first, o->rounds.at[k].first_us);
    }
    return first == G_MAXINT64 ? G_MAXINT64 / 2 : first - msg_first_us(req);
}

/* Spurious retransmissions (RFC 7252 timers against a slow path): when
 * nothing of the exchange was lost on air, each transmission of the request
 * gets its own answer, so a retransmission sent while fewer answers than
 * transmissions before it had come was not needed: the response was late,
 * not lost. Its cause as first read may have taken an answer still on its
 * way (fragments in flight) for a lost one. Redone at every finalize (the
 * late answers come later). */
void ota_mark_spurious(ota_track_t *t, ota_msg_t *req, gint64 late_delay_us)
{
    guint nr = req->rounds.n;
    if (nr < 2 || exchange_lost(t, req))
        return;
    guint na = answers_before(req, G_MAXINT64);
    /* Without a radio the capture sees no loss: fewer answers than rounds
     * may be a loss beyond the capture as well as a late answer. It is a
     * late one only when it came as long after the first round as the
     * transfer's answers that were all late (every round answered). */
    gboolean known = req->xfer->on_radio || na >= nr ||
                     (late_delay_us > 0 && llabs(first_answer_delay(req) - late_delay_us) <= late_delay_us / 4);

    for (guint k = 1; k < nr; k++) {
        ota_round_t *rd = &req->rounds.at[k];
        if (!rd->result)
            continue;
        /* Round k needs k answers; fewer had come by the time it was sent. */
        gboolean late = known && k <= na && answers_before(req, rd->first_us + 1) < k;
        rd->result->cause = late ? OTA_CAUSE_SPURIOUS : OTA_CAUSE_NOTHING_VISIBLE;
    }
}

/* Off the radio: how long after their first round the answers came of the
 * transfer's requests whose every round was answered, the first answer
 * after the second round (all late): their median, -1 if none. */
gint64 ota_late_answer_delay(const ota_transfer_t *x)
{
    GArray *d = g_array_new(FALSE, FALSE, sizeof(gint64));
    gint64 median = -1;

    for (guint i = 0; !x->on_radio && i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        guint nr = o->is_request ? o->rounds.n : 0;
        if (nr < 2 || answers_before(o, G_MAXINT64) < nr)
            continue;
        const ota_round_t *r1 = &o->rounds.at[1];
        if (answers_before(o, r1->first_us + 1) == 0) {
            gint64 v = first_answer_delay(o);
            g_array_append_val(d, v);
        }
    }
    if (d->len) {
        g_array_sort(d, cmp_i64);
        median = g_array_index(d, gint64, (d->len - 1) / 2);
    }
    g_array_free(d, TRUE);
    return median;
}

static int cmp_progress(const void *a, const void *b)
{
    const ota_progress_t *x = (const ota_progress_t *)a, *y = (const ota_progress_t *)b;
    return x->ts_us < y->ts_us ? -1 : x->ts_us > y->ts_us;
}

wmem_array_t *ota_track_progress(ota_track_t *t, guint32 transfer_id, wmem_allocator_t *scope)
{
    wmem_array_t *pts = wmem_array_new(scope, sizeof(ota_progress_t));
    wmem_map_t *asked = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    wmem_map_t *got = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    const ota_transfer_t *x = ota_track_transfer(t, transfer_id);

    /* Points first, bytes after: the repeats interleave with the blocks in time. */
    for (guint i = 0; x && i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        if (!o->is_request)
            continue;
        guint nr = o->rounds.n;
        gboolean again = wmem_map_contains(asked, GUINT_TO_POINTER(o->offset + 1));
        wmem_map_insert(asked, GUINT_TO_POINTER(o->offset + 1), NULL);
        for (guint k = 0; k < nr; k++) {
            const ota_round_t *rd = &o->rounds.at[k];
            if (k == 0 && !again)
                continue;
            ota_progress_t p = { rd->first_us, 0, k ? OTA_PROGRESS_RETRANSMISSION : OTA_PROGRESS_REREQUEST };
            wmem_array_append_one(pts, p);
        }
        const ota_msg_t *resp = NULL;
        const ota_round_t *acc = accepted_round(o, &resp);
        const ota_msg_t *blk = x->upload ? o : resp;
        if (!acc || !coap_code_is_success(resp->code) || !blk->has_block || !blk->len)
            continue;
        /* bytes carries the block's length until the running sum below. */
        ota_progress_t p = { acc->last_us, blk->len + 1, OTA_PROGRESS_BLOCK };
        if (wmem_map_contains(got, GUINT_TO_POINTER(blk->offset + 1)))
            p.bytes = 1;
        wmem_map_insert(got, GUINT_TO_POINTER(blk->offset + 1), NULL);
        wmem_array_append_one(pts, p);
    }
    guint n = wmem_array_get_count(pts);
    if (n)
        qsort(wmem_array_get_raw(pts), n, sizeof(ota_progress_t), cmp_progress);
    guint32 sum = 0;
    for (guint i = 0; i < n; i++) {
        ota_progress_t *p = (ota_progress_t *)wmem_array_index(pts, i);
        if (p->kind == OTA_PROGRESS_BLOCK)
            sum += p->bytes - 1;
        p->bytes = sum;
    }
    return pts;
}
