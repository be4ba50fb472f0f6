/* test_scenario.c: unit tests of the busy-network parameters and the
 * busy-field scenario (captures/meter-sim/scenario.c, world.c).
 *
 * The new parameters' defaults are the behaviour every older scenario was
 * made with (their captures regenerate byte for byte, captures.regenerate);
 * busy-field sets what docs/meter-sim.md says it does; the hidden relay
 * puts every other hidden background node behind the first hidden one and
 * leaves the rest of the tree, and the random draws, as they were.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "gcrypt_init.h"
#include "scenario.h"
#include "world.h"

static void test_defaults_keep_old_behaviour(void)
{
    sim_params_t p;

    sim_params_defaults(&p);
    g_assert_cmpint(p.bg_ota_every, ==, 4);       /* every fourth node by index, as before */
    g_assert_cmpint(p.bg_ota_szx, ==, 4);
    g_assert_cmpint(p.bg_history_samples, ==, 6);
    g_assert_false(p.bg_hidden_relay);
    g_assert_cmpfloat(p.block_gap_ms, ==, 0);
}

static void test_busy_field(void)
{
    const scenario_t *s = scenario_find("busy-field");
    sim_params_t p;

    g_assert_nonnull(s);
    sim_params_defaults(&p);
    s->apply(&p);
    g_assert_cmpint(p.hops, ==, 2);
    g_assert_cmpint(p.n_background, ==, 30);
    g_assert_cmpfloat(p.hidden_fraction, ==, 0.5);
    g_assert_cmpfloat(p.bg_upload_interval_s, ==, 10);
    g_assert_cmpint(p.bg_history_samples, ==, 24);
    g_assert_cmpfloat(p.loss, ==, 0.025);
    g_assert_true(p.loss_model == LOSS_GILBERT_ELLIOTT);
    g_assert_false(p.do_config);
    g_assert_false(p.do_history);
    g_assert_true(p.do_firmware);
    g_assert_cmpuint(p.image_size, ==, 32 * 1024);
    g_assert_cmpfloat(p.max_duration_s, ==, 600);
    g_assert_cmpint(p.fw_szx[0], ==, 4);
    g_assert_cmpfloat(p.rtt_ms, ==, 40);
    /* the knobs it leaves at their defaults */
    g_assert_cmpint(p.bg_ota_every, ==, 4);
    g_assert_false(p.bg_hidden_relay);
    g_assert_cmpfloat(p.block_gap_ms, ==, 0);
}

static world_t *busy_world(gboolean relay, guint64 seed)
{
    sim_params_t p;
    GError *err = NULL;
    world_t *w;

    sim_params_defaults(&p);
    scenario_find("busy-field")->apply(&p);
    p.seed = seed;
    p.bg_hidden_relay = relay;
    w = world_new(&p, NULL, &err);
    g_assert_no_error(err);
    g_assert_nonnull(w);
    return w;
}

static void test_hidden_relay(void)
{
    for (guint64 seed = 1; seed <= 5; seed++) {
        world_t *plain = busy_world(FALSE, seed), *relayed = busy_world(TRUE, seed);
        node_t *relay = NULL;
        int hidden = 0;

        g_assert_cmpuint(plain->nodes->len, ==, relayed->nodes->len);
        for (guint i = 0; i < plain->nodes->len; i++) {
            node_t *a = g_ptr_array_index(plain->nodes, i), *b = g_ptr_array_index(relayed->nodes, i);

            /* the same nodes, hidden or not by the same draws */
            g_assert_cmpint(a->hidden, ==, b->hidden);
            if (a->role != ROLE_BACKGROUND) {
                g_assert_true((a->parent == NULL) == (b->parent == NULL));
                continue;
            }
            g_assert_true(a->parent == plain->br);
            if (!b->hidden) {
                g_assert_true(b->parent == relayed->br);
            } else if (!relay) {
                relay = b;
                g_assert_true(b->parent == relayed->br);
            } else {
                g_assert_true(b->parent == relay);
            }
            hidden += b->hidden;
        }
        /* about half of the 30 are hidden */
        g_assert_cmpint(hidden, >, 5);
        g_assert_cmpint(hidden, <, 25);
        world_free(plain);
        world_free(relayed);
    }
}

/* Every fault scenario names a cause of the verdict's vocabulary, is found
 * by name and listed after the ordinary ones, which name none. */
static void test_fault_causes(void)
{
    static const char *const CAUSES[] = { "radio_loss", "poll_wait", "spurious_retransmissions", "turnaround",
                                          "backhaul", "stalls", "protocol_error", "capture_imperfect" };
    gboolean seen[G_N_ELEMENTS(CAUSES)] = { FALSE };
    const scenario_t *s;
    guint faults = 0;

    g_assert_null(scenario_find("default")->cause);
    for (guint i = 0; (s = scenario_nth(i)) != NULL; i++) {
        gboolean named = FALSE;
        g_assert_true(scenario_find(s->name) == s);
        g_assert_cmpint(g_str_has_prefix(s->name, "fault-"), ==, s->cause != NULL);
        if (!s->cause)
            continue;
        faults++;
        for (guint c = 0; c < G_N_ELEMENTS(CAUSES); c++)
            if (g_strcmp0(s->cause, CAUSES[c]) == 0)
                seen[c] = named = TRUE;
        g_assert_true(named);
    }
    g_assert_cmpuint(faults, >=, G_N_ELEMENTS(CAUSES));
    for (guint c = 0; c < G_N_ELEMENTS(CAUSES); c++)
        g_assert_true(seen[c]);
}

int main(int argc, char **argv)
{
    sim_gcrypt_init();
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/scenario/defaults-keep-old-behaviour", test_defaults_keep_old_behaviour);
    g_test_add_func("/scenario/busy-field", test_busy_field);
    g_test_add_func("/scenario/hidden-relay", test_hidden_relay);
    g_test_add_func("/scenario/fault-causes", test_fault_causes);
    return g_test_run();
}
