/* transfer.h: the per-transfer records the plugin prints with
 * `tshark -z meter,ota,tsv` (format "meterscope-ota 2", docs/plugin.md),
 * read line by line as tshark streams them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRANSFER_H
#define TRANSFER_H

#include <glib.h>

typedef enum { COL_U32, COL_I64, COL_DBL, COL_STR, COL_BOOL } col_type_t;

/* One column of a T record: its name in the TSV (and in CSV/JSON) and where
 * it lands in ms_transfer_t. */
typedef struct {
    const char *name;
    col_type_t  type;
    gsize       offset;
    gboolean    optional_value;  /* a negative number means "none" (JSON null, CSV empty) */
} ms_column_t;

typedef enum { PT_BLOCK, PT_RETRANSMISSION, PT_REREQUEST } ms_point_kind_t;

typedef struct {
    gint64          ts_us;
    guint32         bytes;
    ms_point_kind_t kind;
} ms_point_t;

typedef struct {
    guint32  transfer;
    char    *meter, *gateway, *path, *kind;
    guint32  szx_first, szx, block_size;
    gboolean renegotiated;
    guint32  blocks, bytes;
    gboolean complete, verified;
    gint64   first_request_us, last_response_us, last_activity_us;
    double   duration_s, rate_Bps;
    guint32  requests, retransmissions, rerequests, duplicate_responses, error_responses, mac_retries;
    guint32  spurious_retransmissions;
    guint32  datagrams_fragmented, datagrams_incomplete, fragments_lost;
    double   rtt_first_median_s, rtt_first_p95_s, rtt_last_median_s, rtt_last_p95_s;
    double   turnaround_median_s, turnaround_p95_s;
    guint32  first_frame, last_frame;
    double   time_air_s, time_timeouts_s, time_network_s, time_turnaround_s;
    guint32  stalls;
    double   stalled_s;
    guint32  datagram_copies, frames_sent, frames_unacked;
    gboolean acks_visible;
    gint64   size_hint;
    guint32  request_copies, request_copies_lost, request_frames_complete;
    guint32  response_copies, response_copies_lost, response_frames_complete, response_bytes_complete;
    guint32  response_first_lost, response_later_frames;
    GArray  *points;             /* ms_point_t, in time order */
} ms_transfer_t;

typedef struct {
    guint32 frames, wpan_frames, secured_frames, undecrypted_frames;
    char   *timestamps;          /* what the stamps mark: end, start, host or unknown */
    guint32 timestamp_pairs, timestamp_pairs_fit;   /* the frame-ACK gaps that told it */
    guint32 timestamp_early_messages;   /* messages timed before that was known */
} ms_counts_t;

/* What one capture gave. */
typedef struct {
    char      *file;
    GPtrArray *transfers;        /* ms_transfer_t* in transfer order */
    ms_counts_t counts;
    gboolean   header_seen, counts_seen;
    char      *format_error;     /* the TSV did not parse: what was wrong */
    /* reader state */
    GPtrArray *names_t, *names_p, *names_c;
} ms_capture_t;

const ms_column_t *ms_columns(guint *n);
ms_capture_t *ms_capture_new(const char *file);
void          ms_capture_free(ms_capture_t *c);
/* Feeds one line of tshark's standard output (without its newline). Lines
 * before the header (other taps, warnings) are ignored. */
void          ms_capture_feed(ms_capture_t *c, const char *line);
/* Drops the transfers of other meters (meter: an IPv6 address). */
void          ms_capture_keep_meter(ms_capture_t *c, const char *meter);

#endif
