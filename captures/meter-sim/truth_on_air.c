/* truth_on_air.c: the transfer numbers of docs/ota-sessions.md, from the
 * simulator's state rather than from the capture.
 *
 * Every datagram of a transfer gets a record: one originate() is one *round*
 * of its CoAP message (a CoAP retransmission or a gateway cache re-send is a
 * new datagram with the same Message ID). A round has a *copy* on hop h when
 * the datagram was complete on air there; on the gateway's Ethernet a request
 * has one copy when it arrives and a response one when it leaves. A round
 * without a copy is invisible and counts nowhere; the fragment counts take
 * every datagram that had a frame on a hop.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "truth_on_air.h"
#include "coap_msg.h"
#include "truth_json.h"

#define NO_TIME G_MININT64

static int cmp_i64(const void *a, const void *b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

    return x < y ? -1 : x > y;
}

typedef struct {
    int      order;              /* creation order, breaks ties */
    gboolean upstream;
    gboolean request;            /* a CoAP request of the meter */
    gboolean response;           /* a response with a code (not an empty ACK) */
    guint8   code;
    guint8   type;               /* CON, NON, ACK or RST */
    guint16  mid;
    guint16  answers;            /* responses: the MID of the request they answer */
    const void *answers_rec;     /* ... and the record of the transmission answered (the gateway's), or NULL */
    gboolean b2_present, b2_more;
    gint64   block;              /* byte offset: a request's Block2/Block1, a response's Block2; -1 none */
    guint32  payload_len;
    gboolean fragmented;
    int      n_hops;
    guint32  mac_retries;
    guint32  sent[MAX_PATH];     /* fragments transmitted at least once, per hop */
    guint32  acked[MAX_PATH];    /* fragments with an ACK on air for some transmission */
    guint32  psdu_bytes[MAX_PATH]; /* PSDU bytes of its distinct fragments, per hop */
    gint64   copy_us[MAX_PATH];  /* complete on air, per hop; NO_TIME none */
    gint64   gw_us;              /* the gateway's copy; NO_TIME none */
    gint64   sent_us;            /* handed to the network by its sender (meter or gateway) */
    gint64   taken_us;           /* a response: when the meter took it as its answer; NO_TIME never */
    /* Indirect transmission to a sleepy child, per hop: when the parent had
     * the fragment it sent first, the start of the child's Data Request it
     * sent it after, and of the child's Data Request before that; NO_TIME none. */
    gint64   poll_had[MAX_PATH], poll_dr[MAX_PATH], poll_prev[MAX_PATH];
    GArray  *air;                /* gint64 pairs {start, end}: its frames and their ACKs on air */
    /* What the sniffer missed, per hop: fragments with a transmission it
     * captured, and the transmissions and ACKs it did not capture. */
    guint32  captured[MAX_PATH];
    guint32  missed_frames[MAX_PATH], missed_acks[MAX_PATH];
} dg_rec_t;

static void dg_rec_free(gpointer p)
{
    dg_rec_t *r = p;

    g_array_free(r->air, TRUE);
    g_free(r);
}

struct on_air {
    GHashTable *by_xfer;         /* transfer id -> GPtrArray of dg_rec_t* */
    GHashTable *by_dg;           /* datagram id -> its dg_rec_t* (held by by_xfer) */
    GHashTable *polls;           /* node_t* -> gint64[2]: starts of its last two Data Requests */
    int         next_order;
};

on_air_t *on_air_new(void)
{
    on_air_t *oa = g_new0(on_air_t, 1);

    oa->by_xfer = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                        (GDestroyNotify)g_ptr_array_unref);
    oa->by_dg = g_hash_table_new(g_direct_hash, g_direct_equal);
    oa->polls = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    return oa;
}

void on_air_free(on_air_t *oa)
{
    g_hash_table_destroy(oa->by_xfer);
    g_hash_table_destroy(oa->by_dg);
    g_hash_table_destroy(oa->polls);
    g_free(oa);
}

/* The record of the datagram with this id; NULL when it is no transfer's. */
static dg_rec_t *rec_of(const on_air_t *oa, int dg_id)
{
    return g_hash_table_lookup(oa->by_dg, GINT_TO_POINTER(dg_id));
}

static gint64 block_offset(const coap_block_t *b)
{
    return (gint64)b->num * coap_block_size(b->szx);
}

void on_air_datagram(on_air_t *oa, const datagram_t *dg, gint64 us)
{
    gpointer x = GINT_TO_POINTER(dg->msg.xfer);
    GPtrArray *recs;
    dg_rec_t *r;
    coap_rx_t c;

    if (!dg->msg.xfer || rec_of(oa, dg->id))
        return;
    r = g_new0(dg_rec_t, 1);
    r->order = oa->next_order++;
    r->upstream = dg->upstream;
    r->n_hops = dg->n_path - 1;
    r->block = -1;
    r->gw_us = NO_TIME;
    r->sent_us = us;
    r->taken_us = NO_TIME;
    r->air = g_array_new(FALSE, FALSE, 2 * sizeof(gint64));
    for (int h = 0; h < MAX_PATH; h++)
        r->copy_us[h] = r->poll_had[h] = r->poll_dr[h] = r->poll_prev[h] = NO_TIME;
    if (coap_msg_decode(dg->msg.coap->data, dg->msg.coap->len, &c)) {
        r->code = c.code;
        r->type = c.type;
        r->mid = c.mid;
        r->request = c.code >= 1 && c.code < 32;
        r->response = c.code >= 64;
        r->answers = c.type == COAP_CON ? dg->msg.req_mid : c.mid;
        r->b2_present = c.block2.present;
        r->b2_more = c.block2.more;
        r->payload_len = (guint32)c.payload_len;
        if (c.block2.present)
            r->block = block_offset(&c.block2);
        else if (r->request && c.block1.present)
            r->block = block_offset(&c.block1);
    }
    recs = g_hash_table_lookup(oa->by_xfer, x);
    if (!recs) {
        recs = g_ptr_array_new_with_free_func(dg_rec_free);
        g_hash_table_insert(oa->by_xfer, x, recs);
    }
    g_ptr_array_add(recs, r);
    g_hash_table_insert(oa->by_dg, GINT_TO_POINTER(dg->id), r);
    r->answers_rec = dg->msg.answers_dgram ? rec_of(oa, dg->msg.answers_dgram) : NULL;
}

