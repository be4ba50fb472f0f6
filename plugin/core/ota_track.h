/* ota_track.h: follows block-wise transfers block by block and accounts for
 * 6LoWPAN fragments, as docs/ota-sessions.md defines it. Pure state: it is
 * fed what the dissectors found in each frame (first pass, in frame order)
 * and answers what the display and the statistics need; no proto_tree.
 *
 * What this header holds: the inputs (a frame's link facts, ota_link_in_t;
 * a 6LoWPAN header, lowpan_view_t; a CoAP message, meter_coap_t, and the
 * exchange it belongs to), handles the caller keeps but never looks into
 * (the tracker, a frame's record while it is read, a message copy's result,
 * a frame's note for later passes), and the result model: each transfer's
 * record (meter_transfer_record_t, common/transfer_record.h), what the
 * capture held, and small views of what the display shows of a frame or a
 * message. The tracker's working records are its own (ota_track_state.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef OTA_TRACK_H
#define OTA_TRACK_H

#include <epan/wmem_scopes.h>
#include <epan/address.h>
#include "coap_msg.h"
#include "coap_exchange.h"
#include "lowpan_view.h"
#include "transfer_record.h"

typedef guint64 ota_addr_t;     /* EUI-64, or 0xffff0000 | short address, 0 = none */

/* ---- inputs ---- */

/* One transmission on the air as the hook saw it. */
typedef struct {
    guint32    frame;
    gint64     ts_us;
    gboolean   has_wpan;
    guint8     frame_type;       /* WPAN_FRAME_* */
    guint8     seq;
    gboolean   ack_request;
    ota_addr_t src, dst;
    guint32    air_us;           /* time on air: (PSDU + 6-byte PHY header) x 32 us */
    gboolean   secured, decrypted;
    gboolean   data_request;     /* a MAC Data Request: its sender is a sleepy device polling */
    gboolean   time_held;        /* ts_us is not its stamp (ota_clock.h): its gaps tell nothing */
    gboolean   carries_coap;     /* CoAP was dissected in it (a datagram the tracker may follow) */
    guint64    content_hash;     /* of its PSDU (FCS aside): a MAC retry is the same bytes */
    guint64    fingerprint;      /* of its record's bytes and raw stamp: the same frame captured twice */
} ota_link_in_t;

/* What the caller knows of a firmware image a transfer carries. */
typedef struct {
    gboolean image;              /* the resource is a firmware image: its MCUboot header tells its size */
    gint64   announced_size;     /* the size the meter's configuration announced for it (-1: none) */
} ota_image_hints_t;

/* What the capture's timestamps mark, as the ACK gaps tell it: a frame's
 * end, its start (moved to its end here), or its arrival at the host
 * (taken as they are: times are then good to a few ms). */
typedef enum { OTA_STAMP_UNKNOWN, OTA_STAMP_END, OTA_STAMP_START, OTA_STAMP_HOST } ota_stamp_kind_t;

/* ---- handles ---- */

typedef struct ota_track ota_track_t;
/* A frame's link record while it is read (ota_track_frame to
 * ota_track_frame_done); the tracker reuses it after. */
typedef struct ota_frame ota_frame_t;
/* A CoAP message copy's place in its transfer, kept by the caller for later
 * passes: ota_result_view() shows it as it stands then. */
typedef struct ota_copy_result ota_copy_result_t;
/* What the display keeps of a frame's link record for later passes: the
 * datagram copy and fragment it carried, whether it was a retry, and the
 * frames it refers to as distances (a retry and an ACK come within
 * milliseconds, a few frames later). 64 bits where a record is 56 bytes
 * and an allocation: most frames of a long capture have one. 0: none. */
typedef guint64 ota_link_note_t;

/* ---- results ---- */

enum ota_cause {
    OTA_CAUSE_NONE = 0,
    OTA_CAUSE_REQUEST_LOST,     /* the request's datagram was incomplete or never acknowledged */
    OTA_CAUSE_RESPONSE_LOST,    /* the response's datagram was incomplete or never acknowledged */
    OTA_CAUSE_NOT_ACCEPTED,     /* a response got through on air; the meter did not take it */
    OTA_CAUSE_NOTHING_VISIBLE,  /* nothing lost on air: a late response or a sniffer miss */
    OTA_CAUSE_SPURIOUS,         /* nothing lost, and the answer to an earlier transmission came after it */
};

/* What the capture held, so that a reader can tell an empty report from an
 * encrypted capture read without its key. */
typedef struct {
    guint32 frames, wpan_frames, secured_frames, undecrypted_frames;
    guint32 acks_unmatched;      /* ACKs of no frame captured awaiting one: each one frame missed */
    guint32 frames_missed;       /* every frame the capture shows the sniffer missed (made by finalize) */
} ota_capture_counts_t;

