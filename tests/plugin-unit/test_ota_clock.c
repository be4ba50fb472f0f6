/* test_ota_clock.c: a capture's timestamps as the tracker's times
 * (core/ota_clock.h): the conversion at the edges of its range, and a
 * clock that never goes back, frame by frame and on later passes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include "ota_clock.h"
#include "utc_text.h"

#define US G_GINT64_CONSTANT(1000000)

static void test_conversion_edges(void)
{
    gint64 us = 12345;

    g_assert_true(ota_clock_us(1772359203, 150528999, &us));
    g_assert_cmpint(us, ==, 1772359203 * US + 150528);          /* nanoseconds rounded down */
    g_assert_true(ota_clock_us(0, 0, &us));
    g_assert_cmpint(us, ==, 0);
    /* Nanoseconds outside the second move the seconds, either way. */
    g_assert_true(ota_clock_us(10, -1, &us));
    g_assert_cmpint(us, ==, 9 * US + 999999);
    g_assert_true(ota_clock_us(10, 2100000000, &us));
    g_assert_cmpint(us, ==, 12 * US + 100000);
    g_assert_true(ota_clock_us(-1, 1000000000, &us));
    g_assert_cmpint(us, ==, 0);
    /* The last microsecond of 9999, and what lies beyond. */
    g_assert_true(ota_clock_us(OTA_CLOCK_MAX_S, 999999999, &us));
    g_assert_cmpint(us, ==, OTA_CLOCK_MAX_US);
    us = 7;
    g_assert_false(ota_clock_us(OTA_CLOCK_MAX_S + 1, 0, &us));
    g_assert_false(ota_clock_us(OTA_CLOCK_MAX_S, 1000000000, &us));
    g_assert_false(ota_clock_us(-1, 999999999, &us));
    /* 2^63 us and more: the seconds alone would overflow in microseconds. */
    g_assert_false(ota_clock_us(G_GINT64_CONSTANT(9223372036854), 775808000, &us));
    g_assert_false(ota_clock_us(G_MAXINT64, G_MAXINT32, &us));
    g_assert_false(ota_clock_us(G_MININT64, G_MININT32, &us));
    g_assert_false(ota_clock_us(0, G_GINT64_CONSTANT(1) << 40, &us));
    g_assert_cmpint(us, ==, 7);                                 /* untouched */
}

static void test_never_back(void)
{
    ota_clock_t *c = ota_clock_new();
    ota_clock_status_t st;
    /* frame: seconds, what it is, the time it gets */
    const struct { gint64 secs; ota_clock_status_t status; gint64 time_s; } frames[] = {
        { 100, OTA_CLOCK_OK, 100 },
        { 101, OTA_CLOCK_OK, 101 },
        { 90, OTA_CLOCK_EARLIER, 101 },         /* set back: held at the latest */
        { 95, OTA_CLOCK_EARLIER, 101 },         /* still before it */
        { G_GINT64_CONSTANT(300000000000), OTA_CLOCK_OUT_OF_RANGE, 101 },   /* after 9999 */
        { 0, OTA_CLOCK_EARLIER, 101 },          /* a zero among real stamps is just earlier */
        { 101, OTA_CLOCK_OK, 101 },             /* the same instant again is fine */
        { 102, OTA_CLOCK_OK, 102 },
        { -5, OTA_CLOCK_OUT_OF_RANGE, 102 },    /* before 1970 */
        { 50, OTA_CLOCK_EARLIER, 102 },
    };

    for (guint i = 0; i < G_N_ELEMENTS(frames); i++) {
        gint64 t = ota_clock_next(c, i + 1, frames[i].secs, 0, &st);
        g_assert_cmpint(st, ==, frames[i].status);
        g_assert_cmpint(t, ==, frames[i].time_s * US);
    }
    /* A later pass sees what the first pass said, frame by frame. */
    for (guint i = 0; i < G_N_ELEMENTS(frames); i++)
        g_assert_cmpint(ota_clock_status(c, i + 1, frames[i].secs, 0), ==, frames[i].status);
    g_assert_cmpuint(ota_clock_count(c, OTA_CLOCK_OK), ==, 4);
    g_assert_cmpuint(ota_clock_count(c, OTA_CLOCK_EARLIER), ==, 4);
    g_assert_cmpuint(ota_clock_count(c, OTA_CLOCK_OUT_OF_RANGE), ==, 2);
    g_assert_cmpuint(ota_clock_count(c, OTA_CLOCK_ZERO), ==, 0);
    ota_clock_free(c);
}

/* Frames that overlapped on the air, stamped at their start and written in
 * the order they ended, go back by less than the longest frame's air time:
 * such a stamp is taken as it is, one step further back is not. */
