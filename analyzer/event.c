/* event.c: an E record's cells by the names its "#E" line gave, each
 * value read whole (meter_record_parse), as transfer.c reads the TSV.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "quoted.h"
#include "event.h"

void ms_event_reader_clear(ms_event_reader_t *r)
{
    g_free(r->other_version);
    g_free(r->cell);
    g_free(r->format_error);
    memset(r, 0, sizeof(*r));
}

static void bad(ms_event_reader_t *r, const char *fmt, const char *what)
{
    if (!r->format_error)
        r->format_error = g_strdup_printf(fmt, r->line, what);
}

static void name_columns(ms_event_reader_t *r, char **cells)
{
    const meter_record_schema_t *s = &meter_event_schema;

    g_free(r->cell);
    r->cell = g_new(gint, s->n_columns);
    for (guint i = 0; i < s->n_columns; i++) {
        r->cell[i] = -1;
        for (guint k = 1; cells[k]; k++)
            if (strcmp(cells[k], s->columns[i].name) == 0) {
                r->cell[i] = (gint)k;
                break;
            }
        if (r->cell[i] < 0)
            bad(r, "events line %u: the #E line has no column %s", s->columns[i].name);
    }
}

gboolean ms_event_feed(ms_event_reader_t *r, const char *line, meter_event_record_t *e)
{
    const meter_record_schema_t *s = &meter_event_schema;

    r->line++;
    if (g_str_has_prefix(line, "# meterscope-events ")) {
        if (strcmp(line + 2, METER_EVENT_VERSION) == 0)
            r->header_seen = TRUE;
        else if (!r->header_seen && !r->other_version)
            r->other_version = g_strdup(line + 2);
        return FALSE;
    }
    if (!r->header_seen || r->format_error || !(line[0] == 'E' || (line[0] == '#' && line[1] == 'E')) ||
        (line[0] == 'E' && line[1] != '\t') || (line[0] == '#' && line[2] != '\t'))
        return FALSE;
    char **cells = g_strsplit(line, "\t", -1);
    gboolean got = FALSE;
    if (line[0] == '#') {
        name_columns(r, cells);
    } else if (!r->cell) {
        bad(r, "events line %u: an E record before the #E line%s", "");
    } else {
        guint n = g_strv_length(cells);
        memset(e, 0, sizeof(*e));
        got = TRUE;
        for (guint i = 0; i < s->n_columns && got; i++) {
            const meter_column_t *col = &s->columns[i];
            if ((guint)r->cell[i] >= n || !meter_record_parse(col, cells[r->cell[i]], e)) {
                char *quoted = ms_quoted((guint)r->cell[i] < n ? cells[r->cell[i]] : "");
                char *what = g_strdup_printf("bad value '%s' in column %s of an E record (%s wanted)", quoted,
                                             col->name, meter_record_wanted(col));
                bad(r, "events line %u: %s", what);
                g_free(what);
                g_free(quoted);
                meter_record_clear(s, e);
                got = FALSE;
            }
        }
    }
    g_strfreev(cells);
    return got;
}
