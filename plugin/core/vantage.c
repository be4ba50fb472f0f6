/* vantage.c: a message's copy at the other vantage point (vantage.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include "vantage.h"
#include "radio_timing.h"

typedef struct {
    guint32 frame;
    gint64  first_us, last_us;
} round_t;

typedef struct {
    GArray *rounds[2];           /* round_t per vantage kind */
    guint64 src, dst;            /* its addresses' hashes */
} message_t;

typedef struct {
    message_t     *msg;
    vantage_kind_t kind;
    guint          round;
    gint64         ts_us;
} copy_t;

/* A copy noted while the file had shown one vantage point only: kept
 * compact, and paired only once the other shows up, so that a capture of
 * one vantage point pays 40 bytes a message copy and no tables. */
typedef struct {
    guint64 key, src, dst;
    gint64  ts_us;
    guint32 frame;
    guint8  index, kind, request;
} pending_t;

struct vantage_map {
    GArray     *pending;         /* pending_t, until both vantage points were seen */
    GHashTable *by_key;          /* guint64* -> message_t* */
    GHashTable *by_copy;         /* frame << 4 | index -> copy_t* */
    GArray     *unique;          /* message_t* seen once at each */
    GHashTable *ip_addresses;    /* address hash -> requests to it */
    guint64     gateway;         /* the address most requests go to */
    guint       gateway_copies;
    gboolean    seen[2];
};

static gint64 *int64_key(gint64 v)
{
    gint64 *k = g_new(gint64, 1);

    *k = v;
    return k;
}

static void message_free(gpointer p)
{
    message_t *m = p;

    g_array_unref(m->rounds[0]);
    g_array_unref(m->rounds[1]);
    g_free(m);
}

vantage_map_t *vantage_map_new(void)
{
    vantage_map_t *m = g_new0(vantage_map_t, 1);

    m->by_key = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, message_free);
    m->by_copy = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    m->unique = g_array_new(FALSE, FALSE, sizeof(message_t *));
    m->pending = g_array_new(FALSE, FALSE, sizeof(pending_t));
    m->ip_addresses = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    return m;
}

void vantage_map_free(vantage_map_t *m)
{
    if (!m)
        return;
    g_hash_table_destroy(m->by_key);
    g_hash_table_destroy(m->by_copy);
    g_array_unref(m->unique);
    if (m->pending)
        g_array_unref(m->pending);
    g_hash_table_destroy(m->ip_addresses);
    g_free(m);
}

/* The gateway is the address most requests go to: the meters are CoAP
 * clients, the gateway their server. */
static void count_request_destination(vantage_map_t *m, guint64 a)
{
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(m->ip_addresses, &a)) + 1;

    g_hash_table_replace(m->ip_addresses, int64_key((gint64)a), GUINT_TO_POINTER(n));
    if (n > m->gateway_copies) {
        m->gateway_copies = n;
        m->gateway = a;
    }
}

static void note(vantage_map_t *m, guint64 key, vantage_kind_t kind, guint64 src, guint64 dst, gboolean request,
                 guint32 frame, guint index, gint64 ts_us);

void vantage_note(vantage_map_t *m, guint64 key, vantage_kind_t kind, guint64 src, guint64 dst, gboolean request,
                  guint32 frame, guint index, gint64 ts_us)
{
    m->seen[kind] = TRUE;
    if (m->pending && !vantage_both_seen(m)) {
        pending_t p = { key, src, dst, ts_us, frame, (guint8)index, (guint8)kind, (guint8)request };
        g_array_append_val(m->pending, p);
        return;
    }
    if (m->pending) {
        /* The other vantage point at last: what came before goes into the tables. */
        GArray *before = m->pending;
        m->pending = NULL;
        for (guint i = 0; i < before->len; i++) {
            const pending_t *p = &g_array_index(before, pending_t, i);
            note(m, p->key, (vantage_kind_t)p->kind, p->src, p->dst, p->request, p->frame, p->index, p->ts_us);
        }
        g_array_unref(before);
    }
    note(m, key, kind, src, dst, request, frame, index, ts_us);
}

static void note(vantage_map_t *m, guint64 key, vantage_kind_t kind, guint64 src, guint64 dst, gboolean request,
                 guint32 frame, guint index, gint64 ts_us)
{
    message_t *msg = g_hash_table_lookup(m->by_key, &key);

    if (request)
        count_request_destination(m, dst);
    if (!msg) {
        msg = g_new0(message_t, 1);
        msg->src = src;
        msg->dst = dst;
        msg->rounds[0] = g_array_new(FALSE, FALSE, sizeof(round_t));
        msg->rounds[1] = g_array_new(FALSE, FALSE, sizeof(round_t));
        g_hash_table_insert(m->by_key, int64_key((gint64)key), msg);
    }
    GArray *rs = msg->rounds[kind];
    round_t *last = rs->len ? &g_array_index(rs, round_t, rs->len - 1) : NULL;
    gboolean new_round = !(kind == VANTAGE_RADIO && last && ts_us - last->last_us <= RADIO_SAME_BYTES_ROUND_US &&
                           ts_us >= last->last_us);
    if (!new_round) {
        last->last_us = ts_us;      /* a hop copy or a MAC retry */
    } else {
        round_t r = { frame, ts_us, ts_us };
        g_array_append_val(rs, r);
    }
    if (new_round && msg->rounds[0]->len == 1 && msg->rounds[1]->len == 1)
        g_array_append_val(m->unique, msg);
    copy_t *c = g_new0(copy_t, 1);
    c->msg = msg;
    c->kind = kind;
    c->round = rs->len - 1;
    c->ts_us = ts_us;
    gint64 id = (gint64)frame << 4 | (gint64)(index & 15);
    g_hash_table_replace(m->by_copy, int64_key(id), c);
}

