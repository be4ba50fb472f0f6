/* transfer_record.c: the records of transfer_record.h as text, both ways:
 * the plugin's writer and the cell parser of the analyser's reader, over
 * the column tables, so the two cannot disagree on a column. glib only:
 * compiled into the plugin's core and into the analyser.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "escaped_text.h"
#include "transfer_record.h"

#define METER_COL_REQ FALSE
#define METER_COL_OPT TRUE
#define COLUMN(record_t, name, type, optional, meaning) \
    { #name, METER_COL_##type, G_STRUCT_OFFSET(record_t, name), METER_COL_##optional, meaning },

#define TRANSFER_COLUMN(...) COLUMN(meter_transfer_record_t, __VA_ARGS__)
#define PROGRESS_COLUMN(...) COLUMN(meter_progress_record_t, __VA_ARGS__)
#define COUNTS_COLUMN(...) COLUMN(meter_counts_record_t, __VA_ARGS__)
static const meter_column_t transfer_columns[] = { METER_TRANSFER_COLUMNS(TRANSFER_COLUMN) };
static const meter_column_t progress_columns[] = { METER_PROGRESS_COLUMNS(PROGRESS_COLUMN) };
static const meter_column_t counts_columns[] = { METER_COUNTS_COLUMNS(COUNTS_COLUMN) };

#define SPLIT_PART(name, label) { #name, label, G_STRUCT_OFFSET(meter_transfer_record_t, name) }
const meter_split_part_t meter_split_parts[METER_SPLIT_PARTS] = {
    SPLIT_PART(time_air_s, "air"), SPLIT_PART(time_timeouts_s, "timeouts"), SPLIT_PART(time_network_s, "network"),
    SPLIT_PART(time_turnaround_s, "turn-around"), SPLIT_PART(time_poll_s, "sleepy poll"),
    SPLIT_PART(time_unseen_s, "not visible"),
};

const meter_record_schema_t meter_transfer_schema = { "T", transfer_columns, G_N_ELEMENTS(transfer_columns),
                                                      sizeof(meter_transfer_record_t) };
const meter_record_schema_t meter_progress_schema = { "P", progress_columns, G_N_ELEMENTS(progress_columns),
                                                      sizeof(meter_progress_record_t) };
const meter_record_schema_t meter_counts_schema = { "C", counts_columns, G_N_ELEMENTS(counts_columns),
                                                    sizeof(meter_counts_record_t) };

static void write_names(GString *out, const meter_record_schema_t *s)
{
    g_string_append_printf(out, "#%s", s->tag);
    for (guint i = 0; i < s->n_columns; i++)
        g_string_append_printf(out, "\t%s", s->columns[i].name);
    g_string_append_c(out, '\n');
}

void meter_record_write_header(GString *out)
{
    g_string_append(out, "# " METER_RECORD_VERSION "\n");
    write_names(out, &meter_transfer_schema);
    write_names(out, &meter_progress_schema);
    write_names(out, &meter_counts_schema);
}

/* Numbers as the C locale writes them, whatever locale tshark runs in:
 * the reader parses them with g_ascii_strto*. */
static void write_value(GString *out, const meter_column_t *col, const void *record)
{
    const void *at = (const char *)record + col->offset;
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    switch (col->type) {
    case METER_COL_U32:
        g_string_append_printf(out, "%u", *(const guint32 *)at);
        break;
    case METER_COL_I64:
        g_string_append_printf(out, "%" G_GINT64_FORMAT, *(const gint64 *)at);
        break;
    case METER_COL_DBL:
        g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.6f", *(const double *)at));
        break;
    case METER_COL_STR:
        /* One cell of one line, whatever a capture's URI path holds. */
        escaped_text_append(out, *(const char *const *)at ? *(const char *const *)at : "", G_MAXLONG);
        break;
    case METER_COL_BOOL:
        g_string_append_c(out, *(const gboolean *)at ? '1' : '0');
        break;
    }
}