static void test_overlap_on_air(void)
{
    ota_clock_t *c = ota_clock_new();
    ota_clock_status_t st;

    g_assert_cmpint(ota_clock_next(c, 1, 100, 0, &st), ==, 100 * US);
    g_assert_cmpint(ota_clock_next(c, 2, 99, (1000000 - OTA_CLOCK_OVERLAP_US) * 1000, &st), ==,
                    100 * US - OTA_CLOCK_OVERLAP_US);
    g_assert_cmpint(st, ==, OTA_CLOCK_OK);
    /* Measured from the latest stamp, not from the frame before. */
    g_assert_cmpint(ota_clock_next(c, 3, 99, (1000000 - OTA_CLOCK_OVERLAP_US - 1) * 1000, &st), ==, 100 * US);
    g_assert_cmpint(st, ==, OTA_CLOCK_EARLIER);
    g_assert_cmpint(ota_clock_status(c, 2, 99, (1000000 - OTA_CLOCK_OVERLAP_US) * 1000), ==, OTA_CLOCK_OK);
    g_assert_cmpint(ota_clock_status(c, 3, 99, (1000000 - OTA_CLOCK_OVERLAP_US - 1) * 1000), ==, OTA_CLOCK_EARLIER);
    ota_clock_free(c);
}

/* Before any usable stamp the time is 0; a capture with no times is all
 * zero, and says so. */
static void test_no_usable_time(void)
{
    ota_clock_t *c = ota_clock_new();
    ota_clock_status_t st;

    g_assert_cmpint(ota_clock_next(c, 1, G_GINT64_CONSTANT(9223372036854), 775813, &st), ==, 0);
    g_assert_cmpint(st, ==, OTA_CLOCK_OUT_OF_RANGE);
    g_assert_cmpint(ota_clock_next(c, 2, 0, 0, &st), ==, 0);
    g_assert_cmpint(st, ==, OTA_CLOCK_ZERO);
    g_assert_cmpint(ota_clock_next(c, 3, 0, 0, NULL), ==, 0);
    g_assert_cmpint(ota_clock_status(c, 3, 0, 0), ==, OTA_CLOCK_ZERO);
    g_assert_cmpint(ota_clock_next(c, 4, 5, 0, &st), ==, 5 * US);
    g_assert_cmpint(st, ==, OTA_CLOCK_OK);
    g_assert_cmpuint(ota_clock_count(c, OTA_CLOCK_ZERO), ==, 2);
    ota_clock_free(c);
}

/* The frames timed earlier are kept as runs of frame numbers: many runs,
 * long runs, found again by any frame. */
static void test_earlier_runs(void)
{
    ota_clock_t *c = ota_clock_new();
    guint32 frame = 0;
    gint64 secs = 1000;

    for (guint run = 0; run < 200; run++) {
        ota_clock_next(c, ++frame, ++secs, 0, NULL);              /* one good frame */
        for (guint k = 0; k < run % 7 + 1; k++)
            ota_clock_next(c, ++frame, secs - 1 - k, 0, NULL);     /* then some earlier ones */
    }
    guint32 earlier = 0;
    secs = 1000;
    frame = 0;
    for (guint run = 0; run < 200; run++) {
        ++secs;
        g_assert_cmpint(ota_clock_status(c, ++frame, secs, 0), ==, OTA_CLOCK_OK);
        for (guint k = 0; k < run % 7 + 1; k++, earlier++)
            g_assert_cmpint(ota_clock_status(c, ++frame, secs - 1 - k, 0), ==, OTA_CLOCK_EARLIER);
    }
    g_assert_cmpuint(ota_clock_count(c, OTA_CLOCK_EARLIER), ==, earlier);
    g_assert_cmpint(ota_clock_status(c, frame + 1, secs, 0), ==, OTA_CLOCK_OK);   /* never seen */
    ota_clock_free(c);
}

/* Every time the clock gives prints as a date; a later one (a hand-made
 * record) as its seconds, never as "(null)". */
static void test_utc_text_edges(void)
{
    const struct { gint64 us; const char *text; } cases[] = {
        { 0, "1970-01-01T00:00:00.000000Z" },
        { OTA_CLOCK_MAX_US, "9999-12-31T23:59:59.999999Z" },
        { OTA_CLOCK_MAX_US + 1, "253402300800.000000 s after 1970 (beyond 9999)" },
        { G_MAXINT64, "9223372036854.775807 s after 1970 (beyond 9999)" },
        { -1, "-" },
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *s = utc_text(cases[i].us);
        g_assert_cmpstr(s, ==, cases[i].text);
        g_free(s);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ota_clock/conversion_edges", test_conversion_edges);
    g_test_add_func("/ota_clock/never_back", test_never_back);
    g_test_add_func("/ota_clock/overlap_on_air", test_overlap_on_air);
    g_test_add_func("/ota_clock/no_usable_time", test_no_usable_time);
    g_test_add_func("/ota_clock/earlier_runs", test_earlier_runs);
    g_test_add_func("/ota_clock/utc_text_edges", test_utc_text_edges);
    return g_test_run();
}
