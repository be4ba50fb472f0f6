/* miss_estimate.c: missed frames from the share of ACKs without their frame (miss_estimate.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include "miss_estimate.h"

#define Z_99 2.5758    /* two-sided 99% normal quantile */

/* Frames missed for every frame captured, when a share p is missed. */
static double missed_per_captured(double p)
{
    return p >= 1 ? G_MAXUINT32 : p / (1 - p);
}

static guint32 frames(double v)
{
    return v >= G_MAXUINT32 ? G_MAXUINT32 : (guint32)v;
}

miss_estimate_t miss_estimate(guint32 missed, guint32 heard, guint32 captured, guint32 proven)
{
    miss_estimate_t e = { proven, proven };
    double n = (double)missed + heard;

    if (n == 0)
        return e;
    double p = missed / n, z2 = Z_99 * Z_99;
    double high = (p + z2 / (2 * n) + Z_99 * sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n);
    e.estimate = MAX(proven, frames(floor(captured * missed_per_captured(p) + 0.5)));
    e.high = MAX(e.estimate, frames(ceil(captured * missed_per_captured(high))));
    return e;
}
