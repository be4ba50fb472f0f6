/* test_transfer.c: the plugin's writer of the -z meter,ota,tsv records
 * (common/transfer_record.c) against the analyser's reader
 * (analyzer/transfer.c) and its CSV and JSON, over every column of
 * common/transfer_record.h: a column added there is covered here without
 * a change.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "report.h"
#include "report_advice.h"
#include "transfer.h"
#include "transfer_record.h"

/* ---- records with a value in every column that no other column has ---- */

typedef struct {
    GPtrArray *strings;          /* what the records' STR columns point to */
} fx_t;

static void fx_init(fx_t *fx)
{
    fx->strings = g_ptr_array_new_with_free_func(g_free);
}

static void fx_done(fx_t *fx)
{
    g_ptr_array_free(fx->strings, TRUE);
}

/* Column i of a schema gets a value only it has (from a number 1000
 * apart per column, salted per record kind); the BOOL column numbered hot_bool is the
 * one TRUE (a swap of two BOOL columns shows in some round); with none,
 * every optional column is "none" (-1). */
static void fill(fx_t *fx, const meter_record_schema_t *s, void *rec, guint salt, guint hot_bool, gboolean none)
{
    guint n_bool = 0;

    for (guint i = 0; i < s->n_columns; i++) {
        const meter_column_t *col = &s->columns[i];
        void *at = (char *)rec + col->offset;
        guint k = salt + 1000 * (i + 1);
        switch (col->type) {
        case METER_COL_U32:   /* an odd factor keeps them distinct, with all 32 bits in play */
            *(guint32 *)at = k * 2654435761u;
            break;
        case METER_COL_I64:   /* past 32 bits, so a narrowing shows */
            *(gint64 *)at = none && col->optional ? -1 : G_GINT64_CONSTANT(5000000000) + k;
            break;
        case METER_COL_DBL:   /* 6 decimals that are exact in binary */
            *(double *)at = none && col->optional ? -1.0 : k + 0.515625;
            break;
        case METER_COL_STR: {
            char *text = g_strdup_printf("%s-%u", col->name, k);
            g_ptr_array_add(fx->strings, text);
            *(const char **)at = text;
            break;
        }
        case METER_COL_BOOL:
            *(gboolean *)at = n_bool++ == hot_bool;
            break;
        }
    }
}

static guint n_bool_columns(const meter_record_schema_t *s)
{
    guint n = 0;
    for (guint i = 0; i < s->n_columns; i++)
        n += s->columns[i].type == METER_COL_BOOL;
    return n;
}

static void assert_same_record(const meter_record_schema_t *s, const void *want, const void *got)
{
    for (guint i = 0; i < s->n_columns; i++)
        if (!meter_record_column_equal(&s->columns[i], want, got))
            g_error("%s record, column %s: read back differs from what was written", s->tag, s->columns[i].name);
}

/* ---- the plugin's writer, the analyser's reader ---- */

typedef struct {
    meter_transfer_record_t x;
    meter_progress_record_t p;
    meter_counts_record_t   c;
} records_t;

/* What tshark prints: a T, a P and a C record of distinct values after a
 * warning (a progress kind the reader knows). */
static char *distinct_capture(fx_t *fx, records_t *r, guint hot_bool, gboolean none)
{
    GString *out = g_string_new("Running as user \"nobody\"\n");

    fill(fx, &meter_transfer_schema, &r->x, 0, hot_bool, none);
    fill(fx, &meter_progress_schema, &r->p, 1, 0, FALSE);
    fill(fx, &meter_counts_schema, &r->c, 2, 0, FALSE);
    r->p.transfer = r->x.transfer;
    r->p.kind = "rerequest";
    meter_record_write_header(out);
    meter_record_write(out, &meter_transfer_schema, &r->x);
    meter_record_write(out, &meter_progress_schema, &r->p);
    meter_record_write(out, &meter_counts_schema, &r->c);
    return g_string_free(out, FALSE);
}

