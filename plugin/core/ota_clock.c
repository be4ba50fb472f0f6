/* ota_clock.c: a capture's timestamps as the tracker's times (ota_clock.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ota_clock.h"

#define NS_PER_S G_GINT64_CONSTANT(1000000000)

struct ota_clock {
    gint64  latest_us;             /* the latest time given (0 before any) */
    GArray *earlier;               /* guint32 pairs {first, last}: the runs of frames timed earlier */
    guint32 counts[OTA_CLOCK_OUT_OF_RANGE + 1];
};

ota_clock_t *ota_clock_new(void)
{
    ota_clock_t *c = g_new0(ota_clock_t, 1);

    c->earlier = g_array_new(FALSE, FALSE, 2 * sizeof(guint32));
    return c;
}

void ota_clock_free(ota_clock_t *c)
{
    if (!c)
        return;
    g_array_free(c->earlier, TRUE);
    g_free(c);
}

gboolean ota_clock_us(gint64 secs, gint64 nsecs, gint64 *us)
{
    /* nsecs is an int in a capture's nstime_t: it moves secs by 3 at most,
     * so the seconds are checked before they are moved (no overflow). */
    if (secs < -3 || secs > OTA_CLOCK_MAX_S + 3 || nsecs < G_MININT32 || nsecs > G_MAXINT32)
        return FALSE;
    gint64 s = secs + nsecs / NS_PER_S, ns = nsecs % NS_PER_S;
    if (ns < 0) {
        ns += NS_PER_S;
        s--;
    }
    if (s < 0 || s > OTA_CLOCK_MAX_S)
        return FALSE;
    *us = s * 1000000 + ns / 1000;
    return TRUE;
}

static gboolean timed_earlier(const ota_clock_t *c, guint32 frame)
{
    guint lo = 0, hi = c->earlier->len;

    while (lo < hi) {     /* the first run that ends at frame or later */
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(c->earlier, guint32, 2 * mid + 1) < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->earlier->len && g_array_index(c->earlier, guint32, 2 * lo) <= frame;
}

static void note_earlier(ota_clock_t *c, guint32 frame)
{
    guint n = c->earlier->len;
    guint32 *last = n ? &g_array_index(c->earlier, guint32, 2 * (n - 1)) : NULL;

    if (last && last[1] + 1 == frame) {
        last[1] = frame;
    } else {
        guint32 run[2] = { frame, frame };
        g_array_append_vals(c->earlier, run, 1);
    }
}

gint64 ota_clock_next(ota_clock_t *c, guint32 frame, gint64 secs, gint64 nsecs, ota_clock_status_t *status)
{
    ota_clock_status_t st;
    gint64 us;

    if (!ota_clock_us(secs, nsecs, &us))
        st = OTA_CLOCK_OUT_OF_RANGE;
    else if (us < c->latest_us - OTA_CLOCK_OVERLAP_US)
        st = OTA_CLOCK_EARLIER;
    else
        st = us == 0 ? OTA_CLOCK_ZERO : OTA_CLOCK_OK;
    c->counts[st]++;
    if (status)
        *status = st;
    if (st == OTA_CLOCK_EARLIER || st == OTA_CLOCK_OUT_OF_RANGE) {
        if (st == OTA_CLOCK_EARLIER)
            note_earlier(c, frame);
        return c->latest_us;
    }
    c->latest_us = MAX(c->latest_us, us);
    return us;
}

ota_clock_status_t ota_clock_status(const ota_clock_t *c, guint32 frame, gint64 secs, gint64 nsecs)
{
    gint64 us;

    if (!ota_clock_us(secs, nsecs, &us))
        return OTA_CLOCK_OUT_OF_RANGE;
    if (timed_earlier(c, frame))
        return OTA_CLOCK_EARLIER;
    return us == 0 ? OTA_CLOCK_ZERO : OTA_CLOCK_OK;
}

guint32 ota_clock_count(const ota_clock_t *c, ota_clock_status_t status)
{
    return (guint)status < G_N_ELEMENTS(c->counts) ? c->counts[status] : 0;
}
