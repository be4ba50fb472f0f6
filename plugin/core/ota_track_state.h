/* ota_track_state.h: the session tracker's working state, shared by the
 * files that make up the tracker and by no one else: the display and the
 * statistics (plugin/epan) read it through ota_track.h. One concern a file:
 *   ota_track_entry.c     the entry points, and the one read (the start copy
 *                         that reads the first frames as stamped at their start)
 *   ota_track_link.c      link accounting: frames, MAC retries and sniffer
 *                         duplicates, ACK matching, the time base, polls, the
 *                         frames a sender's numbers show the sniffer missed
 *   ota_track_datagram.c  6LoWPAN datagram copies and their fragments
 *   ota_track_rounds.c    CoAP messages, their rounds and transfers as frames come
 *   ota_track_finalize.c  finalize: copies tied to messages, what the sniffer
 *                         missed, copies and poll waits counted in transfers
 *   ota_track_stats.c     each transfer's statistics and progress points
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef OTA_TRACK_STATE_H
#define OTA_TRACK_STATE_H

#include <string.h>
#include "ota_track.h"
#include "chunk_array.h"
#include "seq_gaps.h"
#include "radio_timing.h"
#include "wpan_view.h"
#include "mcuboot_size.h"

typedef struct ota_copy ota_copy_t;
typedef struct ota_msg ota_msg_t;
typedef struct ota_transfer ota_transfer_t;

/* Per frame while it is read: what the link and fragment accounting found.
 * The tracker reuses a record once the frame is done (ota_track_frame_done)
 * and no later frame can refer to it any more; what the display keeps of it
 * is an ota_link_note_t. */
struct ota_frame {
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
};

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


/* Frames read before, for the same frame captured twice (merged captures). */
#define RECENT_FRAMES    8
/* A lost datagram copy is tied to a message only within this of one of
 * its rounds: a Message ID is used again, hours later. */
#define ATTRIBUTE_US     G_GINT64_CONSTANT(600000000)

/* Frames the sniffer missed (docs/ota-sessions.md). A sender numbers its
 * frames one after another: an unmatched ACK whose number lies between two
 * fragments of a copy is the ACK of the fragment missed between them. */
#define ORPHAN_ACKS      32

/* A frame of a datagram copy (or the ACK of one) on the air: it occupied
 * [end_us - dur_us, end_us] (stamps are moved to the frame's end first).
 * One per frame of every copy: the copy by its place in copy_list. */
typedef struct {
    gint64      end_us;
    guint32     copy_index;
    guint32     dur_us;
} ota_air_t;

/* An unmatched ACK: the frame it answered, as found later: a copy's
 * fragment (copy id), or a frame behind a gap (its index + 1); 0: none. */
typedef struct {
    guint32     copy;
    guint32     gap;
} ota_orphan_t;

/* Frames of a sender the capture lacks (seq_gaps.h), or the ACK of its
 * poll, told by its next new frame: which copies its frames either side
 * carried (0: none), for finalize to tie them to a transfer. */
typedef struct {
    gint64      ts_us;
    ota_addr_t  src;
    guint32     before_copy, after_copy;   /* copy ids */
    guint16     frames;
    guint8      acks_captured;             /* the ACKs captured of those frames (for the estimate) */
    guint8      acks;                      /* 1: its frame before, sent once, went unacknowledged, yet it went on */
    guint8      acked_frag;                /* that frame's fragment of before_copy, + 1 (0: none) */
    guint8      earlier;                   /* transmissions of the new frame (no datagram's) the sniffer missed */
} ota_gap_t;

/* While no ACK has told what the stamps mark, frames are timed as if
 * stamped at their end; a second tracker, the start copy, reads the same
 * frames as if stamped at their start, and takes over if the gaps tell
 * start (ota_track_entry.c, "one read"). Not part of what it swaps. */
typedef struct {
    ota_track_t      *copy;        /* NULL: none (any more) */
    wmem_allocator_t *copy_scope;  /* the copy's, then (once taken over) the tracker's own */
    wmem_allocator_t *parent;      /* the scope the tracker was made in, which outlives copy_scope */
    guint             parent_cb;   /* its callback that destroys copy_scope (0: none) */
    ota_frame_t      *frame;       /* the copy's record of the frame being read */
    guint32           frames;      /* frames it has read */
    gboolean          over;        /* taken over or dropped: never again */
    gboolean          rebound;     /* it just took over: the caller's records need their counterparts */
    GHashTable       *counterparts;/* the caller's exchanges and results -> the copy's */
    GArray           *notes;       /* copy_note_t: what the copy would have the caller keep, by frame */
} ota_start_copy_t;