static ms_capture_t *read_capture(const char *text)
{
    ms_capture_t *c = ms_capture_new("test.pcap");
    char **lines = g_strsplit(text, "\n", -1);

    for (guint i = 0; lines[i]; i++)
        ms_capture_feed(c, lines[i]);
    g_strfreev(lines);
    return c;
}

static const ms_transfer_t *only_transfer_any(const ms_capture_t *c)
{
    g_assert_cmpuint(c->transfers->len, ==, 1);
    return g_ptr_array_index(c->transfers, 0);
}

static const ms_transfer_t *only_transfer(const ms_capture_t *c)
{
    g_assert_null(c->format_error);
    return only_transfer_any(c);
}

/* Every column the plugin's writer prints reads back the same. */
static void test_round_trip(void)
{
    const guint rounds = n_bool_columns(&meter_transfer_schema) + 1;

    for (guint round = 0; round <= rounds; round++) {
        fx_t fx;
        records_t r;
        fx_init(&fx);
        char *text = distinct_capture(&fx, &r, round, round == rounds);
        ms_capture_t *c = read_capture(text);

        g_assert_true(c->header_seen);
        const ms_transfer_t *t = only_transfer(c);
        assert_same_record(&meter_transfer_schema, &r.x, &t->rec);
        g_assert_cmpuint(t->points->len, ==, 1);
        const ms_point_t *pt = &g_array_index(t->points, ms_point_t, 0);
        g_assert_cmpint(pt->ts_us, ==, r.p.ts_us);
        g_assert_cmpuint(pt->bytes, ==, r.p.bytes);
        g_assert_cmpint(pt->kind, ==, PT_REREQUEST);
        g_assert_true(c->counts_seen);
        assert_same_record(&meter_counts_schema, &r.c, &c->counts);
        ms_capture_free(c);
        g_free(text);
        fx_done(&fx);
    }
}

/* text with column `name` of the tag records edited: dropped (value NULL;
 * from the #tag line too) or its value replaced. */
static char *edit_column(const char *text, const char *tag, const char *name, const char *value)
{
    GString *out = g_string_new(NULL);
    char **lines = g_strsplit(text, "\n", -1);
    char *names_tag = g_strdup_printf("#%s", tag);
    gint at = -1;

    for (guint i = 0; lines[i]; i++) {
        char **cells = g_strsplit(lines[i], "\t", -1);
        gboolean names = cells[0] && strcmp(cells[0], names_tag) == 0;
        gboolean record = cells[0] && strcmp(cells[0], tag) == 0;
        for (guint k = 0; names && cells[k]; k++)
            if (strcmp(cells[k], name) == 0)
                at = (gint)k;
        for (guint k = 0; cells[k]; k++) {
            const char *cell = record && (gint)k == at && value ? value : cells[k];
            if ((names || record) && (gint)k == at && !value)
                continue;
            g_string_append_printf(out, "%s%s", k ? "\t" : "", cell);
        }
        if (lines[i + 1])
            g_string_append_c(out, '\n');
        g_strfreev(cells);
    }
    g_assert_cmpint(at, >, 0);
    g_free(names_tag);
    g_strfreev(lines);
    return g_string_free(out, FALSE);
}

/* Each T column the plugin does not print is a format error naming it. A
 * P column too; a C column an older plugin lacked reads as 0. */