static void add_air(dg_rec_t *r, gint64 end_us, gint64 dur_us)
{
    gint64 span[2] = { end_us - dur_us, end_us };

    g_array_append_val(r->air, span);
}

void on_air_frame(on_air_t *oa, const datagram_t *dg, int hop, int frag, gboolean retry, gint64 end_us,
                  gint64 dur_us, gboolean captured)
{
    dg_rec_t *r = rec_of(oa, dg->id);

    if (!r)
        return;
    add_air(r, end_us, dur_us);
    if (captured)
        r->captured[hop] |= 1u << frag;
    else
        r->missed_frames[hop]++;
    r->fragmented = dg->fragmented;
    if (!(r->sent[hop] & 1u << frag))
        r->psdu_bytes[hop] += (guint32)(dur_us / 32 - 6);   /* SHR and PHR: 6 bytes, 32 us each */
    r->sent[hop] |= 1u << frag;
    if (retry)
        r->mac_retries++;
}

void on_air_copy(on_air_t *oa, const datagram_t *dg, int hop, gint64 us)
{
    dg_rec_t *r = rec_of(oa, dg->id);

    if (r)
        r->copy_us[hop] = us;
}

void on_air_acked(on_air_t *oa, const datagram_t *dg, int hop, int frag, gint64 end_us, gint64 dur_us,
                  gboolean captured)
{
    dg_rec_t *r = dg ? rec_of(oa, dg->id) : NULL;

    if (r) {
        r->acked[hop] |= 1u << frag;
        r->missed_acks[hop] += !captured;
        add_air(r, end_us, dur_us);
    }
}

void on_air_poll_sent(on_air_t *oa, const node_t *child, gint64 us)
{
    gint64 *last = g_hash_table_lookup(oa->polls, child);

    if (!last) {
        last = g_new(gint64, 2);
        last[1] = NO_TIME;
        g_hash_table_insert(oa->polls, (gpointer)child, last);
    }
    last[0] = last[1];
    last[1] = us;
}

void on_air_poll_wait(on_air_t *oa, const datagram_t *dg, int hop, const node_t *child, gint64 had_us,
                      gint64 dr_us)
{
    dg_rec_t *r = rec_of(oa, dg->id);
    const gint64 *last = g_hash_table_lookup(oa->polls, child);

    /* The copy's wait ends with the first of its fragments the parent sends. */
    if (!r || r->poll_dr[hop] != NO_TIME)
        return;
    r->poll_had[hop] = had_us;
    r->poll_dr[hop] = dr_us;
    if (last)
        r->poll_prev[hop] = last[1] == dr_us ? last[0] : last[1];
}

void on_air_taken(on_air_t *oa, const datagram_t *dg, gint64 us)
{
    dg_rec_t *r = rec_of(oa, dg->id);

    if (r && r->taken_us == NO_TIME)
        r->taken_us = us;
}

void on_air_gateway(on_air_t *oa, const datagram_t *dg, gint64 us)
{
    dg_rec_t *r = rec_of(oa, dg->id);

    if (r)
        r->gw_us = us;
}

/* ---- the numbers ---- */

/* A request message (one Message ID) as the sniffer sees it. */
typedef struct {
    guint16 mid;
    int     order;
    gint64  block;
    guint32 len;
    guint   rounds;
    GArray *round_at;             /* gint64: first copy of each round */
    GPtrArray *round_recs;        /* const dg_rec_t*: each round, in order of its first copy */
    GArray *spurious;             /* gboolean per round: a spurious retransmission (docs/ota-sessions.md) */
    guint   answers_before_acc;   /* answer rounds whose first copy came before the accepted one's */
    gint64  first, last_first;    /* first copy of its first and of its last round */
    gint64  acc_first, acc_last;  /* its accepted response round's first and last copy */
} req_t;

typedef struct {
    gint64  first_request, last_response, last_activity;
    guint32 blocks, bytes, requests, retransmissions, rerequests, mac_retries, spurious_retransmissions;
    guint32 frag_copies, frag_incomplete, frags_lost;
    guint32 copies, frames, frames_unacked;
    guint32 request_copies, request_copies_lost, request_frames_complete;
    guint32 response_copies, response_copies_lost, response_frames_complete, response_bytes_complete;
    guint32 response_first_lost, response_later_frames;
    guint32 duplicate_responses, error_responses;
    GArray *rtt_first, *rtt_last, *turnaround;   /* gint64 microseconds */
    GArray *air;                 /* gint64 {start, end} of every frame and ACK */
    GArray *activity;            /* gint64: every copy's time */
    gint64  split[6];            /* air, timeouts, network, turn-around, poll, unseen */
    GArray *poll;                /* gint64 {start, end}: waits for a sleepy child's poll */
    GArray *unseen;              /* gint64 {start, end}: timeouts after requests the gateway never got */
    GArray *estimated;           /* gint64 {had, Data Request, the one before}: waits from Ethernet */
    GArray *request_at;          /* gint64: every copy of the meter's requests */
    gboolean gateway;            /* the gateway's view */
    guint32 poll_waits, unseen_stretches;
    gint64  poll_bound, unseen_bound;
    guint32 stalls;
    gint64  stalled;
} summary_t;

