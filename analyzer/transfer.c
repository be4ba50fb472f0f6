/* transfer.c: reads the "meterscope-ota 2" records (common/transfer_record.h).
 * Columns are looked up by the names the #T/#P/#C lines give, so a newer
 * plugin that adds columns still reads; a missing T or P column this reader
 * needs is a format error.
 *
 * Every value is read whole and must fit its column's type
 * (meter_record_parse): a record that does not is a format error naming
 * the line, the column and the value, never a number taken as far as it
 * reads. The capture is then refused (the runner says the plugin's output
 * was unexpected): a record with one bad value is no record to trust the
 * others of.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <gio/gio.h>
#include "quoted.h"
#include "transfer.h"

ms_capture_t *ms_capture_new(const char *file)
{
    ms_capture_t *c = g_new0(ms_capture_t, 1);

    c->file = g_strdup(file);
    c->transfers = g_ptr_array_new();
    c->by_number = g_hash_table_new(g_direct_hash, g_direct_equal);
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
    g_hash_table_destroy(c->by_number);
    g_free(c->cell_t);
    g_free(c->cell_p);
    g_free(c->cell_c);
    meter_record_clear(&meter_counts_schema, &c->counts);
    g_free(c->other_version);
    g_free(c->format_error);
    g_free(c->file);
    g_free(c);
}

static void format_error(ms_capture_t *c, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void format_error(ms_capture_t *c, const char *fmt, ...)
{
    va_list ap;

    if (c->format_error)
        return;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    c->format_error = g_strdup_printf("line %u: %s", c->line, what);
    g_free(what);
}

static void bad_value(ms_capture_t *c, const meter_record_schema_t *s, const meter_column_t *col, const char *text)
{
    char *quoted = ms_quoted(text);

    format_error(c, "bad value '%s' in column %s of a %s record (%s wanted)", quoted, col->name, s->tag,
                 meter_record_wanted(col));
    g_free(quoted);
}

/* Where each of the schema's columns is in the records a "#T" line names:
 * the first cell of its name (cells[0] is the tag), -1 when none. */
static gint *cell_positions(const meter_record_schema_t *s, char **cells)
{
    gint *at = g_new(gint, s->n_columns);
    GHashTable *first = g_hash_table_new(g_str_hash, g_str_equal);

    for (guint k = 1; cells[k]; k++)
        if (!g_hash_table_contains(first, cells[k]))
            g_hash_table_insert(first, cells[k], GUINT_TO_POINTER(k));
    for (guint i = 0; i < s->n_columns; i++) {
        gpointer k;
        at[i] = g_hash_table_lookup_extended(first, s->columns[i].name, NULL, &k) ? (gint)GPOINTER_TO_UINT(k) : -1;
    }
    g_hash_table_destroy(first);
    return at;
}

static const char *cell(const gint *positions, guint column, char **cells, guint n_cells)
{
    gint at = positions ? positions[column] : -1;
    return at >= 0 && (guint)at < n_cells ? cells[at] : NULL;
}

/* Every column of the schema into record; FALSE (a format error set) when
 * one is missing (unless missing_ok) or does not read. */
static gboolean read_record(ms_capture_t *c, const meter_record_schema_t *s, const gint *positions, char **cells,
                            guint n, gboolean missing_ok, void *record)
{
    for (guint i = 0; i < s->n_columns; i++) {
        const meter_column_t *col = &s->columns[i];
        const char *text = cell(positions, i, cells, n);
        if (!text && missing_ok)
            continue;
        if (!text) {
            format_error(c, "column %s missing from a %s record", col->name, s->tag);
            return FALSE;
        }
        if (!meter_record_parse(col, text, record)) {
            bad_value(c, s, col, text);
            return FALSE;
        }
    }
    return TRUE;
}

static void read_transfer(ms_capture_t *c, char **cells, guint n)
{
    ms_transfer_t *x = g_new0(ms_transfer_t, 1);

    x->points = g_array_new(FALSE, FALSE, sizeof(ms_point_t));
    if (!read_record(c, &meter_transfer_schema, c->cell_t, cells, n, FALSE, &x->rec)) {
        transfer_free(x);
        return;
    }
    /* The plugin prints each transfer once: a second one could only be
     * counted twice. */
    if (g_hash_table_contains(c->by_number, GUINT_TO_POINTER(x->rec.transfer))) {
        format_error(c, "a second T record of transfer %u", x->rec.transfer);
        transfer_free(x);
        return;
    }
    g_hash_table_insert(c->by_number, GUINT_TO_POINTER(x->rec.transfer), x);
    g_ptr_array_add(c->transfers, x);
}

