/* report_table.c: the human report: per capture its transfers, where their
 * time went and the block-size recommendation; with several captures, the
 * field report's comparison table sorted by SZX.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "report.h"
#include "report_advice.h"
#include "duration_text.h"
#include "utc_text.h"

static char *human_bytes(guint32 b)
{
    return b >= 10240 ? g_strdup_printf("%.1f KiB", b / 1024.0) : g_strdup_printf("%u B", b);
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100 * part / whole : 0;
}

/* Meter and path whole: each column as wide as its widest entry. */
static int width_of(const ms_capture_t *c, gsize field_offset, int at_least)
{
    gsize w = (gsize)at_least;
    for (guint i = 0; i < c->transfers->len; i++) {
        const ms_transfer_t *t = g_ptr_array_index(c->transfers, i);
        const char *s = *(const char *const *)((const char *)&t->rec + field_offset);
        w = MAX(w, s ? strlen(s) : 0);
    }
    return (int)MIN(w, 256);
}

static void transfers(FILE *out, const ms_capture_t *c)
{
    int wm = width_of(c, G_STRUCT_OFFSET(meter_transfer_record_t, meter), 5);
    int wp = width_of(c, G_STRUCT_OFFSET(meter_transfer_record_t, path), 4);

    fprintf(out, "%-3s %-*s %-*s %5s %6s %10s %10s %9s %-4s %4s %4s %5s %5s %6s %6s\n", "#", wm, "meter", wp,
            "path", "block", "blocks", "bytes", "duration", "rate B/s", "done", "retx", "spur", "rereq", "macrt",
            "frag", "lost");
    for (guint i = 0; i < c->transfers->len; i++) {
        const meter_transfer_record_t *x = &((const ms_transfer_t *)g_ptr_array_index(c->transfers, i))->rec;
        char *dur = duration_text(x->duration_s, DURATION_MEASURED), *bytes = human_bytes(x->bytes);
        char *frag = g_strdup_printf("%u/%u", x->datagrams_incomplete, x->datagrams_fragmented);
        fprintf(out, "%-3u %-*s %-*s %5u %6u %10s %10s %9.1f %-4s %4u %4u %5u %5u %6s %6u\n", x->transfer, wm,
                x->meter, wp, x->path, x->block_size, x->blocks, bytes, dur, x->rate_Bps, x->complete ? "yes" : "no",
                x->retransmissions, x->spurious_retransmissions, x->rerequests, x->mac_retries, frag,
                x->fragments_lost);
        g_free(dur);
        g_free(bytes);
        g_free(frag);
    }
}

/* The parts of the split shown: the four always, the sleepy poll and the
 * time not visible only when some transfer has them. */
static void time_split(FILE *out, const ms_capture_t *c)
{
    gboolean shown[METER_SPLIT_PARTS] = { TRUE, TRUE, TRUE, TRUE, FALSE, FALSE };

    for (guint i = 0; i < c->transfers->len; i++) {
        const meter_transfer_record_t *x = &((const ms_transfer_t *)g_ptr_array_index(c->transfers, i))->rec;
        for (guint k = 0; k < METER_SPLIT_PARTS; k++)
            shown[k] |= meter_split_value(x, k) > 0;
    }
    fprintf(out, "\nWhere the time went (seconds and share of each transfer's duration; RTTl: round trip "
                 "from a request's last transmission)\n");
    fprintf(out, "%-3s %-7s %10s", "#", "seen at", "duration");
    for (guint k = 0; k < METER_SPLIT_PARTS; k++)
        if (shown[k])
            fprintf(out, " %17s", meter_split_parts[k].label);
    fprintf(out, " %14s %9s %9s\n", "stalls", "RTTl med", "turn med");
    for (guint i = 0; i < c->transfers->len; i++) {
        const meter_transfer_record_t *x = &((const ms_transfer_t *)g_ptr_array_index(c->transfers, i))->rec;
        double d = x->duration_s;
        char part[32], stalls[32], rtt[16], turn[16];
        fprintf(out, "%-3u %-7s %10.1f", x->transfer, x->vantage ? x->vantage : "-", d);
        for (guint k = 0; k < METER_SPLIT_PARTS; k++) {
            double v = meter_split_value(x, k);
            g_snprintf(part, sizeof part, "%.1f (%4.1f%%)", v, pct(v, d));
            if (shown[k])
                fprintf(out, " %17s", part);
        }
        g_snprintf(stalls, sizeof stalls, "%u (%.0fs)", x->stalls, x->stalled_s);
        g_snprintf(rtt, sizeof rtt, x->rtt_last_median_s < 0 ? "-" : "%.3f", x->rtt_last_median_s);
        g_snprintf(turn, sizeof turn, x->turnaround_median_s < 0 ? "-" : "%.3f", x->turnaround_median_s);
        fprintf(out, " %14s %9s %9s\n", stalls, rtt, turn);
    }
}

