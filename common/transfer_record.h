/* transfer_record.h: the records the plugin prints with `tshark -z
 * meter,ota,tsv` and the analyser reads (docs/plugin.md), defined once: a
 * T record per transfer, a P record per progress point, a C record per
 * capture. From these tables come the structs both sides fill, the
 * plugin's writer and the analyser's reader (transfer_record.c), the
 * analyser's CSV and JSON columns, the column table of docs/analyser.md
 * (`cmake --build build --target record-doc`) and the Python tests' reader
 * (tests/lib/tshark_view.py reads this file).
 *
 * Adding a column is one line in its table, and filling it where the
 * record is made (a T column: plugin/core/ota_track_stats.c). Readers look
 * columns up by name, so a column may be added within a version; removing
 * or changing one needs a new version.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRANSFER_RECORD_H
#define TRANSFER_RECORD_H

#include <glib.h>

#define METER_RECORD_VERSION "meterscope-ota 2"

/* X(name, type, optional, meaning), one line each (the Python reader parses
 * them: keep "X(name, TYPE, REQ|OPT," at the start of a line).
 *   name     the column's name in the TSV, the CSV and the JSON, and the member's
 *   type     U32, I64, DBL (printed with 6 decimals), STR or BOOL (0/1)
 *   optional OPT: a negative value means "none" (empty in CSV, null in JSON);
 *            REQ: a DBL is never negative (they are durations, rates, bytes)
 *   meaning  for the docs table
 * The order is the analyser's CSV and JSON column order. */
