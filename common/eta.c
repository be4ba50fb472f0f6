/* eta.c: the sample's mean times the blocks left; the range counts the
 * spread of n blocks and the uncertainty of a mean measured on N.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include "eta.h"

gboolean meter_eta_estimate(const meter_eta_sample_t *s, double blocks_left, double *eta_s, double *low_s,
                            double *high_s)
{
    *eta_s = *low_s = *high_s = -1;
    if (!s->n || blocks_left <= 0)
        return FALSE;
    double N = s->n, mean = s->sum / N, n = blocks_left;
    double sd = s->n > 1 ? sqrt(MAX(0.0, (s->sq - N * mean * mean) / (N - 1))) : mean;
    double half = 1.645 * sqrt(n * sd * sd + n * n * sd * sd / N);
    *eta_s = n * mean;
    *low_s = MAX(0.0, *eta_s - half);
    *high_s = *eta_s + half;
    return TRUE;
}
