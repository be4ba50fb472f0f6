/* report_data.c: the raw reports for scripts: CSV (one row per transfer,
 * a header row) and JSON (format "meterscope-report", docs/analyser.md).
 * Numbers stay raw: bytes, seconds, microseconds since 1970.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "json_number.h"
#include "json_print.h"
#include "report.h"
#include "report_advice.h"

/* A column's value as text; "" for "none". */
static char *column_text(const ms_transfer_t *x, const meter_column_t *col)
{
    const void *at = (const char *)&x->rec + col->offset;
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    switch (col->type) {
    case METER_COL_STR:
        return g_strdup(*(char *const *)at);
    case METER_COL_U32:
        return g_strdup_printf("%u", *(const guint32 *)at);
    case METER_COL_BOOL:
        return g_strdup(*(const gboolean *)at ? "1" : "0");
    case METER_COL_I64:
        if (col->optional && *(const gint64 *)at < 0)
            return g_strdup("");
        return g_strdup_printf("%" G_GINT64_FORMAT, *(const gint64 *)at);
    case METER_COL_DBL:
        if (col->optional && *(const double *)at < 0)
            return g_strdup("");
        return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.6f", *(const double *)at));
    }
    return g_strdup("");
}

static void csv_cell(FILE *out, const char *text, gboolean first)
{
    if (!first)
        fputc(',', out);
    if (strpbrk(text, ",\"\n")) {
        fputc('"', out);
        for (const char *p = text; *p; p++) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fputs(text, out);
    }
}

void ms_report_csv(FILE *out, ms_analysis_t *a, guint n)
{
    const meter_column_t *cols = meter_transfer_schema.columns;
    const guint nc = meter_transfer_schema.n_columns;
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    csv_cell(out, "capture", TRUE);
    for (guint k = 0; k < nc; k++)
        csv_cell(out, cols[k].name, FALSE);
    for (guint k = 0; k < METER_SPLIT_PARTS; k++) {
        const char *column = meter_split_parts[k].column;
        char *name = g_strdup_printf("%.*s_pct", (int)strlen(column) - 2, column);
        csv_cell(out, name, FALSE);
        g_free(name);
    }
    for (guint k = 0; k < ms_report_csv_advice_n; k++)
        csv_cell(out, ms_report_csv_advice_columns[k], FALSE);
    fputc('\n', out);
    for (guint i = 0; i < n; i++)
        for (guint t = 0; t < a[i].capture->transfers->len; t++) {
            const ms_transfer_t *x = g_ptr_array_index(a[i].capture->transfers, t);
            csv_cell(out, a[i].capture->file, TRUE);
            for (guint k = 0; k < nc; k++) {
                char *v = column_text(x, &cols[k]);
                csv_cell(out, v, FALSE);
                g_free(v);
            }
            for (guint k = 0; k < METER_SPLIT_PARTS; k++)
                csv_cell(out, g_ascii_formatd(buf, sizeof buf, "%.3f",
                                              x->rec.duration_s > 0 ? 100 * meter_split_value(&x->rec, k) / x->rec.duration_s : 0),
                         FALSE);
            for (guint k = 0; k < ms_report_csv_advice_n; k++) {
                char *v = a[i].advice ? ms_report_csv_advice_cell(&a[i].advice[t], k) : g_strdup("");
                csv_cell(out, v, FALSE);
                g_free(v);
            }
            fputc('\n', out);
        }
}

static void json_column(JsonBuilder *b, const ms_transfer_t *x, const meter_column_t *col)
{
    const void *at = (const char *)&x->rec + col->offset;

    json_builder_set_member_name(b, col->name);
    switch (col->type) {
    case METER_COL_STR:
        json_builder_add_string_value(b, *(char *const *)at);
        break;
    case METER_COL_U32:
        json_builder_add_int_value(b, *(const guint32 *)at);
        break;
    case METER_COL_BOOL:
        json_builder_add_boolean_value(b, *(const gboolean *)at);
        break;
    case METER_COL_I64:
        if (col->optional && *(const gint64 *)at < 0)
            json_builder_add_null_value(b);
        else
            json_builder_add_int_value(b, *(const gint64 *)at);
        break;
    case METER_COL_DBL:
        if (col->optional && *(const double *)at < 0)
            json_builder_add_null_value(b);
        else
            json_number_add(b, *(const double *)at);
        break;
    }
}

