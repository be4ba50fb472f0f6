/* seq_gaps.c: missed frames from skipped sequence numbers (seq_gaps.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "seq_gaps.h"

#define MAX_GAP          32     /* more numbers skipped at once: a restart, not misses */
#define SILENCE_RESET_US G_GINT64_CONSTANT(600000000)  /* after 10 min the counter may have restarted */
#define BROADCASTS       16     /* recent broadcasts remembered */

typedef struct {
    gint64 ts_us;     /* of the sender's latest frame */
    guint8 top;       /* its number */
} sender_t;

struct seq_gaps {
    wmem_allocator_t *scope;
    wmem_map_t *senders;            /* guint64 -> sender_t */
    struct {
        gint64 ts_us;
        guint8 seq;
    } broadcasts[BROADCASTS];       /* the oldest overwritten */
    guint next_broadcast;
};

static guint addr_hash(gconstpointer k)
{
    return g_int64_hash(k);
}

static gboolean addr_equal(gconstpointer a, gconstpointer b)
{
    return g_int64_equal(a, b);
}

seq_gaps_t *seq_gaps_new(wmem_allocator_t *scope)
{
    seq_gaps_t *g = wmem_new0(scope, seq_gaps_t);

    g->scope = scope;
    g->senders = wmem_map_new(scope, addr_hash, addr_equal);
    return g;
}

void seq_gaps_broadcast(seq_gaps_t *g, guint8 seq, gint64 ts_us)
{
    g->broadcasts[g->next_broadcast].ts_us = ts_us;
    g->broadcasts[g->next_broadcast].seq = seq;
    g->next_broadcast = (g->next_broadcast + 1) % BROADCASTS;
}

/* Which of the numbers after s->top and before seq a broadcast captured
 * since s's latest frame carried. */
static guint64 carried_by_broadcasts(const seq_gaps_t *g, const sender_t *s, guint8 seq, gint64 ts_us)
{
    guint8 span = (guint8)(seq - s->top);
    guint64 carried = 0;     /* bit d - 1: number s->top + d */

    for (guint i = 0; i < BROADCASTS; i++) {
        guint8 d = (guint8)(g->broadcasts[i].seq - s->top);
        if (g->broadcasts[i].ts_us && g->broadcasts[i].ts_us >= s->ts_us && g->broadcasts[i].ts_us <= ts_us &&
            d > 0 && d < span)
            carried |= G_GUINT64_CONSTANT(1) << (d - 1);
    }
    return carried;
}

gboolean seq_gaps_frame(seq_gaps_t *g, guint64 src, guint8 seq, gint64 ts_us, seq_gap_t *gap)
{
    sender_t *s = (sender_t *)wmem_map_lookup(g->senders, &src);
    gboolean skipped;

    if (!s) {
        guint64 *key = wmem_new(g->scope, guint64);
        *key = src;
        s = wmem_new(g->scope, sender_t);
        s->top = seq;
        s->ts_us = ts_us;
        wmem_map_insert(g->senders, key, s);
        return FALSE;
    }
    guint8 d = (guint8)(seq - s->top);
    if (ts_us - s->ts_us > SILENCE_RESET_US || ts_us < s->ts_us - SILENCE_RESET_US) {
        s->top = seq;
        s->ts_us = ts_us;
        return FALSE;
    }
    if (d == 0 || d >= 128)
        return FALSE;              /* the same number, or one behind: nothing skipped */
    skipped = d > 1 && d - 1 <= MAX_GAP;
    if (skipped) {
        gap->since_us = s->ts_us;
        gap->from = (guint8)(s->top + 1);
        gap->n = (guint8)(d - 1);
        gap->carried = carried_by_broadcasts(g, s, seq, ts_us);
    }
    s->top = seq;
    s->ts_us = ts_us;
    return skipped;
}