/* What an incomplete transfer would still take: "1h12m more (55m00s-1h35m)". */
static void eta(FILE *out, const ms_capture_t *c)
{
    gboolean header = FALSE;

    for (guint i = 0; i < c->transfers->len; i++) {
        const meter_transfer_record_t *x = &((const ms_transfer_t *)g_ptr_array_index(c->transfers, i))->rec;
        if (x->eta_s < 0)
            continue;
        if (!header)
            fprintf(out, "\nIncomplete transfers, at the rate the capture shows (90%% range):\n");
        header = TRUE;
        char *e = duration_text(x->eta_s, DURATION_MEASURED), *lo = duration_text(x->eta_low_s, DURATION_MEASURED),
             *hi = duration_text(x->eta_high_s, DURATION_MEASURED);
        fprintf(out, "  %u: %u of %" G_GINT64_FORMAT " bytes; at this rate %s more (%s-%s) after its last message\n",
                x->transfer, x->bytes, x->size_hint, e, lo, hi);
        g_free(e);
        g_free(lo);
        g_free(hi);
    }
}

static void recommendation(FILE *out, const ms_recommendation_t *r)
{
    char later[32] = "-", frame[96], turn[128], from[32];

    if (r->later_frame_loss >= 0)
        g_snprintf(later, sizeof later, "%.2f%%", 100 * r->later_frame_loss);
    g_strlcpy(from, r->added_from ? r->added_from : "-", sizeof from);
    g_strdelimit(from, "_", ' ');
    fprintf(out, "\nBlock size for %s, from transfer %u at %u-byte blocks (docs/recommendation.md):\n",
            r->upload ? "uploads (Block1)" : "downloads (Block2)", r->transfer, r->block_size);
    if (*r->not_computed) {
        fprintf(out, "  cannot be computed: %s\n", r->not_computed);
        return;
    }
    fprintf(out, "  measured: exchange loss %.2f%%; %s of %.1f frames, %.0f bytes besides the block;\n"
                 "            lost: requests %.2f%%, responses at their first frame %.2f%%, a later frame %s;\n"
                 "            one frame more costs %.2f%% (from %s), %.1f hop(s);\n",
            100 * r->exchange_loss, r->upload ? "requests" : "responses", r->block_frames, r->block_overhead,
            100 * r->request_loss, 100 * r->first_frame_loss, later, 100 * r->added_frame_loss, from,
            r->hops);
    if (r->train_growth_measured)
        fprintf(out, "            a frame after the first lost %.2f%% + %.3f%% a place further "
                     "(fitted on %.0f middle fragments, %.0f lost; growth %.3f%% to %.3f%%);\n",
                100 * r->train_loss, 100 * r->train_growth, r->middle_frames, r->middle_lost,
                100 * r->train_growth_low, 100 * r->train_growth_high);
    else
        fprintf(out, "            a frame after the first lost %.2f%% wherever it is in the train "
                     "(%.0f middle fragments, %.0f lost: too few places to fit; growth 0%% to %.3f%% a place);\n",
                100 * r->train_loss, r->middle_frames, r->middle_lost, 100 * r->train_growth_high);
    if (r->frame_s_measured)
        g_snprintf(frame, sizeof frame, "%.4fs a frame more (measured across the hops)", r->frame_s);
    else
        g_snprintf(frame, sizeof frame, "%.4fs a frame more (assumed: one frame's time on each hop)", r->frame_s);
    switch (r->turn_source) {
    case MS_TURN_MEASURED:
        g_snprintf(turn, sizeof turn, "turn-around grows %.0f us/byte (measured on %u block sizes)",
                   r->turn_s_per_byte * 1e6, r->turn_sizes);
        break;
    case MS_TURN_BOUNDED:
        g_snprintf(turn, sizeof turn, "turn-around grows at most %.0f us/byte (the measured turn-around; "
                   "less than the assumed flash %.0f us/byte)", r->turn_s_per_byte * 1e6, r->flash_s_per_byte * 1e6);
        break;
    case MS_TURN_ASSUMED:
        g_snprintf(turn, sizeof turn, "turn-around grows %.0f us/byte (assumed flash write time)",
                   r->turn_s_per_byte * 1e6);
        break;
    default:
        g_snprintf(turn, sizeof turn, "turn-around the same at every size (an upload writes nothing on the meter)");
    }
    fprintf(out, "            per block: air %.3fs, network %.3fs, sleepy poll %.3fs, turn-around %.3fs, "
                 "timeouts %.3fs (first timeout %.2fs);\n            %s; %s\n", r->air_s, r->network_s, r->poll_s,
            r->turnaround_s, r->timeouts_s, r->timeout_s, frame, turn);
    fprintf(out, "  predicted:");
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
        fprintf(out, "  SZX %u (%u B) %.0f B/s", szx, 16u << szx, r->rate_Bps[szx]);
    fprintf(out, "\n  range:    ");
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
        fprintf(out, "  SZX %u %.0f-%.0f B/s", szx, r->rate_low_Bps[szx], r->rate_high_Bps[szx]);
    fprintf(out, "\n");
    if (r->size_bytes >= 0) {
        fprintf(out, "  the %.0f bytes would take:", r->size_bytes);
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
            char *d = r->duration_s[szx] >= 0 ? duration_text(r->duration_s[szx], DURATION_MEASURED)
                                             : g_strdup("never");
            fprintf(out, "  SZX %u %s", szx, d);
            g_free(d);
        }
        fprintf(out, "\n");
    }
    char why[256];
    ms_recommend_why(r, why, sizeof why);
    fprintf(out, "  recommended: SZX %u (%u-byte blocks): %s\n", r->best_szx, 16u << r->best_szx, why);
}