static void test_missing_column(void)
{
    fx_t fx;
    records_t r;

    fx_init(&fx);
    char *text = distinct_capture(&fx, &r, 0, FALSE);
    for (guint i = 0; i < meter_transfer_schema.n_columns; i++) {
        const char *name = meter_transfer_schema.columns[i].name;
        char *cut = edit_column(text, "T", name, NULL);
        ms_capture_t *c = read_capture(cut);
        char *want = g_strdup_printf("column %s missing from a T record", name);
        g_assert_nonnull(c->format_error);
        g_assert_nonnull(strstr(c->format_error, want));
        g_assert_cmpuint(c->transfers->len, ==, 0);
        g_free(want);
        ms_capture_free(c);
        g_free(cut);
    }
    char *cut = edit_column(text, "P", "bytes", NULL);
    ms_capture_t *c = read_capture(cut);
    g_assert_cmpstr(c->format_error, ==, "line 7: column bytes missing from a P record");
    ms_capture_free(c);
    g_free(cut);

    cut = edit_column(text, "C", "timestamp_early_messages", NULL);
    char *cut2 = edit_column(cut, "C", "timestamps", NULL);
    c = read_capture(cut2);
    g_assert_null(c->format_error);
    g_assert_true(c->counts_seen);
    g_assert_cmpuint(c->counts.timestamp_early_messages, ==, 0);
    g_assert_cmpstr(c->counts.timestamps, ==, "unknown");
    g_assert_cmpuint(c->counts.frames, ==, r.c.frames);
    ms_capture_free(c);
    g_free(cut2);
    g_free(cut);
    g_free(text);
    fx_done(&fx);
}

/* Values no column of the type holds, whatever the record (the plugin
 * writes "none" as -1: an empty cell is never one, even in an optional
 * column; the CSV's empty cell is the analyser's own). */
static const char *const bad_numbers[] = { "12x", "", " 1", "1 ", "nan", "NaN", "inf", "-inf", "1e999", "0x10",
                                           "1,5", "--1" };
/* required_only: bad in a required column, "none" in an optional one. */
static const struct { meter_col_type_t type; gboolean required_only; const char *text; } bad_for_type[] = {
    { METER_COL_U32, FALSE, "-1" },  { METER_COL_U32, FALSE, "+1" },   { METER_COL_U32, FALSE, "4294967296" },
    { METER_COL_U32, FALSE, "99999999999999999999" },                  { METER_COL_U32, FALSE, "1.5" },
    { METER_COL_BOOL, FALSE, "2" },  { METER_COL_BOOL, FALSE, "-1" },  { METER_COL_BOOL, FALSE, "true" },
    { METER_COL_I64, FALSE, "9223372036854775808" },                   { METER_COL_I64, FALSE, "1e3" },
    { METER_COL_I64, FALSE, "-9223372036854775809" },
    { METER_COL_DBL, TRUE, "-1.000000" }, { METER_COL_DBL, TRUE, "-0.5" }, { METER_COL_DBL, FALSE, "1e400" },
    { METER_COL_DBL, FALSE, "-1e400" }, { METER_COL_DBL, FALSE, "1000000000000000128.000001" },
    { METER_COL_DBL, FALSE, "-1e19" },
};

static gboolean bad_for(const meter_column_t *col, guint k)
{
    return bad_for_type[k].type == col->type && (!bad_for_type[k].required_only || !col->optional);
}

/* The value of column col of a tag record replaced with bad: a format
 * error naming the line, the column, the value and what is wanted, and no
 * record of that kind kept. */
static void assert_refused(const char *text, const char *tag, const meter_column_t *col, const char *bad)
{
    char *edited = edit_column(text, tag, col->name, bad);
    ms_capture_t *c = read_capture(edited);
    char *want = g_strdup_printf("' in column %s of a %s record (%s wanted)", col->name, tag,
                                 meter_record_wanted(col));

    char *shown = g_strescape(bad, NULL);
    g_test_message("%s column %s: '%s'", tag, col->name, shown);
    g_free(shown);
    g_assert_nonnull(c->format_error);
    g_assert_true(g_str_has_prefix(c->format_error, "line "));
    g_assert_nonnull(strstr(c->format_error, want));
    if (strcmp(tag, "T") == 0)
        g_assert_cmpuint(c->transfers->len, ==, 0);
    else if (strcmp(tag, "P") == 0)
        g_assert_cmpuint(only_transfer_any(c)->points->len, ==, 0);
    g_free(want);
    ms_capture_free(c);
    g_free(edited);
}