struct ota_track {
    ota_start_copy_t  start;
    wmem_allocator_t *scope;
    wmem_map_t   *last_by_src;     /* ota_addr_t -> ota_frame_t**: last acked-kind frame */
    ota_frame_t  *awaiting_ack[256];
    struct {                       /* the latest frames' fingerprints, oldest overwritten */
        guint64     fingerprint;
        guint32     frame;
        ota_copy_t *copy;
        guint8      frag_index;
    } recent[RECENT_FRAMES];
    guint         recent_next;
    struct {                       /* the latest unmatched ACKs, oldest overwritten */
        gint64  ts_us;
        guint8  seq;
        gboolean claimed;          /* a datagram copy's missing fragment was this ACK's frame */
        guint32 log;               /* its entry in orphan_log, + 1 */
    } orphans[ORPHAN_ACKS];
    guint         orphan_next;
    gint64        last_ack_us;     /* the latest matched ACK, against a sniffer's duplicate of it */
    guint8        last_ack_seq;
    struct {                       /* the frame it acknowledged, for an ACK of its retry */
        gint64      first_tx_raw_us, ts_us;
        ota_addr_t  src;
        ota_copy_t *copy;
        guint8      frag_index;
    } last_acked;
    ota_frame_t  *spare_frames;    /* records no one holds, for reuse (chained by copy) */
    wmem_map_t   *copies;          /* copy_key_t -> current ota_copy_t* (stale ones go) */
    guint32       keys_since_sweep, keys_after_sweep;
    wmem_map_t   *copies_by_mid;   /* mid -> ota_copy_list_t, in the order they began */
    wmem_map_t   *pending_by_mid;  /* mid -> wmem_list of the copies not tied to a message yet */
    coap_exchanges_t *exchanges;   /* which request each message belongs to */
    wmem_map_t   *msgs_by_mid;     /* mid -> ota_msg_list_t, in the order they began */
    chunk_array_t *copy_list;      /* every ota_copy_t*, by id - 1 */
    wmem_array_t *xfer_list;       /* ota_transfer_t* in id order */
    wmem_map_t   *xfers;           /* id -> ota_transfer_t* */
    guint32       next_copy_id;
    chunk_array_t *air;            /* ota_air_t, every frame of a copy and its ACKs */
    wmem_map_t   *polls;           /* ota_addr_t -> wmem_array of ota_poll_t: a sleepy node's Data Requests */
    seq_gaps_t   *seq_gaps;
    wmem_array_t *gaps;            /* ota_gap_t, in capture order */
    wmem_array_t *orphan_log;      /* ota_orphan_t: every unmatched ACK, for the estimate */
    gboolean      acks_seen;
    ota_time_base_t time_base;
    gboolean      dirty;
    ota_capture_counts_t counts;
    double        finalized_stall_s;
};

typedef struct { ota_copy_t **at; guint32 n, cap; } ota_copy_list_t;

/* RFC 4944: a datagram is its link sender, receiver, tag and size; behind a
 * mesh header the originator counts too (every originator has its own tags). */
typedef struct {
    ota_addr_t src, dst, orig;
    guint16 tag, size;
} copy_key_t;

/* A sleepy node's Data Request: when it began, and its frame. */
typedef struct {
    gint64  start_us;
    guint32 frame;
    guint32 answered;     /* its parent acknowledged it */
} ota_poll_t;

static inline void note_air(ota_track_t *t, ota_copy_t *c, gint64 end_us, guint32 dur_us)
{
    ota_air_t a = { end_us, c->id - 1, dur_us };

    if (dur_us)
        *(ota_air_t *)chunk_array_append(t->air) = a;
}

static inline ota_copy_t *copy_at(const ota_track_t *t, guint32 i)
{
    return *(ota_copy_t **)chunk_array_index(t->copy_list, i);
}

