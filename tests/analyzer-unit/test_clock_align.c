/* test_clock_align.c: analyzer/clock_align.c on synthetic message pairs
 * whose true offset, drift and delays the test chose: the estimate within
 * its stated bound of the true offset at every message, the bound no wider
 * than the smallest delays allow, and a clear refusal where nothing bounds
 * the offset.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <math.h>
#include "clock_align.h"

/* Offset and drift of the gateway's clock, and the points they give with
 * one-way delays drawn from [min_delay, min_delay + spread]. */
static ms_clock_point_t *make(GRand *r, double offset, double ppm, double min_delay, double spread, guint n,
                              double span)
{
    ms_clock_point_t *p = g_new(ms_clock_point_t, n);

    for (guint i = 0; i < n; i++) {
        double t = 1000 + span * i / n + g_rand_double_range(r, 0, 1);
        double delay = min_delay + g_rand_double_range(r, 0, spread);
        double true_off = offset + ppm * 1e-6 * (t - 1000);
        p[i].t = t;
        p[i].up = i % 2 == 0;
        p[i].d = p[i].up ? true_off + delay : true_off - delay;
    }
    return p;
}

static void check_within_bound(double offset, double ppm, double min_delay, double spread, double span)
{
    GRand *r = g_rand_new_with_seed(7);
    guint n = 400;
    ms_clock_point_t *p = make(r, offset, ppm, min_delay, spread, n, span);
    ms_clock_fit_t fit;
    const char *why = NULL;

    g_assert_true(ms_clock_align(p, n, &fit, &why));
    g_assert_cmpuint(fit.up, ==, n / 2);
    g_assert_cmpuint(fit.down, ==, n / 2);
    for (guint i = 0; i < n; i++) {
        double true_off = offset + ppm * 1e-6 * (p[i].t - 1000);
        g_assert_cmpfloat(fabs(ms_clock_offset_at(&fit, p[i].t) - true_off), <=, fit.bound_s + 1e-9);
    }
    /* Delays of at least min_delay each way leave the true line that far
     * from either hull: the bound cannot be below it, and with many points
     * near the minimum it is not far above it. */
    g_assert_cmpfloat(fit.bound_s, >=, min_delay - 1e-9);
    g_assert_cmpfloat(fit.bound_s, <=, min_delay + spread);
    g_assert_cmpfloat(fabs(fit.drift_ppm - ppm), <=, fit.drift_bound_ppm + 1e-6);
    g_assert_cmpfloat(fit.drift_bound_ppm, <=, 2e6 * (min_delay + spread) / (span * 0.99));
    g_free(p);
    g_rand_free(r);
}

static void test_offset_and_drift(void)
{
    check_within_bound(3.7005, 40, 0.015, 0.030, 3600);       /* the generator's test pair */
    check_within_bound(-7200.25, -120, 0.020, 0.010, 600);    /* hours behind, slow */
    check_within_bound(0, 0, 0.001, 2.0, 60);                 /* slow backhaul, short capture */
}

static void test_one_direction_refused(void)
{
    ms_clock_point_t p[3] = { { 1, 5, TRUE }, { 2, 5.1, TRUE }, { 3, 5.05, TRUE } };
    ms_clock_fit_t fit;
    const char *why = NULL;

    g_assert_false(ms_clock_align(p, 3, &fit, &why));
    g_assert_nonnull(g_strstr_len(why, -1, "one direction"));
    g_assert_false(ms_clock_align(p, 0, &fit, &why));
    g_assert_nonnull(g_strstr_len(why, -1, "no message"));
}

static void test_negative_delay_refused(void)
{
    /* A downward message "arriving" before the upward ones allow: no line fits. */
    ms_clock_point_t p[4] = { { 1, 5.0, TRUE }, { 2, 5.0, TRUE }, { 1.5, 6.0, FALSE }, { 2.5, 5.9, FALSE } };
    ms_clock_fit_t fit;
    const char *why = NULL;

    g_assert_false(ms_clock_align(p, 4, &fit, &why));
    g_assert_nonnull(g_strstr_len(why, -1, "negative"));
}

static void test_not_finite_ignored(void)
{
    ms_clock_point_t p[4] = { { 1, 5.02, TRUE }, { NAN, 1, TRUE }, { 2, 4.98, FALSE }, { 3, INFINITY, FALSE } };
    ms_clock_fit_t fit;
    const char *why = NULL;

    g_assert_true(ms_clock_align(p, 4, &fit, &why));
    g_assert_cmpuint(fit.up + fit.down, ==, 2);
    g_assert_cmpfloat(fabs(ms_clock_offset_at(&fit, 1.5) - 5.0), <=, fit.bound_s + 1e-9);
    g_assert_true(isfinite(fit.bound_s) && isfinite(fit.drift_ppm));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/clock_align/offset_and_drift", test_offset_and_drift);
    g_test_add_func("/clock_align/one_direction_refused", test_one_direction_refused);
    g_test_add_func("/clock_align/negative_delay_refused", test_negative_delay_refused);
    g_test_add_func("/clock_align/not_finite_ignored", test_not_finite_ignored);
    return g_test_run();
}