#define METER_TRANSFER_COLUMNS(X) \
    X(transfer, U32, REQ, "the plugin's transfer number (`meter.ota.transfer`)") \
    X(meter, STR, REQ, "the meter's IPv6 address") \
    X(gateway, STR, REQ, "the gateway's IPv6 address") \
    X(path, STR, REQ, "the URI path, with its leading `/`") \
    X(kind, STR, REQ, "`block2` (download) or `block1` (upload)") \
    X(szx_first, U32, REQ, "the SZX first asked for (late negotiation: the first answer's)") \
    X(szx, U32, REQ, "the last SZX used") \
    X(block_size, U32, REQ, "the block size of `szx`") \
    X(renegotiated, BOOL, REQ, "whether an answer's SZX differed from its request's (larger: `meter.ota.szx_larger`)") \
    X(blocks, U32, REQ, "distinct blocks") \
    X(bytes, U32, REQ, "contiguous bytes from offset 0") \
    X(complete, BOOL, REQ, "complete: the final response came") \
    X(verified, BOOL, REQ, "image verified (SHA-256, and the signature when a key is set)") \
    X(first_request_us, I64, REQ, "start: the first copy of the first request") \
    X(last_response_us, I64, OPT, "end (empty if incomplete)") \
    X(last_activity_us, I64, REQ, "last message") \
    X(duration_s, DBL, REQ, "end (else last activity) minus start") \
    X(rate_Bps, DBL, REQ, "bytes / duration") \
    X(requests, U32, REQ, "request rounds") \
    X(retransmissions, U32, REQ, "request rounds after the first round of the same MID") \
    X(spurious_retransmissions, U32, REQ, \
      "of the retransmissions, those whose answer was late, not lost (added within version 2)") \
    X(rerequests, U32, REQ, "requests with a new MID for an already requested block") \
    X(duplicate_responses, U32, REQ, "response rounds after a response's first: the answer sent again") \
    X(error_responses, U32, REQ, "responses with a 4.xx or 5.xx code") \
    X(mac_retries, U32, REQ, "MAC retries of the frames that carry the transfer's datagrams, every hop") \
    X(datagrams_fragmented, U32, REQ, "fragmented datagram copies, every hop") \
    X(datagrams_incomplete, U32, REQ, "of those, the ones never complete") \
    X(fragments_lost, U32, REQ, "fragments never acknowledged (when the capture shows ACKs)") \
    X(rtt_first_median_s, DBL, OPT, "median round trip from the first round of a request; empty when none") \
    X(rtt_first_p95_s, DBL, OPT, "its 95th percentile; empty when none") \
    X(rtt_last_median_s, DBL, OPT, "median round trip from the last round of a request; empty when none") \
    X(rtt_last_p95_s, DBL, OPT, "its 95th percentile; empty when none") \
    X(turnaround_median_s, DBL, OPT, "median turn-around (the meter's time between blocks); empty when none") \
    X(turnaround_p95_s, DBL, OPT, "its 95th percentile; empty when none") \
    X(first_frame, U32, REQ, "the first frame number, for Wireshark's Go to packet") \
    X(last_frame, U32, REQ, "the last frame number") \
    X(time_air_s, DBL, REQ, "where the time went: on the air (the six `time_*` add up to `duration_s`)") \
    X(time_timeouts_s, DBL, REQ, "waiting for CoAP timeouts") \
    X(time_network_s, DBL, REQ, "the network's round trips") \
    X(time_turnaround_s, DBL, REQ, "the meter's turn-around") \
    X(time_poll_s, DBL, REQ, "waiting for a sleepy device's poll (added within version 2)") \
    X(time_unseen_s, DBL, REQ, \
      "not visible from this capture: timeouts inferred at the gateway (added within version 2)") \
    X(time_poll_uncertain_s, DBL, REQ, \
      "how far `time_poll_s` may be off: waits whose start the capture could not see, half their bounds") \
    X(stalls, U32, REQ, "silences longer than `--stall` (default 10 s)") \
    X(stalled_s, DBL, REQ, "their total length") \
    X(datagram_copies, U32, REQ, "the loss model's inputs: every datagram copy of the transfer, every hop") \
    X(frames_sent, U32, REQ, "their distinct frames") \
    X(frames_unacked, U32, REQ, "of those, the frames never acknowledged (when the capture shows ACKs)") \
    X(acks_visible, BOOL, REQ, "whether the capture shows ACKs") \
    X(size_hint, I64, OPT, \
      "the image size the plugin knows (config blob, Size2 or MCUboot header), empty if none") \
    X(request_copies, U32, REQ, "the same by direction: request copies") \
    X(request_copies_lost, U32, REQ, "of those, the lost ones (incomplete, or a fragment never acknowledged)") \
    X(request_frames_complete, U32, REQ, "the frames of the complete ones") \
    X(response_copies, U32, REQ, "response copies (empty ACKs not counted)") \
    X(response_copies_lost, U32, REQ, "of those, the lost ones") \
    X(response_frames_complete, U32, REQ, "the frames of the complete ones") \
    X(response_bytes_complete, U32, REQ, "their PSDU bytes (FCS included): the block's overhead on air") \
    X(response_first_lost, U32, REQ, \
      "lost response copies lost at their first frame ([ota-sessions.md](ota-sessions.md))") \
    X(response_later_frames, U32, REQ, "the frames after the first that response copies sent") \
    X(vantage, STR, REQ, \
      "where the capture was taken: `radio`, or on IP next to the `meter` or the `gateway` (added within version 2)") \
    X(request_bytes_complete, U32, REQ, "PSDU bytes of the complete request copies (added within version 2)") \
    X(request_span_s, DBL, OPT, \
      "median time a clean exchange's request took across every hop, poll waits excluded; empty if none") \
    X(response_span_s, DBL, OPT, "the same for its response") \
    X(fragn_room, U32, REQ, \
      "data a full FRAGN carries on the transfer's tightest hop (127 less its frame's other bytes, to 8); 0 if none") \
    X(frag1_block_bytes, DBL, OPT, \
      "median bytes of the block a FRAG1 of the block's direction carried; empty if none was fragmented") \
    X(eta_s, DBL, OPT, "incomplete, size known: seconds more at the rate the capture shows; else empty") \
    X(eta_low_s, DBL, OPT, "its 90% range: low end") \
    X(eta_high_s, DBL, OPT, "its 90% range: high end") \
    X(frames_missed_by_sniffer, U32, REQ, \
      "frames of its datagrams (fragments, ACKs, retries) the sniffer missed, as what it captured after them proves (added within version 2)") \
    X(copies_lost_uncertain, U32, REQ, \
      "of the lost request and response copies, those the sniffer may have missed the delivery of: each `*_copies_lost` is an upper bound, at most this much too high (added within version 2)") \
    X(frames_unacked_uncertain, U32, REQ, \
      "of `frames_unacked`, those sent fewer than 4 times as captured: their ACK may have gone uncaptured; `frames_unacked` and `fragments_lost` are at most this much too high (added within version 2)") \
    X(frames_missed_estimate, U32, REQ, \
      "frames of the transfer the sniffer missed, estimated: the share of its senders' frame numbers no captured frame carried, applied to the frames it captured; at least `frames_missed_by_sniffer` (added within version 2)") \
    X(frames_missed_high, U32, REQ, \
      "the high end of that estimate's 99% range: `requests`, `retransmissions`, `rerequests`, `mac_retries` and `datagram_copies` count what was captured and are at most this much too low (added within version 2)") \
    X(polls, U32, REQ, \
      "the meter's Data Requests (a sleepy meter's polls) captured while the transfer went on (added within version 2)") \
    X(poll_period_s, DBL, OPT, \
      "the median time between two of them, leaving out the bursts (20 ms or closer) while a parent has frames pending: the poll period during the transfer; empty if none (added within version 2)") \
    X(retransmit_after_median_s, DBL, OPT, \
      "median time from a request's first transmission to its first retransmission: ACK_TIMEOUT times the random factor the meter drew; empty if none was retransmitted (added within version 2)") \
    X(train_middle_frames, U32, REQ, \
      "the loss of a frame by its place in a train: of the block's direction (a download's responses, an upload's requests), the fragments between the first and the last that copies sent, up to the one a lost copy stopped at (added within version 2)") \
    X(train_middle_lost, U32, REQ, "of those, the ones a copy was lost at (added within version 2)") \
    X(train_position_sum, U32, REQ, \
      "the sum of those fragments' places in their trains (the first fragment's is 0) (added within version 2)") \
    X(train_position_sq_sum, U32, REQ, "the sum of their squares (added within version 2)") \
    X(train_lost_position_sum, U32, REQ, "the sum of the places of those a copy was lost at (added within version 2)") \
    X(train_last_frames, U32, REQ, \
      "last fragments (the one that ends the datagram) of the block's direction that copies sent (added within version 2)") \
    X(train_last_lost, U32, REQ, "of those, the ones a copy was lost at (added within version 2)") \
    X(blocks_retried, U32, REQ, \
      "blocks whose request went out more than once (retransmitted or asked again): few for an outage, many for a lossy link (added within version 2)") \
    X(protocol_anomalies, U32, REQ, \
      "answers that break RFC 7959: a block of another length than its SZX with more to come, a larger SZX than asked, SZX 7 (added within version 2)")