/* Every column of every record kind refuses what its type cannot hold:
 * letters after a number, spaces, NaN and infinities, hexadecimal, a
 * sign or a fraction on a count, a count beyond 32 bits, a negative
 * duration, 2 for a flag; a string that is not UTF-8 or holds a control
 * character. Never a value taken as far as it reads or clamped to fit. */
static void test_bad_value(void)
{
    const meter_record_schema_t *const schemas[] = { &meter_transfer_schema, &meter_progress_schema,
                                                     &meter_counts_schema };
    fx_t fx;
    records_t r;

    fx_init(&fx);
    char *text = distinct_capture(&fx, &r, 0, FALSE);
    for (guint s = 0; s < G_N_ELEMENTS(schemas); s++)
        for (guint i = 0; i < schemas[s]->n_columns; i++) {
            const meter_column_t *col = &schemas[s]->columns[i];
            if (col->type == METER_COL_STR) {
                assert_refused(text, schemas[s]->tag, col, "not \377 UTF-8");
                assert_refused(text, schemas[s]->tag, col, "a\001b");
                assert_refused(text, schemas[s]->tag, col, "a\rb");
                continue;
            }
            for (guint k = 0; k < G_N_ELEMENTS(bad_numbers); k++)
                assert_refused(text, schemas[s]->tag, col, bad_numbers[k]);
            for (guint k = 0; k < G_N_ELEMENTS(bad_for_type); k++)
                if (bad_for(col, k))
                    assert_refused(text, schemas[s]->tag, col, bad_for_type[k].text);
        }
    g_free(text);
    fx_done(&fx);
}

/* What each type holds at its edges reads back exactly: 0 and 2^32-1
 * counts, 64-bit times both ways, an optional number's "none" (-1), a
 * negative zero duration as 0, a rate of 1e18 (METER_RECORD_DBL_MAX). */
static void test_edge_values(void)
{
    static const struct { const char *column, *text; } edges[] = {
        { "blocks", "4294967295" }, { "bytes", "0" }, { "first_request_us", "-9223372036854775808" },
        { "last_activity_us", "9223372036854775807" }, { "size_hint", "-1" }, { "rtt_first_median_s", "-1.000000" },
        { "duration_s", "-0.000000" }, { "rate_Bps", "1000000000000000000.000000" },
    };
    fx_t fx;
    records_t r;

    fx_init(&fx);
    char *text = distinct_capture(&fx, &r, 0, FALSE);
    for (guint i = 0; i < G_N_ELEMENTS(edges); i++) {
        char *edited = edit_column(text, "T", edges[i].column, edges[i].text);
        ms_capture_t *c = read_capture(edited);
        const ms_transfer_t *t = only_transfer(c);
        GString *line = g_string_new(NULL);
        meter_record_write(line, &meter_transfer_schema, &t->rec);
        /* Written again as the plugin would: the same text, but -0 as 0. */
        char *want = g_strdup_printf("\t%s\t", strcmp(edges[i].text, "-0.000000") ? edges[i].text : "0.000000");
        g_test_message("%s: %s", edges[i].column, edges[i].text);
        g_assert_nonnull(strstr(line->str, want));
        g_free(want);
        g_string_free(line, TRUE);
        ms_capture_free(c);
        g_free(edited);
    }
    g_free(text);
    fx_done(&fx);
}

static char *report(void (*write)(FILE *, ms_analysis_t *, guint), ms_capture_t *c);

/* text with the line that starts with `start` (the first) moved, copied or
 * dropped: where = "dup" (twice in a row), "first" (before the first T
 * record, after the lines naming the columns) or "drop". */