static gint64 first_copy(const dg_rec_t *r, gboolean gw)
{
    gint64 t = NO_TIME;

    if (gw)
        return r->gw_us;
    for (int h = 0; h < r->n_hops; h++)
        if (r->copy_us[h] != NO_TIME && (t == NO_TIME || r->copy_us[h] < t))
            t = r->copy_us[h];
    return t;
}

static gint64 last_copy(const dg_rec_t *r, gboolean gw)
{
    gint64 t = NO_TIME;

    if (gw)
        return r->gw_us;
    for (int h = 0; h < r->n_hops; h++)
        t = MAX(t, r->copy_us[h]);
    return t;
}

static gboolean is_final(const dg_rec_t *r, gboolean block1)
{
    if (block1)
        return r->code == COAP_CHANGED;
    return r->code >> 5 == 2 && r->b2_present && !r->b2_more;
}

static int sent_cmp(gconstpointer a, gconstpointer b)
{
    const dg_rec_t *x = *(const dg_rec_t *const *)a, *y = *(const dg_rec_t *const *)b;

    if (x->sent_us != y->sent_us)
        return x->sent_us < y->sent_us ? -1 : 1;
    return x->order - y->order;
}

static int req_cmp(gconstpointer a, gconstpointer b)
{
    const req_t *x = *(req_t *const *)a, *y = *(req_t *const *)b;

    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->order - y->order;
}

static guint32 bit_count(guint32 v)
{
    guint32 n = 0;

    for (; v; v &= v - 1)
        n++;
    return n;
}

/* A copy by direction (empty ACKs in neither): lost when incomplete or with
 * a fragment never acknowledged; a response's first frame is fragment 0. */
static void direction_counts(summary_t *m, const dg_rec_t *r, int h)
{
    gboolean lost = r->copy_us[h] == NO_TIME || (r->sent[h] & ~r->acked[h]) != 0;

    if (r->request) {
        m->request_copies++;
        m->request_copies_lost += lost;
        m->request_frames_complete += lost ? 0 : bit_count(r->sent[h]);
    } else if (r->response) {
        m->response_copies++;
        m->response_copies_lost += lost;
        m->response_frames_complete += lost ? 0 : bit_count(r->sent[h]);
        m->response_bytes_complete += lost ? 0 : r->psdu_bytes[h];
        m->response_first_lost += lost && !(r->sent[h] & r->acked[h] & 1u);
        m->response_later_frames += bit_count(r->sent[h] & ~1u);
    }
}

static void fragment_counts(summary_t *m, const dg_rec_t *r)
{
    m->mac_retries += r->mac_retries;
    g_array_append_vals(m->air, r->air->data, r->air->len);
    for (int h = 0; h < r->n_hops; h++) {
        if (!r->sent[h])
            continue;
        m->copies++;
        m->frames += bit_count(r->sent[h]);
        m->frames_unacked += bit_count(r->sent[h] & ~r->acked[h]);
        direction_counts(m, r, h);
    }
    if (!r->fragmented)
        return;
    for (int h = 0; h < r->n_hops; h++) {
        if (!r->sent[h])
            continue;
        m->frag_copies++;
        if (r->copy_us[h] == NO_TIME)
            m->frag_incomplete++;
        m->frags_lost += bit_count(r->sent[h] & ~r->acked[h]);
    }
}

/* Responses: the accepted round of each request (its first response round
 * that no round of the request follows), the final response, the blocks. */
static void responses(summary_t *m, GPtrArray *recs, GHashTable *reqs, GHashTable *blocks,
                      gboolean gw, gboolean block1)
{
    gint64 final_first = NO_TIME;

    for (guint i = 0; i < recs->len; i++) {
        const dg_rec_t *r = g_ptr_array_index(recs, i);
        gint64 fc = first_copy(r, gw), lc = last_copy(r, gw);
        req_t *q;

        if (r->upstream || !r->response || fc == NO_TIME)
            continue;
        q = g_hash_table_lookup(reqs, GUINT_TO_POINTER(r->answers));
        if (!q)
            continue;
        gboolean followed = q->last_first > lc;
        if (!followed && (q->acc_first == NO_TIME || fc < q->acc_first)) {
            q->acc_first = fc;
            q->acc_last = lc;
        }
        if (!followed && is_final(r, block1) && (final_first == NO_TIME || fc < final_first)) {
            final_first = fc;
            m->last_response = lc;
        }
        gint64 off = -1;
        guint32 len = 0;
        if (!block1 && r->code >> 5 == 2 && r->b2_present && r->payload_len > 0) {
            off = r->block;
            len = r->payload_len;
        } else if (block1 && (r->code == COAP_CONTINUE || r->code == COAP_CHANGED) && q->block >= 0) {
            off = q->block;
            len = q->len;
        }
        if (off >= 0 && !g_hash_table_contains(blocks, &off)) {
            gint64 *k = g_new(gint64, 1);
            *k = off;
            g_hash_table_insert(blocks, k, GUINT_TO_POINTER(len));
        }
    }
}

/* A copy of the datagram lost on air: sent on a hop but incomplete there,
 * or with a fragment never acknowledged. */
static gboolean rec_lost(const dg_rec_t *r)
{
    for (int h = 0; h < r->n_hops; h++)
        if (r->sent[h] && (r->copy_us[h] == NO_TIME || (r->sent[h] & ~r->acked[h]) != 0))
            return TRUE;
    return FALSE;
}

/* Rounds by their first copy; data: non-NULL for the gateway's view. */
static gint round_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
    const dg_rec_t *x = *(const dg_rec_t *const *)a, *y = *(const dg_rec_t *const *)b;
    gboolean gw = data != NULL;
    gint64 p = first_copy(x, gw), q = first_copy(y, gw);

    if (p != q)
        return p < q ? -1 : 1;
    return x->order - y->order;
}