/* A point of a transfer's progress, for plots. */
#define METER_PROGRESS_COLUMNS(X) \
    X(transfer, U32, REQ, "the transfer it belongs to") \
    X(ts_us, I64, REQ, "its time") \
    X(bytes, U32, REQ, "distinct block bytes accepted by then") \
    X(kind, STR, REQ, "`block`, `retransmission` or `rerequest`")

/* What the capture held, so that a reader can tell an empty report from an
 * encrypted capture read without its key; what its stamps mark, and how
 * many could not be taken as they are (plugin/core/ota_clock.h). */
#define METER_COUNTS_COLUMNS(X) \
    X(frames, U32, REQ, "frames") \
    X(wpan_frames, U32, REQ, "802.15.4 frames") \
    X(secured_frames, U32, REQ, "secured 802.15.4 frames") \
    X(undecrypted_frames, U32, REQ, "of those, the ones not decrypted") \
    X(undecrypted_levels, U32, REQ, \
      "bit N set: a frame not decrypted had 802.15.4 security level N (added within version 2)") \
    X(undecrypted_key_id_modes, U32, REQ, \
      "bit N set: a frame not decrypted had key identifier mode N; Thread's MAC security is 1 (added within version 2)") \
    X(timestamps, STR, REQ, "what the stamps mark: `end`, `start`, `host` or `unknown`") \
    X(timestamp_pairs, U32, REQ, "frame-ACK pairs that tell start from end") \
    X(timestamp_pairs_fit, U32, REQ, "of those, the ones the mark fits") \
    X(timestamp_early_messages, U32, REQ, "messages timed before that was known, as if stamped at their end") \
    X(timestamps_zero, U32, REQ, \
      "frames stamped 0 (1970-01-01): the capture may carry no times (added within version 2)") \
    X(timestamps_earlier, U32, REQ, \
      "frames stamped earlier than an earlier frame, timed at the latest time before them (added within version 2)") \
    X(timestamps_out_of_range, U32, REQ, \
      "frames stamped before 1970 or after 9999, timed at the latest time before them (added within version 2)") \
    X(acks_unmatched, U32, REQ, \
      "ACKs of no captured frame awaiting one: the frame they acknowledge was missed by the sniffer, and delivered (added within version 2)") \
    X(frames_missed_by_sniffer, U32, REQ, \
      "frames the sniffer missed, as what it captured after them proves: the datagram copies' and what every sender's frame numbers show (added within version 2)")

