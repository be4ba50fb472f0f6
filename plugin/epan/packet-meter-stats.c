/* packet-meter-stats.c: `tshark -q -z meter,ota` (a table for people) and
 * `-z meter,ota,tsv` (a versioned, tab-separated record per transfer for
 * scripts and the meterscope analyser).
 *
 * The numbers come from the session tracker's first-pass records, so one
 * pass, -2 and the GUI print the same; the tap only tells which transfers
 * have frames that pass the display filter.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include <epan/packet.h>
#include <epan/tap.h>
#include <epan/stat_tap_ui.h>
#include "ws_compat.h"
#include "meter-session.h"
#include "packet-meter-stats.h"
#include "utc_text.h"
#include "transfer_record.h"

static int meter_ota_tap = -1;

typedef struct {
    gboolean    tsv;
    GHashTable *seen;     /* transfer ids with a displayed frame */
} ota_stats_listener_t;

gboolean meter_stats_wanted(void)
{
    return have_tap_listener(meter_ota_tap);
}

void meter_stats_queue(packet_info *pinfo, const guint32 *transfer_ids)
{
    tap_queue_packet(meter_ota_tap, pinfo, transfer_ids);
}

static tap_packet_status ota_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                    const void *data, tap_flags_t flags _U_)
{
    ota_stats_listener_t *l = (ota_stats_listener_t *)tapdata;
    const guint32 *ids = (const guint32 *)data;

    for (guint i = 0; ids[i]; i++)
        g_hash_table_add(l->seen, GUINT_TO_POINTER(ids[i]));
    return TAP_PACKET_DONT_REDRAW;
}

static void ota_reset(void *tapdata)
{
    g_hash_table_remove_all(((ota_stats_listener_t *)tapdata)->seen);
}

static char *num_or_dash(double v, const char *fmt)
{
    return v < 0 ? g_strdup("-") : g_strdup_printf(fmt, v);
}

/* The C record: what the capture held and what its stamps mark. */
static meter_counts_record_t counts_record(const meter_session_t *s, const ota_track_t *t, const ota_clock_t *clock)
{
    const ota_capture_counts_t *c = ota_track_counts(t);
    const ota_time_base_t *b = ota_track_time_base(t);
    guint32 levels, key_id_modes;

    meter_session_undecrypted_suites(s, &levels, &key_id_modes);
    return (meter_counts_record_t){
        .frames = c->frames,
        .wpan_frames = c->wpan_frames,
        .secured_frames = c->secured_frames,
        .undecrypted_frames = c->undecrypted_frames,
        .undecrypted_levels = levels,
        .undecrypted_key_id_modes = key_id_modes,
        .timestamps = ota_stamp_kind_name(b->kind),
        .timestamp_pairs = b->pairs,
        .timestamp_pairs_fit = b->kind == OTA_STAMP_START ? b->fit_start : b->kind == OTA_STAMP_END ? b->fit_end
                                                          : MAX(b->fit_start, b->fit_end),
        .timestamp_early_messages = b->early_messages,
        .timestamps_zero = ota_clock_count(clock, OTA_CLOCK_ZERO),
        .timestamps_earlier = ota_clock_count(clock, OTA_CLOCK_EARLIER),
        .timestamps_out_of_range = ota_clock_count(clock, OTA_CLOCK_OUT_OF_RANGE),
        .acks_unmatched = c->acks_unmatched,
        .frames_missed_by_sniffer = c->frames_missed,
    };
}

/* The format (common/transfer_record.h): every line starts with its record
 * type; "#T", "#P" and "#C" name the columns of the T (transfer), P
 * (progress point) and C (capture) records. Written a transfer at a time:
 * a long capture has many progress points. */
static void print_tsv(meter_session_t *session, GHashTable *seen)
{
    ota_track_t *t = meter_session_tracker(session);
    const ota_clock_t *clock = meter_session_clock(session);
    static const char *const kinds[] = { "block", "retransmission", "rerequest" };
    GString *out = g_string_new(NULL);

    meter_record_write_header(out);
    for (guint i = 0; i < ota_track_n_transfers(t); i++) {
        const meter_transfer_record_t *x = ota_track_record_at(t, i);
        if (!g_hash_table_contains(seen, GUINT_TO_POINTER(x->transfer)))
            continue;
        meter_record_write(out, &meter_transfer_schema, x);
        wmem_allocator_t *tmp = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
        wmem_array_t *pts = ota_track_progress(t, x->transfer, tmp);
        for (guint k = 0; k < wmem_array_get_count(pts); k++) {
            const ota_progress_t *p = (const ota_progress_t *)wmem_array_index(pts, k);
            const meter_progress_record_t point = { .transfer = x->transfer, .ts_us = p->ts_us, .bytes = p->bytes,
                                                    .kind = kinds[p->kind] };
            meter_record_write(out, &meter_progress_schema, &point);
        }
        wmem_destroy_allocator(tmp);
        fputs(out->str, stdout);
        g_string_truncate(out, 0);
    }
    const meter_counts_record_t counts = counts_record(session, t, clock);
    meter_record_write(out, &meter_counts_schema, &counts);
    fputs(out->str, stdout);
    g_string_free(out, TRUE);
}