gboolean vantage_both_seen(const vantage_map_t *m)
{
    return m->seen[0] && m->seen[1];
}

/* IP minus radio of a message seen once at each; its sign tells nothing
 * alone: towards the gateway it is the offset plus the delay. */
static gint64 unique_diff(const message_t *msg)
{
    return g_array_index(msg->rounds[VANTAGE_IP], round_t, 0).first_us -
           g_array_index(msg->rounds[VANTAGE_RADIO], round_t, 0).first_us;
}

/* The clocks' offset (IP minus radio) between the two directions' delays:
 * under the least upward difference, over the greatest downward one; the
 * midpoint, and half the gap as its bound. Messages still seen once at
 * each end only (a later round may make one ambiguous). */
static void offset(const vantage_map_t *m, gint64 *offset_us, gint64 *bound_us)
{
    gint64 up = G_MAXINT64, down = G_MININT64;

    for (guint i = 0; i < m->unique->len; i++) {
        const message_t *msg = g_array_index(m->unique, message_t *, i);
        if (msg->rounds[0]->len != 1 || msg->rounds[1]->len != 1)
            continue;
        if (msg->dst == m->gateway)
            up = MIN(up, unique_diff(msg));
        else if (msg->src == m->gateway)
            down = MAX(down, unique_diff(msg));
    }
    if (up == G_MAXINT64 && down == G_MININT64) {
        *offset_us = 0;
        *bound_us = G_MAXINT64 / 4;
    } else if (up == G_MAXINT64 || down == G_MININT64) {
        /* One direction only: no bound, the nearest difference stands for the offset. */
        *offset_us = up != G_MAXINT64 ? up : down;
        *bound_us = G_MAXINT64 / 4;
    } else {
        *offset_us = up / 2 + down / 2;
        *bound_us = MAX(up - down, 0) / 2;
    }
}

typedef struct {
    guint  radio, ip;
    gint64 delay;
} candidate_t;

static int by_delay(const void *a, const void *b)
{
    gint64 x = ((const candidate_t *)a)->delay, y = ((const candidate_t *)b)->delay;

    return (x > y) - (x < y);
}

/* The rounds of one message at the two ends paired, each at most once,
 * the shortest delays first, delays no less than the offset's bound below
 * zero: the other end's round paired with round `round` at `kind`. */
static const round_t *matched_round(const message_t *msg, vantage_kind_t kind, guint round, gboolean up,
                                    gint64 offset_us, gint64 bound)
{
    GArray *rr = msg->rounds[VANTAGE_RADIO], *ir = msg->rounds[VANTAGE_IP];
    GArray *cand = g_array_new(FALSE, FALSE, sizeof(candidate_t));
    const round_t *found = NULL;

    for (guint i = 0; i < rr->len; i++)
        for (guint j = 0; j < ir->len; j++) {
            gint64 delay = g_array_index(ir, round_t, j).first_us - offset_us - g_array_index(rr, round_t, i).first_us;
            candidate_t c = { i, j, up ? delay : -delay };
            if (c.delay >= -bound && c.delay <= RADIO_PAIR_WINDOW_US)
                g_array_append_val(cand, c);
        }
    g_array_sort(cand, by_delay);
    gboolean *used_r = g_new0(gboolean, rr->len + 1), *used_i = g_new0(gboolean, ir->len + 1);
    for (guint k = 0; k < cand->len && !found; k++) {
        const candidate_t *c = &g_array_index(cand, candidate_t, k);
        if (used_r[c->radio] || used_i[c->ip])
            continue;
        used_r[c->radio] = used_i[c->ip] = TRUE;
        if (kind == VANTAGE_RADIO && c->radio == round)
            found = &g_array_index(ir, round_t, c->ip);
        else if (kind == VANTAGE_IP && c->ip == round)
            found = &g_array_index(rr, round_t, c->radio);
    }
    g_free(used_r);
    g_free(used_i);
    g_array_unref(cand);
    return found;
}

gboolean vantage_other(vantage_map_t *m, guint32 frame, guint index, vantage_kind_t *kind, guint32 *other_frame,
                       gint64 *other_ts_us, gint64 *offset_us)
{
    gint64 id = (gint64)frame << 4 | (gint64)(index & 15);
    const copy_t *c = m->pending ? NULL : g_hash_table_lookup(m->by_copy, &id);

    if (!c)
        return FALSE;
    *kind = c->kind;
    gint64 bound;
    offset(m, offset_us, &bound);
    GArray *others = c->msg->rounds[!c->kind];
    const round_t *best = NULL;
    /* One round at each end is the same message whatever the clocks. */
    if (others->len == 1 && c->msg->rounds[c->kind]->len == 1) {
        best = &g_array_index(others, round_t, 0);
    } else {
        best = matched_round(c->msg, c->kind, c->round, c->msg->dst == m->gateway, *offset_us, bound);
    }
    if (!best)
        return FALSE;
    *other_frame = best->frame;
    *other_ts_us = best->first_us;
    return TRUE;
}
