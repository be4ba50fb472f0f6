/* transfer.c: reads the "meterscope-ota 2" records (common/transfer_record.h).
 * Columns are looked up by the names the #T/#P/#C lines give, so a newer
 * plugin that adds columns still reads; a missing T or P column this reader
 * needs is a format error.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <gio/gio.h>
#include "transfer.h"

ms_capture_t *ms_capture_new(const char *file)
{
    ms_capture_t *c = g_new0(ms_capture_t, 1);

    c->file = g_strdup(file);
    c->transfers = g_ptr_array_new();
    return c;
}

static void transfer_free(ms_transfer_t *x)
{
    meter_record_clear(&meter_transfer_schema, &x->rec);
    g_array_free(x->points, TRUE);
    g_free(x);
}

void ms_capture_free(ms_capture_t *c)
{
    if (!c)
        return;
    for (guint i = 0; i < c->transfers->len; i++)
        transfer_free(g_ptr_array_index(c->transfers, i));
    g_ptr_array_free(c->transfers, TRUE);
    if (c->names_t)
        g_ptr_array_free(c->names_t, TRUE);
    if (c->names_p)
        g_ptr_array_free(c->names_p, TRUE);
    if (c->names_c)
        g_ptr_array_free(c->names_c, TRUE);
    meter_record_clear(&meter_counts_schema, &c->counts);
    g_free(c->format_error);
    g_free(c->file);
    g_free(c);
}

static void format_error(ms_capture_t *c, const char *fmt, const char *what)
{
    if (!c->format_error)
        c->format_error = g_strdup_printf(fmt, what);
}

static GPtrArray *split_names(const char *line)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    char **cells = g_strsplit(line, "\t", -1);

    for (guint i = 1; cells[i]; i++)     /* cells[0] is "#T" */
        g_ptr_array_add(names, g_strdup(cells[i]));
    g_strfreev(cells);
    return names;
}

static const char *cell(GPtrArray *names, char **cells, guint n_cells, const char *name)
{
    for (guint i = 0; names && i < names->len && i + 1 < n_cells; i++)
        if (strcmp(g_ptr_array_index(names, i), name) == 0)
            return cells[i + 1];
    return NULL;
}

static void read_transfer(ms_capture_t *c, char **cells, guint n)
{
    ms_transfer_t *x = g_new0(ms_transfer_t, 1);
    const meter_record_schema_t *s = &meter_transfer_schema;

    x->points = g_array_new(FALSE, FALSE, sizeof(ms_point_t));
    for (guint i = 0; i < s->n_columns; i++) {
        const meter_column_t *col = &s->columns[i];
        const char *text = cell(c->names_t, cells, n, col->name);
        if (!text || !meter_record_parse(col, text, &x->rec)) {
            format_error(c, text ? "bad value in column %s" : "column %s missing", col->name);
            transfer_free(x);
            return;
        }
    }
    g_ptr_array_add(c->transfers, x);
}

static ms_transfer_t *find_transfer(ms_capture_t *c, guint32 id)
{
    /* Points follow their transfer's T record. */
    for (guint i = c->transfers->len; i > 0; i--) {
        ms_transfer_t *x = g_ptr_array_index(c->transfers, i - 1);
        if (x->rec.transfer == id)
            return x;
    }
    return NULL;
}

/* P and C values are taken as far as they read, as they always were. */
static void read_point(ms_capture_t *c, char **cells, guint n)
{
    const meter_record_schema_t *s = &meter_progress_schema;
    meter_progress_record_t p = { 0 };
    ms_transfer_t *x;

    for (guint i = 0; i < s->n_columns; i++) {
        const char *text = cell(c->names_p, cells, n, s->columns[i].name);
        if (!text) {
            format_error(c, "%s", "progress record with missing columns");
            meter_record_clear(s, &p);
            return;
        }
        meter_record_parse(&s->columns[i], text, &p);
    }
    x = find_transfer(c, p.transfer);
    if (x) {
        ms_point_t pt = { p.ts_us, p.bytes,
                          strcmp(p.kind, "block") == 0 ? PT_BLOCK
                          : strcmp(p.kind, "rerequest") == 0 ? PT_REREQUEST : PT_RETRANSMISSION };
        g_array_append_val(x->points, pt);
    }
    meter_record_clear(s, &p);
}

/* A column an older plugin did not print stays 0 ("unknown" stamps). */
static void read_counts(ms_capture_t *c, char **cells, guint n)
{
    const meter_record_schema_t *s = &meter_counts_schema;

    meter_record_clear(s, &c->counts);
    for (guint i = 0; i < s->n_columns; i++) {
        const char *text = cell(c->names_c, cells, n, s->columns[i].name);
        if (text)
            meter_record_parse(&s->columns[i], text, &c->counts);
    }
    if (!c->counts.timestamps)
        c->counts.timestamps = g_strdup("unknown");
    c->counts_seen = TRUE;
}

void ms_capture_feed(ms_capture_t *c, const char *line)
{
    if (!c->header_seen) {
        c->header_seen = strcmp(line, "# " METER_RECORD_VERSION) == 0;
        return;
    }
    char **cells = g_strsplit(line, "\t", -1);
    guint n = g_strv_length(cells);

    if (n == 0) {
        g_strfreev(cells);
        return;
    }
    if (strcmp(cells[0], "#T") == 0) {
        if (c->names_t)
            g_ptr_array_free(c->names_t, TRUE);
        c->names_t = split_names(line);
    } else if (strcmp(cells[0], "#P") == 0) {
        if (c->names_p)
            g_ptr_array_free(c->names_p, TRUE);
        c->names_p = split_names(line);
    } else if (strcmp(cells[0], "#C") == 0) {
        if (c->names_c)
            g_ptr_array_free(c->names_c, TRUE);
        c->names_c = split_names(line);
    } else if (strcmp(cells[0], "T") == 0) {
        read_transfer(c, cells, n);
    } else if (strcmp(cells[0], "P") == 0) {
        read_point(c, cells, n);
    } else if (strcmp(cells[0], "C") == 0) {
        read_counts(c, cells, n);
    }
    g_strfreev(cells);
}

static gboolean same_address(const char *a, const char *b)
{
    GInetAddress *x = g_inet_address_new_from_string(a), *y = g_inet_address_new_from_string(b);
    gboolean same = x && y ? g_inet_address_equal(x, y) : g_ascii_strcasecmp(a, b) == 0;

    g_clear_object(&x);
    g_clear_object(&y);
    return same;
}

void ms_capture_keep_meter(ms_capture_t *c, const char *meter)
{
    for (guint i = c->transfers->len; i > 0; i--) {
        ms_transfer_t *x = g_ptr_array_index(c->transfers, i - 1);
        if (!same_address(x->rec.meter, meter)) {
            transfer_free(x);
            g_ptr_array_remove_index(c->transfers, i - 1);
        }
    }
}
