/* clock_align.h: the offset and drift between two captures' clocks, from
 * messages both captured, with no assumption that either clock is right.
 *
 * A message from the radio side to the gateway gives d = t_gateway -
 * t_radio = offset + its one-way delay >= offset; one the other way gives
 * d = offset - its delay <= offset. So the offset, a line in time (offset
 * plus drift), lies under every upward d and over every downward d: under
 * the lower convex hull of the upward points, over the upper hull of the
 * downward ones. The estimate is the midline of the two supporting lines
 * that hug their point sets best (each hull's edge over its points' mean
 * time, which minimises the sum of the delays it implies), and the bound is
 * how far the true line can be from it at any message time: the distance
 * to the two hulls.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CLOCK_ALIGN_H
#define CLOCK_ALIGN_H
#include <glib.h>

typedef struct {
    double t;        /* the radio capture's time, seconds (any origin) */
    double d;        /* the gateway capture's time minus t, seconds */
    gboolean up;     /* the message went radio side -> gateway */
} ms_clock_point_t;

typedef struct {
    double t0;            /* the reference time (the earliest point's t) */
    double offset_s;      /* gateway clock minus radio clock at t0 */
    double drift_ppm;     /* how much faster the gateway's clock runs */
    double bound_s;       /* the true offset is within +-this of the estimate at every point's time */
    double drift_bound_ppm;   /* so the true drift within +-this of the estimate (2 bound / span) */
    double span_s;        /* time covered by the points */
    guint  up, down;      /* points used in each direction */
} ms_clock_fit_t;

/* FALSE when the points cannot bound the offset (no point in one of the
 * directions, or no line fits between them: delays that would be negative);
 * *why says which. */
gboolean ms_clock_align(const ms_clock_point_t *pts, guint n, ms_clock_fit_t *fit, const char **why);
/* The offset (gateway minus radio) the fit gives at radio time t. */
double   ms_clock_offset_at(const ms_clock_fit_t *fit, double t);

#endif
