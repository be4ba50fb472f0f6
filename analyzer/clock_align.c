/* clock_align.c: the two clocks' offset and drift between the envelopes of
 * the one-way delays (clock_align.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include "clock_align.h"

typedef struct {
    double t, d;
} pt_t;

static int by_time(const void *a, const void *b)
{
    const pt_t *x = a, *y = b;

    return (x->t > y->t) - (x->t < y->t);
}

static double cross(pt_t o, pt_t a, pt_t b)
{
    return (a.t - o.t) * (b.d - o.d) - (a.d - o.d) * (b.t - o.t);
}

/* Monotone chain: the lower hull (sign 1) or the upper hull (sign -1) of
 * points sorted by time, in place; returns its length. */
static guint hull(pt_t *p, guint n, int sign)
{
    guint k = 0;

    for (guint i = 0; i < n; i++) {
        if (k > 0 && p[i].t == p[k - 1].t) {
            /* Same time: the lower hull keeps the smaller d, the upper the larger. */
            if ((sign > 0) == (p[i].d < p[k - 1].d))
                p[k - 1] = p[i];
            continue;
        }
        while (k >= 2 && sign * cross(p[k - 2], p[k - 1], p[i]) <= 0)
            k--;
        p[k++] = p[i];
    }
    return k;
}

/* The hull's value at t (its end edges carried on beyond it). */
static double hull_at(const pt_t *h, guint k, double t)
{
    if (k == 1)
        return h[0].d;
    guint i = 1;
    while (i + 1 < k && h[i].t < t)
        i++;
    return h[i - 1].d + (h[i].d - h[i - 1].d) * (t - h[i - 1].t) / (h[i].t - h[i - 1].t);
}

/* The hull's slope over t (0 for a single point). */
static double hull_slope(const pt_t *h, guint k, double t)
{
    if (k == 1)
        return 0;
    guint i = 1;
    while (i + 1 < k && h[i].t < t)
        i++;
    return (h[i].d - h[i - 1].d) / (h[i].t - h[i - 1].t);
}

static pt_t *collect(const ms_clock_point_t *pts, guint n, gboolean up, guint *count, double *mean_t)
{
    pt_t *p = g_new(pt_t, MAX(n, 1));
    guint k = 0;
    double sum = 0;

    for (guint i = 0; i < n; i++)
        if (pts[i].up == up && isfinite(pts[i].t) && isfinite(pts[i].d)) {
            p[k].t = pts[i].t;
            p[k].d = pts[i].d;
            sum += pts[i].t;
            k++;
        }
    qsort(p, k, sizeof(pt_t), by_time);
    *count = k;
    *mean_t = k ? sum / k : 0;
    return p;
}

gboolean ms_clock_align(const ms_clock_point_t *pts, guint n, ms_clock_fit_t *fit, const char **why)
{
    guint nu, nd;
    double mu, md;
    pt_t *up = collect(pts, n, TRUE, &nu, &mu), *down = collect(pts, n, FALSE, &nd, &md);
    gboolean ok = FALSE;

    *fit = (ms_clock_fit_t){ 0 };
    fit->up = nu;
    fit->down = nd;
    if (!nu || !nd) {
        *why = !nu && !nd ? "no message seen at both vantage points"
                          : "messages seen at both vantage points in one direction only: the offset cannot be bounded";
        goto out;
    }
    double t_first = MIN(up[0].t, down[0].t), t_last = MAX(up[nu - 1].t, down[nd - 1].t);
    guint ku = hull(up, nu, 1), kd = hull(down, nd, -1);
    /* The two supporting lines, each through its hull's edge over its mean time. */
    double su = hull_slope(up, ku, mu), cu = hull_at(up, ku, mu) - su * mu;
    double sd = hull_slope(down, kd, md), cd = hull_at(down, kd, md) - sd * md;
    double slope = (su + sd) / 2, icpt = (cu + cd) / 2;
    double bound = 0;

    /* At every hull vertex, and at the first and last times, the true line
     * is under the up hull and over the down hull. */
    double probes[4] = { t_first, t_last, mu, md };
    for (guint i = 0; i < ku + kd + 4; i++) {
        double t = i < ku ? up[i].t : i < ku + kd ? down[i - ku].t : probes[i - ku - kd];
        double est = icpt + slope * t, hi = hull_at(up, ku, t), lo = hull_at(down, kd, t);
        if (hi < lo) {
            *why = "no clock line fits between the two directions' delays (a delay would be negative): "
                   "are the two captures of the same messages?";
            goto out;
        }
        bound = MAX(bound, MAX(hi - est, est - lo));
    }
    fit->t0 = t_first;
    fit->offset_s = icpt + slope * t_first;
    fit->drift_ppm = slope * 1e6;
    fit->bound_s = bound;
    fit->span_s = t_last - t_first;
    /* Within +-bound at both ends, two lines' slopes differ by 2 bound / span at most. */
    fit->drift_bound_ppm = fit->span_s > 0 ? 2 * bound / fit->span_s * 1e6 : INFINITY;
    ok = TRUE;
out:
    g_free(up);
    g_free(down);
    return ok;
}

double ms_clock_offset_at(const ms_clock_fit_t *fit, double t)
{
    return fit->offset_s + fit->drift_ppm * 1e-6 * (t - fit->t0);
}
