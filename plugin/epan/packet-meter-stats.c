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

#define OTA_TSV_VERSION "meterscope-ota 2"

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

/* Version 2: every line starts with its record type; "#T" and "#P" name the
 * columns of the T (transfer) and P (progress point) records. A reader
 * looks columns up by name, so columns may be added without a new version. */
static void print_tsv_transfer(const ota_transfer_t *x)
{
    const ota_stats_t *s = &x->st;

    printf("T\t%u\t%s\t%s\t/%s\t%s\t%u\t%u\t%u\t%d\t%u\t%u\t%d\t%d\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT
           "\t%" G_GINT64_FORMAT "\t%.6f\t%.6f\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u"
           "\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%u\t%u"
           "\t%.6f\t%.6f\t%.6f\t%.6f\t%u\t%.6f\t%u\t%u\t%u\t%d\t%" G_GINT64_FORMAT
           "\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\n",
           x->id, x->meter, x->gateway, x->path, x->upload ? "block1" : "block2", x->szx_first, x->szx,
           16u << x->szx, x->renegotiated, s->blocks, s->bytes, s->complete, x->image_verified,
           s->first_request_us, s->last_response_us, s->last_activity_us, s->duration_s, s->rate_Bps,
           s->requests, s->retransmissions, s->rerequests, s->duplicate_responses, s->error_responses,
           s->mac_retries, s->datagrams_fragmented, s->datagrams_incomplete, s->fragments_lost,
           s->rtt_first_median, s->rtt_first_p95, s->rtt_last_median, s->rtt_last_p95,
           s->turnaround_median, s->turnaround_p95, s->first_frame, s->last_frame,
           s->time_air_s, s->time_timeouts_s, s->time_network_s, s->time_turnaround_s, s->stalls, s->stalled_s,
           s->datagram_copies, s->frames_sent, s->frames_unacked, s->acks_visible, x->size_hint,
           s->request_copies, s->request_copies_lost, s->request_frames_complete, s->response_copies,
           s->response_copies_lost, s->response_frames_complete, s->response_bytes_complete,
           s->response_first_lost, s->response_later_frames, s->spurious_retransmissions);
}

static void print_tsv(ota_track_t *t, GHashTable *seen)
{
    static const char *const kinds[] = { "block", "retransmission", "rerequest" };

    printf("# " OTA_TSV_VERSION "\n");
    printf("#T\ttransfer\tmeter\tgateway\tpath\tkind\tszx_first\tszx\tblock_size\trenegotiated\tblocks\tbytes"
           "\tcomplete\tverified\tfirst_request_us\tlast_response_us\tlast_activity_us\tduration_s\trate_Bps"
           "\trequests\tretransmissions\trerequests\tduplicate_responses\terror_responses\tmac_retries"
           "\tdatagrams_fragmented\tdatagrams_incomplete\tfragments_lost\trtt_first_median_s\trtt_first_p95_s"
           "\trtt_last_median_s\trtt_last_p95_s\tturnaround_median_s\tturnaround_p95_s\tfirst_frame\tlast_frame"
           "\ttime_air_s\ttime_timeouts_s\ttime_network_s\ttime_turnaround_s\tstalls\tstalled_s"
           "\tdatagram_copies\tframes_sent\tframes_unacked\tacks_visible\tsize_hint"
           "\trequest_copies\trequest_copies_lost\trequest_frames_complete"
           "\tresponse_copies\tresponse_copies_lost\tresponse_frames_complete\tresponse_bytes_complete"
           "\tresponse_first_lost\tresponse_later_frames\tspurious_retransmissions\n");
    printf("#P\ttransfer\tts_us\tbytes\tkind\n");
    printf("#C\tframes\twpan_frames\tsecured_frames\tundecrypted_frames\ttimestamps\ttimestamp_pairs"
           "\ttimestamp_pairs_fit\ttimestamp_early_messages\n");
    for (guint i = 0; i < ota_track_n_transfers(t); i++) {
        ota_transfer_t *x = ota_track_transfer_at(t, i);
        if (!g_hash_table_contains(seen, GUINT_TO_POINTER(x->id)))
            continue;
        print_tsv_transfer(x);
        wmem_allocator_t *tmp = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
        wmem_array_t *pts = ota_track_progress(t, x, tmp);
        for (guint k = 0; k < wmem_array_get_count(pts); k++) {
            const ota_progress_t *p = (const ota_progress_t *)wmem_array_index(pts, k);
            printf("P\t%u\t%" G_GINT64_FORMAT "\t%u\t%s\n", x->id, p->ts_us, p->bytes, kinds[p->kind]);
        }
        wmem_destroy_allocator(tmp);
    }
    const ota_capture_counts_t *c = ota_track_counts(t);
    const ota_time_base_t *b = ota_track_time_base(t);
    printf("C\t%u\t%u\t%u\t%u\t%s\t%u\t%u\t%u\n", c->frames, c->wpan_frames, c->secured_frames,
           c->undecrypted_frames, ota_stamp_kind_name(b->kind), b->pairs,
           b->kind == OTA_STAMP_START ? b->fit_start : b->kind == OTA_STAMP_END ? b->fit_end
                                                      : MAX(b->fit_start, b->fit_end),
           b->early_messages);
}

static void print_table(ota_track_t *t, GHashTable *seen)
{
    /* Meter and path whole: the column is as wide as its widest entry. */
    int width = (int)strlen("meter -> path");
    for (guint i = 0; i < ota_track_n_transfers(t); i++) {
        ota_transfer_t *x = ota_track_transfer_at(t, i);
        if (g_hash_table_contains(seen, GUINT_TO_POINTER(x->id)))
            width = MAX(width, (int)MIN(strlen(x->meter) + 2 + strlen(x->path), 512));
    }
    printf("\n=======================================================================================\n");
    printf("Meter block-wise transfers (meterscope)\n");
    printf("%-3s %-*s %-27s %-4s %5s %6s %8s %-8s %9s %7s %4s %5s %5s %5s %5s %5s %15s %15s\n", "#",
           width, "meter -> path", "start (UTC)", "done", "block", "blocks", "bytes", "duration", "rate B/s",
           "verified", "retx", "rereq", "macrt", "frag", "incmp", "lost", "RTT med/p95 s", "turn med/p95 s");
    for (guint i = 0; i < ota_track_n_transfers(t); i++) {
        ota_transfer_t *x = ota_track_transfer_at(t, i);
        const ota_stats_t *s = &x->st;
        if (!g_hash_table_contains(seen, GUINT_TO_POINTER(x->id)))
            continue;
        char *who = g_strdup_printf("%s /%s", x->meter, x->path);
        char *start = utc_text(s->first_request_us);
        char *rtt1 = num_or_dash(s->rtt_first_median, "%.3f"), *rtt2 = num_or_dash(s->rtt_first_p95, "%.3f");
        char *ta1 = num_or_dash(s->turnaround_median, "%.3f"), *ta2 = num_or_dash(s->turnaround_p95, "%.3f");
        char *rtt = g_strdup_printf("%s/%s", rtt1, rtt2), *ta = g_strdup_printf("%s/%s", ta1, ta2);
        printf("%-3u %-*s %-27s %-4s %5u %6u %8u %8.1f %9.1f %7s %4u %5u %5u %5u %5u %5u %15s %15s\n",
               x->id, width, who, start + 0, s->complete ? "yes" : "no", 16u << x->szx, s->blocks, s->bytes,
               s->duration_s, s->rate_Bps, x->image_verified ? "yes" : "-", s->retransmissions, s->rerequests,
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
        print_tsv(t, l->seen);
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