static void json_transfer(JsonBuilder *b, const ms_transfer_t *x, const ms_advice_t *advice)
{
    const meter_column_t *cols = meter_transfer_schema.columns;
    const guint nc = meter_transfer_schema.n_columns;
    static const char *const kinds[] = { "block", "retransmission", "rerequest" };

    json_builder_begin_object(b);
    for (guint k = 0; k < nc; k++)
        json_column(b, x, &cols[k]);
    json_builder_set_member_name(b, "time_split_pct");
    json_builder_begin_object(b);
    for (guint k = 0; k < METER_SPLIT_PARTS; k++) {
        const char *column = meter_split_parts[k].column;
        char *name = g_strndup(column + 5, strlen(column) - 7);   /* "air", ... */
        json_builder_set_member_name(b, name);
        json_number_add(b, x->rec.duration_s > 0 ? 100 * meter_split_value(&x->rec, k) / x->rec.duration_s : 0);
        g_free(name);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "progress");
    json_builder_begin_array(b);
    for (guint i = 0; i < x->points->len; i++) {
        const ms_point_t *p = &g_array_index(x->points, ms_point_t, i);
        json_builder_begin_array(b);
        json_builder_add_int_value(b, p->ts_us);
        json_builder_add_int_value(b, p->bytes);
        json_builder_add_string_value(b, kinds[p->kind]);
        json_builder_end_array(b);
    }
    json_builder_end_array(b);
    if (advice)
        ms_report_json_advice(b, advice);
    json_builder_end_object(b);
}

static void json_recommendation(JsonBuilder *b, const ms_recommendation_t *r)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "transfer");
    json_builder_add_int_value(b, r->transfer);
    json_builder_set_member_name(b, "block_size");
    json_builder_add_int_value(b, r->block_size);
    json_builder_set_member_name(b, "kind");
    json_builder_add_string_value(b, r->upload ? "block1" : "block2");
    if (*r->not_computed) {
        json_builder_set_member_name(b, "not_computed");
        json_builder_add_string_value(b, r->not_computed);
        json_builder_set_member_name(b, "predictions");
        json_builder_begin_array(b);
        json_builder_end_array(b);
        json_builder_set_member_name(b, "best_szx");
        json_builder_add_null_value(b);
        json_builder_end_object(b);
        return;
    }
    json_number_member(b, "exchange_loss", r->exchange_loss);
    json_number_member(b, "response_frames", r->upload ? r->other_frames : r->block_frames);
    json_number_member(b, "block_frames", r->block_frames);
    json_number_member(b, "other_frames", r->other_frames);
    json_number_member(b, "frame_room_bytes", r->frame_room);
    json_number_member(b, "block_overhead_bytes", r->block_overhead);
    json_number_member(b, "request_loss", r->request_loss);
    json_number_member(b, "first_frame_loss", r->first_frame_loss);
    json_builder_set_member_name(b, "later_frame_loss");
    if (r->later_frame_loss >= 0)
        json_number_add(b, r->later_frame_loss);
    else
        json_builder_add_null_value(b);
    json_number_member(b, "added_frame_loss", r->added_frame_loss);
    json_builder_set_member_name(b, "added_frame_loss_from");
    json_builder_add_string_value(b, r->added_from);
    json_number_member(b, "hops", r->hops);
    json_number_member(b, "train_frame_loss", r->train_loss);
    json_number_member(b, "train_loss_growth", r->train_growth);
    json_number_member(b, "train_loss_growth_low", r->train_growth_low);
    json_number_member(b, "train_loss_growth_high", r->train_growth_high);
    json_builder_set_member_name(b, "train_loss_growth_from");
    json_builder_add_string_value(b, r->train_growth_measured ? "measured" : "assumed");
    json_number_member(b, "air_s_per_block", r->air_s);
    json_number_member(b, "network_s_per_block", r->network_s);
    json_number_member(b, "poll_s_per_block", r->poll_s);
    json_number_member(b, "turnaround_s_per_block", r->turnaround_s);
    json_number_member(b, "timeouts_s_per_block", r->timeouts_s);
    json_number_member(b, "first_timeout_s", r->timeout_s);
    json_number_member(b, "frame_s", r->frame_s);
    json_builder_set_member_name(b, "frame_s_from");
    json_builder_add_string_value(b, r->frame_s_measured ? "measured" : "assumed");
    json_number_member(b, "turnaround_s_per_byte", r->turn_s_per_byte);
    json_builder_set_member_name(b, "turnaround_growth_from");
    json_builder_add_string_value(b, ms_turn_source_name(r->turn_source));
    json_number_member(b, "flash_s_per_byte", r->flash_s_per_byte);
    json_builder_set_member_name(b, "predictions");
    json_builder_begin_array(b);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "szx");
        json_builder_add_int_value(b, szx);
        json_builder_set_member_name(b, "block_size");
        json_builder_add_int_value(b, 16u << szx);
        json_number_member(b, "exchange_fail", r->exchange_fail[szx]);
        json_number_member(b, "rate_Bps", r->rate_Bps[szx]);
        json_number_member(b, "rate_low_Bps", r->rate_low_Bps[szx]);
        json_number_member(b, "rate_high_Bps", r->rate_high_Bps[szx]);
        json_builder_set_member_name(b, "duration_s");
        if (r->duration_s[szx] >= 0)
            json_number_add(b, r->duration_s[szx]);
        else
            json_builder_add_null_value(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "best_szx");
    json_builder_add_int_value(b, r->best_szx);
    char why[256];
    ms_recommend_why(r, why, sizeof why);
    json_builder_set_member_name(b, "why");
    json_builder_add_string_value(b, why);
    json_builder_end_object(b);
}