static char *edit_line(const char *text, const char *start, const char *where)
{
    char **lines = g_strsplit(text, "\n", -1);
    GPtrArray *out = g_ptr_array_new();
    guint at = 0;

    while (lines[at] && !g_str_has_prefix(lines[at], start))
        at++;
    g_assert_nonnull(lines[at]);
    for (guint i = 0; lines[i]; i++) {
        if (i == at && strcmp(where, "first") == 0)
            continue;
        if (g_str_has_prefix(lines[i], "T\t") && strcmp(where, "first") == 0 && !g_ptr_array_find(out, lines[at], NULL))
            g_ptr_array_add(out, lines[at]);
        if (i == at && strcmp(where, "drop") == 0)
            continue;
        g_ptr_array_add(out, lines[i]);
        if (i == at && strcmp(where, "dup") == 0)
            g_ptr_array_add(out, lines[i]);
    }
    g_ptr_array_add(out, NULL);
    char *joined = g_strjoinv("\n", (char **)out->pdata);
    g_ptr_array_free(out, TRUE);
    g_strfreev(lines);
    return joined;
}

static void assert_format_error(const char *text, const char *want)
{
    ms_capture_t *c = read_capture(text);

    ms_capture_finish(c);
    g_test_message("want '%s', got '%s'", want, c->format_error);
    g_assert_nonnull(c->format_error);
    g_assert_nonnull(strstr(c->format_error, want));
    ms_capture_free(c);
}

/* Records in an order or number the plugin never prints: a transfer's T
 * record twice (its numbers would count twice), a P record before its
 * transfer's T record or with a kind no point has, the output cut before
 * its C record, only another version's header. Each a format error, and
 * nothing read after the first. */
static void test_bad_structure(void)
{
    fx_t fx;
    records_t r;

    fx_init(&fx);
    char *text = distinct_capture(&fx, &r, 0, FALSE);
    char *twice = edit_line(text, "T\t", "dup");
    char *want = g_strdup_printf("a second T record of transfer %u", r.x.transfer);
    assert_format_error(twice, want);
    g_free(want);
    ms_capture_t *c = read_capture(twice);
    g_assert_cmpuint(c->transfers->len, ==, 1);
    g_assert_false(c->counts_seen);            /* not read after the error */
    ms_capture_free(c);

    char *early = edit_line(text, "P\t", "first");
    want = g_strdup_printf("a P record of transfer %u, which no T record before it has", r.x.transfer);
    assert_format_error(early, want);
    g_free(want);

    char *kind = edit_column(text, "P", "kind", "lost");
    assert_format_error(kind, "bad value 'lost' in column kind of a P record");

    char *cut = edit_line(text, "C\t", "drop");
    assert_format_error(cut, "no C record after the transfers: the output was cut short");
    c = read_capture(cut);
    g_assert_null(c->format_error);            /* only once the output ended */
    ms_capture_free(c);

    GString *other = g_string_new(text);
    g_string_replace(other, "# " METER_RECORD_VERSION, "# meterscope-ota 3", 1);
    assert_format_error(other->str, "the plugin printed 'meterscope-ota 3' records, this analyser reads '"
                                    METER_RECORD_VERSION "'");
    g_string_free(other, TRUE);
    g_free(cut);
    g_free(kind);
    g_free(early);
    g_free(twice);
    g_free(text);
    fx_done(&fx);
}

/* A URI path holding a tab, a line break or another control character (a
 * hostile capture's Uri-Path option) still makes one record of one line:
 * the writer escapes them, the reader keeps the escapes, the JSON parses. */
static void test_control_characters_escaped(void)
{
    fx_t fx;
    records_t r;

    fx_init(&fx);
    fill(&fx, &meter_transfer_schema, &r.x, 0, 0, FALSE);
    r.x.path = "/fw/a\tb\nc\rd\001e\177f/\xc3\xa9";
    r.x.meter = "bad \xff utf-8";
    GString *out = g_string_new(NULL);
    meter_record_write_header(out);
    meter_record_write(out, &meter_transfer_schema, &r.x);
    g_string_append(out, "C\t1\n");
    ms_capture_t *c = read_capture(out->str);
    const ms_transfer_t *t = only_transfer(c);
    g_assert_cmpstr(t->rec.path, ==, "/fw/a\\tb\\nc\\rd\\001e\\177f/\xc3\xa9");
    g_assert_cmpstr(t->rec.meter, ==, "bad \xef\xbf\xbd utf-8");
    char *json = report(ms_report_json, c);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, json, -1, NULL));
    g_object_unref(parser);
    g_free(json);
    ms_capture_free(c);
    g_string_free(out, TRUE);
    fx_done(&fx);
}