/* Appends an element to a list kept as {at, n, cap} in its owner: a message
 * has a round or two and a request a response or two, and a wmem_array_t
 * would cost each a 48-byte header and an allocation more. */
static inline void list_append(wmem_allocator_t *scope, void **at, guint32 *n, guint32 *cap, const void *elem, gsize size)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1;
        *at = wmem_realloc(scope, *at, *cap * size);
    }
    memcpy((guint8 *)*at + *n * size, elem, size);
    (*n)++;
}

/* The time from earlier to later, never negative. Frame times go back by
 * less than a frame's air time (the hook's clock holds the rest,
 * ota_clock.h): frames that overlapped on the air, stamped at their start
 * or moved to their end. */
static inline gint64 since_us(gint64 later, gint64 earlier)
{
    return later > earlier ? later - earlier : 0;
}

/* When a message began: its first round's first copy. */
static inline gint64 msg_first_us(const ota_msg_t *m)
{
    return m->rounds.at[0].first_us;
}

/* ---- between the tracker's files ---- */

/* A transfer by its id (NULL: none), or by its place in id order. */
static inline ota_transfer_t *ota_track_transfer(ota_track_t *t, guint32 transfer_id)
{
    return (ota_transfer_t *)wmem_map_lookup(t->xfers, GUINT_TO_POINTER(transfer_id));
}

static inline ota_transfer_t *ota_track_transfer_at(ota_track_t *t, guint i)
{
    return *(ota_transfer_t **)wmem_array_index(t->xfer_list, i);
}

/* ota_track_link.c: a frame's link facts in (its record), and out at the
 * end of its first pass (its note); the unmatched ACKs numbered between a
 * copy's fragments, claimed by a new fragment of it. */
ota_frame_t     *ota_link_frame_in(ota_track_t *t, const ota_link_in_t *in);
ota_link_note_t  ota_link_frame_done(ota_track_t *t, ota_frame_t *f);
void             ota_link_claim_orphan_acks(ota_track_t *t, ota_copy_t *c, guint8 seq, guint missing_before,
                                            gint64 since_us, gint64 ts_us);

/* ota_track_datagram.c: the key of a datagram's copy (t->copies), a 6LoWPAN
 * header in, whether a copy was lost (before_us G_MAXINT64: as finalize
 * inferred), the copies of a message tied to it, and whether one of them
 * began at after or later and was lost before before. */
guint            ota_copy_key_hash(gconstpointer p);
gboolean         ota_copy_key_equal(gconstpointer a, gconstpointer b);
void             ota_datagram_in(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv);
gboolean         ota_copy_lost(const ota_track_t *t, const ota_copy_t *c, gint64 before_us);
void             ota_attribute_copies(ota_track_t *t, ota_msg_t *msg, gint64 now);
gboolean         ota_msg_lost_before(const ota_track_t *t, const ota_msg_t *msg, guint8 type, gint64 after,
                                     gint64 before, const ota_copy_t *current);

/* ota_track_rounds.c: a CoAP message's exchange, the message in its
 * transfers, an image verified. */
coap_exchange_t *ota_exchange_in(ota_track_t *t, const meter_coap_t *m, const char *src, const char *dst,
                                 const address *src_addr, const address *dst_addr, guint32 frame, gint64 ts_us,
                                 wmem_allocator_t *tmp);
ota_copy_result_t *ota_message_in(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us, const char *src,
                                  coap_exchange_t *ex, const meter_coap_t *m, const ota_image_hints_t *hints);
void             ota_set_verified(ota_track_t *t, guint32 transfer_id);

/* ota_track_finalize.c: every transfer's record, when frames came since. */
void             ota_finalize_all(ota_track_t *t, double stall_s);

/* ota_track_stats.c: a transfer's statistics (the datagram counts are in
 * its record already), the nearest-rank quantile of microseconds in
 * seconds, the spurious retransmissions of a request, the median delay of a
 * transfer's late answers off the radio. */
void             ota_finalize_transfer(const ota_track_t *t, ota_transfer_t *x, GArray *air_spans, wmem_array_t *polls,
                                       double stall_s);
double           ota_quantile_s(wmem_array_t *v, double p);
void             ota_mark_spurious(ota_track_t *t, ota_msg_t *req, gint64 late_delay_us);
gint64           ota_late_answer_delay(const ota_transfer_t *x);

#endif