typedef struct {
    ota_stamp_kind_t kind;
    gboolean fixed;              /* given by the user, not read from the gaps */
    guint32 pairs;               /* frame-ACK pairs that tell start from end */
    guint32 fit_end, fit_start;  /* of those, the ones each fits */
    guint32 decided_frame;       /* the ACK whose gap decided (0: none yet) */
    guint32 early_messages;      /* messages timed before that, as if stamped at their end */
} ota_time_base_t;

/* A frame's link facts as the display shows them, and the datagram copy it
 * carried as that copy stands when the view is made. */
typedef struct {
    guint32  copy;               /* the copy's number (meter.frag.datagram); 0: the frame carried no copy followed */
    guint32  transfer;           /* the transfer whose message the copy carries; 0 while not known (every copy
                                    is attributed once finalized) */
    guint32  first_tx_frame;     /* a MAC retry or sniffer duplicate: the first transmission (0: not known) */
    guint32  ack_frame;          /* the ACK that followed (0: none seen) */
    guint16  frag_offset;
    guint8   frag_index;
    gboolean mac_retry, sniffer_dup;
    gboolean frag_acked;         /* an ACK followed one of this fragment's transmissions */
    /* The copy (when copy is not 0): */
    ota_addr_t copy_src, copy_dst;   /* its link sender and receiver */
    guint16  tag, size;          /* its datagram tag and size */
    gboolean fragmented;         /* FRAG1/FRAGN headers */
    gboolean bad_size;           /* datagram_size 0 or smaller than a fragment's end: never complete */
    gboolean complete;
    guint32  complete_frame;     /* the frame that completed it */
    guint32  frags_seen;         /* its distinct fragments so far */
    guint32  covered;            /* the bytes they cover */
} ota_link_view_t;

/* A CoAP message copy in its transfer as the display shows it: the copy's
 * own facts as they were read, the message's and the transfer's as they
 * stand when the view is made. */
typedef struct {
    /* The transfer: */
    guint32  transfer;
    guint32  transfer_first_frame;
    const char *meter, *path;    /* the meter's address; the path without its leading slash */
    gboolean upload;             /* Block1 */
    guint8   szx;                /* its block size as of now */
    gboolean verified;           /* its image verified as of now */
    gboolean complete;           /* as the last ota_track_finalize() found: complete, */
    guint32  last_frame;         /* and its last frame */
    /* The message: */
    gboolean is_request;
    guint8   code;
    guint32  offset;             /* its block's byte offset */
    gboolean final;              /* a success that ends the transfer (M=0, or the answer to the last upload block) */
    gboolean asked_szx0;         /* a response whose request asked for SZX 0 */
    guint32  round_first_frame;  /* the first frame of the round this copy is in */
    /* This copy: */
    guint32  round;              /* 1-based */
    guint32  prev_tx_frame;      /* first copy of the previous round (or previous request of the block) */
    guint32  bytes_so_far;
    gint64   elapsed_us;         /* since the transfer's first request */
    gint64   rtt_first_us, rtt_last_us;   /* responses; -1 if not known */
    gint64   turnaround_us;      /* requests; -1 if not known */
    gint64   size_hint;          /* -1 if not known */
    gboolean size_at_least;      /* size_hint is what the image's MCUboot header and TLV info tell: the
                                    transfer may go on after it (mcuboot_size.h) */
    gint64   stall_us;
    enum ota_cause cause;        /* retransmissions and re-requests */
    guint8   szx_asked;          /* a response: the SZX its request asked for (szx_larger) */
    gboolean hop_copy, retransmission, rerequest, duplicate_response;
    gboolean out_of_order, gap, renegotiation;
    gboolean szx_larger;         /* a response with a larger SZX than its request's: RFC 7959 2.4 forbids it */
} ota_msg_view_t;

/* A point of a transfer's progress, for plots. */
enum ota_progress_kind { OTA_PROGRESS_BLOCK, OTA_PROGRESS_RETRANSMISSION, OTA_PROGRESS_REREQUEST };
typedef struct {
    gint64  ts_us;
    guint32 bytes;                /* distinct block bytes accepted by then */
    enum ota_progress_kind kind;
} ota_progress_t;

/* ---- frames ---- */

ota_track_t     *ota_track_new(wmem_allocator_t *scope);
/* The link-layer facts of a frame; returns its record while it is read. */
ota_frame_t     *ota_track_frame(ota_track_t *t, const ota_link_in_t *in);
/* The frame's time as the tracker takes it: its end, once the time base is known. */
gint64           ota_frame_time_us(const ota_frame_t *f);
/* At the end of the frame's first pass: what later passes show of it (0:
 * nothing, it carried no datagram copy). The caller must forget the record
 * (the tracker reuses it). */
ota_link_note_t  ota_track_frame_done(ota_track_t *t, ota_frame_t *f);
/* An ACK's record: the frame it acknowledges (0: f is no matched ACK). The
 * caller updates that frame's note with ota_link_note_acked(). */
