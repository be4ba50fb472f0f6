/* eta.h: what an incomplete transfer of known size would still take
 * (docs/ota-sessions.md, "What an incomplete transfer would still take"),
 * from the times between its blocks so far. One model for the plugin's
 * records (plugin/core/ota_track_stats.c) and the analyser's live lines
 * (analyzer/live_view.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_ETA_H
#define METER_ETA_H

#include <glib.h>

/* The running sums of the intervals between blocks taken, in seconds. */
typedef struct {
    guint  n;
    double sum, sq;
} meter_eta_sample_t;

static inline void meter_eta_add(meter_eta_sample_t *s, double interval_s)
{
    s->n++;
    s->sum += interval_s;
    s->sq += interval_s * interval_s;
}

/* With blocks_left blocks to come: the estimate and its 90% range, in
 * seconds; FALSE (and -1 each) without a sample or with nothing left. */
gboolean meter_eta_estimate(const meter_eta_sample_t *s, double blocks_left, double *eta_s, double *low_s,
                            double *high_s);

#endif
