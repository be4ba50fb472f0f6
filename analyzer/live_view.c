/* live_view.c: the per-transfer state the live lines need, from the E
 * records alone: bytes, the recent blocks (current rate), the intervals
 * between blocks (the ETA, common/eta.c: the same model as the report's
 * eta_s), the repeats of the block being asked for, and the wall-clock
 * time of its last event. What is kept per transfer is fixed in size.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include "json_print.h"
#include "eta.h"
#include "live_view.h"
#include "duration_text.h"
#include "utc_text.h"

#define RECENT 8        /* blocks the current rate is taken over */
#define BAR_WIDTH 20

typedef struct {
    guint32  id;
    char    *meter, *path;
    gboolean upload, done, stall_told;
    guint32  bytes, block_size;
    gint64   size_hint;
    guint32  retransmissions, rerequests;
    gint64   start_us, last_block_us;
    gint64   recent_us[RECENT];
    guint32  recent_bytes[RECENT];
    guint    n_recent;
    meter_eta_sample_t eta;
    guint32  repeat_offset, repeats;   /* the block asked again, and how often in a row */
    gint64   last_event_wall, last_block_wall;   /* g_get_monotonic_time() */
} live_transfer_t;

struct ms_live_view {
    ms_live_output_t output;
    FILE            *out;
    double           stall_s;
    GHashTable      *by_id;     /* id -> live_transfer_t */
    GPtrArray       *shown;     /* live_transfer_t, in start order: those not done */
    guint            drawn;     /* terminal lines drawn below the alerts */
    guint            part;      /* of the report: a tshark's run (1 unless restarted) */
};

static void transfer_free(gpointer p)
{
    live_transfer_t *x = p;

    g_free(x->meter);
    g_free(x->path);
    g_free(x);
}

ms_live_view_t *ms_live_view_new(ms_live_output_t output, FILE *out, double stall_s)
{
    ms_live_view_t *v = g_new0(ms_live_view_t, 1);

    v->output = output;
    v->out = out;
    v->stall_s = stall_s;
    v->by_id = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, transfer_free);
    v->shown = g_ptr_array_new();
    v->part = 1;
    return v;
}

static double percent(const live_transfer_t *x)
{
    return x->size_hint > 0 ? MIN(100.0, 100.0 * x->bytes / (double)x->size_hint) : -1;
}

/* Bytes a second over the last blocks, on the capture's clock. */
static double current_rate(const live_transfer_t *x)
{
    if (x->n_recent < 2)
        return -1;
    guint last = (x->n_recent - 1) % RECENT, first = x->n_recent > RECENT ? x->n_recent % RECENT : 0;
    double span = (x->recent_us[last] - x->recent_us[first]) / 1e6;
    return span > 0 ? (x->recent_bytes[last] - x->recent_bytes[first]) / span : -1;
}

static gboolean eta(const live_transfer_t *x, double *s, double *lo, double *hi)
{
    if (x->done || x->size_hint <= x->bytes || !x->block_size)
        return FALSE;
    return meter_eta_estimate(&x->eta, ceil((double)(x->size_hint - x->bytes) / x->block_size), s, lo, hi);
}

static guint terminal_width(FILE *f)
{
    struct winsize ws;

    return ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 ? ws.ws_col : 120;
}

/* "#2 METER /path [=====>    ]  45.2% 5632/12464 B  356 B/s  retx 5 rereq 0  last 0.3 s  ETA 20 s (15 s-26 s)" */
static char *transfer_name(const ms_live_view_t *v, const live_transfer_t *x)
{
    return v->part > 1 ? g_strdup_printf("#%u.%u", v->part, x->id) : g_strdup_printf("#%u", x->id);
}

