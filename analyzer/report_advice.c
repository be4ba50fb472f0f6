/* report_advice.c: each transfer's verdict and its what-ifs (advice.h) in
 * the table, the JSON and the CSV. The table ranks the changes by the time
 * they would save; the JSON carries every one, with its battery cost.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "report_advice.h"
#include "duration_text.h"
#include "json_number.h"

/* The table lists this many changes, the most time saved first. */
#define TABLE_CHANGES 8

void ms_analysis_advise(ms_analysis_t *a, double flash_s_per_byte)
{
    const ms_capture_t *c = a->capture;

    a->advice = g_new0(ms_advice_t, MAX(1u, c->transfers->len));
    for (guint i = 0; i < c->transfers->len; i++)
        ms_advise(c, g_ptr_array_index(c->transfers, i), flash_s_per_byte, &a->advice[i]);
}

void ms_analysis_clear_advice(ms_analysis_t *a)
{
    for (guint i = 0; a->advice && i < a->capture->transfers->len; i++)
        ms_advice_clear(&a->advice[i]);
    g_free(a->advice);
    a->advice = NULL;
}

static void what_to_change(FILE *out, const ms_advice_t *v)
{
    const ms_whatifs_t *w = &v->whatifs;
    char *now = ms_image_cost_text(&w->now);

    fprintf(out, "\nWhat to change, from transfer %u (the whole %.0f bytes; docs/recommendation.md):\n",
            w->transfer, w->image_bytes);
    fprintf(out, "  as measured: %s, %.0f frames of the meter's, %.1f s radio-on, %.0f retransmissions for "
            "nothing; ACK_TIMEOUT %.2f s (%s)\n", now, w->now.meter_frames, w->now.radio_on_s, w->now.spurious,
            w->ack_timeout_s, w->ack_timeout_measured ? "from the first retransmissions" : "RFC 7252's, assumed");
    g_free(now);
    fprintf(out, "  %-36s %-34s %-14s %12s %10s\n", "change", "whole image (90% range)", "against now", "meter frames",
            "radio-on");
    for (guint i = 0; i < w->changes->len && i < TABLE_CHANGES; i++) {
        const ms_whatif_t *c = &g_array_index(w->changes, ms_whatif_t, i);
        char *t = ms_image_cost_text(&c->cost);
        char *d = duration_text(fabs(c->saved_s), DURATION_FINE);
        char *against = g_strdup_printf("%s %s", c->saved_s >= 0 ? "saves" : "costs", d);
        fprintf(out, "  %-36s %-34s %-14s %12.0f %9.1fs\n", c->setting, t, against, c->cost.meter_frames,
                c->cost.radio_on_s);
        g_free(d);
        g_free(against);
        fprintf(out, "  %-36s   %s\n", "", c->note);
        g_free(t);
    }
    if (w->changes->len > TABLE_CHANGES)
        fprintf(out, "  (%u more in the JSON report)\n", w->changes->len - TABLE_CHANGES);
}

void ms_report_table_advice(FILE *out, const ms_analysis_t *a)
{
    const ms_capture_t *c = a->capture;

    if (!a->advice || !c->transfers->len)
        return;
    fprintf(out, "\nVerdict (the dominant cause of each transfer's lost time, and what pays):\n");
    for (guint i = 0; i < c->transfers->len; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        fprintf(out, "  %u [%s]: %s\n", x->rec.transfer, meter_verdict_cause_name(a->advice[i].verdict.cause),
                a->advice[i].sentence);
    }
    for (guint i = 0; a->has_recommendation && i < c->transfers->len; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        if (x->rec.transfer == a->recommendation.transfer && a->advice[i].has_model)
            what_to_change(out, &a->advice[i]);
    }
}

static void json_cost(JsonBuilder *b, const ms_image_cost_t *c)
{
    json_number_member(b, "duration_s", c->duration_s);
    json_number_member(b, "duration_low_s", c->low_s);
    json_builder_set_member_name(b, "duration_high_s");
    if (c->high_s >= 0)
        json_number_add(b, c->high_s);
    else
        json_builder_add_null_value(b);
    json_number_member(b, "meter_frames", c->meter_frames);
    json_number_member(b, "meter_radio_on_s", c->radio_on_s);
    json_number_member(b, "spurious_retransmissions", c->spurious);
}

void ms_report_json_advice(JsonBuilder *b, const ms_advice_t *v)
{
    json_builder_set_member_name(b, "verdict");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "cause");
    json_builder_add_string_value(b, meter_verdict_cause_name(v->verdict.cause));
    json_number_member(b, "lost_s", v->verdict.lost_s);
    json_builder_set_member_name(b, "sentence");
    json_builder_add_string_value(b, v->sentence ? v->sentence : "");
    json_builder_set_member_name(b, "action");
    if (v->action) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "knob");
        json_builder_add_string_value(b, ms_knob_name(v->action->knob));
        json_number_member(b, "value", v->action->value);
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "what_to_change");
    if (!v->has_model) {
        json_builder_add_null_value(b);
        return;
    }
    const ms_whatifs_t *w = &v->whatifs;
    json_builder_begin_object(b);
    json_number_member(b, "image_bytes", w->image_bytes);
    json_builder_set_member_name(b, "sleepy");
    json_builder_add_boolean_value(b, w->sleepy);
    json_number_member(b, "ack_timeout_s", w->ack_timeout_s);
    json_builder_set_member_name(b, "ack_timeout_from");
    json_builder_add_string_value(b, w->ack_timeout_measured ? "measured" : "assumed");
    json_builder_set_member_name(b, "now");
    json_builder_begin_object(b);
    json_cost(b, &w->now);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "changes");
    json_builder_begin_array(b);
    for (guint i = 0; i < w->changes->len; i++) {
        const ms_whatif_t *c = &g_array_index(w->changes, ms_whatif_t, i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "knob");
        json_builder_add_string_value(b, ms_knob_name(c->knob));
        json_number_member(b, "value", c->value);
        json_builder_set_member_name(b, "setting");
        json_builder_add_string_value(b, c->setting);
        json_cost(b, &c->cost);
        /* reports carry no negative number: a change saves time or costs it */
        json_number_member(b, "saves_s", MAX(0.0, c->saved_s));
        json_number_member(b, "costs_s", MAX(0.0, -c->saved_s));
        json_builder_set_member_name(b, "note");
        json_builder_add_string_value(b, c->note);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

const char *const ms_report_csv_advice_columns[] = { "verdict_cause", "verdict", "best_change",
                                                     "best_change_duration_s" };
const guint ms_report_csv_advice_n = G_N_ELEMENTS(ms_report_csv_advice_columns);

char *ms_report_csv_advice_cell(const ms_advice_t *v, guint column)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    switch (column) {
    case 0:
        return g_strdup(meter_verdict_cause_name(v->verdict.cause));
    case 1:
        return g_strdup(v->sentence ? v->sentence : "");
    case 2:
        return g_strdup(v->action ? v->action->setting : "");
    default:
        return g_strdup(v->action ? g_ascii_formatd(buf, sizeof buf, "%.3f", v->action->cost.duration_s) : "");
    }
}