/* A DBL is at most this either way: a capture's times span at most 2^63 us
 * (9.2e12 s), a rate is at most 2^32 bytes in 1 us (4.3e15 B/s), so a
 * bigger value is no plugin's; and every figure the analyser derives from
 * one (shares, rates, the model) stays finite. */
#define METER_RECORD_DBL_MAX 1e18

#define METER_RECORD_CTYPE_U32  guint32
#define METER_RECORD_CTYPE_I64  gint64
#define METER_RECORD_CTYPE_DBL  double
#define METER_RECORD_CTYPE_STR  const char *
#define METER_RECORD_CTYPE_BOOL gboolean
#define METER_RECORD_MEMBER(name, type, optional, meaning) METER_RECORD_CTYPE_##type name;

/* Strings: the plugin points them at its own; what the reader parses it
 * g_strdup()s (meter_record_clear frees them). */
typedef struct { METER_TRANSFER_COLUMNS(METER_RECORD_MEMBER) } meter_transfer_record_t;
typedef struct { METER_PROGRESS_COLUMNS(METER_RECORD_MEMBER) } meter_progress_record_t;
typedef struct { METER_COUNTS_COLUMNS(METER_RECORD_MEMBER) } meter_counts_record_t;

typedef enum { METER_COL_U32, METER_COL_I64, METER_COL_DBL, METER_COL_STR, METER_COL_BOOL } meter_col_type_t;

typedef struct {
    const char      *name;
    meter_col_type_t type;
    gsize            offset;      /* of its member in the record struct */
    gboolean         optional;    /* a negative value means "none" */
    const char      *meaning;
} meter_column_t;

typedef struct {
    const char           *tag;    /* what its lines start with: "T", "P", "C" ("#T" names its columns) */
    const meter_column_t *columns;
    guint                 n_columns;
    gsize                 record_size;
} meter_record_schema_t;

extern const meter_record_schema_t meter_transfer_schema, meter_progress_schema, meter_counts_schema;

/* "# meterscope-ota 2" and the lines naming the columns of each record. */
void     meter_record_write_header(GString *out);
/* One record's line, newline included. A string's control characters are
 * written as C escapes (\t, \n, \r, else \ooo): no cell holds a tab or a
 * line break, whatever a capture's URI path holds. */
void     meter_record_write(GString *out, const meter_record_schema_t *schema, const void *record);
/* A cell's text into its column's member; FALSE, and the member as it
 * was, unless all of text is one value the column holds (what
 * meter_record_wanted says): U32 and BOOL in range, without a sign; I64
 * within 64 bits; DBL finite and within METER_RECORD_DBL_MAX, not negative
 * unless OPT; STR UTF-8 without control characters. Never a value taken as far as it reads, nor
 * one clamped to fit. */
gboolean meter_record_parse(const meter_column_t *col, const char *text, void *record);
/* What a cell of col must hold, for messages: "a whole number from 0 to 4294967295". */
const char *meter_record_wanted(const meter_column_t *col);
/* Whether two records hold the same value in a column (strings by their text). */
gboolean meter_record_column_equal(const meter_column_t *col, const void *a, const void *b);
/* Frees the strings meter_record_parse made and zeroes the record. */
void     meter_record_clear(const meter_record_schema_t *schema, void *record);

/* The parts of the time split, the `time_*` columns that add up to
 * `duration_s` (docs/ota-sessions.md), in the reports' order, each with
 * the words the reports give it. */
typedef struct {
    const char *column;
    const char *label;
    gsize       offset;           /* of its member in meter_transfer_record_t */
} meter_split_part_t;

#define METER_SPLIT_PARTS 6
extern const meter_split_part_t meter_split_parts[METER_SPLIT_PARTS];

static inline double meter_split_value(const meter_transfer_record_t *r, guint part)
{
    return *(const double *)((const char *)r + meter_split_parts[part].offset);
}

#endif
