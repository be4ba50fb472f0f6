/* ota_split.h: where a transfer's time went, from the marks on its
 * timeline and the runs of time its frames were on the air and its
 * datagrams waited for a sleepy device's poll (ota_split.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef OTA_SPLIT_H
#define OTA_SPLIT_H

#include <glib.h>
#include "transfer_record.h"

/* What the time from a mark on is spent on (air and poll waits are moved
 * out of these afterwards). */
enum { OTA_SPLIT_TIMEOUTS, OTA_SPLIT_NETWORK, OTA_SPLIT_TURNAROUND, OTA_SPLIT_N };

typedef struct {
    gint64 at;
    int    what;                  /* OTA_SPLIT_* */
} ota_split_mark_t;

/* Adds a mark to a GArray of ota_split_mark_t; a later mark wins over the
 * marks already made after it. */
void    ota_split_mark(GArray *marks, gint64 at, int what);
/* Spans (a GArray of gint64 pairs, any order, may overlap) as sorted,
 * disjoint runs, in place: returns spans. */
GArray *ota_runs_from_spans(GArray *spans);
/* Microseconds of [from, to] the runs cover. */
gint64  ota_runs_cover(const GArray *runs, gint64 from, gint64 to);
/* Splits [start, end] by the marks into s's time_* parts: the air runs out
 * of any part, the poll runs out of the network part, and at the gateway
 * (unseen_after_us >= 0) the excess over median_turn_us of a turn-around
 * longer than unseen_after_us into time_unseen_s. */
void    ota_split_time(meter_transfer_record_t *s, const GArray *marks, const GArray *air_runs,
                       const GArray *poll_runs, gint64 start, gint64 end, gint64 median_turn_us,
                       gint64 unseen_after_us);

#endif
