/* sniffer.c: what the capture contains of the frames on the air.
 *
 * A frame is missed when the sniffer's own miss process says so, or, for a
 * frame sent by a node more than sniffer_near_hops mesh hops from the node
 * the sniffer sits next to, when an extra independent draw says so. The
 * miss process is Bernoulli per frame, or (sniffer_burst > 0) a two-state
 * Gilbert chain stepped once per frame on the air: every frame is missed
 * while bad and heard while good, bad runs last sniffer_burst frames on
 * average and the long-run share of bad frames is sniffer_miss. Each part
 * draws from a stream of its own, none from the simulation's: the run, and
 * every stamp, is the same with and without misses.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sniffer.h"
#include "channel.h"

struct sniffer {
    GRand   *stamp_rng;          /* host latency */
    GRand   *miss_rng;           /* the per-frame or burst miss process */
    GRand   *far_rng;            /* the far nodes' extra misses */
    gint64   last_stamp_us;
    gboolean started, bad;       /* the burst chain's state, once it has one */
};

static GRand *stream(const sim_params_t *p, guint32 salt)
{
    guint32 seed[2] = { (guint32)p->seed ^ salt, (guint32)(p->seed >> 32) };

    return g_rand_new_with_seed_array(seed, 2);
}

sniffer_t *sniffer_new(const sim_params_t *p)
{
    sniffer_t *s = g_new0(sniffer_t, 1);

    /* "snif": the host-latency stream as it always was, so captures keep their bytes. */
    s->stamp_rng = stream(p, 0x736e6966u);
    s->miss_rng = stream(p, 0x6d697373u);    /* "miss" */
    s->far_rng = stream(p, 0x66617221u);     /* "far!" */
    return s;
}

void sniffer_free(sniffer_t *s)
{
    if (!s)
        return;
    g_rand_free(s->stamp_rng);
    g_rand_free(s->miss_rng);
    g_rand_free(s->far_rng);
    g_free(s);
}

static const node_t *sniffer_node(const world_t *w)
{
    return w->p.sniffer_at == SNIFFER_AT_BORDER_ROUTER ? w->br : w->meters[0];
}

static int depth(const node_t *n)
{
    int d = 0;

    for (; n->parent; n = n->parent)
        d++;
    return d;
}

int sniffer_hops_to(const world_t *w, const node_t *n)
{
    const node_t *a = sniffer_node(w), *b = n;
    int da = depth(a), db = depth(b), hops = 0;

    for (; da > db; da--, hops++)
        a = a->parent;
    for (; db > da; db--, hops++)
        b = b->parent;
    for (; a != b; hops += 2) {
        a = a->parent;
        b = b->parent;
    }
    return hops;
}

static gboolean process_misses(world_t *w, sniffer_t *s)
{
    const sim_params_t *p = &w->p;

    if (p->sniffer_miss <= 0)
        return FALSE;
    if (p->sniffer_burst <= 0)
        return g_rand_double(s->miss_rng) < p->sniffer_miss;
    if (!s->started) {
        s->started = TRUE;
        s->bad = g_rand_double(s->miss_rng) < p->sniffer_miss;   /* the stationary share */
    } else if (s->bad) {
        s->bad = g_rand_double(s->miss_rng) >= 1.0 / p->sniffer_burst;
    } else {
        /* Good to bad so that bad frames make up sniffer_miss of all. */
        double to_bad = p->sniffer_miss / (p->sniffer_burst * (1 - p->sniffer_miss));
        s->bad = g_rand_double(s->miss_rng) < to_bad;
    }
    return s->bad;
}

static gboolean far_misses(world_t *w, sniffer_t *s, const node_t *tx)
{
    const sim_params_t *p = &w->p;

    if (p->sniffer_far_miss <= 0 || sniffer_hops_to(w, tx) <= p->sniffer_near_hops)
        return FALSE;
    return g_rand_double(s->far_rng) < p->sniffer_far_miss;
}

/* A sniffer's RSSI and LQI for a transmitter: fixed per node, so that the
 * choice of link type never changes the random sequence of the run. */
static void radio_quality(const node_t *n, gint8 *rssi, guint8 *lqi)
{
    *rssi = (gint8)(-45 - (n->idx * 7) % 40);
    *lqi = (guint8)(255 - (n->idx * 13) % 80);
}

/* The sniffer's timestamp of a frame that ends now (scenario.h, stamp_mode_t).
 * Every frame on the air is stamped, missed or not, so that the frames it
 * keeps have the stamps a perfect sniffer gives them. */
static gint64 stamp(world_t *w, sniffer_t *s, gsize psdu_len)
{
    gint64 end = w->p.start_epoch_us + world_now(w);

    switch (w->p.stamp) {
    case STAMP_START:
        return end - air_time_us(psdu_len);
    case STAMP_HOST: {
        /* USB delivers frames in order: a late one holds back the next. */
        gint64 arrival = end + g_rand_int_range(s->stamp_rng, 500, 4001);
        s->last_stamp_us = MAX(s->last_stamp_us + 1, arrival);
        return s->last_stamp_us;
    }
    default:
        return end;
    }
}

gboolean sniffer_frame(world_t *w, const node_t *tx, const GByteArray *psdu)
{
    sniffer_t *s = w->sniffer;
    gint64 at = stamp(w, s, psdu->len);
    /* Both parts draw for every frame they apply to, whatever the other says. */
    gboolean missed = process_misses(w, s);
    gint8 rssi;
    guint8 lqi;

    missed |= far_misses(w, s, tx);
    if (missed)
        return FALSE;
    radio_quality(tx, &rssi, &lqi);
    capture_writer_psdu(w->cap, at, psdu->data, psdu->len, rssi, lqi);
    return TRUE;
}