guint32          ota_track_frame_acked(const ota_frame_t *f);
ota_link_note_t  ota_link_note_acked(ota_link_note_t note, guint32 frame, guint32 ack_frame);
/* The display's view of a frame being read, or of one read before (frame
 * is the note's frame). */
void             ota_track_frame_view(const ota_frame_t *f, ota_link_view_t *v);
void             ota_track_note_view(const ota_track_t *t, guint32 frame, ota_link_note_t note,
                                     ota_link_view_t *v);
/* A 6LoWPAN header seen in that frame. */
void             ota_track_lowpan(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv);

/* ---- CoAP messages ---- */

/* The exchange a CoAP message belongs to (NULL: an answer to no request
 * seen). src and dst are the endpoints as coap_endpoint_key() gives them;
 * ts_us is the frame's stamp as captured. Every message goes through here,
 * whether or not it is part of a transfer. */
coap_exchange_t *ota_track_exchange(ota_track_t *t, const meter_coap_t *m, const char *src, const char *dst,
                                    const address *src_addr, const address *dst_addr, guint32 frame,
                                    gint64 ts_us, wmem_allocator_t *tmp);
/* Whether a transfer's image size is known yet (hints are worth finding only before). */
gboolean ota_track_size_known(ota_track_t *t, guint32 transfer_id);
/* A complete CoAP message copy in frame f (NULL f: no link layer, e.g. the
 * gateway's Ethernet), of exchange ex; NULL unless ex is part of a transfer.
 * A response in two transfers (a Block1 exchange answered with Block2) has
 * the second's result in ota_result_also(). */
ota_copy_result_t *ota_track_message(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us,
                                     const char *src, coap_exchange_t *ex, const meter_coap_t *m,
                                     const ota_image_hints_t *hints);
/* The request of ex in frame as a transfer took it when the request's
 * answer came (late negotiation, or the download a Block1 exchange's answer
 * starts): on the first pass the request was not known to be part of it.
 * NULL when it did not. */
const ota_copy_result_t *ota_track_joined_request(const coap_exchange_t *ex, guint32 frame);
/* The same message in a second transfer: the download a Block1 exchange's
 * answer starts (NULL: none). */
const ota_copy_result_t *ota_result_also(const ota_copy_result_t *r);
/* The transfer a result is in. */
guint32          ota_result_transfer(const ota_copy_result_t *r);
void             ota_result_view(const ota_copy_result_t *r, ota_msg_view_t *v);

/* ---- one read ---- */

/* One read whatever the stamps (ota_track_entry.c, "one read"): until the ACK
 * gaps tell what they mark, a copy of the tracker reads the frames as if
 * stamped at their start, and takes over if they were. Right after the
 * ota_track_frame_done() or ota_track_finalize() where it did,
 * ota_track_rebound() is TRUE: the records the caller keeps of the frames read so far name
 * exchanges and results of the tracker as it was, and notes it made;
 * ota_track_counterpart() gives each exchange or result the one that took
 * its place (itself if none did), ota_track_counterpart_note() a frame's
 * note (0: none), until ota_track_rebind_done() (or the next frame). */
gboolean         ota_track_rebound(const ota_track_t *t);
void             ota_track_rebind_done(ota_track_t *t);
gconstpointer    ota_track_counterpart(const ota_track_t *t, gconstpointer mine);
ota_link_note_t  ota_track_counterpart_note(const ota_track_t *t, guint32 frame);

/* ---- the capture and its transfers ---- */

const ota_capture_counts_t *ota_track_counts(const ota_track_t *t);
const ota_time_base_t *ota_track_time_base(const ota_track_t *t);
/* The user says what the stamps mark: no reading from the gaps. */
void             ota_track_fix_time_base(ota_track_t *t, ota_stamp_kind_t kind);
/* "end", "start", "host" or "unknown" (no ACK told). */
const char      *ota_stamp_kind_name(ota_stamp_kind_t kind);
void             ota_track_set_verified(ota_track_t *t, guint32 transfer_id);
/* Derives every transfer's statistics and the accepted responses; cheap to
 * call again, and called again whenever frames were added since. */
void             ota_track_finalize(ota_track_t *t, double stall_s);
/* The transfers, in id order, and each one's record (what -z
 * meter,ota,tsv prints of it) as the last ota_track_finalize() made it:
 * its own columns (id, meter, path, SZX, ...) and its statistics. */
guint            ota_track_n_transfers(const ota_track_t *t);
const meter_transfer_record_t *ota_track_record_at(const ota_track_t *t, guint i);
/* NULL: no such transfer. */
const meter_transfer_record_t *ota_track_record(const ota_track_t *t, guint32 transfer_id);
/* The transfer's progress: a point per accepted block and per repeated
 * request, in time order (allocated in scope; empty for no such transfer). */
wmem_array_t    *ota_track_progress(ota_track_t *t, guint32 transfer_id, wmem_allocator_t *scope);

#endif