/* Spurious retransmissions (docs/ota-sessions.md), from what the gateway
 * answered: a round after the first whose request saw nothing of its
 * exchange lost on air, and the gateway's answer to an earlier round came
 * after it. The sniffer has to infer which round an answer answers; here
 * it is known. */
static void spurious(summary_t *m, GPtrArray *recs, GPtrArray *order, gboolean gw)
{
    /* Each exchange's datagrams, by the request's MID: its request rounds
     * (seen or not) and the responses answering it. */
    GHashTable *exchanges = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                                  (GDestroyNotify)g_ptr_array_unref);
    for (guint k = 0; k < recs->len; k++) {
        const dg_rec_t *r = g_ptr_array_index(recs, k);
        gboolean request = r->upstream && r->request, answer = !r->upstream && r->response;
        if (!request && !answer)
            continue;
        gpointer key = GUINT_TO_POINTER(request ? r->mid : r->answers);
        GPtrArray *ex = g_hash_table_lookup(exchanges, key);
        if (!ex) {
            ex = g_ptr_array_new();
            g_hash_table_insert(exchanges, key, ex);
        }
        g_ptr_array_add(ex, (gpointer)r);
    }
    for (guint i = 0; i < order->len; i++) {
        req_t *q = g_ptr_array_index(order, i);
        GPtrArray *ex = g_hash_table_lookup(exchanges, GUINT_TO_POINTER(q->mid));
        guint n = q->round_recs->len;
        gboolean lost = FALSE;

        g_ptr_array_sort_with_data(q->round_recs, round_cmp, gw ? q : NULL);
        g_array_set_size(q->spurious, n);
        for (guint k = 0; !gw && ex && k < ex->len; k++)
            lost |= rec_lost(g_ptr_array_index(ex, k));
        for (guint k = 0; q->acc_first != NO_TIME && ex && k < ex->len; k++) {
            const dg_rec_t *r = g_ptr_array_index(ex, k);
            gint64 fc = first_copy(r, gw);
            q->answers_before_acc += !r->upstream && fc != NO_TIME && fc < q->acc_first;
        }
        for (guint k = 1; !lost && k < n; k++) {
            gint64 sent = first_copy(g_ptr_array_index(q->round_recs, k), gw);
            for (guint a = 0; ex && a < ex->len; a++) {
                const dg_rec_t *r = g_ptr_array_index(ex, a);
                gint64 fc = first_copy(r, gw);
                gboolean earlier = FALSE;
                for (guint j = 0; j < k; j++)
                    earlier |= r->answers_rec == g_ptr_array_index(q->round_recs, j);
                if (!r->upstream && earlier && fc != NO_TIME && fc > sent) {
                    g_array_index(q->spurious, gboolean, k) = TRUE;
                    m->spurious_retransmissions++;
                    break;
                }
            }
        }
    }
    g_hash_table_destroy(exchanges);
}

static gboolean is_spurious(const req_t *q, guint k)
{
    return k < q->spurious->len && g_array_index(q->spurious, gboolean, k);
}

/* Requests in the order of their first copy: re-requests (a new MID for a
 * block already asked for) and the meter's turn-around before each new block. */
static void request_order(summary_t *m, GPtrArray *order)
{
    GHashTable *asked = g_hash_table_new(g_int64_hash, g_int64_equal);

    g_ptr_array_sort(order, req_cmp);
    for (guint i = 0; i < order->len; i++) {
        req_t *q = g_ptr_array_index(order, i);
        const req_t *prev = i ? g_ptr_array_index(order, i - 1) : NULL;

        if (i == 0)
            m->first_request = q->first;
        m->requests += q->rounds;
        m->retransmissions += q->rounds - 1;
        if (q->acc_last != NO_TIME) {
            gint64 v = q->acc_last - q->first;
            g_array_append_val(m->rtt_first, v);
            /* From the round the accepted answer answers: the last, or after
             * spurious retransmissions the one whose turn it is (as the
             * sniffer counts: the answers that came before it). */
            gint64 from = q->last_first;
            if (is_spurious(q, q->rounds - 1)) {
                g_array_sort(q->round_at, cmp_i64);
                from = g_array_index(q->round_at, gint64, MIN(q->answers_before_acc, q->rounds - 1));
            }
            v = q->acc_last - from;
            g_array_append_val(m->rtt_last, v);
        }
        if (g_hash_table_contains(asked, &q->block)) {
            m->rerequests++;
            continue;
        }
        g_hash_table_add(asked, &q->block);
        if (prev && prev->acc_last != NO_TIME && prev->acc_last <= q->first) {
            gint64 v = q->first - prev->acc_last;
            g_array_append_val(m->turnaround, v);
        }
    }
    g_hash_table_destroy(asked);
}

static void req_free(gpointer p)
{
    req_t *q = p;

    g_array_free(q->round_at, TRUE);
    g_ptr_array_free(q->round_recs, TRUE);
    g_array_free(q->spurious, TRUE);
    g_free(q);
}

/* ---- where the time went (docs/ota-sessions.md) ---- */



enum { SPLIT_AIR, SPLIT_TIMEOUTS, SPLIT_NETWORK, SPLIT_TURNAROUND, SPLIT_POLL, SPLIT_UNSEEN };

#define ACK_TIMEOUT_US 2000000   /* RFC 7252: the least a CoAP timeout waits */

typedef struct {
    gint64 at;
    int    what;
} mark_t;

static void mark(GArray *marks, gint64 at, int what)
{
    mark_t mk = { at, what };

    /* A later event overrides marks it precedes. */
    while (marks->len && g_array_index(marks, mark_t, marks->len - 1).at > at)
        g_array_set_size(marks, marks->len - 1);
    g_array_append_val(marks, mk);
}

