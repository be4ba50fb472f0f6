/* ota_track.h: follows block-wise transfers block by block and accounts for
 * 6LoWPAN fragments, as docs/ota-sessions.md defines it. Pure state: it is
 * fed what the dissectors found in each frame (first pass, in frame order)
 * and answers what the display and the statistics need; no proto_tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef OTA_TRACK_H
#define OTA_TRACK_H

#include <epan/wmem_scopes.h>
#include <epan/address.h>
#include "coap_msg.h"
#include "coap_exchange.h"
#include "lowpan_view.h"
#include "wpan_view.h"
#include "transfer_record.h"
#include "mcuboot_size.h"

typedef guint64 ota_addr_t;     /* EUI-64, or 0xffff0000 | short address, 0 = none */

enum ota_cause {
    OTA_CAUSE_NONE = 0,
    OTA_CAUSE_REQUEST_LOST,     /* the request's datagram was incomplete or never acknowledged */
    OTA_CAUSE_RESPONSE_LOST,    /* the response's datagram was incomplete or never acknowledged */
    OTA_CAUSE_NOT_ACCEPTED,     /* a response got through on air; the meter did not take it */
    OTA_CAUSE_NOTHING_VISIBLE,  /* nothing lost on air: a late response or a sniffer miss */
    OTA_CAUSE_SPURIOUS,         /* nothing lost, and the answer to an earlier transmission came after it */
};

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

/* What the capture held, so that a reader can tell an empty report from an
 * encrypted capture read without its key. */
typedef struct {
    guint32 frames, wpan_frames, secured_frames, undecrypted_frames;
    guint32 acks_unmatched;      /* ACKs of no frame captured awaiting one: each one frame missed */
    guint32 frames_missed;       /* every frame the capture shows the sniffer missed (made by finalize) */
} ota_capture_counts_t;

typedef struct ota_copy ota_copy_t;
typedef struct ota_msg ota_msg_t;
typedef struct ota_transfer ota_transfer_t;

/* What the capture's timestamps mark, as the ACK gaps tell it: a frame's
 * end, its start (moved to its end here), or its arrival at the host
 * (taken as they are: times are then good to a few ms). */
typedef enum { OTA_STAMP_UNKNOWN, OTA_STAMP_END, OTA_STAMP_START, OTA_STAMP_HOST } ota_stamp_kind_t;
typedef struct {
    ota_stamp_kind_t kind;
    gboolean fixed;              /* given by the user, not read from the gaps */
    guint32 pairs;               /* frame-ACK pairs that tell start from end */
    guint32 fit_end, fit_start;  /* of those, the ones each fits */
    guint32 decided_frame;       /* the ACK whose gap decided (0: none yet) */
    guint32 early_messages;      /* messages timed before that, as if stamped at their end */
} ota_time_base_t;

/* Per frame while it is read: what the link and fragment accounting found.
 * The tracker reuses a record once the frame is done (ota_track_frame_done)
 * and no later frame can refer to it any more; what the display keeps of it
 * is an ota_link_note_t. */
typedef struct {
    gint64     ts_us;            /* the frame's end, as far as the time base is known */
    ota_addr_t src, dst;
    ota_copy_t *copy;            /* the datagram copy a fragment belongs to */
    guint32    frame;
    union {                      /* (an ACK is never a retry) */
        guint32 first_tx_frame;  /* a retry/duplicate: the first transmission */
        guint32 acked_frame;     /* an ACK: the frame it acknowledges */
    };
    guint32    ack_frame;        /* the ACK that followed (0: none seen yet) */
    guint32    air_us;
    guint32    gap;              /* 1 + index of the missed frames its number showed (0: none) */
    guint64    content_hash;     /* as in ota_link_in_t */
    gint64     first_tx_raw_us;  /* the stamp of its first transmission (itself if it is one) */
    guint16    frag_offset, frag_len;
    guint8     frag_index;       /* index in copy->frags (< OTA_MAX_FRAGS) */
    guint8     seq;
    guint8     earlier_missed;   /* transmissions of it before this one the sniffer missed (their ACKs came) */
    guint8     holders;          /* the tracker's references while frames are read */
    guint8     mac_retry : 1, sniffer_dup : 1;
    guint8     data_request : 1; /* a sleepy node's poll (not a retry of one its parent answered) */
    guint8     let_go : 1;       /* the caller keeps it no longer */
    guint8     moved_to_end : 1; /* ts_us is its stamp plus air_us (stamped at its start) */
    guint8     is_ack : 1;       /* an ACK of the frame acked_frame */
    guint8     carries_coap : 1; /* as in ota_link_in_t */
    guint8     acked_late : 1;   /* (no datagram) an ACK came in its retry window: that of a retry missed */
} ota_frame_t;