void meter_record_write(GString *out, const meter_record_schema_t *s, const void *record)
{
    g_string_append(out, s->tag);
    for (guint i = 0; i < s->n_columns; i++) {
        g_string_append_c(out, '\t');
        write_value(out, &s->columns[i], record);
    }
    g_string_append_c(out, '\n');
}

static gboolean plain_text(const char *text)
{
    if (!g_utf8_validate(text, -1, NULL))
        return FALSE;
    for (const char *p = text; *p; p++)
        if ((guchar)*p < 0x20 || *p == 0x7f)
            return FALSE;
    return TRUE;
}

gboolean meter_record_parse(const meter_column_t *col, const char *text, void *record)
{
    void *at = (char *)record + col->offset;
    guint64 u;
    gint64 i;

    switch (col->type) {
    case METER_COL_STR:
        if (!plain_text(text))
            return FALSE;
        g_free((char *)*(const char **)at);
        *(const char **)at = g_strdup(text);
        return TRUE;
    case METER_COL_U32:
        if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32, &u, NULL))
            return FALSE;
        *(guint32 *)at = (guint32)u;
        return TRUE;
    case METER_COL_BOOL:
        if (!g_ascii_string_to_unsigned(text, 10, 0, 1, &u, NULL))
            return FALSE;
        *(gboolean *)at = u != 0;
        return TRUE;
    case METER_COL_I64:
        if (!g_ascii_string_to_signed(text, 10, G_MININT64, G_MAXINT64, &i, NULL))
            return FALSE;
        *(gint64 *)at = i;
        return TRUE;
    case METER_COL_DBL: {
        /* Digits, a point, a sign, an exponent: g_ascii_strtod alone would
         * read "nan", "inf", hexadecimal and leading spaces too. */
        char *end = NULL;
        double v = g_ascii_strtod(text, &end);
        if (end == text || *end != '\0' || strspn(text, "0123456789.+-eE") != strlen(text) || !isfinite(v) ||
            fabs(v) > METER_RECORD_DBL_MAX || (!col->optional && v < 0))
            return FALSE;
        *(double *)at = v + 0.0;     /* -0 as 0: never a "-0.000000" duration */
        return TRUE;
    }
    }
    return FALSE;
}

const char *meter_record_wanted(const meter_column_t *col)
{
    switch (col->type) {
    case METER_COL_STR:
        return "UTF-8 text without control characters";
    case METER_COL_U32:
        return "a whole number from 0 to 4294967295";
    case METER_COL_BOOL:
        return "0 or 1";
    case METER_COL_I64:
        return "a whole number within 64 bits";
    case METER_COL_DBL:
        return col->optional ? "a number from -1e18 to 1e18, negative for none" : "a number from 0 to 1e18";
    }
    return "a value";
}

gboolean meter_record_column_equal(const meter_column_t *col, const void *a, const void *b)
{
    const void *va = (const char *)a + col->offset, *vb = (const char *)b + col->offset;

    switch (col->type) {
    case METER_COL_STR:
        return g_strcmp0(*(const char *const *)va, *(const char *const *)vb) == 0;
    case METER_COL_U32:
        return *(const guint32 *)va == *(const guint32 *)vb;
    case METER_COL_BOOL:
        return *(const gboolean *)va == *(const gboolean *)vb;
    case METER_COL_I64:
        return *(const gint64 *)va == *(const gint64 *)vb;
    case METER_COL_DBL:
        return *(const double *)va == *(const double *)vb;
    }
    return FALSE;
}

void meter_record_clear(const meter_record_schema_t *s, void *record)
{
    for (guint i = 0; i < s->n_columns; i++)
        if (s->columns[i].type == METER_COL_STR)
            g_free((char *)*(const char **)((char *)record + s->columns[i].offset));
    memset(record, 0, s->record_size);
}