static char *transfer_line(const ms_live_view_t *v, const live_transfer_t *x, gint64 now_wall)
{
    GString *s = g_string_new(NULL);
    double pct = percent(x), rate = current_rate(x), e, lo, hi;
    char *name = transfer_name(v, x);

    g_string_append_printf(s, "%s %s %s [", name, x->meter, x->path);
    g_free(name);
    guint fill = pct >= 0 ? (guint)(pct / 100 * BAR_WIDTH) : 0;
    for (guint i = 0; i < BAR_WIDTH; i++)
        g_string_append_c(s, pct < 0 ? '?' : i < fill ? '=' : i == fill ? '>' : ' ');
    g_string_append(s, "] ");
    if (pct >= 0)
        g_string_append_printf(s, "%5.1f%% %u/%" G_GINT64_FORMAT " B", pct, x->bytes, x->size_hint);
    else
        g_string_append_printf(s, "%u B", x->bytes);
    if (rate >= 0)
        g_string_append_printf(s, "  %.0f B/s", rate);
    g_string_append_printf(s, "  retx %u rereq %u", x->retransmissions, x->rerequests);
    if (x->last_block_wall)
        g_string_append_printf(s, "  last block %.1f s ago", (now_wall - x->last_block_wall) / 1e6);
    if (eta(x, &e, &lo, &hi)) {
        char *a = duration_text(e, DURATION_SPELLED), *b = duration_text(lo, DURATION_SPELLED),
             *c = duration_text(hi, DURATION_SPELLED);
        g_string_append_printf(s, "  ETA %s (%s to %s)", a, b, c);
        g_free(a);
        g_free(b);
        g_free(c);
    }
    return g_string_free(s, FALSE);
}

/* Alerts scroll above the transfer lines: the lines are rubbed out, the
 * text written, the lines drawn again below it. */
static void rub_out(ms_live_view_t *v)
{
    if (v->drawn)
        fprintf(v->out, "\033[%uA\r\033[J", v->drawn);
    v->drawn = 0;
}

static void draw(ms_live_view_t *v)
{
    if (v->output != MS_LIVE_TERMINAL)
        return;
    guint width = terminal_width(v->out);
    gint64 now = g_get_monotonic_time();

    rub_out(v);
    for (guint i = 0; i < v->shown->len; i++) {
        char *line = transfer_line(v, g_ptr_array_index(v->shown, i), now);
        if (g_utf8_strlen(line, -1) > (glong)width - 1)
            *g_utf8_offset_to_pointer(line, (glong)width - 1) = '\0';
        fprintf(v->out, "%s\033[K\n", line);
        g_free(line);
        v->drawn++;
    }
    fflush(v->out);
}

static void add_number(JsonBuilder *b, const char *name, double v, gboolean none)
{
    json_builder_set_member_name(b, name);
    if (none)
        json_builder_add_null_value(b);
    else
        json_builder_add_double_value(b, v);
}

static void json_line(ms_live_view_t *v, JsonBuilder *b)
{
    ms_json_print(v->out, b, FALSE);
    fflush(v->out);
}

static JsonBuilder *json_start(const ms_live_view_t *v, const char *event, const live_transfer_t *x)
{
    JsonBuilder *b = json_builder_new();

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "format");
    json_builder_add_string_value(b, "meterscope-live");
    json_builder_set_member_name(b, "version");
    json_builder_add_int_value(b, 1);
    json_builder_set_member_name(b, "event");
    json_builder_add_string_value(b, event);
    json_builder_set_member_name(b, "part");
    json_builder_add_int_value(b, v->part);
    if (x) {
        json_builder_set_member_name(b, "transfer");
        json_builder_add_int_value(b, x->id);
        json_builder_set_member_name(b, "meter");
        json_builder_add_string_value(b, x->meter);
        json_builder_set_member_name(b, "path");
        json_builder_add_string_value(b, x->path);
    }
    return b;
}

/* An alert: a line above the transfer lines, or a JSON line. */
static void alert(ms_live_view_t *v, const live_transfer_t *x, const char *kind, gint64 ts_us, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);
static void alert(ms_live_view_t *v, const live_transfer_t *x, const char *kind, gint64 ts_us, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    char *text = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (v->output == MS_LIVE_TERMINAL) {
        char *when = ts_us ? utc_text(ts_us) : g_strdup("now");
        char *name = transfer_name(v, x);
        rub_out(v);
        fprintf(v->out, "%s ALERT %s: %s %s %s: %s\n", when, kind, name, x->meter, x->path, text);
        g_free(when);
        g_free(name);
        draw(v);
    } else {
        JsonBuilder *b = json_start(v, "alert", x);
        json_builder_set_member_name(b, "alert");
        json_builder_add_string_value(b, kind);
        json_builder_set_member_name(b, "ts_us");
        if (ts_us)
            json_builder_add_int_value(b, ts_us);
        else
            json_builder_add_null_value(b);
        json_builder_set_member_name(b, "message");
        json_builder_add_string_value(b, text);
        json_builder_end_object(b);
        json_line(v, b);
        g_object_unref(b);
    }
    g_free(text);
}