/* What the display keeps of a frame's link record for later passes: the
 * datagram copy and fragment it carried, whether it was a retry, and the
 * frames it refers to as distances (a retry and an ACK come within
 * milliseconds, a few frames later). 64 bits where a record is 56 bytes
 * and an allocation: most frames of a long capture have one. 0: none. */
typedef guint64 ota_link_note_t;

/* A frame's link facts as the display shows them. */
typedef struct {
    const ota_copy_t *copy;      /* NULL: the frame carried no datagram copy */
    guint32  first_tx_frame;     /* a MAC retry or sniffer duplicate: the first transmission (0: not known) */
    guint32  ack_frame;          /* the ACK that followed (0: none seen) */
    guint16  frag_offset;
    guint8   frag_index;
    gboolean mac_retry, sniffer_dup;
} ota_link_view_t;

typedef struct {
    gint64   acked_us;            /* the end of its first acknowledged transmission (0: none) */
    guint32  first_frame;
    guint16  offset, len;         /* FRAG1: len is its uncompressed span, 0 if unknown */
    guint16  psdu_len;            /* its frame's PSDU, FCS included */
    guint16  transmissions;       /* (saturates) */
    guint8   acked : 1;
    guint8   retry_missed : 3;    /* transmissions the sniffer missed whose ACKs it captured (saturates) */
    guint8   delivered : 1;       /* no ACK captured, yet what came after proves it arrived (finalize) */
} ota_frag_t;

#define OTA_MAX_FRAGS 64   /* 1280-byte IPv6 MTU over >= 20-byte fragments */

/* One per datagram copy of a long capture: kept compact. */
struct ota_copy {
    ota_addr_t  src, dst;
    gint64      first_us, last_us;
    ota_frag_t *frags;            /* grows as fragments appear */
    ota_msg_t  *msg;              /* the message it carried, once known */
    ota_copy_t *next_of_msg;      /* the next copy of msg, in capture order (made by finalize) */
    guint32     id;
    guint32     first_frame, last_frame;
    guint32     covered;          /* bytes covered (FRAG1 up to the next offset) */
    guint32     complete_frame;
    guint16     tag, size;
    guint16     first_air_us;     /* its first frame's time on air: it began first_us less that */
    guint16     coap_mid;
    guint8      coap_type, coap_code;
    guint8      n_frags, cap_frags;   /* at most OTA_MAX_FRAGS */
    guint8      last_seq;         /* the 802.15.4 sequence number of its latest new fragment */
    guint8      acks_claimed;     /* unmatched ACKs that its missing fragments explain */
    guint8      missed_frags;     /* of its fragments, those never captured that finalize infers were sent */
    guint8      missed_frames;    /* those and the ACKs and retries of it the sniffer missed (finalize) */
    guint8      fragmented : 1;   /* FRAG1/FRAGN headers (size may still be 0: bad_size) */
    guint8      bad_size : 1;     /* datagram_size 0 or smaller than a fragment's end: never complete */
    guint8      complete : 1;
    guint8      has_coap : 1;
    guint8      msg_is_guess : 1; /* msg chosen by finalize (nearest in time): redone every time */
    /* What finalize infers from the frames after it (docs/ota-sessions.md,
     * "Frames the sniffer missed"), redone every time: */
    guint8      whole : 1;        /* every byte was on the air, captured or not */
    guint8      lost : 1;         /* not shown delivered: incomplete, or a frame not shown acknowledged */
    guint8      lost_uncertain : 1; /* lost, but the sniffer may have missed what would show it delivered */
};

