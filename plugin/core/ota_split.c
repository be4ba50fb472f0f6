/* ota_split.c: where a transfer's time went (docs/ota-sessions.md, "Where
 * the time went"): its timeline cut by the marks the tracker makes request
 * by request, the time its frames were on the air and the time a sleepy
 * device's poll kept a datagram waiting moved out of the parts they fell
 * in. Time spans are sorted, disjoint runs: GArrays of gint64 pairs.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include "ota_split.h"

/* A later mark wins over earlier marks that lie after it (a response the
 * meter took after it had already asked again does not count). */
void ota_split_mark(GArray *marks, gint64 at, int what)
{
    ota_split_mark_t m = { at, what };
    guint n = marks->len;

    while (n && g_array_index(marks, ota_split_mark_t, n - 1).at > at)
        n--;
    g_array_set_size(marks, n);
    g_array_append_val(marks, m);
}

static int cmp_span_start(const void *a, const void *b)
{
    const gint64 *x = (const gint64 *)a, *y = (const gint64 *)b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Spans (gint64 pairs, any order, may overlap) as sorted, disjoint runs,
 * in place: a transfer's air spans are a million pairs on a long capture. */
GArray *ota_runs_from_spans(GArray *spans)
{
    guint n = spans->len, k = 0;
    gint64 *at = (gint64 *)(void *)spans->data;

    if (n)
        qsort(at, n, 2 * sizeof(gint64), cmp_span_start);
    for (guint i = 0; i < n; i++) {
        if (at[2 * i + 1] <= at[2 * i])
            continue;
        if (k && at[2 * i] <= at[2 * k - 1]) {
            at[2 * k - 1] = MAX(at[2 * k - 1], at[2 * i + 1]);
        } else {
            at[2 * k] = at[2 * i];
            at[2 * k + 1] = at[2 * i + 1];
            k++;
        }
    }
    g_array_set_size(spans, k);
    return spans;
}

/* Where two sets of runs overlap, as runs. */
static GArray *intersect_runs(const GArray *a, const GArray *b)
{
    GArray *out = g_array_new(FALSE, FALSE, 2 * sizeof(gint64));

    for (guint i = 0, j = 0; i < a->len && j < b->len;) {
        const gint64 *x = &g_array_index(a, gint64, 2 * i), *y = &g_array_index(b, gint64, 2 * j);
        gint64 run[2] = { MAX(x[0], y[0]), MIN(x[1], y[1]) };
        if (run[1] > run[0])
            g_array_append_val(out, run);
        if (x[1] < y[1])
            i++;
        else
            j++;
    }
    return out;
}

/* Microseconds of [from, to) that the runs cover; *cursor skips the runs
 * that end before from (segments come in time order). */
static gint64 covered(const GArray *runs, guint *cursor, gint64 from, gint64 to)
{
    gint64 busy = 0;

    while (*cursor < runs->len && g_array_index(runs, gint64, 2 * *cursor + 1) <= from)
        (*cursor)++;
    /* A run may go on into the next segment. */
    for (guint k = *cursor; k < runs->len && g_array_index(runs, gint64, 2 * k) < to; k++)
        busy += MIN(g_array_index(runs, gint64, 2 * k + 1), to) - MAX(g_array_index(runs, gint64, 2 * k), from);
    return busy;
}

/* Splits [start, end] by the marks, then moves out of whatever part it fell
 * in the time the transfer's frames were on the air, then out of the
 * network part the time a sleepy device's poll kept a datagram waiting. At the gateway
 * (unseen_after_us >= 0) a turn-around longer than that is mostly the
 * meter waiting for timeouts of transmissions the capture never saw: the
 * excess over the median turn-around is unseen. */
void ota_split_time(meter_transfer_record_t *s, const GArray *marks, const GArray *runs, const GArray *poll_runs,
                    gint64 start, gint64 end, gint64 median_turn_us, gint64 unseen_after_us)
{
    gint64 part[OTA_SPLIT_N] = { 0 }, on_air = 0, waiting = 0, unseen = 0;
    GArray *both = intersect_runs(runs, poll_runs);
    guint ra = 0, rp = 0, rb = 0;

    for (guint i = 0; i < marks->len; i++) {
        const ota_split_mark_t *m = &g_array_index(marks, ota_split_mark_t, i);
        gint64 from = MAX(m->at, start);
        gint64 to = MIN(i + 1 < marks->len ? g_array_index(marks, ota_split_mark_t, i + 1).at : end, end);

        if (to <= from)
            continue;
        gint64 busy = covered(runs, &ra, from, to);
        /* Only while the answer is on its way: in a timeout or a turn-around
         * the meter waits for its timer or writes, whatever a parent holds. */
        gint64 poll = m->what != OTA_SPLIT_NETWORK ? 0 : covered(poll_runs, &rp, from, to) - covered(both, &rb, from, to);
        gint64 rest = to - from - busy - poll;
        if (m->what == OTA_SPLIT_TURNAROUND && unseen_after_us >= 0 && rest > unseen_after_us) {
            unseen += rest - median_turn_us;
            rest = median_turn_us;
        }
        part[m->what] += rest;
        on_air += busy;
        waiting += poll;
    }
    g_array_free(both, TRUE);
    s->time_air_s = on_air / 1e6;
    s->time_timeouts_s = part[OTA_SPLIT_TIMEOUTS] / 1e6;
    s->time_network_s = part[OTA_SPLIT_NETWORK] / 1e6;
    s->time_turnaround_s = part[OTA_SPLIT_TURNAROUND] / 1e6;
    s->time_poll_s = waiting / 1e6;
    s->time_unseen_s = unseen / 1e6;
}

/* Microseconds of [from, to] the runs cover, for spans in any order. */
gint64 ota_runs_cover(const GArray *runs, gint64 from, gint64 to)
{
    guint lo = 0, hi = runs->len;

    while (lo < hi) {     /* the first run that ends after from */
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(runs, gint64, 2 * mid + 1) <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return covered(runs, &lo, from, to);
}