void ms_live_view_say(ms_live_view_t *v, const char *kind, const char *text)
{
    if (v->output == MS_LIVE_TERMINAL) {
        rub_out(v);
        fprintf(v->out, "%s: %s\n", kind, text);
        draw(v);
        return;
    }
    JsonBuilder *b = json_start(v, kind, NULL);
    json_builder_set_member_name(b, "message");
    json_builder_add_string_value(b, text);
    json_builder_end_object(b);
    json_line(v, b);
    g_object_unref(b);
}

static void event_json(ms_live_view_t *v, const live_transfer_t *x, const meter_event_record_t *e)
{
    JsonBuilder *b = json_start(v, e->event, x);
    double rate = current_rate(x), pct = percent(x), s, lo, hi;
    gboolean has_eta = eta(x, &s, &lo, &hi);

    json_builder_set_member_name(b, "frame");
    json_builder_add_int_value(b, e->frame);
    json_builder_set_member_name(b, "ts_us");
    json_builder_add_int_value(b, e->ts_us);
    json_builder_set_member_name(b, "kind");
    json_builder_add_string_value(b, e->kind);
    json_builder_set_member_name(b, "offset");
    json_builder_add_int_value(b, e->offset);
    json_builder_set_member_name(b, "block_size");
    json_builder_add_int_value(b, e->block_size);
    json_builder_set_member_name(b, "bytes");
    json_builder_add_int_value(b, e->bytes);
    add_number(b, "size_hint", (double)e->size_hint, e->size_hint < 0);
    add_number(b, "percent", pct, pct < 0);
    json_builder_set_member_name(b, "code");
    json_builder_add_string_value(b, e->code);
    add_number(b, "stall_s", e->stall_s, e->stall_s < 0);
    json_builder_set_member_name(b, "image");
    json_builder_add_boolean_value(b, e->image);
    json_builder_set_member_name(b, "verified");
    json_builder_add_boolean_value(b, e->verified);
    add_number(b, "rate_Bps", rate, rate < 0);
    json_builder_set_member_name(b, "retransmissions");
    json_builder_add_int_value(b, x->retransmissions);
    json_builder_set_member_name(b, "rerequests");
    json_builder_add_int_value(b, x->rerequests);
    add_number(b, "eta_s", s, !has_eta);
    add_number(b, "eta_low_s", lo, !has_eta);
    add_number(b, "eta_high_s", hi, !has_eta);
    json_builder_end_object(b);
    json_line(v, b);
    g_object_unref(b);
}

static live_transfer_t *transfer_for(ms_live_view_t *v, const meter_event_record_t *e)
{
    live_transfer_t *x = g_hash_table_lookup(v->by_id, GUINT_TO_POINTER(e->transfer));

    if (x)
        return x;
    /* A new transfer of the same meter and path ends an unfinished one (docs/ota-sessions.md). */
    for (guint i = 0; i < v->shown->len; i++) {
        live_transfer_t *old = g_ptr_array_index(v->shown, i);
        if (strcmp(old->meter, e->meter) == 0 && strcmp(old->path, e->path) == 0) {
            old->done = TRUE;
            g_ptr_array_remove_index(v->shown, i--);
            alert(v, old, "abandoned", e->ts_us, "ended incomplete at %u bytes: transfer %u started over", old->bytes,
                  e->transfer);
        }
    }
    x = g_new0(live_transfer_t, 1);
    x->id = e->transfer;
    x->meter = g_strdup(e->meter);
    x->path = g_strdup(e->path);
    x->upload = strcmp(e->kind, "block1") == 0;
    x->start_us = x->last_block_us = e->ts_us;
    x->size_hint = -1;
    g_hash_table_insert(v->by_id, GUINT_TO_POINTER(x->id), x);
    g_ptr_array_add(v->shown, x);
    return x;
}

