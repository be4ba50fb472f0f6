/* channel.c: medium occupancy and frame loss.
 *
 * Loss is decided per (frame, receiver). Independent loss hardly ever
 * defeats three MAC retries, so field losses come from bursts: the
 * Gilbert-Elliott receiver state alternates good and bad periods with
 * exponentially distributed lengths in time (interference bursts, e.g. from
 * Wi-Fi), so back-to-back retries fall into the same bad period.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include "channel.h"

typedef struct {
    gint64  start, end;
    node_t *tx;
} air_slot_t;

struct channel {
    GArray *air;                 /* air_slot_t: the transmissions that may still matter */
};

channel_t *channel_new(void)
{
    channel_t *c = g_new0(channel_t, 1);

    c->air = g_array_new(FALSE, FALSE, sizeof(air_slot_t));
    return c;
}

void channel_free(channel_t *c)
{
    if (!c)
        return;
    g_array_free(c->air, TRUE);
    g_free(c);
}

/* Slots that ended long ago can no longer matter to a CCA or a collision. */
static void prune(world_t *w, gint64 now)
{
    guint keep = 0;
    air_slot_t *s = (air_slot_t *)w->channel->air->data;

    for (guint i = 0; i < w->channel->air->len; i++)
        if (s[i].end + 10000 >= now)
            s[keep++] = s[i];
    g_array_set_size(w->channel->air, keep);
}

void channel_add(world_t *w, node_t *tx, gint64 start, gint64 end)
{
    air_slot_t s = { start, end, tx };

    if (w->channel->air->len > 64)
        prune(w, start);
    g_array_append_val(w->channel->air, s);
}

/* Hidden background nodes are not sensed by the meters and their routers,
 * but interfere with everything: the hidden-terminal problem. */
static gboolean audible(const node_t *tx, const node_t *listener)
{
    if (tx->hidden && (listener->role == ROLE_METER || listener->role == ROLE_ROUTER))
        return FALSE;
    if (listener->hidden && (tx->role == ROLE_METER || tx->role == ROLE_ROUTER))
        return FALSE;
    return TRUE;
}

gboolean channel_busy(world_t *w, const node_t *listener, gint64 t0, gint64 t1)
{
    const air_slot_t *s = (const air_slot_t *)w->channel->air->data;

    for (guint i = 0; i < w->channel->air->len; i++)
        if (s[i].tx != listener && s[i].start < t1 && s[i].end > t0 && audible(s[i].tx, listener))
            return TRUE;
    return FALSE;
}

static gboolean collides(world_t *w, const node_t *tx, gint64 start, gint64 end)
{
    const air_slot_t *s = (const air_slot_t *)w->channel->air->data;

    for (guint i = 0; i < w->channel->air->len; i++)
        if (s[i].tx != tx && s[i].start < end && s[i].end > start)
            return TRUE;
    return FALSE;
}

static double exp_ms(world_t *w, double mean_ms)
{
    return -mean_ms * log(1.0 - g_rand_double(w->rng));
}

/* Advances rx's Gilbert-Elliott state to time t and returns its loss. */
static double ge_loss_at(world_t *w, node_t *rx, gint64 t)
{
    const sim_params_t *p = &w->p;
    double span = p->ge_bad_loss - p->ge_good_loss;
    double pi_bad = span > 0 ? (p->loss - p->ge_good_loss) / span : 0;

    if (pi_bad <= 0)
        return p->ge_good_loss;
    if (pi_bad >= 1)
        return p->ge_bad_loss;
    double good_ms = p->ge_bad_ms * (1 - pi_bad) / pi_bad;
    while (t >= rx->ge_until) {
        rx->ge_bad = !rx->ge_bad;
        rx->ge_until += (gint64)(1000 * exp_ms(w, rx->ge_bad ? p->ge_bad_ms : good_ms));
    }
    return rx->ge_bad ? p->ge_bad_loss : p->ge_good_loss;
}

static gboolean in_outage(const node_t *n, gint64 t)
{
    return t >= n->outage_from && t < n->outage_until;
}

gboolean channel_lost(world_t *w, node_t *tx, node_t *rx, gint64 start, gint64 end)
{
    double loss;

    if (in_outage(tx, start) || in_outage(rx, start))
        return TRUE;
    if (collides(w, tx, start, end))
        return TRUE;
    loss = w->p.loss_model == LOSS_GILBERT_ELLIOTT ? ge_loss_at(w, rx, end) : w->p.loss;
    return g_rand_double(w->rng) < loss;
}