static void read_point(ms_capture_t *c, char **cells, guint n)
{
    static const struct { const char *name; ms_point_kind_t kind; } kinds[] = {
        { "block", PT_BLOCK }, { "retransmission", PT_RETRANSMISSION }, { "rerequest", PT_REREQUEST },
    };
    const meter_record_schema_t *s = &meter_progress_schema;
    meter_progress_record_t p = { 0 };

    if (read_record(c, s, c->cell_p, cells, n, FALSE, &p)) {
        /* Points follow their transfer's T record. */
        ms_transfer_t *x = g_hash_table_lookup(c->by_number, GUINT_TO_POINTER(p.transfer));
        guint k = 0;
        while (k < G_N_ELEMENTS(kinds) && strcmp(p.kind, kinds[k].name) != 0)
            k++;
        if (!x) {
            format_error(c, "a P record of transfer %u, which no T record before it has", p.transfer);
        } else if (k == G_N_ELEMENTS(kinds)) {
            char *quoted = ms_quoted(p.kind);
            format_error(c, "bad value '%s' in column kind of a P record (block, retransmission or rerequest "
                         "wanted)", quoted);
            g_free(quoted);
        } else {
            ms_point_t pt = { p.ts_us, p.bytes, kinds[k].kind };
            g_array_append_val(x->points, pt);
        }
    }
    meter_record_clear(s, &p);
}

/* A column an older plugin did not print stays 0 ("unknown" stamps). */
static void read_counts(ms_capture_t *c, char **cells, guint n)
{
    const meter_record_schema_t *s = &meter_counts_schema;

    meter_record_clear(s, &c->counts);
    read_record(c, s, c->cell_c, cells, n, TRUE, &c->counts);
    if (!c->counts.timestamps)
        c->counts.timestamps = g_strdup("unknown");
    c->counts_seen = TRUE;
}

void ms_capture_feed(ms_capture_t *c, const char *line)
{
    c->line++;
    if (c->format_error)
        return;
    if (!c->header_seen) {
        c->header_seen = strcmp(line, "# " METER_RECORD_VERSION) == 0;
        if (!c->header_seen && !c->other_version && g_str_has_prefix(line, "# meterscope-ota "))
            c->other_version = ms_quoted(line + 2);
        return;
    }
    /* g_strsplit_set: one pass (g_strsplit's strstr per cell goes over the
     * rest of the line each time under ASan's interceptor). */
    char **cells = g_strsplit_set(line, "\t", -1);
    guint n = g_strv_length(cells);

    if (n == 0) {
        g_strfreev(cells);
        return;
    }
    if (strcmp(cells[0], "#T") == 0) {
        g_free(c->cell_t);
        c->cell_t = cell_positions(&meter_transfer_schema, cells);
    } else if (strcmp(cells[0], "#P") == 0) {
        g_free(c->cell_p);
        c->cell_p = cell_positions(&meter_progress_schema, cells);
    } else if (strcmp(cells[0], "#C") == 0) {
        g_free(c->cell_c);
        c->cell_c = cell_positions(&meter_counts_schema, cells);
    } else if (strcmp(cells[0], "T") == 0) {
        read_transfer(c, cells, n);
    } else if (strcmp(cells[0], "P") == 0) {
        read_point(c, cells, n);
    } else if (strcmp(cells[0], "C") == 0) {
        read_counts(c, cells, n);
    }
    g_strfreev(cells);
}

void ms_capture_feed_text(ms_capture_t *c, const char *text, gsize len)
{
    const char *end = text + len;

    while (text < end) {
        const char *nl = memchr(text, '\n', (gsize)(end - text));
        const char *stop = nl ? nl : end;
        char *line = g_strndup(text, (gsize)(stop - text));
        ms_capture_feed(c, line);
        g_free(line);
        text = nl ? nl + 1 : end;
    }
}

void ms_capture_finish(ms_capture_t *c)
{
    if (c->format_error)
        return;
    if (c->header_seen && !c->counts_seen)
        c->format_error = g_strdup("no C record after the transfers: the output was cut short");
    else if (!c->header_seen && c->other_version)
        c->format_error = g_strdup_printf("the plugin printed '%s' records, this analyser reads '"
                                          METER_RECORD_VERSION "': run the plugin and the analyser of the "
                                          "same build", c->other_version);
    else if (!c->header_seen)
        c->format_error = g_strdup("no '# " METER_RECORD_VERSION "' line: not the meterscope plugin's records");
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
            g_hash_table_remove(c->by_number, GUINT_TO_POINTER(x->rec.transfer));
            transfer_free(x);
            g_ptr_array_remove_index(c->transfers, i - 1);
        }
    }
}
