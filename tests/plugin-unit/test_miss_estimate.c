/* test_miss_estimate.c: the frames missed, from the share of ACKs without
 * their frame (plugin/core/miss_estimate.c), against the arithmetic done
 * here: odds p / (1 - p) applied to the frames captured, the Wilson score
 * interval's high end at 99%, never below what the capture proves.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <glib.h>
#include "miss_estimate.h"

static void test_nothing_sampled(void)
{
    miss_estimate_t e = miss_estimate(0, 0, 500, 3);
    g_assert_cmpuint(e.estimate, ==, 3);
    g_assert_cmpuint(e.high, ==, 3);
}

static void test_share(void)
{
    /* 10 of 100 ACKs without their frame: p = 0.1, 1000 captured -> 111 missed. */
    miss_estimate_t e = miss_estimate(10, 90, 1000, 20);
    g_assert_cmpuint(e.estimate, ==, 111);
    /* Wilson, z = 2.5758, n = 100: p_high = 0.2047..., 1000 * p/(1-p) = 257.5 -> 258. */
    double z = 2.5758, n = 100, p = 0.1;
    double hi = (p + z * z / (2 * n) + z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n);
    g_assert_cmpuint(e.high, ==, (guint32)ceil(1000 * hi / (1 - hi)));
    g_assert_cmpuint(e.high, >, e.estimate);
}

static void test_floor_and_none_missed(void)
{
    /* What the capture proves wins over a lower estimate. */
    g_assert_cmpuint(miss_estimate(1, 999, 1000, 40).estimate, ==, 40);
    /* None missed in 600 ACKs: the estimate is 0 (nothing proven), the high end is not. */
    miss_estimate_t e = miss_estimate(0, 600, 1300, 0);
    g_assert_cmpuint(e.estimate, ==, 0);
    g_assert_cmpuint(e.high, >, 0);
    g_assert_cmpuint(e.high, <, 20);
    /* Every ACK without its frame: no finite odds; saturates, never wraps. */
    g_assert_cmpuint(miss_estimate(50, 0, 10, 0).estimate, ==, G_MAXUINT32);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/miss_estimate/nothing_sampled", test_nothing_sampled);
    g_test_add_func("/miss_estimate/share", test_share);
    g_test_add_func("/miss_estimate/floor_and_none_missed", test_floor_and_none_missed);
    return g_test_run();
}