/* A column this reader does not know (a newer plugin's) is skipped: one
 * first, so that every known column moves. */
static void test_unknown_column_ignored(void)
{
    fx_t fx;
    records_t r;

    fx_init(&fx);
    char *text = distinct_capture(&fx, &r, 1, FALSE);
    char **lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        const char *extra = g_str_has_prefix(lines[i], "#T\t") ? "future_column"
                            : g_str_has_prefix(lines[i], "T\t") ? "9999" : NULL;
        if (!extra)
            continue;
        char *rest = strchr(lines[i], '\t');
        char *line = g_strdup_printf("%.*s\t%s%s", (int)(rest - lines[i]), lines[i], extra, rest);
        g_free(lines[i]);
        lines[i] = line;
    }
    char *wider = g_strjoinv("\n", lines);
    ms_capture_t *c = read_capture(wider);
    assert_same_record(&meter_transfer_schema, &r.x, &only_transfer(c)->rec);
    ms_capture_free(c);
    g_free(wider);
    g_strfreev(lines);
    g_free(text);
    fx_done(&fx);
}

/* Before the header (other taps, warnings, another version's records)
 * nothing counts. */
static void test_lines_before_header_ignored(void)
{
    fx_t fx;
    records_t r;

    fx_init(&fx);
    char *text = distinct_capture(&fx, &r, 0, FALSE);
    const char *records = strstr(text, "#T\t");
    char *early = g_strdup_printf("# meterscope-ota 1\n%sT\tgarbage\n%s", records, text);
    ms_capture_t *c = read_capture(early);
    only_transfer(c);
    ms_capture_free(c);

    /* No header at all: nothing read, and no error (the caller reports it). */
    c = read_capture(records);
    g_assert_false(c->header_seen);
    g_assert_null(c->format_error);
    g_assert_cmpuint(c->transfers->len, ==, 0);
    g_assert_false(c->counts_seen);
    ms_capture_free(c);
    g_free(early);
    g_free(text);
    fx_done(&fx);
}

/* ---- the analyser's CSV and JSON: every column, "none" as empty / null ---- */

static char *report(void (*write)(FILE *, ms_analysis_t *, guint), ms_capture_t *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ms_analysis_t a = { .capture = c };

    write(out, &a, 1);
    fclose(out);
    return buf;
}