typedef struct {
    const char *file;
    const meter_transfer_record_t *x;
} row_t;

/* Like with like: transfers of one path and kind (a history upload is no
 * firmware download). */
static int by_group(const meter_transfer_record_t *x, const meter_transfer_record_t *y)
{
    int d = g_strcmp0(x->path, y->path);
    return d ? d : g_strcmp0(x->kind, y->kind);
}

/* By path and kind, then by SZX, then in time. */
static int by_szx(const void *a, const void *b)
{
    const row_t *p = a, *q = b;
    int d = by_group(p->x, q->x);
    if (d)
        return d;
    if (p->x->szx != q->x->szx)
        return p->x->szx < q->x->szx ? -1 : 1;
    return p->x->first_request_us < q->x->first_request_us ? -1 : p->x->first_request_us > q->x->first_request_us;
}

static void comparison(FILE *out, ms_analysis_t *a, guint n)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(row_t));

    for (guint i = 0; i < n; i++)
        for (guint k = 0; k < a[i].capture->transfers->len; k++) {
            const ms_transfer_t *x = g_ptr_array_index(a[i].capture->transfers, k);
            row_t r = { a[i].capture->file, &x->rec };
            g_array_append_val(rows, r);
        }
    g_array_sort(rows, by_szx);
    int wc = 7;
    for (guint i = 0; i < rows->len; i++) {
        char *base = g_path_get_basename(g_array_index(rows, row_t, i).file);
        wc = MAX(wc, (int)MIN(strlen(base), 256));
        g_free(base);
    }
    fprintf(out, "\nComparison (one row per transfer; by path and kind, then SZX)\n");
    for (guint i = 0; i < rows->len; i++) {
        const row_t *r = &g_array_index(rows, row_t, i);
        if (!i || by_group(g_array_index(rows, row_t, i - 1).x, r->x) != 0) {
            fprintf(out, "%s (%s)\n", r->x->path ? r->x->path : "", r->x->kind ? r->x->kind : "");
            fprintf(out, "  %-3s %5s %-*s %-27s %-27s %10s %9s %-4s\n", "SZX", "block", wc, "capture",
                    "start (UTC)", "end (UTC)", "duration", "rate B/s", "done");
        }
        char *start = utc_text(r->x->first_request_us);
        char *end = utc_text(r->x->complete ? r->x->last_response_us : r->x->last_activity_us);
        char *dur = duration_text(r->x->duration_s, DURATION_MEASURED), *base = g_path_get_basename(r->file);
        fprintf(out, "  %-3u %5u %-*s %-27s %-27s %10s %9.1f %-4s\n", r->x->szx, r->x->block_size, wc, base, start,
                end, dur, r->x->rate_Bps, r->x->complete ? "yes" : "no");
        g_free(start);
        g_free(end);
        g_free(dur);
        g_free(base);
    }
    g_array_free(rows, TRUE);
}

