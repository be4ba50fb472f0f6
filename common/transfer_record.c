/* transfer_record.c: the records of transfer_record.h as text, both ways:
 * the plugin's writer and the cell parser of the analyser's reader, over
 * the column tables, so the two cannot disagree on a column. glib only:
 * compiled into the plugin's core and into the analyser.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
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
        g_string_append(out, *(const char *const *)at ? *(const char *const *)at : "");
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

gboolean meter_record_parse(const meter_column_t *col, const char *text, void *record)
{
    char *end = NULL;
    void *at = (char *)record + col->offset;

    switch (col->type) {
    case METER_COL_STR:
        g_free((char *)*(const char **)at);
        *(const char **)at = g_strdup(text);
        return TRUE;
    case METER_COL_U32: {
        guint64 v = g_ascii_strtoull(text, &end, 10);
        *(guint32 *)at = (guint32)MIN(v, G_MAXUINT32);
        break;
    }
    case METER_COL_BOOL:
        *(gboolean *)at = g_ascii_strtoll(text, &end, 10) != 0;
        break;
    case METER_COL_I64:
        *(gint64 *)at = g_ascii_strtoll(text, &end, 10);
        break;
    case METER_COL_DBL:
        *(double *)at = g_ascii_strtod(text, &end);
        break;
    }
    return end && end != text && *end == '\0';
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