static void test_reports_every_column(void)
{
    for (guint none = 0; none <= 1; none++) {
        fx_t fx;
        records_t r;
        fx_init(&fx);
        char *text = distinct_capture(&fx, &r, 0, none);
        ms_capture_t *c = read_capture(text);
        only_transfer(c);

        /* CSV: "capture", the columns in table order, the six shares, then the advice's. */
        char *csv = report(ms_report_csv, c);
        char **rows = g_strsplit(csv, "\n", -1);
        char **head = g_strsplit(rows[0], ",", -1), **cells = g_strsplit(rows[1], ",", -1);
        g_assert_cmpuint(g_strv_length(head), ==, 1 + meter_transfer_schema.n_columns + 6 + ms_report_csv_advice_n);
        g_assert_cmpuint(g_strv_length(cells), ==, g_strv_length(head));
        for (guint i = 0; i < meter_transfer_schema.n_columns; i++) {
            const meter_column_t *col = &meter_transfer_schema.columns[i];
            g_assert_cmpstr(head[i + 1], ==, col->name);
            if (none && col->optional)
                g_assert_cmpstr(cells[i + 1], ==, "");
            else
                g_assert_cmpstr(cells[i + 1], !=, "");
        }

        /* JSON: a member per column, in table order; null for "none". */
        char *json = report(ms_report_json, c);
        JsonParser *parser = json_parser_new();
        g_assert_true(json_parser_load_from_data(parser, json, -1, NULL));
        JsonObject *root = json_node_get_object(json_parser_get_root(parser));
        JsonObject *cap = json_array_get_object_element(json_object_get_array_member(root, "captures"), 0);
        JsonObject *t = json_array_get_object_element(json_object_get_array_member(cap, "transfers"), 0);
        GList *members = json_object_get_members(t), *m = members;
        for (guint i = 0; i < meter_transfer_schema.n_columns; i++, m = m->next) {
            const meter_column_t *col = &meter_transfer_schema.columns[i];
            g_assert_nonnull(m);
            g_assert_cmpstr(m->data, ==, col->name);
            g_assert_cmpint(json_object_get_null_member(t, col->name), ==, none && col->optional);
        }
        g_list_free(members);
        g_object_unref(parser);
        g_free(json);
        g_strfreev(cells);
        g_strfreev(head);
        g_strfreev(rows);
        g_free(csv);
        ms_capture_free(c);
        g_free(text);
        fx_done(&fx);
    }
}

/* Numbers json-glib would write as "1e+17.0" (a round 1e17, 1e18, a tiny
 * 1e-300): the JSON report still parses, each the number it was. */
static void test_json_round_numbers(void)
{
    static const struct { const char *column, *text; double want; } cases[] = {
        { "duration_s", "100000000000000000.000000", 1e17 }, { "rate_Bps", "1000000000000000000.000000", 1e18 },
        { "time_air_s", "1e-300", 1e-300 }, { "rtt_first_median_s", "200000000000000000.000000", 2e17 },
    };
    fx_t fx;
    records_t r;

    fx_init(&fx);
    char *text = distinct_capture(&fx, &r, 0, FALSE);
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *edited = edit_column(text, "T", cases[i].column, cases[i].text);
        ms_capture_t *c = read_capture(edited);
        only_transfer(c);
        char *json = report(ms_report_json, c);
        JsonParser *parser = json_parser_new();
        GError *err = NULL;
        g_test_message("%s = %s", cases[i].column, cases[i].text);
        g_assert_true(json_parser_load_from_data(parser, json, -1, &err));
        JsonObject *root = json_node_get_object(json_parser_get_root(parser));
        JsonObject *cap = json_array_get_object_element(json_object_get_array_member(root, "captures"), 0);
        JsonObject *t = json_array_get_object_element(json_object_get_array_member(cap, "transfers"), 0);
        double got = json_object_get_double_member(t, cases[i].column);
        g_assert_cmpfloat(fabs(got - cases[i].want), <=, fabs(cases[i].want) * 1e-15);
        g_object_unref(parser);
        g_free(json);
        ms_capture_free(c);
        g_free(edited);
    }
    g_free(text);
    fx_done(&fx);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/transfer/round_trip", test_round_trip);
    g_test_add_func("/transfer/missing_column", test_missing_column);
    g_test_add_func("/transfer/bad_value", test_bad_value);
    g_test_add_func("/transfer/edge_values", test_edge_values);
    g_test_add_func("/transfer/bad_structure", test_bad_structure);
    g_test_add_func("/transfer/control_characters_escaped", test_control_characters_escaped);
    g_test_add_func("/transfer/unknown_column_ignored", test_unknown_column_ignored);
    g_test_add_func("/transfer/lines_before_header_ignored", test_lines_before_header_ignored);
    g_test_add_func("/transfer/reports_every_column", test_reports_every_column);
    g_test_add_func("/transfer/json_round_numbers", test_json_round_numbers);
    return g_test_run();
}
