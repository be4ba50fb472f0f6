/* fuzz_tsv_reader.c: the analyser's own input, tshark's `-z meter,ota,tsv`
 * output, through what the analyser does with it: the reader
 * (analyzer/transfer.c over common/transfer_record.c), the block-size
 * model at the ends of --flash-us-per-byte's range and its default, and
 * the CSV, JSON and table reports. The input is the whole output.
 *
 * More than "no crash": what the reader lets through must hold what the
 * record format promises, and the reports must never show NaN, an
 * infinity or a negative duration or rate; a refused output must say why
 * in a printable message. A broken promise aborts (abort(), SIGABRT: the
 * SIGTRAP of g_error is no crash to libFuzzer, which would not keep the
 * input). tests/analyzer-unit/test_tsv_properties.c drives the
 * same entry point with mutated real outputs in every build, without
 * libFuzzer.
 *
 * No fuzz_common.h: it brings epan's scopes, which the analyser never uses.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "recommend.h"
#include "report.h"
#include "transfer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const double flash_s_per_byte[] = { 0, 150e-6, 10000e-6 };

static void broken(const char *fmt, ...) G_GNUC_PRINTF(1, 2) G_GNUC_NORETURN;
static void broken(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("fuzz_tsv_reader: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* A GLib or json-glib warning is a finding too. */
static void log_and_abort(const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
        broken("%s: %s", domain ? domain : "GLib", message);
    g_log_default_handler(domain, level, message, data);
}

static gboolean printable(const char *text)
{
    if (!g_utf8_validate(text, -1, NULL))
        return FALSE;
    for (const char *p = text; *p; p++)
        if ((guchar)*p < 0x20 || *p == 0x7f)
            return FALSE;
    return TRUE;
}

/* What the format promises of every record the reader kept. */
static void check_record(const meter_record_schema_t *s, const void *record)
{
    for (guint i = 0; i < s->n_columns; i++) {
        const meter_column_t *col = &s->columns[i];
        const void *at = (const char *)record + col->offset;
        if (col->type == METER_COL_DBL) {
            double v = *(const double *)at;
            if (!isfinite(v) || fabs(v) > METER_RECORD_DBL_MAX || (!col->optional && v < 0) || signbit(v) != (v < 0))
                broken("%s record, column %s: %g taken", s->tag, col->name, v);
        } else if (col->type == METER_COL_STR) {
            const char *v = *(const char *const *)at;
            if (!v || !printable(v))
                broken("%s record, column %s: a string that is not printable UTF-8 taken", s->tag, col->name);
        } else if (col->type == METER_COL_BOOL && *(const gboolean *)at != TRUE && *(const gboolean *)at != FALSE) {
            broken("%s record, column %s: a flag that is neither 0 nor 1", s->tag, col->name);
        }
    }
}

static void check_recommendation(const ms_recommendation_t *r)
{
    if (*r->not_computed) {
        if (!printable(r->not_computed))
            broken("recommendation: unprintable reason");
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
            if (r->rate_Bps[szx] != 0)
                broken("recommendation not computed, yet a rate at SZX %u", szx);
        return;
    }
    if (r->best_szx > MS_SZX_MAX)
        broken("best SZX %u", r->best_szx);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        double rate = r->rate_Bps[szx], d = r->duration_s[szx], f = r->exchange_fail[szx];
        if (!isfinite(rate) || rate < 0 || rate > r->rate_Bps[r->best_szx])
            broken("SZX %u: rate %g (best %g)", szx, rate, r->rate_Bps[r->best_szx]);
        if (!(d == -1 || (isfinite(d) && d >= 0)))
            broken("SZX %u: duration %g", szx, d);
        if (!(f >= 0 && f <= 1))
            broken("SZX %u: exchange failure %g", szx, f);
    }
}

/* Every number of the JSON report is finite (the parser reads no other)
 * and none is negative but the times since 1970 (members ending "_us", a
 * progress point's first element). */
static void check_json_node(JsonNode *node, const char *name, gboolean progress_point)
{
    if (JSON_NODE_HOLDS_OBJECT(node)) {
        JsonObject *o = json_node_get_object(node);
        GList *members = json_object_get_members(o);
        for (GList *m = members; m; m = m->next)
            check_json_node(json_object_get_member(o, m->data), m->data, FALSE);
        g_list_free(members);
    } else if (JSON_NODE_HOLDS_ARRAY(node)) {
        JsonArray *a = json_node_get_array(node);
        for (guint i = 0; i < json_array_get_length(a); i++) {
            JsonNode *el = json_array_get_element(a, i);
            if (strcmp(name, "progress") == 0)
                check_json_node(el, "progress point", TRUE);
            else if (!(progress_point && i == 0))
                check_json_node(el, name, FALSE);
        }
    } else if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) != G_TYPE_STRING &&
               json_node_get_value_type(node) != G_TYPE_BOOLEAN) {
        double v = json_node_get_double(node);
        if (!isfinite(v) || (v < 0 && !g_str_has_suffix(name, "_us")))
            broken("JSON report: %s is %g", name, v);
    }
}

static char *report(void (*write)(FILE *, ms_analysis_t *, guint), ms_analysis_t *a)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    write(out, a, 1);
    fclose(out);
    return text;
}

static void check_reports(ms_analysis_t *a)
{
    char *json = report(ms_report_json, a);
    JsonParser *parser = json_parser_new();
    GError *err = NULL;

    if (!json_parser_load_from_data(parser, json, -1, &err))
        broken("the JSON report does not parse: %s", err->message);
    check_json_node(json_parser_get_root(parser), "", FALSE);
    g_object_unref(parser);
    g_free(json);
    g_free(report(ms_report_csv, a));
    g_free(report(ms_report_table, a));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gboolean once;
    ms_capture_t *c = ms_capture_new("fuzz.pcap");

    if (!once) {
        g_log_set_default_handler(log_and_abort, NULL);
        g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
        once = TRUE;
    }
    ms_capture_feed_text(c, (const char *)data, size);
    ms_capture_finish(c);
    if (c->format_error) {
        /* The runner refuses the capture with this message. */
        if (!*c->format_error || !printable(c->format_error))
            broken("a refusal that is empty or not printable");
    } else if (c->header_seen) {
        for (guint i = 0; i < c->transfers->len; i++) {
            const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
            check_record(&meter_transfer_schema, &x->rec);
        }
        check_record(&meter_counts_schema, &c->counts);
        for (guint k = 0; k < G_N_ELEMENTS(flash_s_per_byte); k++) {
            ms_analysis_t a = { .capture = c };
            a.has_recommendation = ms_recommend(c, ms_recommend_basis(c), flash_s_per_byte[k], &a.recommendation);
            if (a.has_recommendation)
                check_recommendation(&a.recommendation);
            ms_analysis_advise(&a, flash_s_per_byte[k]);
            check_reports(&a);
            ms_analysis_clear_advice(&a);
        }
        /* --meter, as main applies it: by address, whatever the text. */
        if (c->transfers->len) {
            char *meter = g_strdup(((const ms_transfer_t *)g_ptr_array_index(c->transfers, 0))->rec.meter);
            ms_capture_keep_meter(c, meter);
            if (!c->transfers->len)
                broken("--meter %s dropped that meter's own transfer", meter);
            g_free(meter);
        }
    }
    ms_capture_free(c);
    return 0;
}