typedef struct ota_copy_result ota_copy_result_t;

/* A link source as a round keeps it: an EUI-64 folded to 32 bits (short
 * addresses stay as they are). */
static inline guint32 ota_link_id(ota_addr_t a)
{
    return (guint32)(a ^ (a >> 32));
}

/* One transmission round of a message: its copies hop by hop. */
typedef struct {
    guint32    first_frame, last_frame;
    gint64     first_us, last_us;
    guint32    links[8];          /* link sources used (ota_link_id) */
    guint      n_links;
    ota_copy_result_t *result;    /* what its first copy's frame shows */
    gint64     start_us;          /* when the first frame of its first copy began */
} ota_round_t;

typedef struct { ota_round_t *at; guint32 n, cap; } ota_rounds_t;
typedef struct { ota_msg_t **at; guint32 n, cap; } ota_msg_list_t;

struct ota_msg {
    ota_transfer_t *xfer;
    ota_rounds_t rounds;
    ota_msg_t *request;           /* a response: its request */
    ota_msg_list_t responses;     /* a request: its response messages */
    ota_copy_t *copies;           /* its datagram copies, chained by next_of_msg (made by finalize) */
    gint64     not_before;        /* no copy of it can start earlier: the exchange began then */
    meter_coap_identity_t id;     /* with the MID, what tells it from another message */
    guint32    offset, len;       /* block byte offset and payload length */
    guint16    mid;
    guint8     type, code;
    guint8     szx;
    guint8     is_request : 1;
    guint8     from_client : 1;   /* sent by the exchange's client (a request, or its ACK to a separate response) */
    guint8     has_block : 1, more : 1;
    guint8     joined_late : 1;   /* a request that joined its transfer when its answer came (ota_track_joined_request) */
};

/* Per CoAP message copy in a frame: what the display shows. */
struct ota_copy_result {
    ota_msg_t *msg;
    gint64     elapsed_us;        /* since the transfer's first request */
    gint64     rtt_first_us, rtt_last_us;   /* responses; -1 if not known */
    gint64     turnaround_us;     /* requests; -1 if not known */
    gint64     size_hint;         /* -1 if not known */
    gint64     stall_us;
    ota_copy_result_t *also;      /* the same message in a second transfer: the download a Block1 exchange's answer starts */
    guint32    round;             /* 1-based */
    guint32    prev_tx_frame;     /* first copy of the previous round (or previous request of the block) */
    guint32    bytes_so_far;
    guint8     cause;             /* enum ota_cause: retransmissions and re-requests */
    guint8     szx_asked;         /* a response: the SZX its request asked for (szx_larger) */
    guint8     hop_copy : 1, retransmission : 1, rerequest : 1, duplicate_response : 1;
    guint8     out_of_order : 1, gap : 1, renegotiation : 1;
    guint8     szx_larger : 1;    /* a response with a larger SZX than its request's: RFC 7959 2.4 forbids it */
    guint8     size_at_least : 1; /* size_hint is what the image's MCUboot header and TLV info tell: the
                                     transfer may go on after it (mcuboot_size.h) */
};

/* A point of a transfer's progress, for plots. */
enum ota_progress_kind { OTA_PROGRESS_BLOCK, OTA_PROGRESS_RETRANSMISSION, OTA_PROGRESS_REREQUEST };
typedef struct {
    gint64  ts_us;
    guint32 bytes;                /* distinct block bytes accepted by then */
    enum ota_progress_kind kind;
} ota_progress_t;

