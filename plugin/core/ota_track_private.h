/* ota_track_private.h: the session tracker's working state, shared by the
 * files that make up the tracker and by no one else: the display and the
 * statistics (plugin/epan) read it through ota_track.h. One concern a file:
 *   ota_track.c           the entry points, and the one read (the start copy
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
#ifndef OTA_TRACK_PRIVATE_H
#define OTA_TRACK_PRIVATE_H

#include <string.h>
#include "ota_track.h"
#include "chunk_array.h"
#include "seq_gaps.h"
#include "radio_timing.h"

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
 * start (ota_track.c, "one read"). Not part of what it swaps. */
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