static void note_repeat(ms_live_view_t *v, live_transfer_t *x, const meter_event_record_t *e)
{
    if (strcmp(e->event, "retransmission") == 0)
        x->retransmissions++;
    else
        x->rerequests++;
    if (x->repeats && x->repeat_offset == e->offset)
        x->repeats++;
    else
        x->repeats = 1;
    x->repeat_offset = e->offset;
    if (x->repeats % MS_LIVE_REPEAT_ALERT == 0)
        alert(v, x, "repeated", e->ts_us, "the block at byte %u asked %u times more", e->offset, x->repeats);
}

static void note_block(live_transfer_t *x, const meter_event_record_t *e, gint64 now)
{
    guint k = x->n_recent++ % RECENT;

    x->recent_us[k] = e->ts_us;
    x->recent_bytes[k] = e->bytes;
    meter_eta_add(&x->eta, MAX(0, e->ts_us - x->last_block_us) / 1e6);
    x->last_block_us = MAX(x->last_block_us, e->ts_us);
    x->last_block_wall = now;
    x->repeats = 0;
}

void ms_live_view_event(ms_live_view_t *v, const meter_event_record_t *e)
{
    live_transfer_t *x = transfer_for(v, e);
    gint64 now = g_get_monotonic_time();

    x->last_event_wall = now;
    x->stall_told = FALSE;
    x->bytes = MAX(x->bytes, e->bytes);
    x->block_size = e->block_size;
    x->size_hint = e->size_hint;
    if (strcmp(e->event, "block") == 0)
        note_block(x, e, now);
    else if (strcmp(e->event, "retransmission") == 0 || strcmp(e->event, "rerequest") == 0)
        note_repeat(v, x, e);
    if (v->output == MS_LIVE_JSONL)
        event_json(v, x, e);
    if (strcmp(e->event, "stall") == 0)
        alert(v, x, "stall", e->ts_us, "no message for %.1f s before frame %u (longer than --stall %.0f s)",
              e->stall_s, e->frame, v->stall_s);
    else if (strcmp(e->event, "renegotiation") == 0)
        alert(v, x, "renegotiation", e->ts_us, "the gateway answered with %u-byte blocks (frame %u)", e->block_size,
              e->frame);
    else if (strcmp(e->event, "error") == 0)
        alert(v, x, "error", e->ts_us, "error response %s at byte %u (frame %u)", e->code, e->offset, e->frame);
    else if (strcmp(e->event, "complete") == 0) {
        if (!x->done && e->image && !e->verified)
            alert(v, x, "not-verified", e->ts_us, "the image completed (%u bytes, frame %u) but failed verification",
                  e->bytes, e->frame);
        if (!x->done && v->output == MS_LIVE_TERMINAL) {
            char *line = transfer_line(v, x, now);
            rub_out(v);
            fprintf(v->out, "done: %s\n", line);
            g_free(line);
        }
        x->done = TRUE;
        g_ptr_array_remove(v->shown, x);
    }
    draw(v);
}

void ms_live_view_tick(ms_live_view_t *v)
{
    gint64 now = g_get_monotonic_time();

    for (guint i = 0; i < v->shown->len; i++) {
        live_transfer_t *x = g_ptr_array_index(v->shown, i);
        double quiet = (now - x->last_event_wall) / 1e6;
        if (!x->stall_told && quiet > v->stall_s) {
            x->stall_told = TRUE;
            alert(v, x, "stall", 0, "no frame of it for %.0f s (wall clock; the capture's last was %u bytes in)",
                  quiet, x->bytes);
        }
    }
    draw(v);
}

gboolean ms_live_view_idle(const ms_live_view_t *v)
{
    return v->shown->len == 0;
}

void ms_live_view_new_part(ms_live_view_t *v, guint part)
{
    rub_out(v);
    g_ptr_array_set_size(v->shown, 0);
    g_hash_table_remove_all(v->by_id);
    v->part = part;
    draw(v);
}

void ms_live_view_free(ms_live_view_t *v)
{
    if (!v)
        return;
    if (v->output == MS_LIVE_TERMINAL)
        fflush(v->out);
    g_ptr_array_free(v->shown, TRUE);
    g_hash_table_destroy(v->by_id);
    g_free(v);
}
