/* advice.c: the verdict's sentence. Its first half is the cause and its
 * evidence (common/verdict.c); its second the change the what-ifs show to
 * pay: the one that saves the most time, or, where the cause costs air and
 * battery rather than seconds (retransmissions sent for nothing), the
 * ACK_TIMEOUT that avoids them without costing time, with what it costs or
 * saves either way. A change saving less than PAYS_SHARE of the time is
 * not advised: the model is not that exact.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "advice.h"
#include "duration_text.h"

#define PAYS_SHARE 0.05

char *ms_image_cost_text(const ms_image_cost_t *c)
{
    char *t = duration_text(c->duration_s, DURATION_FINE), *lo = duration_text(c->low_s, DURATION_FINE);
    char *hi = c->high_s >= 0 ? duration_text(c->high_s, DURATION_FINE) : g_strdup("never");
    char *s = g_strdup_printf("%s (%s-%s)", t, lo, hi);

    g_free(t);
    g_free(lo);
    g_free(hi);
    return s;
}

static void append_cost(GString *s, const ms_whatif_t *c, const ms_image_cost_t *now)
{
    char *t = ms_image_cost_text(&c->cost), *t0 = duration_text(now->duration_s, DURATION_FINE);
    double frames = c->cost.meter_frames - now->meter_frames, on = c->cost.radio_on_s - now->radio_on_s;

    g_string_append_printf(s, "%s would take %s instead of %s, with %.0f %s frames of the meter's and "
                           "%.1f s %s radio-on", c->setting, t, t0, fabs(frames),
                           frames >= 0 ? "more" : "fewer", fabs(on), on >= 0 ? "more" : "less");
    g_free(t);
    g_free(t0);
}

/* The ACK_TIMEOUT that sends the fewest retransmissions for nothing
 * without making the image more than PAYS_SHARE slower. */
static const ms_whatif_t *quiet_timeout(const ms_whatifs_t *w)
{
    const ms_whatif_t *best = NULL;

    for (guint i = 0; i < w->changes->len; i++) {
        const ms_whatif_t *c = &g_array_index(w->changes, ms_whatif_t, i);
        if (c->knob != MS_KNOB_ACK_TIMEOUT || c->cost.duration_s > (1 + PAYS_SHARE) * w->now.duration_s)
            continue;
        if (!best || c->cost.spurious < best->cost.spurious - 0.5)
            best = c;
    }
    return best && best->cost.spurious < 0.5 * w->now.spurious ? best : NULL;
}

static const ms_whatif_t *fastest(const ms_whatifs_t *w)
{
    const ms_whatif_t *c = w->changes->len ? &g_array_index(w->changes, ms_whatif_t, 0) : NULL;
    return c && c->saved_s >= PAYS_SHARE * w->now.duration_s ? c : NULL;
}

/* Causes no setting mends: what to do instead. The what-ifs scale the
 * measured waits, a silence among them, so they would promise too much. */
static const char *no_setting_mends(meter_verdict_cause_t cause)
{
    switch (cause) {
    case VERDICT_STALLS:
        return "no setting shortens a silence: find what stopped the link or the meter where "
               "meter.ota.stall.expert marks it";
    case VERDICT_PROTOCOL_ERROR:
        return "the peer's answers need mending, not a setting of the meter's";
    case VERDICT_CAPTURE_IMPERFECT:
        return "a capture at the radio, next to the meter, would tell";
    default:
        return NULL;
    }
}

static char *compose(const ms_advice_t *a)
{
    GString *s = g_string_new(a->verdict.evidence);
    const char *instead = no_setting_mends(a->verdict.cause);

    if (s->len)
        s->str[0] = g_ascii_toupper(s->str[0]);
    if (instead) {
        g_string_append_printf(s, "; %s.", instead);
        return g_string_free(s, FALSE);
    }
    if (!a->has_model) {
        g_string_append_c(s, '.');
        return g_string_free(s, FALSE);
    }
    const ms_whatif_t *best = fastest(&a->whatifs);
    const ms_whatif_t *quiet = a->verdict.cause == VERDICT_SPURIOUS ? quiet_timeout(&a->whatifs) : NULL;
    if (quiet) {
        g_string_append(s, "; ");
        append_cost(s, quiet, &a->whatifs.now);
        g_string_append_printf(s, " and %.0f retransmissions for nothing instead of %.0f", quiet->cost.spurious,
                               a->whatifs.now.spurious);
    }
    if (best && best != quiet) {
        g_string_append(s, quiet ? "; the most time: " : "; ");
        append_cost(s, best, &a->whatifs.now);
    } else if (!quiet) {
        g_string_append_printf(s, "; no change of block size, poll period, ACK_TIMEOUT, pacing or hops would save "
                               "%.0f%% of the time", 100 * PAYS_SHARE);
    }
    g_string_append_c(s, '.');
    return g_string_free(s, FALSE);
}

void ms_advise(const ms_capture_t *c, const ms_transfer_t *t, double flash_s_per_byte, ms_advice_t *a)
{
    memset(a, 0, sizeof *a);
    meter_verdict(&t->rec, &a->verdict);
    a->has_model = t->rec.frames_sent && ms_recommend(c, t, flash_s_per_byte, &a->model) &&
                   ms_whatifs(t, &a->model, &a->whatifs);
    if (a->has_model && !no_setting_mends(a->verdict.cause)) {
        const ms_whatif_t *best = fastest(&a->whatifs);
        const ms_whatif_t *quiet = a->verdict.cause == VERDICT_SPURIOUS ? quiet_timeout(&a->whatifs) : NULL;
        a->action = quiet ? quiet : best;
    }
    a->sentence = compose(a);
}

void ms_advice_clear(ms_advice_t *a)
{
    ms_whatifs_clear(&a->whatifs);
    g_free(a->sentence);
    memset(a, 0, sizeof *a);
}