static void print_table(const ota_track_t *t, GHashTable *seen)
{
    /* Meter and path whole: the column is as wide as its widest entry. */
    int width = (int)strlen("meter -> path");
    for (guint i = 0; i < ota_track_n_transfers(t); i++) {
        const meter_transfer_record_t *s = ota_track_record_at(t, i);
        if (g_hash_table_contains(seen, GUINT_TO_POINTER(s->transfer)))
            width = MAX(width, (int)MIN(strlen(s->meter) + 1 + strlen(s->path), 512));
    }
    printf("\n=======================================================================================\n");
    printf("Meter block-wise transfers (meterscope)\n");
    printf("%-3s %-*s %-27s %-4s %5s %6s %8s %-8s %9s %7s %4s %5s %5s %5s %5s %5s %15s %15s\n", "#",
           width, "meter -> path", "start (UTC)", "done", "block", "blocks", "bytes", "duration", "rate B/s",
           "verified", "retx", "rereq", "macrt", "frag", "incmp", "lost", "RTT med/p95 s", "turn med/p95 s");
    for (guint i = 0; i < ota_track_n_transfers(t); i++) {
        const meter_transfer_record_t *s = ota_track_record_at(t, i);
        if (!g_hash_table_contains(seen, GUINT_TO_POINTER(s->transfer)))
            continue;
        char *who = g_strdup_printf("%s %s", s->meter, s->path);
        char *start = utc_text(s->first_request_us);
        char *rtt1 = num_or_dash(s->rtt_first_median_s, "%.3f"), *rtt2 = num_or_dash(s->rtt_first_p95_s, "%.3f");
        char *ta1 = num_or_dash(s->turnaround_median_s, "%.3f"), *ta2 = num_or_dash(s->turnaround_p95_s, "%.3f");
        char *rtt = g_strdup_printf("%s/%s", rtt1, rtt2), *ta = g_strdup_printf("%s/%s", ta1, ta2);
        printf("%-3u %-*s %-27s %-4s %5u %6u %8u %8.1f %9.1f %7s %4u %5u %5u %5u %5u %5u %15s %15s\n",
               s->transfer, width, who, start + 0, s->complete ? "yes" : "no", s->block_size, s->blocks, s->bytes,
               s->duration_s, s->rate_Bps, s->verified ? "yes" : "-", s->retransmissions, s->rerequests,
               s->mac_retries, s->datagrams_fragmented, s->datagrams_incomplete, s->fragments_lost, rtt, ta);
        g_free(who); g_free(start); g_free(rtt1); g_free(rtt2); g_free(ta1); g_free(ta2); g_free(rtt); g_free(ta);
    }
    printf("=======================================================================================\n");
}

static void ota_draw(void *tapdata)
{
    ota_stats_listener_t *l = (ota_stats_listener_t *)tapdata;
    meter_session_t *session = meter_session_current();
    ota_track_t *t = meter_session_tracker(session);

    meter_session_finalize(session);
    if (l->tsv)
        print_tsv(session, l->seen);
    else
        print_table(t, l->seen);
}

static void ota_finish(void *tapdata)
{
    ota_stats_listener_t *l = (ota_stats_listener_t *)tapdata;

    g_hash_table_destroy(l->seen);
    g_free(l);
}

/* -z meter,ota[,tsv][,FILTER] */
static meter_stat_init_result_t ota_cli_init(const char *opt_arg, void *userdata _U_)
{
    ota_stats_listener_t *l = g_new0(ota_stats_listener_t, 1);
    const char *rest = opt_arg + strlen("meter,ota");
    GString *err;

    if (g_str_has_prefix(rest, ",tsv")) {
        l->tsv = TRUE;
        rest += 4;
    }
    if (*rest == ',')
        rest++;
    l->seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    err = register_tap_listener("meter_ota", l, *rest ? rest : NULL, TL_REQUIRES_NOTHING, ota_reset,
                                ota_packet, ota_draw, ota_finish);
    if (err) {
        fprintf(stderr, "tshark: -z meter,ota: %s\n", err->str);
        g_string_free(err, TRUE);
        ota_finish(l);
        exit(1);
    }
    METER_STAT_INIT_DONE;
}

static stat_tap_ui ota_cli_ui = {
    REGISTER_STAT_GROUP_GENERIC, "Meter block-wise transfers", "meter,ota", ota_cli_init, 0, NULL,
};

void proto_register_meter_stats(void)
{
    meter_ota_tap = register_tap("meter_ota");
    register_stat_tap_ui(&ota_cli_ui, NULL);
}
