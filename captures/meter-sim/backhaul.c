/* backhaul.c: the backhaul's losses and delays, the gateway capture's clock.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include "backhaul.h"

struct backhaul {
    const sim_params_t *p;
    GRand *rng;
};

backhaul_t *backhaul_new(const sim_params_t *p)
{
    backhaul_t *b = g_new0(backhaul_t, 1);
    /* "bhau": a stream apart from the simulation's, as the sniffer's are. */
    guint32 seed[2] = { (guint32)p->seed ^ 0x62686175u, (guint32)(p->seed >> 32) };

    b->p = p;
    b->rng = g_rand_new_with_seed_array(seed, 2);
    return b;
}

void backhaul_free(backhaul_t *b)
{
    if (!b)
        return;
    g_rand_free(b->rng);
    g_free(b);
}

gboolean backhaul_pass(backhaul_t *b, gint64 *extra_us)
{
    *extra_us = 0;
    /* Nothing drawn when the backhaul is perfect: runs without it keep every byte. */
    if (b->p->backhaul_loss <= 0 && b->p->backhaul_delay_ms <= 0)
        return TRUE;
    gboolean lost = g_rand_double(b->rng) < b->p->backhaul_loss;
    *extra_us = (gint64)llround(1000 * b->p->backhaul_delay_ms * g_rand_double(b->rng));
    return !lost;
}

gint64 backhaul_gateway_clock(const sim_params_t *p, gint64 true_us)
{
    double since_start = (double)(true_us - p->start_epoch_us);

    return true_us + (gint64)llround(1000 * p->gw_clock_offset_ms + since_start * p->gw_clock_drift_ppm * 1e-6);
}
