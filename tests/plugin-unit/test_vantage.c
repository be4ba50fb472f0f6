/* test_vantage.c: plugin/core/vantage.c on copies whose vantage points,
 * clocks and delays the test chose: a message's radio copies (hop copies
 * and MAC retries within a second) against its IP copy; retransmissions
 * paired with the round that was delivered, whatever the clocks' offset; a
 * message only one side holds without a copy; one vantage point alone.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include "vantage.h"

#define GW   1001u    /* the gateway's address hash */
#define NODE 2002u
#define OFFSET G_GINT64_CONSTANT(3700500000)   /* IP clock ahead by more than an hour */

static gboolean other_of(vantage_map_t *m, guint32 frame, guint32 *other)
{
    vantage_kind_t kind;
    gint64 ts, off;

    return vantage_other(m, frame, 0, &kind, other, &ts, &off);
}

/* Upward message key k at radio time t (two hop copies), at the gateway d later. */
static void up(vantage_map_t *m, guint64 k, guint32 *frame, gint64 t, gint64 d, gboolean arrives)
{
    vantage_note(m, k, VANTAGE_RADIO, NODE, GW, TRUE, (*frame)++, 0, t);
    vantage_note(m, k, VANTAGE_RADIO, NODE, GW, TRUE, (*frame)++, 0, t + 5000);
    if (arrives)
        vantage_note(m, k, VANTAGE_IP, NODE, GW, TRUE, (*frame)++, 0, t + d + OFFSET);
}

static void down(vantage_map_t *m, guint64 k, guint32 *frame, gint64 t, gint64 d)
{
    vantage_note(m, k, VANTAGE_IP, GW, NODE, FALSE, (*frame)++, 0, t + OFFSET);
    vantage_note(m, k, VANTAGE_RADIO, GW, NODE, FALSE, (*frame)++, 0, t + d);
}

static void test_pairs(void)
{
    vantage_map_t *m = vantage_map_new();
    guint32 f = 1, other = 0;

    /* Unambiguous traffic: the offset comes from it. */
    for (int i = 0; i < 20; i++) {
        up(m, 100 + i, &f, 1000000 * i * 10, 30000 + 1000 * (i % 5), TRUE);
        down(m, 500 + i, &f, 1000000 * i * 10 + 60000, 40000 + 2000 * (i % 3));
    }
    g_assert_true(vantage_both_seen(m));
    /* Frames 1..3: radio, radio hop copy, IP. */
    g_assert_true(other_of(m, 1, &other));
    g_assert_cmpuint(other, ==, 3);
    g_assert_true(other_of(m, 3, &other));
    g_assert_cmpuint(other, ==, 1);
    g_assert_true(other_of(m, 2, &other));   /* the hop copy is the same round */
    g_assert_cmpuint(other, ==, 3);

    /* A retransmitted request whose first round died on the radio: the IP
     * copy goes with the second round, 2.5 s later. */
    gint64 t = 300000000;
    guint32 first = f;
    up(m, 900, &f, t, 0, FALSE);
    guint32 second = f;
    up(m, 900, &f, t + 2500000, 30000, TRUE);
    guint32 ip = f - 1;
    g_assert_true(other_of(m, ip, &other));
    g_assert_cmpuint(other, ==, second);
    g_assert_false(other_of(m, first, &other));
    g_assert_true(other_of(m, second, &other));
    g_assert_cmpuint(other, ==, ip);

    /* A response the backhaul lost, sent again: the radio copy goes with
     * the second IP copy, not the first (no negative delay). */
    t = 400000000;
    guint32 lost_ip = f;
    vantage_note(m, 901, VANTAGE_IP, GW, NODE, FALSE, f++, 0, t + OFFSET);
    guint32 resent_ip = f;
    vantage_note(m, 901, VANTAGE_IP, GW, NODE, FALSE, f++, 0, t + 2600000 + OFFSET);
    guint32 radio = f;
    vantage_note(m, 901, VANTAGE_RADIO, GW, NODE, FALSE, f++, 0, t + 2600000 + 45000);
    g_assert_true(other_of(m, radio, &other));
    g_assert_cmpuint(other, ==, resent_ip);
    g_assert_false(other_of(m, lost_ip, &other));

    /* Never at the other end. */
    guint32 alone = f;
    vantage_note(m, 902, VANTAGE_RADIO, NODE, GW, TRUE, f++, 0, 500000000);
    g_assert_false(other_of(m, alone, &other));
    g_assert_false(other_of(m, 99999, &other));
    vantage_map_free(m);
}

static void test_one_side(void)
{
    vantage_map_t *m = vantage_map_new();
    guint32 f = 1;

    for (int i = 0; i < 5; i++)
        vantage_note(m, 10 + i, VANTAGE_RADIO, NODE, GW, TRUE, f++, 0, 1000000 * i);
    g_assert_false(vantage_both_seen(m));
    vantage_map_free(m);
    vantage_map_free(NULL);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vantage/pairs", test_pairs);
    g_test_add_func("/vantage/one_side", test_one_side);
    return g_test_run();
}