static int cmp_span(const void *a, const void *b)
{
    const gint64 *x = a, *y = b;

    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts spans and merges the overlapping ones: disjoint, in order. */
static void merge_spans(GArray *spans)
{
    guint n = 0;

    if (!spans->len)   /* qsort(NULL, 0) is undefined */
        return;
    qsort(spans->data, spans->len, 2 * sizeof(gint64), cmp_span);
    for (guint i = 0; i < spans->len; i++) {
        const gint64 *sp = &g_array_index(spans, gint64, 2 * i);
        gint64 *last = n ? &g_array_index(spans, gint64, 2 * (n - 1)) : NULL;
        if (last && sp[0] <= last[1]) {
            last[1] = MAX(last[1], sp[1]);
        } else {
            gint64 *to = &g_array_index(spans, gint64, 2 * n++);
            to[0] = sp[0];
            to[1] = sp[1];
        }
    }
    g_array_set_size(spans, n);
}

/* The first of the (merged) spans that ends after from. */
static guint first_span_after(const GArray *spans, gint64 from)
{
    guint lo = 0, hi = spans->len;

    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (g_array_index(spans, gint64, 2 * mid + 1) <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Microseconds of [from, to) covered by the spans (merged). */
static gint64 spans_within(const GArray *spans, gint64 from, gint64 to)
{
    gint64 covered = 0;

    for (guint i = first_span_after(spans, from); i < spans->len; i++) {
        const gint64 *sp = &g_array_index(spans, gint64, 2 * i);
        if (sp[0] >= to)
            break;
        covered += MIN(sp[1], to) - MAX(sp[0], from);
    }
    return covered;
}

/* Microseconds of [from, to) in a wait (merged spans) and not on the air. */
static gint64 wait_within(const GArray *wait, const GArray *air, gint64 from, gint64 to)
{
    gint64 t = 0;

    for (guint i = first_span_after(wait, from); i < wait->len; i++) {
        const gint64 *sp = &g_array_index(wait, gint64, 2 * i);
        gint64 a = MAX(sp[0], from), b = MIN(sp[1], to);
        if (sp[0] >= to)
            break;
        t += b - a - spans_within(air, a, b);
    }
    return t;
}

/* The gateway view's unseen time in one turn-around stretch, and how far an
 * estimate of it as the stretch's excess over the median (when that is at
 * least ACK_TIMEOUT) can be from it: the seen part's distance from the
 * median where the estimate counts the stretch, the whole unseen time where
 * it does not. */
static void unseen_stretch(summary_t *m, gint64 len, gint64 unseen, gint64 median)
{
    gint64 seen = len - unseen;
    gboolean counted = len - median >= ACK_TIMEOUT_US;

    m->split[SPLIT_UNSEEN] += unseen;
    m->split[SPLIT_TURNAROUND] -= unseen;
    m->unseen_stretches += unseen > 0;
    if (counted)
        m->unseen_bound += ABS(seen - median);
    else
        m->unseen_bound += unseen;
}

static void time_split(summary_t *m, GPtrArray *order, gint64 end)
{
    GArray *marks = g_array_new(FALSE, FALSE, sizeof(mark_t));
    gint64 median = 0;

    for (guint i = 0; i < order->len; i++) {
        req_t *q = g_ptr_array_index(order, i);
        gboolean answered = q->acc_last != NO_TIME;

        g_array_sort(q->round_at, cmp_i64);
        for (guint k = 0; k < q->round_at->len; k++)
            mark(marks, g_array_index(q->round_at, gint64, k),
                 (k + 1 == q->round_at->len && answered) || is_spurious(q, k + 1) ? SPLIT_NETWORK : SPLIT_TIMEOUTS);
        if (answered)
            mark(marks, q->acc_last, SPLIT_TURNAROUND);
    }
    merge_spans(m->air);
    merge_spans(m->poll);
    merge_spans(m->unseen);
    if (m->turnaround->len) {   /* nearest rank, as put_quantiles */
        GArray *v = g_array_copy(m->turnaround);
        g_array_sort(v, cmp_i64);
        median = g_array_index(v, gint64, (v->len + 1) / 2 - 1);
        g_array_free(v, TRUE);
    }
    for (guint i = 0; i < marks->len; i++) {
        const mark_t *mk = &g_array_index(marks, mark_t, i);
        gint64 from = MAX(mk->at, m->first_request);
        gint64 to = MIN(i + 1 < marks->len ? g_array_index(marks, mark_t, i + 1).at : end, end);
        if (to <= from)
            continue;
        gint64 air = spans_within(m->air, from, to);
        /* A held datagram waits while its answer is on its way: in a timeout
         * or a turn-around the meter waits for its timer or writes. */
        gint64 poll = mk->what == SPLIT_NETWORK ? wait_within(m->poll, m->air, from, to) : 0;
        m->split[SPLIT_AIR] += air;
        m->split[SPLIT_POLL] += poll;
        m->split[mk->what] += to - from - air - poll;
        if (mk->what == SPLIT_TURNAROUND && m->gateway)
            unseen_stretch(m, to - from, wait_within(m->unseen, m->air, from, to), median);
    }
    g_array_free(marks, TRUE);
}

/* Silences longer than the plugin's default stall threshold (10 s). */
static void stalls(summary_t *m, gint64 end)
{
    g_array_sort(m->activity, cmp_i64);
    for (guint i = 1; i < m->activity->len; i++) {
        gint64 a = g_array_index(m->activity, gint64, i - 1), b = g_array_index(m->activity, gint64, i);
        if (a >= m->first_request && b <= end && b - a > 10000000) {
            m->stalls++;
            m->stalled += b - a;
        }
    }
}

/* ---- waits a sniffer finds only in part ---- */

/* A copy sent to a sleepy child: from when its parent had the fragment it
 * sent first to the start of the Data Request it sent it after. On the hop
 * from the border router the parent had it from Ethernet, which a radio
 * capture does not show. */
static void poll_waits(summary_t *m, const dg_rec_t *r)
{
    for (int h = 0; h < r->n_hops; h++) {
        if (r->poll_dr[h] == NO_TIME || !r->sent[h])
            continue;
        m->poll_waits++;
        if (r->poll_dr[h] > r->poll_had[h]) {
            gint64 span[2] = { r->poll_had[h], r->poll_dr[h] };
            g_array_append_val(m->poll, span);
        }
        if (h == 0 && !r->upstream) {
            gint64 e[3] = { r->poll_had[h], r->poll_dr[h], r->poll_prev[h] };
            g_array_append_vals(m->estimated, e, 1);
        }
    }
}

/* How far a wait from Ethernet, estimated from the midpoint of the latest
 * earlier event that bounds the arrival (the child's Data Request before,
 * a copy of the request answered) and the Data Request, can be from the
 * true one. When the arrival came after both, the estimate's bound lies
 * between the Data Request before and the arrival: off by at most half the
 * gap between the two Data Requests. Otherwise (the datagram waited behind
 * another one, or no Data Request came before) by at most the wait or that
 * half gap. */
static void poll_bound(summary_t *m)
{
    g_array_sort(m->request_at, cmp_i64);
    for (guint i = 0; i < m->estimated->len; i++) {
        const gint64 *e = &g_array_index(m->estimated, gint64, 3 * i);
        gint64 had = e[0], dr = e[1], prev = e[2], req = NO_TIME;
        guint lo = 0, hi = m->request_at->len;
        while (lo < hi) {   /* the first copy at dr or later: the one before is the latest before */
            guint mid = (lo + hi) / 2;
            if (g_array_index(m->request_at, gint64, mid) < dr)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo)
            req = g_array_index(m->request_at, gint64, lo - 1);
        gint64 wait = MAX(dr - had, 0);
        gint64 half = prev != NO_TIME ? (dr - prev) / 2 + 1 : wait;
        m->poll_bound += had >= prev && had >= req && prev != NO_TIME ? half : MAX(wait, half);
    }
}

/* The gateway's view: each request transmission of the meter that never
 * reached the gateway, or whose answer the meter never got before it sent
 * again (the answer lost on the radio), from when the meter sent it to its
 * next one or to the meter taking an answer (a late one to an earlier
 * transmission), whichever came first: the meter waiting for a CoAP
 * timeout the gateway cannot see (counted where it falls in the gateway
 * view's turn-around). */
static void unseen_waits(summary_t *m, GPtrArray *recs)
{
    GPtrArray *sent = g_ptr_array_new();

    for (guint i = 0; i < recs->len; i++) {
        const dg_rec_t *r = g_ptr_array_index(recs, i);
        if (r->upstream && r->request)
            g_ptr_array_add(sent, (gpointer)r);
    }
    g_ptr_array_sort(sent, sent_cmp);
    for (guint i = 0; i < sent->len; i++) {
        const dg_rec_t *q = g_ptr_array_index(sent, i);
        gint64 next = i + 1 < sent->len ? ((const dg_rec_t *)g_ptr_array_index(sent, i + 1))->sent_us : G_MAXINT64;
        gint64 taken = G_MAXINT64;
        for (guint k = 0; k < recs->len; k++) {
            const dg_rec_t *r = g_ptr_array_index(recs, k);
            if (r->taken_us != NO_TIME && r->taken_us > q->sent_us)
                taken = MIN(taken, r->taken_us);
        }
        /* Seen at the gateway and answered before the next: no timeout. */
        if (q->gw_us != NO_TIME && taken < next)
            continue;
        gint64 until = MIN(next, taken);
        if (until != G_MAXINT64) {
            gint64 span[2] = { q->sent_us, until };
            g_array_append_val(m->unseen, span);
        }
    }
    g_ptr_array_free(sent, TRUE);
}

/* Responses sent again and error responses, as docs/ota-sessions.md counts
 * them: a response message (Message ID, type and code) with a copy is one
 * message however many rounds it had; each of its rounds with a copy after
 * the first is a duplicate when it answers a request with a copy (the
 * gateway answering a retransmission from its cache, a separate response
 * sent again); a message of class 4 or 5 is an error response. */
static void repeats(summary_t *m, GPtrArray *recs, GHashTable *reqs, gboolean gw)
{
    GHashTable *msgs = g_hash_table_new(g_direct_hash, g_direct_equal);

    for (guint i = 0; i < recs->len; i++) {
        const dg_rec_t *r = g_ptr_array_index(recs, i);

        if (r->upstream || !r->response || first_copy(r, gw) == NO_TIME)
            continue;
        gpointer key = GUINT_TO_POINTER((guint)r->mid << 16 | (guint)r->type << 8 | r->code);
        guint seen = GPOINTER_TO_UINT(g_hash_table_lookup(msgs, key));
        g_hash_table_insert(msgs, key, GUINT_TO_POINTER(seen + 1));
        if (!seen && (r->code >> 5 == 4 || r->code >> 5 == 5))
            m->error_responses++;
        if (seen && g_hash_table_contains(reqs, GUINT_TO_POINTER(r->answers)))
            m->duplicate_responses++;
    }
    g_hash_table_destroy(msgs);
}

static void summarise(summary_t *m, GPtrArray *recs, gboolean gw, gboolean block1)
{
    GHashTable *reqs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, req_free);
    GHashTable *blocks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GPtrArray *order = g_ptr_array_new();

    for (guint i = 0; recs && i < recs->len; i++) {
        const dg_rec_t *r = g_ptr_array_index(recs, i);
        gint64 fc = first_copy(r, gw);

        if (!gw) {
            fragment_counts(m, r);
            poll_waits(m, r);
        }
        if (fc == NO_TIME)
            continue;
        m->last_activity = MAX(m->last_activity, last_copy(r, gw));
        if (gw)
            g_array_append_val(m->activity, r->gw_us);
        for (int h = 0; !gw && h < r->n_hops; h++)
            if (r->copy_us[h] != NO_TIME) {
                g_array_append_val(m->activity, r->copy_us[h]);
                if (r->upstream && r->request)
                    g_array_append_val(m->request_at, r->copy_us[h]);
            }
        if (!r->upstream || !r->request)
            continue;
        req_t *q = g_hash_table_lookup(reqs, GUINT_TO_POINTER(r->mid));
        if (!q) {
            q = g_new0(req_t, 1);
            q->mid = r->mid;
            q->order = r->order;
            q->block = r->block;
            q->len = r->payload_len;
            q->first = q->last_first = fc;
            q->acc_first = q->acc_last = NO_TIME;
            q->round_at = g_array_new(FALSE, FALSE, sizeof(gint64));
            q->round_recs = g_ptr_array_new();
            q->spurious = g_array_new(FALSE, TRUE, sizeof(gboolean));
            g_hash_table_insert(reqs, GUINT_TO_POINTER(r->mid), q);
            g_ptr_array_add(order, q);
        }
        q->rounds++;
        g_array_append_val(q->round_at, fc);
        g_ptr_array_add(q->round_recs, (gpointer)r);
        q->first = MIN(q->first, fc);
        q->last_first = MAX(q->last_first, fc);
    }
    if (recs) {
        responses(m, recs, reqs, blocks, gw, block1);
        spurious(m, recs, order, gw);
        repeats(m, recs, reqs, gw);
    }
    request_order(m, order);
    if (recs && gw)
        unseen_waits(m, recs);
    poll_bound(m);
    gint64 end = m->last_response != NO_TIME ? m->last_response : m->last_activity;
    if (m->first_request != NO_TIME && end > m->first_request) {
        time_split(m, order, end);
        stalls(m, end);
    }
    m->blocks = g_hash_table_size(blocks);
    for (gint64 at = 0; g_hash_table_contains(blocks, &at);) {
        guint32 len = GPOINTER_TO_UINT(g_hash_table_lookup(blocks, &at));
        if (!len)
            break;
        at += len;
        m->bytes = (guint32)at;
    }
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(blocks);
    g_hash_table_destroy(reqs);
}

/* ---- JSON ---- */

static void put_time(JsonBuilder *b, const char *key, gint64 us)
{
    tj_int_or_null(b, key, us, us != NO_TIME);
}

/* Median and 95th percentile, nearest rank: the value at rank ceil(p n). */
static void put_quantiles(JsonBuilder *b, const char *key, GArray *v)
{
    guint n = v->len;
    char *median = g_strconcat(key, "_median_s", NULL), *p95 = g_strconcat(key, "_p95_s", NULL);

    if (!n) {
        tj_null(b, median);
        tj_null(b, p95);
    } else {
        qsort(v->data, n, sizeof(gint64), cmp_i64);
        tj_fixed6(b, median, g_array_index(v, gint64, (n + 1) / 2 - 1) / 1e6);
        tj_fixed6(b, p95, g_array_index(v, gint64, (95 * n + 99) / 100 - 1) / 1e6);
    }
    g_free(median);
    g_free(p95);
}

void on_air_write(on_air_t *oa, JsonBuilder *b, const truth_xfer_t *x, gboolean gateway_view)
{
    summary_t m = { .first_request = NO_TIME, .last_response = NO_TIME, .last_activity = NO_TIME };
    gint64 end;

    m.rtt_first = g_array_new(FALSE, FALSE, sizeof(gint64));
    m.rtt_last = g_array_new(FALSE, FALSE, sizeof(gint64));
    m.turnaround = g_array_new(FALSE, FALSE, sizeof(gint64));
    m.air = g_array_new(FALSE, FALSE, 2 * sizeof(gint64));
    m.activity = g_array_new(FALSE, FALSE, sizeof(gint64));
    m.poll = g_array_new(FALSE, FALSE, 2 * sizeof(gint64));
    m.unseen = g_array_new(FALSE, FALSE, 2 * sizeof(gint64));
    m.estimated = g_array_new(FALSE, FALSE, 3 * sizeof(gint64));
    m.request_at = g_array_new(FALSE, FALSE, sizeof(gint64));
    m.gateway = gateway_view;
    summarise(&m, g_hash_table_lookup(oa->by_xfer, GINT_TO_POINTER(x->id)), gateway_view,
              strcmp(x->kind, "block1") == 0);
    end = m.last_response != NO_TIME ? m.last_response : m.last_activity;

    json_builder_set_member_name(b, "on_air");
    json_builder_begin_object(b);
    put_time(b, "first_request_us", m.first_request);
    put_time(b, "last_response_us", m.last_response);
    put_time(b, "last_activity_us", m.last_activity);
    if (m.first_request != NO_TIME && end != NO_TIME && end > m.first_request) {
        tj_fixed6(b, "duration_s", (double)(end - m.first_request) / 1e6);
        tj_fixed6(b, "rate_Bps", m.bytes / ((double)(end - m.first_request) / 1e6));
    } else {
        tj_null(b, "duration_s");
        tj_null(b, "rate_Bps");
    }
    tj_int(b, "blocks", m.blocks);
    tj_int(b, "bytes", m.bytes);
    tj_bool(b, "complete", m.last_response != NO_TIME);
    tj_int(b, "requests", m.requests);
    tj_int(b, "retransmissions", m.retransmissions);
    tj_int(b, "spurious_retransmissions", m.spurious_retransmissions);
    tj_int(b, "rerequests", m.rerequests);
    tj_int(b, "mac_retries", m.mac_retries);
    tj_int(b, "datagrams_fragmented", m.frag_copies);
    tj_int(b, "datagrams_incomplete", m.frag_incomplete);
    tj_int(b, "fragments_lost", m.frags_lost);
    put_quantiles(b, "rtt_first", m.rtt_first);
    put_quantiles(b, "rtt_last", m.rtt_last);
    put_quantiles(b, "turnaround", m.turnaround);
    tj_fixed6(b, "time_air_s", m.split[SPLIT_AIR] / 1e6);
    tj_fixed6(b, "time_timeouts_s", m.split[SPLIT_TIMEOUTS] / 1e6);
    tj_fixed6(b, "time_network_s", m.split[SPLIT_NETWORK] / 1e6);
    tj_fixed6(b, "time_turnaround_s", m.split[SPLIT_TURNAROUND] / 1e6);
    tj_fixed6(b, "time_poll_s", m.split[SPLIT_POLL] / 1e6);
    tj_fixed6(b, "time_unseen_s", m.split[SPLIT_UNSEEN] / 1e6);
    tj_str(b, "vantage", gateway_view ? "gateway" : "radio");
    tj_int(b, "poll_waits", m.poll_waits);
    tj_int(b, "poll_waits_estimated", m.estimated->len);
    tj_fixed6(b, "poll_estimate_bound_s", m.poll_bound / 1e6);
    tj_int(b, "unseen_stretches", m.unseen_stretches);
    tj_fixed6(b, "unseen_estimate_bound_s", m.unseen_bound / 1e6);
    tj_int(b, "stalls", m.stalls);
    tj_fixed6(b, "stalled_s", m.stalled / 1e6);
    tj_int(b, "datagram_copies", m.copies);
    tj_int(b, "frames_sent", m.frames);
    tj_int(b, "frames_unacked", m.frames_unacked);
    tj_int(b, "request_copies", m.request_copies);
    tj_int(b, "request_copies_lost", m.request_copies_lost);
    tj_int(b, "request_frames_complete", m.request_frames_complete);
    tj_int(b, "response_copies", m.response_copies);
    tj_int(b, "response_copies_lost", m.response_copies_lost);
    tj_int(b, "response_frames_complete", m.response_frames_complete);
    tj_int(b, "response_bytes_complete", m.response_bytes_complete);
    tj_int(b, "response_first_lost", m.response_first_lost);
    tj_int(b, "response_later_frames", m.response_later_frames);
    tj_int(b, "duplicate_responses", m.duplicate_responses);
    tj_int(b, "error_responses", m.error_responses);
    json_builder_end_object(b);
    g_array_free(m.rtt_first, TRUE);
    g_array_free(m.rtt_last, TRUE);
    g_array_free(m.turnaround, TRUE);
    g_array_free(m.air, TRUE);
    g_array_free(m.activity, TRUE);
    g_array_free(m.poll, TRUE);
    g_array_free(m.unseen, TRUE);
    g_array_free(m.estimated, TRUE);
    g_array_free(m.request_at, TRUE);
}

/* ---- what the sniffer missed ---- */

/* Every (round, hop) copy of x's datagrams with a frame or an ACK the
 * sniffer did not capture, in the order the rounds were sent: the message
 * (Message ID, its round among the rounds of that MID in that direction,
 * what it is, the block), how much of it is missing from the capture, and
 * whether it was lost on the channel, which is another matter. */
guint on_air_write_missed(on_air_t *oa, JsonBuilder *b, const truth_xfer_t *x, guint *unreassemblable)
{
    GPtrArray *recs = g_hash_table_lookup(oa->by_xfer, GINT_TO_POINTER(x->id));
    GHashTable *rounds = g_hash_table_new(g_direct_hash, g_direct_equal);
    guint n = 0;

    *unreassemblable = 0;
    for (guint i = 0; recs && i < recs->len; i++) {
        const dg_rec_t *r = g_ptr_array_index(recs, i);
        gpointer key = GUINT_TO_POINTER((guint)r->mid << 1 | (guint)r->upstream);
        guint round = GPOINTER_TO_UINT(g_hash_table_lookup(rounds, key)) + 1;

        g_hash_table_insert(rounds, key, GUINT_TO_POINTER(round));
        for (int h = 0; h < r->n_hops; h++) {
            guint32 unseen = r->sent[h] & ~r->captured[h];
            gboolean on_air = r->copy_us[h] != NO_TIME;
            gboolean lost = !on_air || (r->sent[h] & ~r->acked[h]) != 0;

            if (!r->missed_frames[h] && !r->missed_acks[h])
                continue;
            *unreassemblable += on_air && unseen;
            json_builder_begin_object(b);
            tj_int(b, "mid", r->mid);
            tj_int(b, "round", round);
            tj_str(b, "message", r->request ? "request" : r->response ? "response" : "empty_ack");
            tj_int_or_null(b, "block", r->block, r->block >= 0);
            tj_int(b, "hop", h);
            tj_int(b, "data_frames", r->missed_frames[h]);
            tj_int(b, "acks", r->missed_acks[h]);
            tj_int(b, "fragments_never_captured", bit_count(unseen));
            tj_bool(b, "complete_on_air", on_air);
            tj_bool(b, "complete_in_capture", on_air && !unseen);
            tj_bool(b, "lost_on_channel", lost);
            json_builder_end_object(b);
            n++;
        }
    }
    g_hash_table_destroy(rounds);
    return n;
}