/* What the capture's timestamps mark, as the plugin read it from the gaps
 * between frames and their ACKs (docs/ota-sessions.md). */
static void timestamps(FILE *out, const ms_counts_t *c)
{
    const char *mark = c->timestamps ? c->timestamps : "unknown";

    if (strcmp(mark, "start") == 0 || strcmp(mark, "end") == 0)
        fprintf(out, "  timestamps mark each frame's %s (%u of %u frame-ACK gaps fit)%s\n", mark,
                c->timestamp_pairs_fit, c->timestamp_pairs,
                strcmp(mark, "start") == 0 ? "; times are taken at each frame's end" : "");
    else if (strcmp(mark, "host") == 0)
        fprintf(out, "  timestamps are the host's: at most %u of %u frame-ACK gaps fit a frame's start or its "
                "end; times are good to a few ms\n", c->timestamp_pairs_fit, c->timestamp_pairs);
    else
        fprintf(out, "  timestamps: no frame-ACK gap told what they mark; taken as each frame's end\n");
}

/* How much of the transfers' traffic the sniffer missed: what the frames
 * after the missed ones prove, the estimate from the senders' numbers and
 * the ACKs (docs/ota-sessions.md), and what that does to the figures: said
 * only when the capture shows a miss. */
static void capture_quality(FILE *out, const ms_capture_t *c)
{
    guint32 shown = 0, estimate = 0, high = 0, uncertain = 0, unacked_uncertain = 0;

    for (guint i = 0; i < c->transfers->len; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        shown += x->rec.frames_missed_by_sniffer;
        estimate += x->rec.frames_missed_estimate;
        high += x->rec.frames_missed_high;
        uncertain += x->rec.copies_lost_uncertain;
        unacked_uncertain += x->rec.frames_unacked_uncertain;
    }
    if (!shown && !c->counts.frames_missed_by_sniffer)
        return;
    fprintf(out, "  the sniffer missed about %.1f%% of the transfers' frames (%u shown by the frames after them, "
            "about %u in all, at most %u):\n"
            "  loss figures below are upper bounds (up to %u lost copies and %u unacknowledged frames may have "
            "arrived), counts of what was sent lower bounds (at most %u too low)\n",
            100.0 * estimate / ((double)c->counts.wpan_frames + estimate), shown, estimate, high, uncertain,
            unacked_uncertain, high);
}

void ms_report_table(FILE *out, ms_analysis_t *a, guint n)
{
    for (guint i = 0; i < n; i++) {
        const ms_capture_t *c = a[i].capture;
        fprintf(out, "%s%s: %u frames, %u block-wise transfer%s\n", i ? "\n" : "", c->file, c->counts.frames,
                c->transfers->len, c->transfers->len == 1 ? "" : "s");
        if (!c->transfers->len)
            continue;
        timestamps(out, &c->counts);
        capture_quality(out, c);
        transfers(out, c);
        time_split(out, c);
        eta(out, c);
        if (a[i].has_recommendation)
            recommendation(out, &a[i].recommendation);
        ms_report_table_advice(out, &a[i]);
    }
    if (n > 1)
        comparison(out, a, n);
}
