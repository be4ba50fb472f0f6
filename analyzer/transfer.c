/* transfer.c: reads the "meterscope-ota 2" records. Columns are looked up
 * by the names the #T/#P lines give, so a newer plugin that adds columns
 * still reads; a missing column this reader needs is a format error.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <gio/gio.h>
#include "transfer.h"

#define OTA_HEADER "# meterscope-ota 2"

#define C(name, type) { #name, type, G_STRUCT_OFFSET(ms_transfer_t, name), FALSE }
#define OPT(name, type) { #name, type, G_STRUCT_OFFSET(ms_transfer_t, name), TRUE }
static const ms_column_t columns[] = {
    C(transfer, COL_U32), C(meter, COL_STR), C(gateway, COL_STR), C(path, COL_STR), C(kind, COL_STR),
    C(szx_first, COL_U32), C(szx, COL_U32), C(block_size, COL_U32), C(renegotiated, COL_BOOL),
    C(blocks, COL_U32), C(bytes, COL_U32), C(complete, COL_BOOL), C(verified, COL_BOOL),
    C(first_request_us, COL_I64), OPT(last_response_us, COL_I64), C(last_activity_us, COL_I64),
    C(duration_s, COL_DBL), C(rate_Bps, COL_DBL), C(requests, COL_U32), C(retransmissions, COL_U32),
    C(spurious_retransmissions, COL_U32),
    C(rerequests, COL_U32), C(duplicate_responses, COL_U32), C(error_responses, COL_U32),
    C(mac_retries, COL_U32), C(datagrams_fragmented, COL_U32), C(datagrams_incomplete, COL_U32),
    C(fragments_lost, COL_U32), OPT(rtt_first_median_s, COL_DBL), OPT(rtt_first_p95_s, COL_DBL),
    OPT(rtt_last_median_s, COL_DBL), OPT(rtt_last_p95_s, COL_DBL), OPT(turnaround_median_s, COL_DBL),
    OPT(turnaround_p95_s, COL_DBL), C(first_frame, COL_U32), C(last_frame, COL_U32),
    C(time_air_s, COL_DBL), C(time_timeouts_s, COL_DBL), C(time_network_s, COL_DBL),
    C(time_turnaround_s, COL_DBL), C(stalls, COL_U32), C(stalled_s, COL_DBL), C(datagram_copies, COL_U32),
    C(frames_sent, COL_U32), C(frames_unacked, COL_U32), C(acks_visible, COL_BOOL),
    OPT(size_hint, COL_I64), C(request_copies, COL_U32), C(request_copies_lost, COL_U32),
    C(request_frames_complete, COL_U32), C(response_copies, COL_U32), C(response_copies_lost, COL_U32),
    C(response_frames_complete, COL_U32), C(response_bytes_complete, COL_U32),
    C(response_first_lost, COL_U32), C(response_later_frames, COL_U32),
};
#undef C
#undef OPT

const ms_column_t *ms_columns(guint *n)
{
    *n = G_N_ELEMENTS(columns);
    return columns;
}

ms_capture_t *ms_capture_new(const char *file)
{
    ms_capture_t *c = g_new0(ms_capture_t, 1);

    c->file = g_strdup(file);
    c->transfers = g_ptr_array_new();
    return c;
}

static void transfer_free(ms_transfer_t *x)
{
    g_free(x->meter);
    g_free(x->gateway);
    g_free(x->path);
    g_free(x->kind);
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
    g_free(c->counts.timestamps);
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

static gboolean store(ms_transfer_t *x, const ms_column_t *col, const char *text)
{
    char *end = NULL;
    void *at = (char *)x + col->offset;

    switch (col->type) {
    case COL_STR:
        *(char **)at = g_strdup(text);
        return TRUE;
    case COL_U32: {
        guint64 v = g_ascii_strtoull(text, &end, 10);
        *(guint32 *)at = (guint32)MIN(v, G_MAXUINT32);
        break;
    }
    case COL_BOOL:
        *(gboolean *)at = g_ascii_strtoll(text, &end, 10) != 0;
        break;
    case COL_I64:
        *(gint64 *)at = g_ascii_strtoll(text, &end, 10);
        break;
    case COL_DBL:
        *(double *)at = g_ascii_strtod(text, &end);
        break;
    }
    return end && end != text && *end == '\0';
}

static void read_transfer(ms_capture_t *c, char **cells, guint n)
{
    ms_transfer_t *x = g_new0(ms_transfer_t, 1);

    x->points = g_array_new(FALSE, FALSE, sizeof(ms_point_t));
    for (guint i = 0; i < G_N_ELEMENTS(columns); i++) {
        const char *text = cell(c->names_t, cells, n, columns[i].name);
        if (!text || !store(x, &columns[i], text)) {
            format_error(c, text ? "bad value in column %s" : "column %s missing", columns[i].name);
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
        if (x->transfer == id)
            return x;
    }
    return NULL;
}

static void read_point(ms_capture_t *c, char **cells, guint n)
{
    const char *id = cell(c->names_p, cells, n, "transfer"), *ts = cell(c->names_p, cells, n, "ts_us");
    const char *bytes = cell(c->names_p, cells, n, "bytes"), *kind = cell(c->names_p, cells, n, "kind");
    ms_transfer_t *x;

    if (!id || !ts || !bytes || !kind) {
        format_error(c, "%s", "progress record with missing columns");
        return;
    }
    x = find_transfer(c, (guint32)g_ascii_strtoull(id, NULL, 10));
    if (!x)
        return;
    ms_point_t p = { g_ascii_strtoll(ts, NULL, 10), (guint32)g_ascii_strtoull(bytes, NULL, 10),
                     strcmp(kind, "block") == 0 ? PT_BLOCK
                     : strcmp(kind, "rerequest") == 0 ? PT_REREQUEST : PT_RETRANSMISSION };
    g_array_append_val(x->points, p);
}

static void read_counts(ms_capture_t *c, char **cells, guint n)
{
    static const char *const names[] = { "frames", "wpan_frames", "secured_frames", "undecrypted_frames",
                                         "timestamp_pairs", "timestamp_pairs_fit", "timestamp_early_messages" };
    guint32 *out[] = { &c->counts.frames, &c->counts.wpan_frames, &c->counts.secured_frames,
                       &c->counts.undecrypted_frames, &c->counts.timestamp_pairs, &c->counts.timestamp_pairs_fit,
                       &c->counts.timestamp_early_messages };
    const char *stamps = cell(c->names_c, cells, n, "timestamps");

    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        const char *v = cell(c->names_c, cells, n, names[i]);
        *out[i] = v ? (guint32)g_ascii_strtoull(v, NULL, 10) : 0;
    }
    g_free(c->counts.timestamps);
    c->counts.timestamps = g_strdup(stamps ? stamps : "unknown");
    c->counts_seen = TRUE;
}

void ms_capture_feed(ms_capture_t *c, const char *line)
{
    if (!c->header_seen) {
        c->header_seen = strcmp(line, OTA_HEADER) == 0;
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
        if (!same_address(x->meter, meter)) {
            transfer_free(x);
            g_ptr_array_remove_index(c->transfers, i - 1);
        }
    }
}