void ms_report_json(FILE *out, ms_analysis_t *a, guint n)
{
    JsonBuilder *b = json_builder_new();

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "format");
    json_builder_add_string_value(b, "meterscope-report");
    json_builder_set_member_name(b, "version");
    json_builder_add_int_value(b, MS_REPORT_VERSION);
    json_builder_set_member_name(b, "captures");
    json_builder_begin_array(b);
    for (guint i = 0; i < n; i++) {
        const ms_capture_t *c = a[i].capture;
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "file");
        json_builder_add_string_value(b, c->file);
        json_builder_set_member_name(b, "frames");
        json_builder_add_int_value(b, c->counts.frames);
        json_builder_set_member_name(b, "timestamps");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "mark");
        json_builder_add_string_value(b, c->counts.timestamps ? c->counts.timestamps : "unknown");
        json_builder_set_member_name(b, "pairs");
        json_builder_add_int_value(b, c->counts.timestamp_pairs);
        json_builder_set_member_name(b, "pairs_fit");
        json_builder_add_int_value(b, c->counts.timestamp_pairs_fit);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "sniffer");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "frames_missed");
        json_builder_add_int_value(b, c->counts.frames_missed_by_sniffer);
        json_builder_set_member_name(b, "acks_unmatched");
        json_builder_add_int_value(b, c->counts.acks_unmatched);
        /* The transfers' estimate and its high end (each transfer has its own). */
        guint32 estimate = 0, high = 0;
        for (guint t = 0; t < c->transfers->len; t++) {
            const ms_transfer_t *x = g_ptr_array_index(c->transfers, t);
            estimate += x->rec.frames_missed_estimate;
            high += x->rec.frames_missed_high;
        }
        json_builder_set_member_name(b, "transfer_frames_missed_estimate");
        json_builder_add_int_value(b, estimate);
        json_builder_set_member_name(b, "transfer_frames_missed_high");
        json_builder_add_int_value(b, high);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "transfers");
        json_builder_begin_array(b);
        for (guint t = 0; t < c->transfers->len; t++)
            json_transfer(b, g_ptr_array_index(c->transfers, t), a[i].advice ? &a[i].advice[t] : NULL);
        json_builder_end_array(b);
        json_builder_set_member_name(b, "recommendation");
        if (a[i].has_recommendation)
            json_recommendation(b, &a[i].recommendation);
        else
            json_builder_add_null_value(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);

    ms_json_print(out, b, TRUE);
    g_object_unref(b);
}