struct ota_transfer {
    guint32    id;
    guint32    slot;              /* its place in the tracker's list of transfers */
    const char *meter, *gateway, *path;
    gboolean   upload;            /* Block1 */
    gboolean   on_radio;          /* its messages came in IEEE 802.15.4 frames */
    guint8     szx_first, szx;
    gboolean   renegotiated;
    ota_addr_t meter_link;        /* link-layer source of the meter's requests */
    gint64     size_hint;
    gboolean   size_at_least;     /* as in ota_copy_result_t */
    mcuboot_size_t image;         /* a firmware image's size as its blocks tell it */
    guint32    first_frame, last_frame;
    gint64     first_us, last_us;
    wmem_array_t *msgs;           /* ota_msg_t * in order of first copy */
    wmem_map_t *request_at;       /* byte offset + 1 -> latest request for that block */
    guint32    next_offset;       /* contiguous bytes so far (first pass) */
    guint32    highest_requested;
    gint64     last_response_us;  /* first pass: for turn-around */
    wmem_array_t *silences;       /* gint64 pairs {start_us, length_us}: gaps >= 1 s between copies */
    gboolean   image_verified;
    guint32    frames_captured_unlogged;  /* finalize: its ACKs captured of frames the sniffer missed, */
    guint32    acks_matched;      /* and of frames it captured */
    /* What -z meter,ota,tsv prints of it (common/transfer_record.h), made by
     * finalize: its own columns (id, meter, path, SZX, ...) and the statistics. */
    meter_transfer_record_t rec;
};

typedef struct ota_track ota_track_t;

ota_track_t     *ota_track_new(wmem_allocator_t *scope);
/* The link-layer facts of a frame; returns its record (kept for display). */
ota_frame_t     *ota_track_frame(ota_track_t *t, const ota_link_in_t *in);
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
/* The transfer whose message a frame's datagram copy carries; 0 while not
 * known (every copy is attributed once finalized). */
guint32          ota_link_view_transfer(const ota_link_view_t *v);
/* A 6LoWPAN header seen in that frame. */
void             ota_track_lowpan(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv);
/* The exchange a CoAP message belongs to (NULL: an answer to no request
 * seen). src and dst are the endpoints as coap_endpoint_key() gives them;
 * ts_us is the frame's stamp as captured. Every message goes through here,
 * whether or not it is part of a transfer. */
coap_exchange_t *ota_track_exchange(ota_track_t *t, const meter_coap_t *m, const char *src, const char *dst,
                                    const address *src_addr, const address *dst_addr, guint32 frame,
                                    gint64 ts_us, wmem_allocator_t *tmp);
/* What the caller knows of a firmware image a transfer carries. */
typedef struct {
    gboolean image;              /* the resource is a firmware image: its MCUboot header tells its size */
    gint64   announced_size;     /* the size the meter's configuration announced for it (-1: none) */
} ota_image_hints_t;
/* Whether a transfer's image size is known yet (hints are worth finding only before). */
gboolean ota_track_size_known(ota_track_t *t, guint32 transfer_id);
/* A complete CoAP message copy in frame f (NULL f: no link layer, e.g. the
 * gateway's Ethernet), of exchange ex; NULL unless ex is part of a transfer.
 * A response in two transfers (a Block1 exchange answered with Block2) has
 * the second's result in ->also. */
ota_copy_result_t *ota_track_message(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us,
                                     const char *src, coap_exchange_t *ex, const meter_coap_t *m,
                                     const ota_image_hints_t *hints);
/* The request of ex in frame as a transfer took it when the request's
 * answer came (late negotiation, or the download a Block1 exchange's answer
 * starts): on the first pass the request was not known to be part of it.
 * NULL when it did not. */
const ota_copy_result_t *ota_track_joined_request(const coap_exchange_t *ex, guint32 frame);
/* One read whatever the stamps (ota_track.c, "one read"): until the ACK
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
ota_transfer_t  *ota_track_transfer(ota_track_t *t, guint32 transfer_id);
guint            ota_track_n_transfers(const ota_track_t *t);
ota_transfer_t  *ota_track_transfer_at(ota_track_t *t, guint i);   /* in id order */
/* The transfer's progress: a point per accepted block and per repeated
 * request, in time order (allocated in scope). */
wmem_array_t    *ota_track_progress(ota_track_t *t, ota_transfer_t *x, wmem_allocator_t *scope);

#endif
