/* ota_track.c: block-wise transfer sessions and 6LoWPAN fragment accounting
 * (definitions: docs/ota-sessions.md). Fed in frame order on the first pass;
 * ota_track_finalize() derives the per-transfer numbers from the raw
 * records, so it gives the same answer however often it runs.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <epan/to_str.h>
#include "ota_track.h"
#include "ws_compat.h"
#include "eta.h"
#include "coap_exchange.h"
#include "ota_split.h"
#include "chunk_array.h"
#include "seq_gaps.h"
#include "miss_estimate.h"
#include "radio_timing.h"

/* Frames read before, for the same frame captured twice (merged captures). */
#define RECENT_FRAMES    8
/* A stamp fits the start or the end of its frame when the ACK gap is the
 * standard's within this; pairs whose frame and ACK air times differ less
 * than TIME_BASE_APART_US cannot tell the two apart. */
#define TIME_BASE_FIT_US   150
#define TIME_BASE_APART_US 400
#define ATTRIBUTE_US     G_GINT64_CONSTANT(600000000)
#define SILENCE_MIN_US   G_GINT64_CONSTANT(1000000)   /* shorter gaps are never stalls */
/* Frames the sniffer missed (docs/ota-sessions.md). A sender numbers its
 * frames one after another: an unmatched ACK whose number lies between two
 * fragments of a copy is the ACK of the fragment missed between them. */
#define ORPHAN_ACKS      32
#define ORPHAN_SEQ_SPAN  16        /* the most frames a sender sends between two fragments of one copy */
#define ACTED_SCAN       256       /* copies after a copy looked at for what its receiver did next */
#define TIE_SCAN         64        /* copies either side looked at for another hop's copy of a datagram */

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
 * start (the last section of this file). Not part of what it swaps. */
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

static guint copy_key_hash(gconstpointer p)
{
    const copy_key_t *k = (const copy_key_t *)p;
    guint64 h = k->src * G_GUINT64_CONSTANT(0x9e3779b97f4a7c15) ^ k->dst ^ (k->orig << 7) ^
                ((guint64)k->tag << 16 | k->size);
    return (guint)(h ^ (h >> 32));
}

static gboolean copy_key_equal(gconstpointer a, gconstpointer b)
{
    const copy_key_t *x = (const copy_key_t *)a, *y = (const copy_key_t *)b;
    return x->src == y->src && x->dst == y->dst && x->orig == y->orig && x->tag == y->tag &&
           x->size == y->size;
}

/* The frame's stamp as captured. */
static gint64 frame_raw_us(const ota_frame_t *f)
{
    return f->moved_to_end ? f->ts_us - f->air_us : f->ts_us;
}

static void note_air(ota_track_t *t, ota_copy_t *c, gint64 end_us, guint32 dur_us)
{
    ota_air_t a = { end_us, c->id - 1, dur_us };

    if (dur_us)
        *(ota_air_t *)chunk_array_append(t->air) = a;
}

static ota_copy_t *copy_at(const ota_track_t *t, guint32 i)
{
    return *(ota_copy_t **)chunk_array_index(t->copy_list, i);
}

static guint64 *key64(wmem_allocator_t *s, guint64 v)
{
    guint64 *k = wmem_new(s, guint64);
    *k = v;
    return k;
}

/* Appends an element to a list kept as {at, n, cap} in its owner: a message
 * has a round or two and a request a response or two, and a wmem_array_t
 * would cost each a 48-byte header and an allocation more. */
static void list_append(wmem_allocator_t *scope, void **at, guint32 *n, guint32 *cap, const void *elem, gsize size)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1;
        *at = wmem_realloc(scope, *at, *cap * size);
    }
    memcpy((guint8 *)*at + *n * size, elem, size);
    (*n)++;
}

static ota_track_t *track_new(wmem_allocator_t *scope)
{
    ota_track_t *t = wmem_new0(scope, ota_track_t);

    t->scope = scope;
    t->last_by_src = wmem_map_new(scope, g_int64_hash, g_int64_equal);
    t->copies = wmem_map_new(scope, copy_key_hash, copy_key_equal);
    t->copies_by_mid = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    t->pending_by_mid = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    t->exchanges = coap_exchanges_new(scope);
    t->msgs_by_mid = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    t->copy_list = chunk_array_new(scope, sizeof(ota_copy_t *));
    t->xfer_list = wmem_array_new(scope, sizeof(ota_transfer_t *));
    t->xfers = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    t->air = chunk_array_new(scope, sizeof(ota_air_t));
    t->polls = wmem_map_new(scope, g_int64_hash, g_int64_equal);
    t->seq_gaps = seq_gaps_new(scope);
    t->gaps = wmem_array_new(scope, sizeof(ota_gap_t));
    t->orphan_log = wmem_array_new(scope, sizeof(ota_orphan_t));
    return t;
}

/* ---- link layer: retries, duplicates, acknowledgements ---- */

/* What an ACK's gap after its frame says of the capture's timestamps: a
 * stamp at a frame's end puts the ACK a turnaround plus its own air time
 * after it, one at its start the frame's air time plus a turnaround. The
 * first pair that tells them apart decides; pairs that fit neither (host
 * stamps) make it "host" once they are most of at least four. */
static void learn_time_base(ota_track_t *t, const ota_frame_t *frame, const ota_link_in_t *ack)
{
    ota_time_base_t *b = &t->time_base;
    ota_stamp_kind_t before = b->kind;
    gint64 gap = ack->ts_us - frame_raw_us(frame);
    gint64 at_end = gap - (RADIO_TURNAROUND_US + (gint64)ack->air_us);
    gint64 at_start = gap - ((gint64)frame->air_us + RADIO_TURNAROUND_US);

    if (llabs((gint64)frame->air_us - (gint64)ack->air_us) < TIME_BASE_APART_US)
        return;
    b->pairs++;
    if (llabs(at_end) <= TIME_BASE_FIT_US)
        b->fit_end++;
    else if (llabs(at_start) <= TIME_BASE_FIT_US)
        b->fit_start++;
    if (b->fixed)
        return;
    if (b->kind == OTA_STAMP_UNKNOWN && b->fit_end + b->fit_start > 0)
        b->kind = b->fit_start ? OTA_STAMP_START : OTA_STAMP_END;
    if (b->pairs >= 4 && 4 * MAX(b->fit_end, b->fit_start) < 3 * b->pairs)
        b->kind = OTA_STAMP_HOST;
    if (b->kind != before && before == OTA_STAMP_UNKNOWN)
        b->decided_frame = ack->frame;
}

void ota_track_fix_time_base(ota_track_t *t, ota_stamp_kind_t kind)
{
    t->time_base.kind = kind;
    t->time_base.fixed = TRUE;
}

/* The time from earlier to later, never negative. Frame times go back by
 * less than a frame's air time (the hook's clock holds the rest,
 * ota_clock.h): frames that overlapped on the air, stamped at their start
 * or moved to their end. */
static gint64 since_us(gint64 later, gint64 earlier)
{
    return later > earlier ? later - earlier : 0;
}

/* A stamp moved to its frame's end, where every time here is taken. */
static gint64 frame_end_us(const ota_track_t *t, gint64 raw_us, guint32 air_us)
{
    return t->time_base.kind == OTA_STAMP_START ? raw_us + air_us : raw_us;
}

static void set_frame_time(const ota_track_t *t, ota_frame_t *f, gint64 raw_us)
{
    f->ts_us = frame_end_us(t, raw_us, f->air_us);
    f->moved_to_end = f->ts_us != raw_us;
}

/* A sleepy node's Data Request: when it began, and its frame. */
typedef struct {
    gint64  start_us;
    guint32 frame;
    guint32 answered;     /* its parent acknowledged it */
} ota_poll_t;

/* Kept in frame order: the poll that fetched a frame came before it in the
 * capture, whatever the stamps (a host may stamp a frame later than the
 * poll after it would suggest). */
static void note_poll(ota_track_t *t, ota_addr_t child, gint64 start_us, guint32 frame)
{
    wmem_array_t *list = (wmem_array_t *)wmem_map_lookup(t->polls, &child);
    ota_poll_t p = { start_us, frame, FALSE };

    if (!list) {
        list = wmem_array_new(t->scope, sizeof(ota_poll_t));
        wmem_map_insert(t->polls, key64(t->scope, child), list);
    }
    wmem_array_append_one(list, p);
}

/* The parent acknowledged the poll in frame (one of the child's latest). */
static void note_poll_answered(ota_track_t *t, ota_addr_t child, guint32 frame)
{
    wmem_array_t *list = (wmem_array_t *)wmem_map_lookup(t->polls, &child);

    for (guint i = list ? wmem_array_get_count(list) : 0; i-- > 0;) {
        ota_poll_t *p = (ota_poll_t *)wmem_array_index(list, i);
        if (p->frame <= frame) {
            p->answered |= p->frame == frame;
            return;
        }
    }
}

/* Link records. Most frames of a long capture (polls, ACKs, other
 * traffic) matter only while the next frames are read: a record is reused
 * once the caller has let it go (ota_track_frame_keep) and neither the
 * sender's last-frame slot nor the ACK wait holds it. Those that carry a
 * datagram copy stay for the display. */
static ota_frame_t *frame_record(ota_track_t *t)
{
    ota_frame_t *f = t->spare_frames;

    if (!f)
        return wmem_new0(t->scope, ota_frame_t);
    t->spare_frames = (ota_frame_t *)f->copy;
    memset(f, 0, sizeof *f);
    return f;
}

static void frame_unhold(ota_track_t *t, ota_frame_t *f)
{
    if (!f || --f->holders || !f->let_go)
        return;
    f->copy = (ota_copy_t *)t->spare_frames;
    t->spare_frames = f;
}

static void frame_hold(ota_frame_t **where, ota_frame_t *f)
{
    *where = f;
    f->holders++;
}

/* A note: the copy's id (32 bits), the fragment's index (6), the retry and
 * duplicate flags, and the distances back to the first transmission and on
 * to the ACK (12 bits each; 0 when farther: then not shown). */
#define NOTE_DISTANCE_MAX 0xfffu

static guint32 note_distance(guint32 from, guint32 to)
{
    return to > from && to - from <= NOTE_DISTANCE_MAX ? to - from : 0;
}

static ota_link_note_t frame_done(ota_track_t *t, ota_frame_t *f)
{
    ota_link_note_t note = 0;
    guint latest = (t->recent_next + RECENT_FRAMES - 1) % RECENT_FRAMES;

    if (t->recent[latest].frame == f->frame) {
        t->recent[latest].copy = f->copy;
        t->recent[latest].frag_index = f->frag_index;
    }
    /* A CoAP frame of no datagram copy (the gateway's Ethernet) captured
     * twice: copy id 0 with the duplicate flag. */
    if (!f->copy && f->sniffer_dup && f->carries_coap)
        note = (guint64)1 << 24 | (guint64)note_distance(f->first_tx_frame, f->frame) << 12;
    if (f->copy)
        note = (guint64)f->copy->id << 32 | (guint64)(f->frag_index & 0x3f) << 26 |
               (guint64)f->mac_retry << 25 | (guint64)f->sniffer_dup << 24 |
               (guint64)(f->mac_retry || f->sniffer_dup ? note_distance(f->first_tx_frame, f->frame) : 0) << 12 |
               note_distance(f->frame, f->ack_frame);
    f->let_go = TRUE;
    f->holders++;
    frame_unhold(t, f);
    return note;
}

guint32 ota_track_frame_acked(const ota_frame_t *f)
{
    return f->is_ack ? f->acked_frame : 0;
}

ota_link_note_t ota_link_note_acked(ota_link_note_t note, guint32 frame, guint32 ack_frame)
{
    return note ? (note & ~(ota_link_note_t)NOTE_DISTANCE_MAX) | note_distance(frame, ack_frame) : 0;
}

/* Link accounting is shown for the frames of CoAP datagrams (the ones the
 * tracker follows) and for CoAP frames seen twice: other 802.15.4 traffic
 * (MLE, polls, a Zigbee network on the channel) gets none. */
static gboolean link_followed(const ota_copy_t *c, gboolean carries_coap)
{
    return c ? c->has_coap || c->msg : carries_coap;
}

void ota_track_frame_view(const ota_frame_t *f, ota_link_view_t *v)
{
    memset(v, 0, sizeof *v);
    if (!link_followed(f->copy, f->carries_coap && f->sniffer_dup))
        return;
    v->copy = f->copy;
    v->first_tx_frame = f->mac_retry || f->sniffer_dup ? f->first_tx_frame : 0;
    v->ack_frame = f->ack_frame;
    v->frag_offset = f->frag_offset;
    v->frag_index = f->frag_index;
    v->mac_retry = f->mac_retry;
    v->sniffer_dup = f->sniffer_dup;
}

void ota_track_note_view(const ota_track_t *t, guint32 frame, ota_link_note_t note, ota_link_view_t *v)
{
    guint32 id = (guint32)(note >> 32), back = (guint32)(note >> 12) & NOTE_DISTANCE_MAX;
    guint32 on = (guint32)note & NOTE_DISTANCE_MAX;

    memset(v, 0, sizeof *v);
    if (!id && (note >> 24) & 1) {
        v->sniffer_dup = TRUE;
        v->first_tx_frame = back ? frame - back : 0;
        return;
    }
    if (!id || id > chunk_array_count(t->copy_list) || !link_followed(copy_at(t, id - 1), FALSE))
        return;
    v->copy = copy_at(t, id - 1);
    v->frag_index = (guint8)((note >> 26) & 0x3f);
    v->mac_retry = (note >> 25) & 1;
    v->sniffer_dup = (note >> 24) & 1;
    v->first_tx_frame = back ? frame - back : 0;
    v->ack_frame = on ? frame + on : 0;
    v->frag_offset = v->frag_index < v->copy->n_frags ? v->copy->frags[v->frag_index].offset : 0;
}

guint32 ota_link_view_transfer(const ota_link_view_t *v)
{
    return v->copy && v->copy->msg ? v->copy->msg->xfer->id : 0;
}

/* The same record bytes at the same stamp as one of the latest frames: one
 * frame captured twice (two interfaces merged, a sniffer writing a frame
 * again). It is the earlier frame's sniffer duplicate, and nothing else:
 * no retry, no ACK, no poll, no message. Otherwise the frame joins the
 * latest ones. */
static gboolean seen_before(ota_track_t *t, ota_frame_t *f, guint64 fingerprint)
{
    if (!fingerprint)
        return FALSE;
    for (guint i = 0; i < RECENT_FRAMES; i++)
        if (t->recent[i].frame && t->recent[i].fingerprint == fingerprint) {
            f->sniffer_dup = TRUE;
            f->first_tx_frame = t->recent[i].frame;
            f->copy = t->recent[i].copy;
            f->frag_index = t->recent[i].frag_index;
            return TRUE;
        }
    t->recent[t->recent_next].fingerprint = fingerprint;
    t->recent[t->recent_next].frame = f->frame;
    t->recent[t->recent_next].copy = NULL;
    t->recent_next = (t->recent_next + 1) % RECENT_FRAMES;
    return FALSE;
}

/* The matched ACK just before, captured again (a sniffer reporting it
 * twice): not an ACK of a frame missed. */
static gboolean ack_seen_twice(const ota_track_t *t, const ota_link_in_t *in)
{
    gint64 gap = in->ts_us - t->last_ack_us;

    return t->last_ack_us && in->seq == t->last_ack_seq && gap >= 0 &&
           gap <= (t->time_base.kind == OTA_STAMP_HOST ? RADIO_HOST_STAMP_SLACK_US : RADIO_SNIFFER_DUP_US);
}

/* How much later than the standard allows an ACK may be stamped: a
 * sniffer's own stamps (a frame's start or end, once the ACK gaps have
 * told which) are good to microseconds, so an ACK later than that answers
 * a retry the sniffer missed; a host's are not. */
static gint64 ack_slack_us(const ota_track_t *t)
{
    return t->time_base.kind == OTA_STAMP_END || t->time_base.kind == OTA_STAMP_START ? RADIO_SNIFFER_STAMP_SLACK_US
                                                                                      : RADIO_HOST_STAMP_SLACK_US;
}

/* An ACK of a retry of a fragment of c the sniffer missed: a frame
 * captured whose frame was not, for the estimate (the fragment counts the
 * retry). */
static void note_late_ack(ota_track_t *t, const ota_copy_t *c)
{
    ota_gap_t g = { .ts_us = c->last_us, .src = c->src, .before_copy = c->id, .acks_captured = 1 };

    wmem_array_append_one(t->gaps, g);
}

/* An ACK no captured frame awaits: the sniffer missed the frame it
 * acknowledges, and that frame arrived. A copy's fragment may claim it
 * later (claim_orphan_acks). */
static void note_orphan_ack(ota_track_t *t, const ota_link_in_t *in)
{
    t->counts.acks_unmatched++;
    t->orphans[t->orphan_next].ts_us = in->ts_us;
    t->orphans[t->orphan_next].seq = in->seq;
    t->orphans[t->orphan_next].claimed = FALSE;
    ota_orphan_t o = { 0, 0 };
    wmem_array_append_one(t->orphan_log, o);
    t->orphans[t->orphan_next].log = wmem_array_get_count(t->orphan_log);
    t->orphan_next = (t->orphan_next + 1) % ORPHAN_ACKS;
}

/* A new fragment of c with sequence number seq at ts_us: the unmatched ACKs
 * numbered after c's latest fragment and before this one (before this one,
 * for a copy whose first fragments were missed), captured since, were the
 * ACKs of c's fragments the sniffer missed. */
static void claim_orphan_acks(ota_track_t *t, ota_copy_t *c, guint8 seq, guint missing_before, gint64 since_us,
                              gint64 ts_us)
{
    guint8 after = c->n_frags ? c->last_seq : (guint8)(seq - MIN(missing_before, ORPHAN_SEQ_SPAN - 1) - 1);

    for (guint i = 0; i < ORPHAN_ACKS; i++) {
        guint8 d = (guint8)(t->orphans[i].seq - after), span = (guint8)(seq - after);
        if (t->orphans[i].claimed || !t->orphans[i].ts_us || t->orphans[i].ts_us < since_us ||
            t->orphans[i].ts_us > ts_us || d == 0 || d >= span || span > ORPHAN_SEQ_SPAN)
            continue;
        t->orphans[i].claimed = TRUE;
        if (c->acks_claimed < G_MAXUINT8)
            c->acks_claimed++;
        ota_orphan_t *o = (ota_orphan_t *)wmem_array_index(t->orphan_log, t->orphans[i].log - 1);
        if (!o->copy && !o->gap)
            o->copy = c->id;
    }
}

/* A sender's new frame: the unmatched ACKs with its number within a retry
 * cycle before it answered its transmissions the sniffer missed (the
 * sender did not hear them and sent it again). Claimed, they explain
 * nothing else. */
static guint claim_earlier_acks(ota_track_t *t, const ota_link_in_t *in, guint32 *which)
{
    guint n = 0;

    for (guint i = 0; i < ORPHAN_ACKS; i++)
        if (t->orphans[i].ts_us && !t->orphans[i].claimed && t->orphans[i].seq == in->seq &&
            t->orphans[i].ts_us <= in->ts_us && in->ts_us - t->orphans[i].ts_us <= RADIO_RETRY_GAP_US) {
            t->orphans[i].claimed = TRUE;
            *which |= 1u << i;
            n++;
        }
    return MIN(n, 7);
}

/* The frames behind numbers a sender skipped: one per number, or one per
 * ACK captured with it (each ACK answered an attempt: the sender did not
 * hear it and sent the frame again); none for a number a broadcast
 * carried, which nobody acknowledges. */
static guint skipped_frames(const ota_track_t *t, const seq_gap_t *skipped, gint64 ts_us, guint32 *which)
{
    guint frames = 0;

    for (guint k = 0; k < skipped->n; k++) {
        guint8 seq = (guint8)(skipped->from + k);
        guint acks = 0;
        for (guint i = 0; i < ORPHAN_ACKS; i++)
            if (t->orphans[i].ts_us && t->orphans[i].seq == seq && t->orphans[i].ts_us >= skipped->since_us &&
                t->orphans[i].ts_us <= ts_us) {
                *which |= 1u << i;
                acks++;
            }
        frames += acks ? acks : !(skipped->carried >> k & 1);
    }
    return frames;
}

/* f, a new frame of its sender (last: the sender's frame before it): the
 * frames its number shows the sniffer missed, and whether the frame before
 * it had an ACK the sniffer missed: a sender sends a frame again until an
 * ACK comes, or gives up; it sent it once and went on. Not proof (a
 * failed channel access ends the attempts too), so it counts only here,
 * never as a delivery. */
static void note_gap(ota_track_t *t, ota_frame_t *f, const ota_frame_t *last, const ota_link_in_t *in,
                     guint32 orphans)
{
    ota_gap_t g = { .ts_us = f->ts_us, .src = in->src };

    seq_gap_t skipped;
    if (seq_gaps_frame(t->seq_gaps, in->src, in->seq, in->ts_us, &skipped))
        g.frames = (guint16)skipped_frames(t, &skipped, in->ts_us, &orphans);
    /* A frame sent again and again unacknowledged had a bad channel: it
     * may have failed (a failed channel access is an attempt too). */
    gboolean acked = last && (last->ack_frame || last->acked_late ||
                              (last->copy && last->frag_index < last->copy->n_frags &&
                               last->copy->frags[last->frag_index].acked));
    g.acks = t->acks_seen && last && !acked && !last->mac_retry;
    /* A datagram's fragment keeps its own instead (ota_track_lowpan). */
    g.earlier = f->earlier_missed;
    if (!g.frames && !g.acks && !g.earlier)
        return;
    g.before_copy = last && last->copy ? last->copy->id : 0;
    g.acked_frag = g.acks && last->copy ? last->frag_index + 1 : 0;
    wmem_array_append_one(t->gaps, g);
    /* The unmatched ACKs of the frames it tells of are that gap's. */
    for (guint i = 0; i < ORPHAN_ACKS; i++)
        if (orphans >> i & 1) {
            ota_orphan_t *o = (ota_orphan_t *)wmem_array_index(t->orphan_log, t->orphans[i].log - 1);
            if (!o->copy && !o->gap)
                o->gap = wmem_array_get_count(t->gaps);
        }
    f->gap = wmem_array_get_count(t->gaps);
}

static ota_frame_t *frame_in(ota_track_t *t, const ota_link_in_t *in)
{
    ota_frame_t *f = frame_record(t);

    f->frame = in->frame;
    f->air_us = in->air_us;
    set_frame_time(t, f, in->ts_us);
    f->src = in->src;
    f->dst = in->dst;
    f->seq = in->seq;
    f->content_hash = in->content_hash;
    f->first_tx_raw_us = in->ts_us;
    f->carries_coap = in->carries_coap;
    t->dirty = TRUE;
    t->counts.frames++;
    t->counts.wpan_frames += in->has_wpan;
    t->counts.secured_frames += in->has_wpan && in->secured;
    t->counts.undecrypted_frames += in->has_wpan && in->secured && !in->decrypted;
    if (seen_before(t, f, in->fingerprint) || !in->has_wpan)
        return f;
    if (in->frame_type == WPAN_FRAME_ACK) {
        ota_frame_t *a = t->awaiting_ack[in->seq];
        t->acks_seen = TRUE;
        /* The ACK of the latest frame awaiting one with its sequence number
         * (a retry replaces its first transmission), if it comes no later
         * than the standard allows after that frame's start, whatever
         * instant the sniffer stamps. */
        gint64 gap = in->ts_us - (a ? frame_raw_us(a) : 0);
        if (a && gap >= 0 && gap <= (gint64)a->air_us + RADIO_ACK_WAIT_US + (gint64)in->air_us + ack_slack_us(t)) {
            if (!in->time_held)
                learn_time_base(t, a, in);
            set_frame_time(t, f, in->ts_us);
            f->acked_frame = a->frame;
            f->is_ack = TRUE;
            a->ack_frame = in->frame;
            if (a->copy && a->frag_index < a->copy->n_frags) {
                ota_frag_t *fr = &a->copy->frags[a->frag_index];
                if (!fr->acked)
                    fr->acked_us = a->ts_us;
                fr->acked = TRUE;
            }
            if (a->data_request)
                note_poll_answered(t, a->src, a->frame);
            if (a->copy)
                note_air(t, a->copy, f->ts_us, in->air_us);
            t->awaiting_ack[in->seq] = NULL;
            frame_unhold(t, a);
            t->last_ack_us = in->ts_us;
            t->last_ack_seq = in->seq;
            t->last_acked.first_tx_raw_us = a->first_tx_raw_us;
            t->last_acked.ts_us = a->ts_us;
            t->last_acked.src = a->src;
            t->last_acked.copy = a->copy;
            t->last_acked.frag_index = a->frag_index;
        } else if (a && gap >= 0 && in->ts_us - a->first_tx_raw_us <= RADIO_RETRY_WINDOW_US + RADIO_ACK_WAIT_US &&
                   a->copy && a->frag_index < a->copy->n_frags && !a->copy->frags[a->frag_index].acked) {
            /* Too late for the frame, within its retry window: the ACK of a
             * retry the sniffer missed. The fragment arrived. */
            ota_frag_t *fr = &a->copy->frags[a->frag_index];
            fr->acked = TRUE;
            fr->retry_missed = MIN(fr->retry_missed + 1, 7);
            fr->acked_us = a->ts_us;
            note_late_ack(t, a->copy);
            t->awaiting_ack[in->seq] = NULL;
            frame_unhold(t, a);
        } else if (a && gap >= 0 && in->ts_us - a->first_tx_raw_us <= RADIO_RETRY_WINDOW_US + RADIO_ACK_WAIT_US && !a->copy &&
                   !a->ack_frame && !a->acked_late) {
            /* The same for a frame of no datagram (a poll): its retry was missed. */
            ota_gap_t g = { .ts_us = a->ts_us, .src = a->src, .frames = 1, .acks_captured = 1 };
            a->acked_late = TRUE;
            wmem_array_append_one(t->gaps, g);
        } else if (ack_seen_twice(t, in)) {
            /* the same ACK captured twice */
        } else if (in->seq == t->last_ack_seq && t->last_ack_us && in->ts_us >= t->last_ack_us &&
                   in->ts_us - t->last_ack_us <= RADIO_RETRY_GAP_US) {
            /* A second ACK for the frame just acknowledged, within one retry
             * cycle: its first ACK was lost on the way back, and the sniffer
             * missed the retry. */
            ota_copy_t *c = t->last_acked.copy;
            if (c && t->last_acked.frag_index < c->n_frags) {
                ota_frag_t *fr = &c->frags[t->last_acked.frag_index];
                fr->retry_missed = MIN(fr->retry_missed + 1, 7);
                note_late_ack(t, c);
            } else if (!c) {
                ota_gap_t g = { .ts_us = t->last_acked.ts_us, .src = t->last_acked.src, .frames = 1,
                                .acks_captured = 1 };
                wmem_array_append_one(t->gaps, g);
            }
            t->last_ack_seq = (guint8)(in->seq + 128);   /* one such retry per ACK */
        } else {
            note_orphan_ack(t, in);
        }
        return f;
    }
    f->data_request = in->data_request && in->src;
    if (!in->ack_request)
        seq_gaps_broadcast(t->seq_gaps, in->seq, in->ts_us);
    if (in->ack_request && in->src) {
        /* One slot per sender, updated in place. */
        ota_frame_t **slot = (ota_frame_t **)wmem_map_lookup(t->last_by_src, &in->src);
        ota_frame_t *last = slot ? *slot : NULL;
        /* The same frame (bytes, hence sequence number) from the same
         * sender within the retry window of its first transmission; a held
         * time has no gap, and a stamp that went back a little (less than
         * ota_clock holds) tells the gap's size, not its sign. */
        gint64 gap = in->ts_us - (last ? frame_raw_us(last) : 0);
        if (last && last->seq == in->seq && last->content_hash == in->content_hash &&
            (in->time_held || llabs(in->ts_us - last->first_tx_raw_us) <= RADIO_RETRY_WINDOW_US)) {
            /* A host's stamps move by more than the gap between a frame
             * and its retry: there a frame sent again is a retry. A frame
             * stamped before the one it repeats is not a copy of it
             * captured at once: the sniffer's clock went back. */
            if (gap >= 0 && gap <= RADIO_SNIFFER_DUP_US && t->time_base.kind != OTA_STAMP_HOST && !in->time_held)
                f->sniffer_dup = TRUE;
            else
                f->mac_retry = TRUE;
            f->first_tx_frame = last->first_tx_frame ? last->first_tx_frame : last->frame;
            f->first_tx_raw_us = last->first_tx_raw_us;
            f->copy = last->copy;
            f->frag_index = last->frag_index;
            /* The parent acted on the poll it acknowledged, not on its retry. */
            if (last->data_request && last->ack_frame)
                f->data_request = FALSE;
        }
        if (!f->mac_retry && !f->sniffer_dup) {
            guint32 orphans = 0;
            f->earlier_missed = (guint8)claim_earlier_acks(t, in, &orphans);
            note_gap(t, f, last, in, orphans);
        }
        if (!slot) {
            slot = wmem_new0(t->scope, ota_frame_t *);
            wmem_map_insert(t->last_by_src, key64(t->scope, in->src), slot);
        }
        frame_unhold(t, *slot);
        frame_hold(slot, f);
        /* A sniffer duplicate is the same transmission: its ACK is the first one's. */
        if (!f->sniffer_dup) {
            frame_unhold(t, t->awaiting_ack[in->seq]);
            frame_hold(&t->awaiting_ack[in->seq], f);
        }
    }
    f->data_request &= !f->sniffer_dup;
    if (f->data_request)
        note_poll(t, in->src, f->ts_us - in->air_us, in->frame);
    return f;
}

/* ---- 6LoWPAN datagram copies ---- */

static void frag_sent_again(ota_frag_t *fr)
{
    if (fr->transmissions < G_MAXUINT16)
        fr->transmissions++;
}

static void copy_update_coverage(ota_copy_t *c)
{
    guint16 order[OTA_MAX_FRAGS];
    guint n = 0, min_off = 0xffff, first_span = 0;
    gboolean first = FALSE;
    guint32 covered = 0, at;

    if (!c->fragmented) {          /* unfragmented: one frame is the whole datagram */
        c->complete = TRUE;
        return;
    }
    for (guint i = 0; i < c->n_frags; i++) {
        if (c->frags[i].offset == 0) {
            first = TRUE;
            first_span = c->frags[i].len;
            continue;
        }
        order[n++] = (guint16)i;
        min_off = MIN(min_off, c->frags[i].offset);
        covered += c->frags[i].len;
    }
    /* FRAG1 covers the uncompressed headers and its data; when its span is
     * unknown (headers not read), everything before the first FRAGN. */
    if (first)
        covered += first_span ? first_span : (n ? min_off : 0);
    c->covered = covered;
    if (!first || !n)
        return;
    if (first_span)
        min_off = first_span;
    /* Insertion sort: a datagram has a handful of fragments. */
    for (guint i = 1; i < n; i++)
        for (guint j = i; j > 0 && c->frags[order[j]].offset < c->frags[order[j - 1]].offset; j--) {
            guint16 tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    at = min_off;
    for (guint i = 0; i < n; i++) {
        if (c->frags[order[i]].offset != at)
            return;
        at += c->frags[order[i]].len;
    }
    c->complete = at >= c->size && !c->bad_size;
}

static ota_copy_t *new_copy(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv, copy_key_t *key)
{
    ota_copy_t *c = wmem_new0(t->scope, ota_copy_t);

    c->id = ++t->next_copy_id;        /* its place in copy_list, plus 1 */
    c->src = f->src;
    c->dst = f->dst;
    c->tag = lv->is_frag ? lv->tag : 0;
    c->size = lv->is_frag ? lv->size : 0;
    c->fragmented = lv->is_frag;
    c->first_frame = f->frame;
    c->first_us = f->ts_us;
    c->first_air_us = (guint16)MIN(f->air_us, G_MAXUINT16);
    *(ota_copy_t **)chunk_array_append(t->copy_list) = c;
    if (key)
        wmem_map_insert(t->copies, key, c);
    return c;
}

/* A datagram's key stays in t->copies only while a fragment could still
 * join its copy: a copy silent for longer than RADIO_REASSEMBLY_US takes none
 * (a later fragment starts a new copy), so its key goes, lest a long
 * capture keep one per datagram. Swept when the map has doubled since the
 * last sweep; the margin covers stamps that step back a little. */
#define STALE_MARGIN_US G_GINT64_CONSTANT(1000000)

typedef struct {
    gint64 now_us;
    GPtrArray *stale;
} stale_sweep_t;

static void note_stale(gpointer key, gpointer value, gpointer user_data)
{
    stale_sweep_t *sw = (stale_sweep_t *)user_data;
    const ota_copy_t *c = (const ota_copy_t *)value;

    if (sw->now_us - c->last_us > RADIO_REASSEMBLY_US + STALE_MARGIN_US)
        g_ptr_array_add(sw->stale, key);
}

static void forget_stale_copies(ota_track_t *t, gint64 now_us)
{
    if (++t->keys_since_sweep < MAX(4096u, t->keys_after_sweep))
        return;
    stale_sweep_t sw = { now_us, g_ptr_array_new() };
    wmem_map_foreach(t->copies, note_stale, &sw);
    for (guint i = 0; i < sw.stale->len; i++) {
        wmem_map_remove(t->copies, g_ptr_array_index(sw.stale, i));
        wmem_free(t->scope, g_ptr_array_index(sw.stale, i));
    }
    g_ptr_array_free(sw.stale, TRUE);
    t->keys_since_sweep = 0;
    t->keys_after_sweep = wmem_map_size(t->copies);
}

static void lowpan_in(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv)
{
    ota_copy_t *c = NULL;
    copy_key_t *key;
    guint i;

    if ((f->sniffer_dup || f->mac_retry) && f->copy && f->frag_index < f->copy->n_frags) {
        /* The fragment of the first transmission, for the display. */
        f->frag_offset = f->copy->frags[f->frag_index].offset;
        f->frag_len = f->copy->frags[f->frag_index].len;
    }
    if (f->sniffer_dup)
        return;
    if (f->mac_retry && f->copy) {
        /* The same frame again: one more transmission of the same fragment. */
        frag_sent_again(&f->copy->frags[f->frag_index]);
        note_air(t, f->copy, f->ts_us, f->air_us);
        f->copy->last_frame = f->frame;
        f->copy->last_us = f->ts_us;
        return;
    }
    if (lv->is_frag) {
        copy_key_t probe = { f->src, f->dst, lv->has_mesh ? lv->mesh_orig : 0, lv->tag, lv->size };
        c = (ota_copy_t *)wmem_map_lookup(t->copies, &probe);
        /* Tags wrap: a FRAG1 after a complete copy, or a long silence, is a new datagram. */
        if (c && ((c->complete && lv->first) || f->ts_us - c->last_us > RADIO_REASSEMBLY_US))
            c = NULL;
        if (!c) {
            const void *kept = NULL;
            void *old = NULL;
            /* A new datagram under a key in use keeps the key. */
            if (wmem_map_lookup_extended(t->copies, &probe, &kept, &old)) {
                key = (copy_key_t *)kept;
            } else {
                key = wmem_new(t->scope, copy_key_t);
                *key = probe;
                forget_stale_copies(t, f->ts_us);
            }
            c = new_copy(t, f, lv, key);
        }
    } else {
        c = new_copy(t, f, lv, NULL);
    }
    for (i = 0; i < c->n_frags; i++)
        if (c->frags[i].offset == lv->offset)
            break;
    if (i == c->n_frags) {
        if (c->n_frags == OTA_MAX_FRAGS)
            return;
        if (c->n_frags == c->cap_frags) {
            /* Most datagrams have two or three fragments: room for one
             * more at a time until four, then doubling. */
            c->cap_frags = !c->cap_frags ? (lv->is_frag ? 2 : 1)
                           : c->cap_frags < 4 ? c->cap_frags + 1 : MIN(2 * c->cap_frags, OTA_MAX_FRAGS);
            c->frags = wmem_realloc(t->scope, c->frags, c->cap_frags * sizeof(ota_frag_t));
        }
        if (lv->is_frag && (c->n_frags || !lv->first))
            claim_orphan_acks(t, c, f->seq, (guint)(lv->offset + MAX(lv->data_len, 8) - 1) / (guint)MAX(lv->data_len, 8),
                              c->n_frags ? c->last_us : f->ts_us - RADIO_HOP_WINDOW_US, f->ts_us);
        c->last_seq = f->seq;
        memset(&c->frags[i], 0, sizeof(ota_frag_t));
        c->frags[i].offset = lv->offset;
        c->frags[i].len = lv->first ? lv->frag1_span : (guint16)MAX(lv->data_len, 0);
        c->frags[i].first_frame = f->frame;
        c->frags[i].psdu_len = (guint16)(f->air_us / RADIO_BYTE_US > RADIO_PHY_HEADER_BYTES
                                                ? f->air_us / RADIO_BYTE_US - RADIO_PHY_HEADER_BYTES : 0);
        c->n_frags++;
    }
    frag_sent_again(&c->frags[i]);
    c->frags[i].retry_missed = MIN(c->frags[i].retry_missed + f->earlier_missed, 7);
    note_air(t, c, f->ts_us, f->air_us);
    c->last_frame = f->frame;
    c->last_us = f->ts_us;
    f->copy = c;
    if (f->gap) {
        ota_gap_t *g = (ota_gap_t *)wmem_array_index(t->gaps, f->gap - 1);
        g->after_copy = c->id;
        g->earlier = 0;
    }
    f->frag_index = i;
    f->frag_offset = lv->offset;
    f->frag_len = c->frags[i].len;
    /* RFC 4944: every fragment lies within datagram_size. */
    if (lv->is_frag && (lv->size == 0 || (guint32)f->frag_offset + f->frag_len > lv->size))
        c->bad_size = TRUE;
    if (!c->complete) {
        copy_update_coverage(c);
        if (c->complete)
            c->complete_frame = f->frame;
    }
    if (lv->has_coap && !c->has_coap) {
        c->has_coap = TRUE;
        c->coap_type = lv->coap_type;
        c->coap_code = lv->coap_code;
        c->coap_mid = lv->coap_mid;
        ota_copy_list_t *all = (ota_copy_list_t *)wmem_map_lookup(t->copies_by_mid, GUINT_TO_POINTER(lv->coap_mid));
        if (!all) {
            all = wmem_new0(t->scope, ota_copy_list_t);
            wmem_map_insert(t->copies_by_mid, GUINT_TO_POINTER(lv->coap_mid), all);
        }
        list_append(t->scope, (void **)&all->at, &all->n, &all->cap, &c, sizeof c);
        wmem_list_t *pending = (wmem_list_t *)wmem_map_lookup(t->pending_by_mid, GUINT_TO_POINTER(lv->coap_mid));
        if (!pending) {
            pending = wmem_list_new(t->scope);
            wmem_map_insert(t->pending_by_mid, GUINT_TO_POINTER(lv->coap_mid), pending);
        }
        wmem_list_append(pending, c);
    }
}

static gboolean copy_lost(const ota_track_t *t, const ota_copy_t *c, gint64 before_us)
{
    /* Strictly before: the copy in the frame being read has no ACK yet. */
    if (c->first_us >= before_us)
        return FALSE;
    /* Once the capture is read: what the frames after it show (infer_copy). */
    if (before_us == G_MAXINT64)
        return c->lost;
    if (!c->complete)
        return TRUE;
    if (!t->acks_seen)
        return FALSE;
    for (guint i = 0; i < c->n_frags; i++)
        if (!c->frags[i].acked)
            return TRUE;
    return FALSE;
}

/* Ties the copies that carried (or tried to carry) msg to it. Only copies
 * not tied yet are looked at, and those too old to be tied ever leave the
 * list, so a Message ID that thousands of messages share costs no more
 * than one that a single message has. */
static void attribute_copies(ota_track_t *t, ota_msg_t *msg, gint64 now)
{
    wmem_list_t *pending = (wmem_list_t *)wmem_map_lookup(t->pending_by_mid, GUINT_TO_POINTER(msg->mid));
    wmem_list_frame_t *fr = pending ? wmem_list_head(pending) : NULL;

    while (fr) {
        wmem_list_frame_t *next = wmem_list_frame_next(fr);
        ota_copy_t *c = (ota_copy_t *)wmem_list_frame_data(fr);
        if ((!c->msg || c->msg_is_guess) && c->coap_type == msg->type && c->coap_code == msg->code &&
            c->first_us <= now && c->first_us >= msg->not_before && now - c->first_us < ATTRIBUTE_US) {
            c->msg = msg;
            c->msg_is_guess = FALSE;
        }
        if ((c->msg && !c->msg_is_guess) || now - c->first_us >= ATTRIBUTE_US)
            wmem_list_remove_frame(pending, fr);
        fr = next;
    }
}

/* Was a copy of msg that began at `after` or later lost before `before`?
 * The newest copies first: the list is in the order copies showed their
 * CoAP header (a FRAG1 may come after its FRAGNs), so the search stops at
 * the first copy older than `after` by a hop window. `current`, the copy
 * the frame being read completes, has no ACK yet and is not asked about. */
static gboolean msg_lost_before(const ota_track_t *t, const ota_msg_t *msg, guint8 type, gint64 after,
                                gint64 before, const ota_copy_t *current)
{
    const ota_copy_list_t *list = (const ota_copy_list_t *)wmem_map_lookup(t->copies_by_mid,
                                                                          GUINT_TO_POINTER(msg->mid));

    for (guint i = list ? list->n : 0; i > 0; i--) {
        ota_copy_t *c = list->at[i - 1];
        if (c->first_us < after - RADIO_HOP_WINDOW_US)
            break;
        if (c->first_us < after)
            continue;
        if (c != current && c->coap_type == type && copy_lost(t, c, before) &&
            (type != COAP_TYPE_CON || c->coap_code == msg->code))
            return TRUE;
    }
    return FALSE;
}

/* ---- what the sniffer missed (docs/ota-sessions.md, "Frames the sniffer missed") ---- */

/* Two copies of one datagram on two hops: its tag and size (a forwarder
 * keeps the originator's), or, unfragmented, its message. */
static gboolean same_datagram(const ota_copy_t *a, const ota_copy_t *b)
{
    if (a->fragmented)
        return b->fragmented && a->tag == b->tag && a->size == b->size;
    return !b->fragmented && a->msg && a->msg == b->msg;
}

/* A fragmented copy whose CoAP header the sniffer missed (its FRAG1) takes
 * the message of another hop's copy of the same datagram. */
static void tie_by_other_hop(const ota_track_t *t, guint32 i, ota_copy_t *c)
{
    guint32 n = chunk_array_count(t->copy_list);

    for (guint32 j = i > TIE_SCAN ? i - TIE_SCAN : 0; j < MIN(n, i + TIE_SCAN + 1); j++) {
        const ota_copy_t *o = copy_at(t, j);
        if (j == i || !o->msg || !same_datagram(c, o) || (o->src != c->dst && o->dst != c->src) ||
            llabs(o->first_us - c->first_us) > RADIO_HOP_WINDOW_US)
            continue;
        c->msg = o->msg;
        c->msg_is_guess = TRUE;
        c->coap_type = o->coap_type;
        c->coap_code = o->coap_code;
        return;
    }
}

/* What c's receiver did next, as the copies after it show: sent the
 * datagram on (*fwd, its copy on the next hop), or acted on the message
 * (answered a request, asked for the block after a response's). Nothing
 * counts once c's sender sent the message again on c's link. */
static gboolean receiver_acted(const ota_track_t *t, guint32 i, const ota_copy_t *c, const ota_copy_t **fwd)
{
    const ota_msg_t *m = c->msg;
    guint32 n = chunk_array_count(t->copy_list);
    /* An earlier copy of the message on c's link that arrived whole may be
     * the one the receiver acted on. */
    gboolean earlier_on_link = FALSE;

    for (const ota_copy_t *o = m ? m->copies : NULL; o; o = o->next_of_msg)
        earlier_on_link |= o != c && o->src == c->src && o->dst == c->dst && o->first_us <= c->first_us && o->complete;
    *fwd = NULL;
    for (guint32 j = i + 1; j < MIN(n, i + 1 + ACTED_SCAN); j++) {
        const ota_copy_t *e = copy_at(t, j);
        if (e->first_us > c->last_us + ATTRIBUTE_US)
            break;
        if (e->src == c->src && e->dst == c->dst && (same_datagram(c, e) || (m && e->msg == m)))
            break;
        if (e->src != c->dst)
            continue;
        if (!*fwd && e->dst != c->src && same_datagram(c, e) && e->first_us <= c->last_us + RADIO_HOP_WINDOW_US) {
            *fwd = e;
            continue;
        }
        if (!m || !e->msg || e->msg == m || earlier_on_link)
            continue;
        if (m->is_request && e->msg->request == m)
            return TRUE;
        if (!m->is_request && e->msg->is_request && e->msg->xfer == m->xfer)
            return m->request && e->msg != m->request && e->msg->offset > m->request->offset;
    }
    return FALSE;
}

/* Missing bytes [from, to) of a copy whose fragments carry unit bytes: how
 * many fragments they were (a FRAG1's span is its data and the headers it
 * compressed: to the nearest count). */
static guint missing_frags(guint from, guint to, guint unit, gboolean to_end)
{
    if (to <= from)
        return 0;
    if (to_end)
        return (to - from + unit - 1) / unit;
    return MAX(1u, (to - from + unit / 2) / unit);
}

typedef struct { guint16 off, end; } frag_span_t;

static gboolean copy_has_offset(const ota_copy_t *c, guint16 offset)
{
    for (guint k = 0; k < c->n_frags; k++)
        if (c->frags[k].offset == offset)
            return TRUE;
    return FALSE;
}

static int cmp_span(const void *a, const void *b)
{
    return (int)((const frag_span_t *)a)->off - (int)((const frag_span_t *)b)->off;
}

/* Which of c's frames arrived though no ACK was captured, which fragments
 * the sniffer missed, and whether c is lost (and whether surely). A sender
 * sends a datagram's fragments in order and drops the rest when one fails
 * (RFC 4944 has no recovery): a later fragment proves every earlier one
 * arrived; so does the receiver's acting on it. */
static void infer_copy(const ota_track_t *t, guint32 i, ota_copy_t *c)
{
    const ota_copy_t *fwd = NULL;
    gboolean shown_all = c->complete;
    guint top = 0, fwd_top = 0, gaps_before_top = 0, missed_acks = 0, retries = 0, unit = 0;
    gboolean has_fwd_top = FALSE, acted = FALSE, confirmed = FALSE, unacked = FALSE;

    for (guint k = 0; k < c->n_frags; k++) {
        c->frags[k].delivered = FALSE;
        shown_all &= !t->acks_seen || c->frags[k].acked;
        top = MAX(top, c->frags[k].offset);
    }
    c->missed_frags = 0;
    /* A sender that gave up on a fragment (sent it 4 times, no ACK) sent
     * nothing after it: what the receiver did next came from elsewhere. */
    gboolean gave_up = FALSE;
    for (guint k = 0; t->acks_seen && k < c->n_frags; k++)
        gave_up |= !c->frags[k].acked && c->frags[k].transmissions >= RADIO_MAC_TRANSMISSIONS;
    if (!shown_all)
        acted = receiver_acted(t, i, c, &fwd) && !gave_up;
    if (fwd)
        for (guint k = 0; k < fwd->n_frags; k++) {
            fwd_top = MAX(fwd_top, fwd->frags[k].offset);
            has_fwd_top = TRUE;
        }
    c->whole = c->complete;
    if (c->fragmented && !c->complete && !c->bad_size) {
        frag_span_t spans[2 * OTA_MAX_FRAGS];
        guint n = 0, at = 0;
        for (int pass = 0; pass < 2; pass++) {
            const ota_copy_t *o = pass ? fwd : c;
            for (guint k = 0; o && k < o->n_frags; k++) {
                const ota_frag_t *fr = &o->frags[k];
                /* What a full FRAGN carries: any FRAGN's frame tells it
                 * (127 bytes less those that are not its data, to 8). */
                if (fr->offset && fr->psdu_len && fr->psdu_len <= 127)
                    unit = MAX(unit, MAX(fr->len, (127u - fr->psdu_len + fr->len) / 8 * 8));
                else if (fr->offset)
                    unit = MAX(unit, fr->len);
                spans[n].off = fr->offset;
                spans[n].end = (guint16)(fr->offset + fr->len);
                n++;
                /* The next hop forwarded a fragment c's capture lacks: it was sent on c's link. */
                if (pass && !copy_has_offset(c, fr->offset)) {
                    c->missed_frags++;
                    gaps_before_top += fr->offset < top;
                }
            }
        }
        qsort(spans, n, sizeof spans[0], cmp_span);
        unit = unit ? unit : 96;
        for (guint k = 0; k < n; k++) {
            /* A FRAG1 whose span is unknown reaches the next fragment. */
            if (spans[k].off > at && !(k && spans[k - 1].off == 0 && spans[k - 1].end == 0)) {
                guint m = missing_frags(at, spans[k].off, unit, FALSE);
                c->missed_frags += m;
                if (spans[k].off <= top)
                    gaps_before_top += m;
            }
            at = MAX(at, spans[k].end);
        }
        if (acted && at < c->size) {
            c->missed_frags += missing_frags(at, c->size, unit, TRUE);
            at = c->size;
        }
        c->whole = at >= c->size;
    }
    for (guint k = 0; k < c->n_frags; k++) {
        ota_frag_t *fr = &c->frags[k];
        retries += fr->retry_missed;
        if (fr->acked)
            continue;
        /* The receiver had it; and the sender, which retries a frame until
         * it gets an ACK, stopped before giving up: the ACK was on the air.
         * (A frame whose every ACK was lost on the air is sent 4 times.) */
        gboolean received = acted || (c->fragmented && has_fwd_top && fr->offset <= fwd_top) || (!c->fragmented && fwd);
        fr->delivered = (c->fragmented && fr->offset < top) || (received && fr->transmissions < RADIO_MAC_TRANSMISSIONS);
        if (!t->acks_seen)
            continue;
        missed_acks += fr->delivered;
        if (!fr->delivered) {
            unacked = TRUE;
            confirmed |= fr->transmissions >= RADIO_MAC_TRANSMISSIONS;
        }
    }
    /* A fragment missed between two captured ones had its ACK missed too,
     * unless an unmatched ACK was its. */
    guint extra = t->acks_seen && gaps_before_top > c->acks_claimed ? gaps_before_top - c->acks_claimed : 0;
    c->missed_frames = (guint8)MIN(c->missed_frags + missed_acks + retries + extra, G_MAXUINT8);
    c->lost = !c->whole || unacked;
    c->lost_uncertain = c->lost && !confirmed;
}

/* ---- messages, rounds, transfers ---- */

/* Transfer id of exchange ex, an upload (Block1) or a download. */
static ota_transfer_t *get_transfer(ota_track_t *t, const coap_exchange_t *ex, guint32 id, gboolean upload,
                                    const meter_coap_t *m)
{
    ota_transfer_t *x = (ota_transfer_t *)wmem_map_lookup(t->xfers, GUINT_TO_POINTER(id));

    if (x)
        return x;
    x = wmem_new0(t->scope, ota_transfer_t);
    x->id = id;
    x->meter = address_to_str(t->scope, ex->client);
    x->gateway = address_to_str(t->scope, ex->server);
    x->path = wmem_strdup(t->scope, m->path ? m->path : "");
    x->upload = upload;
    x->szx_first = x->szx = upload ? m->block1.szx : m->block2.szx;
    x->size_hint = -1;
    x->last_response_us = -1;
    x->first_us = -1;
    x->last_us = -1;
    x->msgs = wmem_array_new(t->scope, sizeof(ota_msg_t *));
    x->request_at = wmem_map_new(t->scope, g_direct_hash, g_direct_equal);
    x->silences = wmem_array_new(t->scope, 2 * sizeof(gint64));
    wmem_map_insert(t->xfers, GUINT_TO_POINTER(x->id), x);
    /* Keep the list in id order (ids grow, so appending keeps it sorted). */
    x->slot = wmem_array_get_count(t->xfer_list);
    wmem_array_append_one(t->xfer_list, x);
    return x;
}

static void fill_block(ota_msg_t *msg, const meter_coap_t *m, gboolean upload)
{
    const meter_block_t *b = upload ? &m->block1 : &m->block2;
    guint plen = m->payload ? tvb_reported_length(m->payload) : 0;

    msg->has_block = b->present;
    msg->szx = b->szx;
    msg->more = b->more;
    msg->offset = b->present ? b->num * meter_block_size(b->szx) : 0;
    /* The payload is the block for a download response or an upload request. */
    msg->len = (upload == meter_coap_is_request(m)) ? plen : 0;
}

/* The latest earlier request for the block at offset (not msg itself). */
static ota_msg_t *earlier_request_for_block(ota_transfer_t *x, const ota_msg_t *msg)
{
    ota_msg_t *o = (ota_msg_t *)wmem_map_lookup(x->request_at, GUINT_TO_POINTER(msg->offset + 1));
    return o == msg ? NULL : o;
}

static coap_exchange_t *exchange_in(ota_track_t *t, const meter_coap_t *m, const char *src, const char *dst,
                                    const address *src_addr, const address *dst_addr, guint32 frame,
                                    gint64 ts_us, wmem_allocator_t *tmp)
{
    return coap_exchange_for(t->exchanges, m, src, dst, src_addr, dst_addr, frame, ts_us, tmp);
}

static const ota_round_t *first_round(const ota_msg_t *msg)
{
    return msg->rounds.n ? &msg->rounds.at[0] : NULL;
}

/* The exchange's message that m is a copy of: the same direction, Message
 * ID, type and code, block and token, within the MID's lifetime; NULL for a
 * new message. The request comes first in the list. */
static ota_msg_t *exchange_msg(const coap_exchange_t *ex, const ota_transfer_t *x, gboolean from_client,
                               const meter_coap_t *m, const meter_coap_identity_t *id, gint64 ts_us)
{
    for (guint i = ex->msgs.n; i > 0; i--) {
        ota_msg_t *msg = ex->msgs.at[i - 1];
        const ota_round_t *r0 = first_round(msg);
        if (msg->xfer == x && msg->from_client == from_client && msg->mid == m->mid && msg->type == m->type &&
            msg->code == m->code)
            return r0 && (!meter_coap_mid_in_use(msg->type, r0->first_us, ts_us) ||
                          !meter_coap_same_identity(&msg->id, id)) ? NULL : msg;
    }
    return NULL;
}

static ota_msg_t *exchange_request(const coap_exchange_t *ex, const ota_transfer_t *x)
{
    for (guint i = 0; i < ex->msgs.n; i++) {
        ota_msg_t *msg = ex->msgs.at[i];
        if (msg->is_request && msg->xfer == x)
            return msg;
    }
    return NULL;
}

/* Messages of one MID are kept in the order they began (first_msg_from). */
static void index_by_mid(ota_track_t *t, ota_msg_t *msg)
{
    ota_msg_list_t *same = (ota_msg_list_t *)wmem_map_lookup(t->msgs_by_mid, GUINT_TO_POINTER(msg->mid));

    if (!same) {
        same = wmem_new0(t->scope, ota_msg_list_t);
        wmem_map_insert(t->msgs_by_mid, GUINT_TO_POINTER(msg->mid), same);
    }
    list_append(t->scope, (void **)&same->at, &same->n, &same->cap, &msg, sizeof msg);
    for (guint i = same->n - 1; i > 0 && same->at[i - 1]->rounds.n && msg->rounds.n &&
                                same->at[i - 1]->rounds.at[0].first_us > msg->rounds.at[0].first_us; i--) {
        same->at[i] = same->at[i - 1];
        same->at[i - 1] = msg;
    }
}

/* The request of a response whose transfer began with it (its answer
 * carries block 0) although the request was not read as part of it: a
 * request without Block2 (late negotiation, RFC 7959 2.4) or an upload's
 * (3.3). It becomes the transfer's first request, from what its exchange
 * kept: its first copy, as one round (copies and retransmissions of it
 * before its answer are not told apart). */
static ota_msg_t *join_request(ota_track_t *t, ota_transfer_t *x, coap_exchange_t *ex, gint64 now)
{
    ota_msg_t *req = wmem_new0(t->scope, ota_msg_t);
    ota_copy_result_t *r = wmem_new0(t->scope, ota_copy_result_t);
    ota_round_t r0 = { .first_frame = ex->frame, .last_frame = ex->frame, .first_us = ex->first_us,
                       .last_us = ex->first_us, .start_us = ex->first_us, .result = r };

    req->xfer = x;
    req->is_request = req->from_client = req->joined_late = TRUE;
    req->type = ex->type;
    req->code = ex->code;
    req->mid = ex->mid;
    req->id = ex->id;
    req->not_before = x->last_us >= 0 ? x->last_us : 0;
    list_append(t->scope, (void **)&req->rounds.at, &req->rounds.n, &req->rounds.cap, &r0, sizeof r0);
    r->msg = req;
    r->round = 1;
    r->rtt_first_us = r->rtt_last_us = r->turnaround_us = r->size_hint = -1;
    list_append(t->scope, (void **)&ex->msgs.at, &ex->msgs.n, &ex->msgs.cap, &req, sizeof req);
    wmem_array_append_one(x->msgs, req);
    index_by_mid(t, req);
    wmem_map_insert(x->request_at, GUINT_TO_POINTER(1), req);
    if (x->first_us < 0 || ex->first_us < x->first_us) {
        x->first_us = ex->first_us;
        x->first_frame = ex->frame;
    }
    x->last_us = MAX(x->last_us, ex->first_us);
    x->last_frame = MAX(x->last_frame, ex->frame);
    attribute_copies(t, req, now);
    return req;
}

const ota_copy_result_t *ota_track_joined_request(const coap_exchange_t *ex, guint32 frame)
{
    for (guint i = 0; ex && i < ex->msgs.n; i++) {
        const ota_msg_t *msg = ex->msgs.at[i];
        if (msg->joined_late && msg->rounds.at[0].first_frame == frame)
            return msg->rounds.at[0].result;
    }
    return NULL;
}

/* What the image's size is, from the first source that tells it: Size2
 * (read below) or the size the meter's configuration announced; else the
 * image's own MCUboot header and TLV info, block by block (mcuboot_size.h),
 * which tell only how long it is at least. */
static void learn_size(ota_transfer_t *x, const meter_coap_t *m, const ota_image_hints_t *hints)
{
    gint64 size;

    if (!hints || !hints->image || (x->size_hint >= 0 && !x->size_at_least))
        return;
    if (hints->announced_size > 0) {
        x->size_hint = hints->announced_size;
        x->size_at_least = FALSE;
        return;
    }
    if (!m->payload || !m->block2.present || m->code != COAP_CODE_CONTENT)
        return;
    mcuboot_size_feed(&x->image, (guint64)m->block2.num * meter_block_size(m->block2.szx), m->payload);
    if (mcuboot_size_get(&x->image, &size) != MCUBOOT_SIZE_UNKNOWN) {
        x->size_hint = size;
        x->size_at_least = TRUE;
    }
}

/* The message in one of its exchange's transfers. */
static ota_copy_result_t *track_in(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us, const char *src,
                                   coap_exchange_t *ex, guint32 transfer_id, gboolean upload, const meter_coap_t *m,
                                   const ota_image_hints_t *hints)
{
    ota_copy_result_t *r;
    ota_transfer_t *x;
    ota_msg_t *msg;
    ota_round_t *round = NULL;
    ota_addr_t link;

    t->dirty = TRUE;
    x = get_transfer(t, ex, transfer_id, upload, m);
    r = wmem_new0(t->scope, ota_copy_result_t);
    r->rtt_first_us = r->rtt_last_us = r->turnaround_us = -1;
    /* Without a link layer every copy is its own transmission. */
    link = f && f->src ? f->src : (ota_addr_t)g_str_hash(src);

    gboolean from_client = strcmp(src, ex->client_key) == 0;
    meter_coap_identity_t id = meter_coap_identity(m);
    msg = exchange_msg(ex, x, from_client, m, &id, ts_us);
    if (!msg) {
        msg = wmem_new0(t->scope, ota_msg_t);
        msg->xfer = x;
        msg->is_request = meter_coap_is_request(m);
        msg->from_client = from_client;
        /* A request follows whatever its transfer did before it. */
        msg->not_before = msg->is_request && x->last_us >= 0 ? x->last_us : 0;
        msg->type = m->type;
        msg->code = m->code;
        msg->mid = m->mid;
        msg->id = id;
        fill_block(msg, m, x->upload);
        if (!msg->is_request) {
            msg->request = exchange_request(ex, x);
            /* (An answer whose request the sniffer missed has none: finalize counts it.) */
            if (!msg->request && m->code != COAP_CODE_EMPTY && from_client == FALSE && !ex->request_missed)
                msg->request = join_request(t, x, ex, ts_us);
            if (msg->request)
                msg->not_before = first_round(msg->request)->first_us;
            if (msg->request && msg->code != COAP_CODE_EMPTY)
                list_append(t->scope, (void **)&msg->request->responses.at, &msg->request->responses.n,
                            &msg->request->responses.cap, &msg, sizeof msg);
        }
        list_append(t->scope, (void **)&ex->msgs.at, &ex->msgs.n, &ex->msgs.cap, &msg, sizeof msg);
        wmem_array_append_one(x->msgs, msg);
        index_by_mid(t, msg);
    }
    r->msg = msg;

    guint n_rounds = msg->rounds.n;
    if (n_rounds) {
        round = &msg->rounds.at[n_rounds - 1];
        gboolean used = FALSE;
        for (guint i = 0; i < round->n_links; i++)
            used |= round->links[i] == ota_link_id(link);
        if (used || ts_us - round->last_us > RADIO_HOP_WINDOW_US || round->n_links == G_N_ELEMENTS(round->links))
            round = NULL;
    }
    if (round) {
        r->hop_copy = TRUE;
        round->links[round->n_links++] = ota_link_id(link);
        round->last_frame = frame;
        round->last_us = ts_us;
    } else {
        ota_round_t nr = { .first_frame = frame, .last_frame = frame, .first_us = ts_us, .last_us = ts_us,
                           .links = { ota_link_id(link) }, .n_links = 1, .result = r,
                           .start_us = f && f->copy ? MIN(f->copy->first_us - f->copy->first_air_us, ts_us) : ts_us };
        if (n_rounds) {
            ota_round_t *prev = &msg->rounds.at[n_rounds - 1];
            /* A request sent again; a response sent again is a duplicate
             * response (below), as the statistics count them. */
            r->retransmission = msg->is_request;
            r->prev_tx_frame = prev->first_frame;
        }
        list_append(t->scope, (void **)&msg->rounds.at, &msg->rounds.n, &msg->rounds.cap, &nr, sizeof nr);
    }
    r->round = msg->rounds.n;
    attribute_copies(t, msg, ts_us);
    if (f && f->copy && (!f->copy->msg || f->copy->msg_is_guess)) {
        f->copy->msg = msg;
        f->copy->msg_is_guess = FALSE;
    }

    x->on_radio |= f && f->air_us;
    /* Transfer-level timing and progress, as known at this frame. */
    if (x->first_us < 0 && msg->is_request) {
        x->first_us = ts_us;
        x->first_frame = frame;
        x->meter_link = f ? f->src : 0;
    }
    if (x->last_us >= 0 && x->first_us >= 0) {
        r->stall_us = since_us(ts_us, x->last_us);
        if (r->stall_us >= SILENCE_MIN_US) {
            gint64 gap[2] = { x->last_us, r->stall_us };
            wmem_array_append(x->silences, gap, 1);
        }
    }
    x->last_us = MAX(x->last_us, ts_us);
    x->last_frame = MAX(x->last_frame, frame);
    r->elapsed_us = x->first_us >= 0 ? since_us(ts_us, x->first_us) : 0;

    if (msg->is_request && !r->hop_copy) {
        ota_msg_t *earlier = r->round == 1 ? earlier_request_for_block(x, msg) : NULL;
        if (r->round == 1)
            wmem_map_insert(x->request_at, GUINT_TO_POINTER(msg->offset + 1), msg);
        if (r->round == 1 && earlier) {
            ota_round_t *er = &earlier->rounds.at[earlier->rounds.n - 1];
            r->rerequest = TRUE;
            r->prev_tx_frame = er->first_frame;
        }
        if (r->round == 1 && !r->rerequest) {
            if (x->last_response_us >= 0)
                r->turnaround_us = since_us(ts_us, x->last_response_us);
            /* A gap is bytes neither asked nor answered: a server may answer
             * more than asked (RFC 7959 2.4 forbids it, but it happens). */
            guint32 reach = MAX(x->highest_requested + meter_block_size(msg->szx), x->next_offset);
            if (msg->offset < x->highest_requested)
                r->out_of_order = TRUE;
            else if (msg->offset > reach && msg->offset > 0)
                r->gap = TRUE;
            x->highest_requested = MAX(x->highest_requested, msg->offset);
        }
        if (r->retransmission || r->rerequest) {
            const ota_msg_t *lost_req = r->rerequest ? earlier : msg;
            gint64 since = lost_req->rounds.at[0].first_us;
            gboolean answered = lost_req->responses.n > 0;
            const ota_copy_t *current = f ? f->copy : NULL;
            if (msg_lost_before(t, lost_req, lost_req->type, since, ts_us, current))
                r->cause = OTA_CAUSE_REQUEST_LOST;
            else if (msg_lost_before(t, lost_req, COAP_TYPE_ACK, since, ts_us, current))
                r->cause = OTA_CAUSE_RESPONSE_LOST;
            else if (answered)
                r->cause = OTA_CAUSE_NOT_ACCEPTED;
            else
                r->cause = OTA_CAUSE_NOTHING_VISIBLE;
        }
    }
    if (!msg->is_request && msg->request && m->code != COAP_CODE_EMPTY) {
        ota_msg_t *req = msg->request;
        guint nr = req->rounds.n;
        ota_round_t *r0 = &req->rounds.at[0];
        ota_round_t *rl = &req->rounds.at[nr - 1];
        r->rtt_first_us = since_us(ts_us, r0->first_us);
        r->rtt_last_us = since_us(ts_us, rl->first_us);
        x->last_response_us = ts_us;
        if (r->round > 1 && !r->hop_copy)
            r->duplicate_response = TRUE;
        /* The block size of the answer against the request's (RFC 7959
         * 2.4, 2.5): smaller is a renegotiation, larger not allowed; the
         * transfer goes on by byte offset either way. */
        const meter_block_t *got = x->upload ? &m->block1 : &m->block2;
        if (got->present && coap_code_class(m->code) <= 2) {
            guint8 asked = req->has_block ? req->szx : x->szx;
            if (got->szx < asked && got->szx < x->szx)
                r->renegotiation = TRUE;
            else if (got->szx > asked)
                r->szx_larger = TRUE;
            r->szx_asked = asked;
            x->renegotiated |= got->szx != asked;
            x->szx = got->szx;
        }
        if ((x->size_hint < 0 || x->size_at_least) && m->size2 > 0) {
            x->size_hint = m->size2;
            x->size_at_least = FALSE;
        }
        /* Upload: the request carries the block (a final 2.04 may have no Block1). */
        const ota_msg_t *blk = x->upload ? req : msg;
        if (coap_code_is_success(m->code) && blk->offset == x->next_offset && blk->has_block)
            x->next_offset += blk->len;
    }
    /* A source counts from the message that tells it. */
    learn_size(x, m, hints);
    r->bytes_so_far = x->next_offset;
    r->size_hint = x->size_hint;
    r->size_at_least = x->size_at_least;
    return r;
}

static ota_copy_result_t *message_in(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us,
                                     const char *src, coap_exchange_t *ex, const meter_coap_t *m,
                                     const ota_image_hints_t *hints)
{
    ota_copy_result_t *r;

    /* A frame's own time is its end, once the time base is known. */
    if (f)
        ts_us = f->ts_us;
    if (f && t->time_base.kind == OTA_STAMP_UNKNOWN)
        t->time_base.early_messages++;
    if (!ex || !ex->transfer_id || (f && (f->mac_retry || f->sniffer_dup)))
        return NULL;
    r = track_in(t, f, frame, ts_us, src, ex, ex->transfer_id, ex->upload, m, hints);
    /* The answer to an upload's request that starts a download is in both. */
    if (ex->response_transfer_id && !meter_coap_is_request(m))
        r->also = track_in(t, f, frame, ts_us, src, ex, ex->response_transfer_id, FALSE, m, hints);
    return r;
}

gboolean ota_track_size_known(ota_track_t *t, guint32 transfer_id)
{
    const ota_transfer_t *x = ota_track_transfer(t, transfer_id);

    return x && x->size_hint >= 0;
}

static void set_verified(ota_track_t *t, guint32 transfer_id)
{
    ota_transfer_t *x = ota_track_transfer(t, transfer_id);

    /* The record is rebuilt at the next finalize. */
    if (x && !x->image_verified) {
        x->image_verified = TRUE;
        t->dirty = TRUE;
    }
}

/* ---- finalize ---- */

static gint64 abs64(gint64 v) { return v < 0 ? -v : v; }

/* A copy that never completed and came after its message's last complete
 * copy (a lost resend, say) is tied here: to the message with its MID, type
 * and code whose copies are nearest in time, preferring one that used the
 * copy's link. */
static gint64 msg_first_us(const ota_msg_t *m)
{
    return m->rounds.at[0].first_us;
}

/* The first message of a list in the order they began that began at `from`
 * or later (binary search). */
static guint first_msg_from(const ota_msg_list_t *msgs, gint64 from)
{
    guint lo = 0, hi = msgs->n;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (msg_first_us(msgs->at[mid]) < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void attribute_leftover(ota_track_t *t, ota_copy_t *c)
{
    const ota_msg_list_t *same = (const ota_msg_list_t *)wmem_map_lookup(t->msgs_by_mid,
                                                                        GUINT_TO_POINTER(c->coap_mid));
    ota_msg_t *best = NULL;
    gint64 best_d = ATTRIBUTE_US;
    gboolean best_link = FALSE;
    /* Only messages whose rounds can come within ATTRIBUTE_US of the copy:
     * a message's rounds stay within its Message ID's lifetime. */
    guint from = same ? first_msg_from(same, c->first_us - ATTRIBUTE_US - COAP_EXCHANGE_LIFETIME_US) : 0;

    /* A piggy-backed response that never got through has its request's MID:
     * failing a message of its own, it belongs to that request. */
    for (int pass = 0; pass < 2 && !best; pass++)
    for (guint i = from; same && i < same->n; i++) {
        ota_msg_t *m = same->at[i];
        if (msg_first_us(m) > c->first_us + ATTRIBUTE_US)
            break;
        if (pass == 0 && (m->type != c->coap_type || m->code != c->coap_code))
            continue;
        if (pass == 1 && !(c->coap_type == COAP_TYPE_ACK && m->is_request && m->type == COAP_TYPE_CON))
            continue;
        if (c->first_us < m->not_before)
            continue;
        for (guint k = 0; k < m->rounds.n; k++) {
            ota_round_t *rd = &m->rounds.at[k];
            gboolean link = FALSE;
            for (guint l = 0; l < rd->n_links; l++)
                link |= rd->links[l] == ota_link_id(c->src);
            gint64 d = MIN(abs64(c->first_us - rd->first_us), abs64(c->first_us - rd->last_us));
            /* Never further than that: a Message ID is used again, hours later. */
            if (d >= ATTRIBUTE_US)
                continue;
            if ((link && !best_link) || (link == best_link && d < best_d)) {
                best = m;
                best_d = d;
                best_link = link;
            }
        }
    }
    c->msg = best;
}

static int cmp_i64(const void *a, const void *b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the value at rank ceil(p n). */
static double quantile_s(wmem_array_t *v, double p)
{
    guint n = wmem_array_get_count(v);

    if (!n)
        return -1;
    qsort(wmem_array_get_raw(v), n, sizeof(gint64), cmp_i64);
    guint rank = (guint)ceil(p * n);
    return *(gint64 *)wmem_array_index(v, MAX(rank, 1) - 1) / 1e6;
}

static const ota_round_t *accepted_round(const ota_msg_t *req, const ota_msg_t **resp)
{
    const ota_msg_list_t *msgs = &req->responses;
    const ota_round_t *best = NULL;
    guint nr = req->rounds.n;
    gint64 last_req = req->rounds.at[nr - 1].first_us;

    for (guint i = 0; i < msgs->n; i++) {
        const ota_msg_t *o = msgs->at[i];
        for (guint k = 0; k < o->rounds.n; k++) {
            const ota_round_t *rd = &o->rounds.at[k];
            if (last_req > rd->last_us)
                continue;               /* followed by a retransmission: not taken */
            if (!best || rd->first_us < best->first_us) {
                best = rd;
                *resp = o;
            }
        }
    }
    return best;
}

/* Was round k of the request (0-based) a spurious retransmission? */
static gboolean round_spurious(const ota_msg_t *req, guint k)
{
    const ota_round_t *rd = k < req->rounds.n ? &req->rounds.at[k] : NULL;
    return rd && rd->result && rd->result->cause == OTA_CAUSE_SPURIOUS;
}

/* How many rounds of the request's responses (duplicates too) had their
 * first copy before t: the answers the meter had by then. */
static guint answers_before(const ota_msg_t *req, gint64 t)
{
    guint n = 0;
    for (guint i = 0; i < req->responses.n; i++) {
        const ota_msg_t *o = req->responses.at[i];
        for (guint k = 0; k < o->rounds.n; k++)
            n += o->rounds.at[k].first_us < t;
    }
    return n;
}

/* ---- where the time went (ota_split.c) ---- */

static void count_stalls(meter_transfer_record_t *s, const ota_transfer_t *x, double stall_s, gint64 end)
{
    for (guint i = 0; i < wmem_array_get_count(x->silences); i++) {
        const gint64 *gap = (const gint64 *)wmem_array_index(x->silences, i);
        if (gap[0] + gap[1] <= end && gap[1] > (gint64)(stall_s * 1e6)) {
            s->stalls++;
            s->stalled_s += gap[1] / 1e6;
        }
    }
}

/* Starts a transfer's record over: the columns that are the transfer's own
 * (the statistics follow). Every finalize does it, so a renegotiated SZX or
 * a verified image set since shows. */
static void record_start(ota_track_t *t, ota_transfer_t *x)
{
    meter_transfer_record_t *r = &x->rec;
    /* The record's path has its slash; made once, as finalize runs again
     * whenever frames came. */
    const char *path = r->path ? r->path : wmem_strdup_printf(t->scope, "/%s", x->path);

    memset(r, 0, sizeof *r);
    r->transfer = x->id;
    r->meter = x->meter;
    r->gateway = x->gateway;
    r->path = path;
    r->kind = x->upload ? "block1" : "block2";
    r->szx_first = x->szx_first;
    r->szx = x->szx;
    r->block_size = meter_block_size(x->szx);
    r->renegotiated = x->renegotiated;
    r->verified = x->image_verified;
    r->size_hint = x->size_hint;
    x->frames_captured_unlogged = x->acks_matched = 0;
}

static gboolean copies_lost(const ota_track_t *t, const ota_msg_t *msg)
{
    for (const ota_copy_t *c = msg->copies; c; c = c->next_of_msg)
        if (copy_lost(t, c, G_MAXINT64))
            return TRUE;
    return FALSE;
}

/* A round's time across every hop, from its first copy's first frame to
 * its last copy, less the time a poll kept it waiting. */
static gint64 round_span(const ota_round_t *rd, const GArray *poll_runs)
{
    return rd->last_us - rd->start_us - ota_runs_cover(poll_runs, rd->start_us, rd->last_us);
}

/* How much longer an incomplete transfer of known size would take at the
 * pace of its blocks so far: the times between blocks taken (the first
 * from the first request) are a sample of the blocks still to come, whose
 * sum has the sample's mean times n; its 90% range counts the spread of
 * n blocks and the uncertainty of the mean measured on N. */
static void estimate_eta(meter_transfer_record_t *s, wmem_array_t *taken_us)
{
    guint N = wmem_array_get_count(taken_us);
    gint64 left = s->size_hint - s->bytes;
    meter_eta_sample_t sample = { 0 };

    s->eta_s = s->eta_low_s = s->eta_high_s = -1;
    if (s->complete || s->size_hint < 0 || left <= 0 || !N || !s->block_size)
        return;
    qsort(wmem_array_get_raw(taken_us), N, sizeof(gint64), cmp_i64);
    double prev = s->first_request_us;
    for (guint i = 0; i < N; i++) {
        double at = *(gint64 *)wmem_array_index(taken_us, i);
        meter_eta_add(&sample, MAX(0.0, at - prev) / 1e6);
        prev = MAX(prev, at);
    }
    meter_eta_estimate(&sample, ceil((double)left / s->block_size), &s->eta_s, &s->eta_low_s, &s->eta_high_s);
}

/* air_spans: its frames' times on the air (gint64 pairs; frames of two
 * hops may overlap), made its runs here. */
/* A client asks for the next block only once it has the one before
 * (RFC 7959 2.5: a download's block after the answer to the one before; an
 * upload's after the server's 2.31 Continue): a request for a block, or an
 * answer to one, proves that every block before it arrived whole, back to
 * the first block the capture shows (what came before the capture began is
 * not the capture's), also those whose answer (or upload request) the
 * capture missed whole. Those count at the size their neighbour's SZX
 * gives. */
static void prove_blocks_before_requests(const ota_transfer_t *x, wmem_map_t *offsets, wmem_allocator_t *tmp)
{
    guint32 first = G_MAXUINT32;
    wmem_map_t *failed = wmem_map_new(tmp, g_direct_hash, g_direct_equal);

    /* Only where the sniffer is seen to miss frames: a client may also skip
     * ahead on its own, and a block answered with an error did not arrive. */
    if (!x->rec.frames_missed_by_sniffer)
        return;
    for (guint i = 0; i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        if (!o->is_request && o->request && !coap_code_is_success(o->code) && o->code != COAP_CODE_EMPTY)
            wmem_map_insert(failed, GUINT_TO_POINTER(o->request->offset + 1), NULL);
        if (o->has_block && !o->joined_late)
            first = MIN(first, o->offset);
    }
    /* From each block the capture shows, back to the one before it that it
     * shows too. */
    for (guint i = 0; i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        guint32 size = meter_block_size(o->szx);
        if (!o->has_block || o->joined_late)
            continue;
        for (guint32 at = o->offset; at >= first + size;) {
            at -= size;
            if (wmem_map_contains(offsets, GUINT_TO_POINTER(at + 1)) || wmem_map_contains(failed, GUINT_TO_POINTER(at + 1)))
                break;
            wmem_map_insert(offsets, GUINT_TO_POINTER(at + 1), GUINT_TO_POINTER(size));
        }
    }
}

static void finalize_transfer(const ota_track_t *t, ota_transfer_t *x, GArray *air_spans, wmem_array_t *polls,
                              double stall_s)
{
    meter_transfer_record_t *s = &x->rec;
    wmem_allocator_t *tmp = wmem_allocator_new(WMEM_ALLOCATOR_BLOCK);
    wmem_array_t *rf = wmem_array_new(tmp, sizeof(gint64)), *rl = wmem_array_new(tmp, sizeof(gint64));
    wmem_array_t *ta = wmem_array_new(tmp, sizeof(gint64));
    wmem_array_t *req_spans = wmem_array_new(tmp, sizeof(gint64)), *resp_spans = wmem_array_new(tmp, sizeof(gint64));
    wmem_array_t *taken = wmem_array_new(tmp, sizeof(gint64));
    wmem_map_t *taken_at = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    guint np = polls ? wmem_array_get_count(polls) : 0;
    GArray *poll_runs = g_array_sized_new(FALSE, FALSE, 2 * sizeof(gint64), np);
    if (np)
        g_array_append_vals(poll_runs, wmem_array_get_raw(polls), np);
    ota_runs_from_spans(poll_runs);
    wmem_map_t *offsets = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    wmem_map_t *requested = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    GArray *marks = g_array_new(FALSE, FALSE, sizeof(ota_split_mark_t));
    gint64 prev_accepted = -1;
    gboolean have_prev = FALSE;

    /* record_start began s, the datagram loop summed its counters. */
    s->first_request_us = x->first_us;
    s->first_frame = x->first_frame;
    s->last_response_us = -1;
    s->last_activity_us = -1;
    for (guint i = 0; i < wmem_array_get_count(x->msgs); i++) {
        ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        guint nr = o->rounds.n;
        for (guint k = 0; k < nr; k++) {
            ota_round_t *rd = &o->rounds.at[k];
            if (rd->last_us > s->last_activity_us) {
                s->last_activity_us = rd->last_us;
                s->last_frame = rd->last_frame;
            }
        }
        if (!o->is_request) {
            /* Client and server errors: the classes RFC 7252 defines. */
            if (coap_code_class(o->code) == 4 || coap_code_class(o->code) == 5)
                s->error_responses++;
            if (o->request && o->code != COAP_CODE_EMPTY)
                s->duplicate_responses += nr - 1;
            if (!x->upload && coap_code_is_success(o->code) && o->has_block && o->len)
                wmem_map_insert(offsets, GUINT_TO_POINTER(o->offset + 1), GUINT_TO_POINTER(o->len));
            if (x->upload && o->request && coap_code_is_success(o->code))
                wmem_map_insert(offsets, GUINT_TO_POINTER(o->request->offset + 1),
                                GUINT_TO_POINTER(o->request->len));
            /* A 2.31 Continue whose request the sniffer missed: a full block. */
            if (x->upload && !o->request && o->code == COAP_CODE_CONTINUE && o->has_block && o->more)
                wmem_map_insert(offsets, GUINT_TO_POINTER(o->offset + 1), GUINT_TO_POINTER(meter_block_size(o->szx)));
            /* A piggybacked answer proves its request, which the sniffer missed. */
            if (!o->request && o->type == COAP_TYPE_ACK && o->code != COAP_CODE_EMPTY)
                s->requests++;
            continue;
        }
        s->requests += nr;
        s->retransmissions += nr - 1;
        for (guint k = 1; k < nr; k++)
            s->spurious_retransmissions += round_spurious(o, k);
        gboolean new_block = !wmem_map_contains(requested, GUINT_TO_POINTER(o->offset + 1));
        if (!new_block)
            s->rerequests++;
        wmem_map_insert(requested, GUINT_TO_POINTER(o->offset + 1), o);

        ota_round_t *r0 = &o->rounds.at[0];
        ota_round_t *rn = &o->rounds.at[nr - 1];
        /* Turn-around: a request for a new block (not the first), from the
         * accepted response of the request just before it. */
        /* (At the gateway an answer may leave after the next request came.) */
        if (new_block && have_prev && prev_accepted >= 0 && prev_accepted <= r0->first_us) {
            gint64 d = r0->first_us - prev_accepted;
            wmem_array_append_one(ta, d);
        }
        have_prev = TRUE;
        const ota_msg_t *resp = NULL;
        const ota_round_t *acc = accepted_round(o, &resp);
        prev_accepted = acc ? acc->last_us : -1;
        /* Each try waits for a timeout, but the last one if it was answered,
         * and one whose answer was only late (a spurious retransmission
         * followed it): that wait is the network's. */
        for (guint k = 0; k < nr; k++)
            ota_split_mark(marks, o->rounds.at[k].first_us,
                      (k + 1 == nr && acc) || round_spurious(o, k + 1) ? OTA_SPLIT_NETWORK : OTA_SPLIT_TIMEOUTS);
        if (!acc)
            continue;
        ota_split_mark(marks, acc->last_us, OTA_SPLIT_TURNAROUND);
        /* The round trip of the transmission the accepted answer answers:
         * the last one, or after spurious retransmissions the one whose
         * turn it is among the answers. */
        const ota_round_t *answered = rn;
        if (round_spurious(o, nr - 1))
            answered = &o->rounds.at[MIN(answers_before(o, acc->first_us), nr - 1)];
        gint64 d1 = since_us(acc->last_us, r0->first_us), d2 = since_us(acc->last_us, answered->first_us);
        wmem_array_append_one(rf, d1);
        wmem_array_append_one(rl, d2);
        /* A clean exchange (one round each way, nothing lost) times a
         * request's and a response's way across the hops. */
        if (nr == 1 && resp->rounds.n == 1 && !copies_lost(t, o) &&
            !copies_lost(t, resp)) {
            gint64 q = round_span(rn, poll_runs), p = round_span(acc, poll_runs);
            wmem_array_append_one(req_spans, q);
            wmem_array_append_one(resp_spans, p);
        }
        const ota_msg_t *blk = x->upload ? o : resp;
        if (coap_code_is_success(resp->code) && blk->has_block && blk->len &&
            !wmem_map_contains(taken_at, GUINT_TO_POINTER(blk->offset + 1))) {
            wmem_map_insert(taken_at, GUINT_TO_POINTER(blk->offset + 1), NULL);
            wmem_array_append_one(taken, acc->last_us);
        }
        gboolean final = coap_code_is_success(resp->code) &&
                         (x->upload ? !o->more : (!resp->has_block || !resp->more));
        if (final && !s->complete) {
            s->complete = TRUE;
            s->last_response_us = acc->last_us;
        }
    }
    prove_blocks_before_requests(x, offsets, tmp);
    /* Blocks and contiguous bytes from offset 0. */
    s->blocks = wmem_map_size(offsets);
    for (guint32 at = 0;;) {
        gpointer len = wmem_map_lookup(offsets, GUINT_TO_POINTER(at + 1));
        if (!len || !GPOINTER_TO_UINT(len))
            break;
        at += GPOINTER_TO_UINT(len);
        s->bytes = at;
    }
    gint64 end = s->complete ? s->last_response_us : s->last_activity_us;
    s->duration_s = (end > s->first_request_us && s->first_request_us >= 0)
                        ? (double)(end - s->first_request_us) / 1e6 : 0;
    s->rate_Bps = s->duration_s > 0 ? s->bytes / s->duration_s : 0;
    s->rtt_first_median_s = quantile_s(rf, 0.5);
    s->rtt_first_p95_s = quantile_s(rf, 0.95);
    s->rtt_last_median_s = quantile_s(rl, 0.5);
    s->rtt_last_p95_s = quantile_s(rl, 0.95);
    s->turnaround_median_s = quantile_s(ta, 0.5);
    s->turnaround_p95_s = quantile_s(ta, 0.95);
    s->request_span_s = quantile_s(req_spans, 0.5);
    s->response_span_s = quantile_s(resp_spans, 0.5);
    /* On IP, the side the capture was taken on shows in which wait is
     * long: next to the meter a round trip, at the gateway the meter's
     * turn-around with the whole path behind it. */
    s->vantage = x->on_radio ? "radio"
                 : s->rtt_last_median_s >= 0 && s->turnaround_median_s >= 0 &&
                           s->rtt_last_median_s < s->turnaround_median_s ? "gateway" : "meter";
    if (s->first_request_us >= 0 && end > s->first_request_us) {
        gint64 median_turn = s->turnaround_median_s >= 0 ? (gint64)(s->turnaround_median_s * 1e6 + 0.5) : 0;
        gint64 unseen_after = strcmp(s->vantage, "gateway") == 0 ? median_turn + COAP_ACK_TIMEOUT_US : -1;
        GArray *runs = ota_runs_from_spans(air_spans);
        ota_split_time(s, marks, runs, poll_runs, s->first_request_us, end, median_turn, unseen_after);
        count_stalls(s, x, stall_s, end);
    }
    estimate_eta(s, taken);
    g_array_free(marks, TRUE);
    g_array_free(poll_runs, TRUE);
    wmem_destroy_allocator(tmp);
}

/* Where a response copy was lost, and its frames after the first. A first
 * frame goes out at an arbitrary time, the later ones right after a frame
 * that got through; on a bursty link they are lost at different rates, and
 * the block-size model needs the loss of an added later frame. A lost copy
 * was lost at its first frame when that frame is missing or never
 * acknowledged, else later. */
static void count_response_losses(const ota_track_t *t, const ota_copy_t *c, gboolean lost,
                                  meter_transfer_record_t *s)
{
    gboolean first_ok = FALSE, first_seen = FALSE;

    for (guint k = 0; k < c->n_frags; k++) {
        if (c->frags[k].offset == 0) {
            first_seen = TRUE;
            first_ok = !t->acks_seen || c->frags[k].acked || c->frags[k].delivered;
        } else {
            s->response_later_frames++;
        }
    }
    /* A FRAGN captured without its FRAG1: the FRAG1 was sent, and arrived. */
    if (!first_seen && c->fragmented && c->n_frags && c->missed_frags) {
        first_ok = TRUE;
        s->response_later_frames += c->missed_frags - 1u;
    } else {
        s->response_later_frames += c->missed_frags;
    }
    s->response_first_lost += lost && !first_ok;
}

/* Was a datagram copy of the request or of one of its responses (with a
 * code) lost on air? Copies are tied to messages by now. */
static gboolean exchange_lost(const ota_track_t *t, const ota_msg_t *req)
{
    const ota_copy_list_t *list = (const ota_copy_list_t *)wmem_map_lookup(t->copies_by_mid,
                                                                          GUINT_TO_POINTER(req->mid));

    for (guint i = 0; list && i < list->n; i++) {
        const ota_copy_t *c = list->at[i];
        if (c->msg && (c->msg == req || (c->msg->request == req && c->msg->code != COAP_CODE_EMPTY)) &&
            copy_lost(t, c, G_MAXINT64))
            return TRUE;
    }
    return FALSE;
}

/* From a request's first round to the first copy of its first answer. */
static gint64 first_answer_delay(const ota_msg_t *req)
{
    gint64 first = G_MAXINT64;

    for (guint i = 0; i < req->responses.n; i++) {
        const ota_msg_t *o = req->responses.at[i];
        for (guint k = 0; k < o->rounds.n; k++)
            first = MIN(first, o->rounds.at[k].first_us);
    }
    return first == G_MAXINT64 ? G_MAXINT64 / 2 : first - msg_first_us(req);
}

/* Spurious retransmissions (RFC 7252 timers against a slow path): when
 * nothing of the exchange was lost on air, each transmission of the request
 * gets its own answer, so a retransmission sent while fewer answers than
 * transmissions before it had come was not needed: the response was late,
 * not lost. Its cause as first read may have taken an answer still on its
 * way (fragments in flight) for a lost one. Redone at every finalize (the
 * late answers come later). */
static void mark_spurious(ota_track_t *t, ota_msg_t *req, gint64 late_delay_us)
{
    guint nr = req->rounds.n;
    if (nr < 2 || exchange_lost(t, req))
        return;
    guint na = answers_before(req, G_MAXINT64);
    /* Without a radio the capture sees no loss: fewer answers than rounds
     * may be a loss beyond the capture as well as a late answer. It is a
     * late one only when it came as long after the first round as the
     * transfer's answers that were all late (every round answered). */
    gboolean known = req->xfer->on_radio || na >= nr ||
                     (late_delay_us > 0 && llabs(first_answer_delay(req) - late_delay_us) <= late_delay_us / 4);

    for (guint k = 1; k < nr; k++) {
        ota_round_t *rd = &req->rounds.at[k];
        if (!rd->result)
            continue;
        /* Round k needs k answers; fewer had come by the time it was sent. */
        gboolean late = known && k <= na && answers_before(req, rd->first_us + 1) < k;
        rd->result->cause = late ? OTA_CAUSE_SPURIOUS : OTA_CAUSE_NOTHING_VISIBLE;
    }
}

/* Off the radio: how long after their first round the answers came of the
 * transfer's requests whose every round was answered, the first answer
 * after the second round (all late): their median, -1 if none. */
static gint64 late_answer_delay(const ota_transfer_t *x)
{
    GArray *d = g_array_new(FALSE, FALSE, sizeof(gint64));
    gint64 median = -1;

    for (guint i = 0; !x->on_radio && i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        guint nr = o->is_request ? o->rounds.n : 0;
        if (nr < 2 || answers_before(o, G_MAXINT64) < nr)
            continue;
        const ota_round_t *r1 = &o->rounds.at[1];
        if (answers_before(o, r1->first_us + 1) == 0) {
            gint64 v = first_answer_delay(o);
            g_array_append_val(d, v);
        }
    }
    if (d->len) {
        g_array_sort(d, cmp_i64);
        median = g_array_index(d, gint64, (d->len - 1) / 2);
    }
    g_array_free(d, TRUE);
    return median;
}

/* Appends an element to the wmem_array a map keeps for key (made on first use). */
static void append_to_sized(wmem_allocator_t *tmp, wmem_map_t *map, const void *key, const void *elem, gsize size)
{
    wmem_array_t *list = (wmem_array_t *)wmem_map_lookup(map, key);

    if (!list) {
        list = wmem_array_new(tmp, size);
        wmem_map_insert(map, key, list);
    }
    wmem_array_append(list, elem, 1);
}
#define append_to(tmp, map, key, elem) append_to_sized(tmp, map, key, elem, sizeof(*(elem)))

/* A sleepy node's datagram copy waits at its parent for the node's poll:
 * from when the parent had the copy's first fragment to the Data Request
 * (the one it acknowledged, where the capture shows ACKs) after which it
 * sent it. The parent had it once the previous hop's copy of that
 * fragment was acknowledged. Where no previous hop is on the air (the
 * parent got it from elsewhere: the border router from the gateway), the
 * arrival lies between the latest earlier event that bounds it (the
 * node's poll before, the request it answers) and the poll: taken as the
 * midpoint, half the interval the uncertainty (time_poll_uncertain_s).
 * What lies beyond the capture (the gateway's round trip) cannot be told
 * from the wait. */

static gint64 previous_hop_had(const ota_track_t *t, const ota_copy_t *c, const ota_copy_t *p)
{
    guint16 first = c->n_frags ? c->frags[0].offset : 0;     /* the fragment c sent first */

    for (guint k = 0; k < p->n_frags; k++)
        if (p->frags[k].offset == first && p->frags[k].acked_us)
            return p->frags[k].acked_us;
    return t->acks_seen && p->last_us > p->first_us ? p->last_us : p->first_us;
}

/* The index of the last poll before index end (answered only: of those
 * the parent acknowledged); -1 if none within a bounded look back (a child
 * whose polls go unanswered must not make every copy scan them all). */
#define POLL_LOOK_BACK 1024
static gint previous_poll(const ota_poll_t *v, gint end, gboolean answered_only)
{
    for (gint i = end - 1; i >= 0 && i >= end - POLL_LOOK_BACK; i--)
        if (!answered_only || v[i].answered)
            return i;
    return -1;
}

/* The wait of copy c, as wait[0] (had it) to wait[1] (the poll); FALSE if
 * none. *uncertain_s: how far wait[0] may be off (0 when exact). */
static gboolean poll_wait(const ota_track_t *t, const ota_copy_t *c, gint64 wait[2],
                          double *uncertain_s)
{
    wmem_array_t *list = c->dst ? (wmem_array_t *)wmem_map_lookup(t->polls, &c->dst) : NULL;
    guint n = list ? wmem_array_get_count(list) : 0, lo = 0, hi = n;
    const ota_poll_t *v = n ? (const ota_poll_t *)wmem_array_get_raw(list) : NULL;

    while (lo < hi) {     /* the first poll after the copy's first frame */
        guint mid = lo + (hi - lo) / 2;
        if (v[mid].frame < c->first_frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* The last two polls before it (those acknowledged, where ACKs show). */
    gint last = previous_poll(v, (gint)lo, t->acks_seen);
    gint before = last > 0 ? previous_poll(v, last, t->acks_seen) : -1;
    if (last < 0 || c->first_us - v[last].start_us > RADIO_POLL_FETCH_US)
        return FALSE;
    gint64 poll = v[last].start_us, had = G_MININT64;
    for (const ota_copy_t *p = c->msg->copies; p; p = p->next_of_msg) {
        if (p != c && p->dst == c->src && p->first_us <= c->first_us && c->first_us - p->first_us < RADIO_HOP_WINDOW_US)
            had = MAX(had, MIN(previous_hop_had(t, c, p), poll));
    }
    *uncertain_s = 0;
    if (had == G_MININT64) {
        gint64 after = before >= 0 ? MIN(v[before].start_us, poll) : G_MININT64;
        const ota_msg_t *req = c->msg->request;
        for (guint k = 0; req && k < req->rounds.n; k++) {
            const ota_round_t *rd = &req->rounds.at[k];
            if (rd->last_us <= poll)
                after = MAX(after, rd->last_us);
        }
        if (after == G_MININT64)
            return FALSE;
        had = after + (poll - after) / 2;
        *uncertain_s = (poll - after) / 2e6;
    }
    wait[0] = had;
    wait[1] = poll;
    return TRUE;
}

/* Where a transfer's frames lie in the air log. */
typedef struct {
    guint32 first, last, n;
    guint32 untied;     /* frames of copies tied to no message, while its meter went on */
} air_range_t;

/* A transfer's frames on the air as spans (gint64 pairs). Concurrent
 * transfers interleave in the log: each entry's transfer is told by its
 * copy's slot (slot_of, slot + 1 by copy), read from a compact array. */
static GArray *transfer_air_spans(const ota_track_t *t, const guint32 *slot_of, guint32 slot, const air_range_t *r)
{
    GArray *spans = g_array_sized_new(FALSE, FALSE, 2 * sizeof(gint64), r->n);

    for (guint32 i = r->first; r->n && i <= r->last; i++) {
        const ota_air_t *a = (const ota_air_t *)chunk_array_index(t->air, i);
        gint64 span[2] = { a->end_us - a->dur_us, a->end_us };
        if (slot_of[a->copy_index] == slot + 1)
            g_array_append_vals(spans, span, 1);
    }
    return spans;
}

/* Each meter's transfers (by its link address), in the order they began. */
static wmem_map_t *transfers_by_meter(ota_track_t *t, wmem_allocator_t *tmp)
{
    wmem_map_t *m = wmem_map_new(tmp, g_int64_hash, g_int64_equal);

    for (guint i = 0; i < wmem_array_get_count(t->xfer_list); i++) {
        ota_transfer_t *x = *(ota_transfer_t **)wmem_array_index(t->xfer_list, i);
        if (!x->meter_link || x->first_us < 0)
            continue;
        wmem_array_t *list = (wmem_array_t *)wmem_map_lookup(m, &x->meter_link);
        if (!list) {
            list = wmem_array_new(tmp, sizeof(ota_transfer_t *));
            wmem_map_insert(m, &x->meter_link, list);
        }
        wmem_array_append_one(list, x);
    }
    return m;
}

/* The transfer of meter (its link address) going on at ts_us, if any: the
 * latest to begin by then (a meter runs one exchange at a time). */
static ota_transfer_t *meter_transfer_at(wmem_map_t *by_meter, ota_addr_t meter, gint64 ts_us)
{
    wmem_array_t *list = (wmem_array_t *)wmem_map_lookup(by_meter, &meter);
    guint lo = 0, hi = list ? wmem_array_get_count(list) : 0;

    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if ((*(ota_transfer_t **)wmem_array_index(list, mid))->first_us <= ts_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    ota_transfer_t *x = lo ? *(ota_transfer_t **)wmem_array_index(list, lo - 1) : NULL;
    return x && ts_us <= x->last_us ? x : NULL;
}

/* Of n frames a sender's numbers show missed next to copy c, those that
 * are c's fragments infer_copy already counted (each counted once). */
static guint take_fragments(ota_copy_t *c, guint8 *taken, guint n)
{
    guint k = MIN(n, (guint)(c->missed_frags - taken[c->id - 1]));

    taken[c->id - 1] = (guint8)(taken[c->id - 1] + k);
    return k;
}

/* The frames senders' numbers show the sniffer missed (note_gap), beyond
 * the fragments infer_copy counted: each counts in the transfer of the
 * copies either side, or else in that of the meter sending it; returns
 * them all, for the capture's count. */
static guint32 count_gaps(ota_track_t *t, wmem_map_t *by_meter)
{
    guint32 n_copies = chunk_array_count(t->copy_list), all = 0, n_gaps = wmem_array_get_count(t->gaps);
    guint8 *taken = g_new0(guint8, n_copies + 1);
    ota_transfer_t **gap_xfer = g_new0(ota_transfer_t *, n_gaps + 1);

    for (guint i = 0; i < wmem_array_get_count(t->gaps); i++) {
        const ota_gap_t *g = (const ota_gap_t *)wmem_array_index(t->gaps, i);
        ota_copy_t *before = g->before_copy ? copy_at(t, g->before_copy - 1) : NULL;
        ota_copy_t *after = g->after_copy ? copy_at(t, g->after_copy - 1) : NULL;
        guint n = g->frames;
        /* Fragments missed after before's last captured one, or before after's first. */
        if (before)
            n -= take_fragments(before, taken, n);
        if (after && after != before)
            n -= take_fragments(after, taken, n);
        /* An ACK infer_copy counted already (its fragment proven delivered) counts once. */
        n += g->earlier;
        n += g->acks && !(g->acked_frag && before && g->acked_frag <= before->n_frags &&
                          before->frags[g->acked_frag - 1].delivered);
        all += n;
        ota_transfer_t *x = after && after->msg ? after->msg->xfer
                            : before && before->msg ? before->msg->xfer : meter_transfer_at(by_meter, g->src, g->ts_us);
        /* A parent's frames to the meter then, of copies tied to no message. */
        for (ota_copy_t *c = after ? after : before; !x && c; c = c == after && before != after ? before : NULL)
            x = meter_transfer_at(by_meter, c->dst, g->ts_us);
        if (x) {
            x->rec.frames_missed_by_sniffer += n;
            x->frames_captured_unlogged += g->acks_captured;
        }
        gap_xfer[i] = x;
    }
    /* Each unmatched ACK in the transfer of the frame it answered. */
    for (guint i = 0; i < wmem_array_get_count(t->orphan_log); i++) {
        const ota_orphan_t *o = (const ota_orphan_t *)wmem_array_index(t->orphan_log, i);
        const ota_copy_t *c = o->copy ? copy_at(t, o->copy - 1) : NULL;
        ota_transfer_t *x = o->gap ? gap_xfer[o->gap - 1] : c && c->msg ? c->msg->xfer
                            : c ? meter_transfer_at(by_meter, c->dst, c->last_us) : NULL;
        if (c && !x)
            x = meter_transfer_at(by_meter, c->src, c->last_us);
        if (x)
            x->frames_captured_unlogged++;
    }
    g_free(gap_xfer);
    g_free(taken);
    return all;
}

/* The frames of x the sniffer missed, estimated (miss_estimate.h): its
 * frames captured are those of its copies and their ACKs (air_frames), and
 * the meter's polls and their ACKs while it went on. */
static void estimate_missed(const ota_track_t *t, ota_transfer_t *x, guint32 air_frames)
{
    wmem_array_t *polls = x->meter_link ? (wmem_array_t *)wmem_map_lookup(t->polls, &x->meter_link) : NULL;
    guint32 captured = air_frames + x->frames_captured_unlogged, acks = x->acks_matched;
    guint n = polls ? wmem_array_get_count(polls) : 0, lo = 0, hi = n;

    /* In frame order, which is time order but for a host's jitter. */
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (((const ota_poll_t *)wmem_array_index(polls, mid))->start_us < x->first_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (guint i = lo; i < n; i++) {
        const ota_poll_t *p = (const ota_poll_t *)wmem_array_index(polls, i);
        if (p->start_us > x->last_us)
            break;
        captured += 1 + (p->answered != 0);
        acks += p->answered != 0;
    }
    /* The share missed, sampled by the ACKs captured: each one's frame
     * captured or not. (A sender's skipped numbers sample it too, but low:
     * a frame sent again is missed whole less often.) */
    miss_estimate_t e = miss_estimate(x->frames_captured_unlogged, acks, captured, x->rec.frames_missed_by_sniffer);
    x->rec.frames_missed_estimate = e.estimate;
    x->rec.frames_missed_high = e.high;
    /* Once the sniffer is seen to miss frames, a frame captured 4 times
     * unacknowledged may have had its last ACK missed too: no loss is sure. */
    if (e.estimate) {
        x->rec.frames_unacked_uncertain = x->rec.frames_unacked;
        x->rec.copies_lost_uncertain = x->rec.request_copies_lost + x->rec.response_copies_lost;
    }
}

static void finalize(ota_track_t *t, double stall_s)
{
    if (!t->dirty && stall_s == t->finalized_stall_s)
        return;
    wmem_allocator_t *tmp = wmem_allocator_new(WMEM_ALLOCATOR_BLOCK);
    wmem_map_t *polls_by_xfer = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    wmem_map_t *frag1_by_xfer = wmem_map_new(tmp, g_direct_hash, g_direct_equal);
    for (guint i = 0; i < wmem_array_get_count(t->xfer_list); i++)
        record_start(t, *(ota_transfer_t **)wmem_array_index(t->xfer_list, i));
    /* Datagram copies, each tied to its message's transfer. */
    for (guint i = 0; i < chunk_array_count(t->copy_list); i++) {
        ota_copy_t *c = copy_at(t, i);
        /* A guess of an earlier finalize may have been made before the
         * message it belongs to was seen: guess again. */
        if (c->msg_is_guess)
            c->msg = NULL;
        if (!c->msg && c->has_coap) {
            attribute_leftover(t, c);
            c->msg_is_guess = c->msg != NULL;
        }
    }
    /* Copies whose CoAP header the sniffer missed, by another hop's copy. */
    for (guint i = 0; i < chunk_array_count(t->copy_list); i++) {
        ota_copy_t *c = copy_at(t, i);
        if (!c->msg && !c->has_coap && c->fragmented)
            tie_by_other_hop(t, i, c);
    }
    /* Each message's copies, in capture order (chained: no table of them). */
    for (guint i = 0; i < wmem_array_get_count(t->xfer_list); i++) {
        ota_transfer_t *x = *(ota_transfer_t **)wmem_array_index(t->xfer_list, i);
        for (guint k = 0; k < wmem_array_get_count(x->msgs); k++)
            (*(ota_msg_t **)wmem_array_index(x->msgs, k))->copies = NULL;
    }
    for (guint i = chunk_array_count(t->copy_list); i-- > 0;) {
        ota_copy_t *c = copy_at(t, i);
        if (c->msg) {
            c->next_of_msg = c->msg->copies;
            c->msg->copies = c;
        }
    }
    /* What the frames after each copy show the sniffer missed; the capture's
     * count has every copy's and what the senders' numbers show (count_gaps). */
    guint32 missed = 0;
    for (guint i = 0; i < chunk_array_count(t->copy_list); i++) {
        ota_copy_t *c = copy_at(t, i);
        infer_copy(t, i, c);
        missed += c->missed_frames;
    }
    wmem_map_t *by_meter = transfers_by_meter(t, tmp);
    t->counts.frames_missed = missed + count_gaps(t, by_meter);
    /* Each copy counted in its transfer. */
    for (guint i = 0; i < chunk_array_count(t->copy_list); i++) {
        ota_copy_t *c = copy_at(t, i);
        if (!c->msg)
            continue;
        meter_transfer_record_t *s = &c->msg->xfer->rec;
        s->datagram_copies++;
        s->acks_visible = t->acks_seen;
        /* Frames the sniffer missed count as sent (and a retry missed as
         * a retry) where the frames after them prove them. */
        s->frames_missed_by_sniffer += c->missed_frames;
        s->frames_sent += c->missed_frags;
        for (guint k = 0; k < c->n_frags; k++)
            c->msg->xfer->acks_matched += c->frags[k].acked;
        for (guint k = 0; k < c->n_frags; k++) {
            const ota_frag_t *fr = &c->frags[k];
            s->mac_retries += fr->transmissions - 1 + fr->retry_missed;
            s->frames_sent++;
            if (t->acks_seen && !fr->acked && !fr->delivered) {
                s->frames_unacked++;
                s->fragments_lost += c->fragmented;
                s->frames_unacked_uncertain += fr->transmissions < RADIO_MAC_TRANSMISSIONS;
            }
        }
        gboolean lost = c->lost;
        guint n_frames = c->n_frags + c->missed_frags;
        /* Its own code first: a lost response credited to its request (see
         * attribute_leftover) is still a response; a copy tied by another
         * hop's has that one's. Empty ACKs and RSTs (code 0) count in
         * neither direction. */
        gboolean code_known = c->has_coap || c->coap_code;
        gboolean is_request = code_known ? coap_code_is_request(c->coap_code) : c->msg->is_request;
        if ((is_request || coap_code_class(c->coap_code) >= 2 || !code_known) && lost)
            s->copies_lost_uncertain += c->lost_uncertain;
        if (is_request) {
            s->request_copies++;
            s->request_copies_lost += lost;
            s->request_frames_complete += lost ? 0 : n_frames;
            for (guint k = 0; !lost && k < c->n_frags; k++)
                s->request_bytes_complete += c->frags[k].psdu_len;
        } else if (coap_code_class(c->coap_code) >= 2 || !code_known) {   /* class 2 and above, as the truth counts */
            s->response_copies++;
            s->response_copies_lost += lost;
            s->response_frames_complete += lost ? 0 : n_frames;
            for (guint k = 0; !lost && k < c->n_frags; k++)
                s->response_bytes_complete += c->frags[k].psdu_len;
            count_response_losses(t, c, lost, s);
        }
        if (c->fragmented) {
            s->datagrams_fragmented++;
            s->datagrams_incomplete += !c->whole;
            /* What a full FRAGN would carry there: any FRAGN's frame, the last
             * too, tells it (127 bytes less those that are not its data, in
             * multiples of 8); the tightest hop decides for every hop. */
            for (guint k = 0; k < c->n_frags; k++)
                if (c->frags[k].offset && c->frags[k].psdu_len && c->frags[k].psdu_len <= 127) {
                    guint32 room = (127u - c->frags[k].psdu_len + c->frags[k].len) / 8 * 8;
                    s->fragn_room = s->fragn_room ? MIN(s->fragn_room, room) : room;
                }
        }
        /* How much of its block a FRAG1 carries: its uncompressed span less
         * the datagram's bytes that are not the block. */
        const ota_msg_t *carrier = c->msg;     /* only a block's carrier has a length */
        if (!lost && c->fragmented && carrier->len && c->size > carrier->len && is_request == carrier->is_request)
            for (guint k = 0; k < c->n_frags; k++)
                if (c->frags[k].offset == 0 && c->frags[k].len > c->size - carrier->len) {
                    gint64 d1 = c->frags[k].len - (c->size - carrier->len);
                    append_to(tmp, frag1_by_xfer, c->msg->xfer, &d1);
                }
    }
    /* Poll waits, once every copy has its message. */
    for (guint i = 0; i < chunk_array_count(t->copy_list); i++) {
        ota_copy_t *c = copy_at(t, i);
        gint64 wait[2];
        double uncertain;
        if (!c->msg || !poll_wait(t, c, wait, &uncertain))
            continue;
        c->msg->xfer->rec.time_poll_uncertain_s += uncertain;
        if (wait[0] < wait[1])
            append_to(tmp, polls_by_xfer, c->msg->xfer, &wait);
    }
    /* Each transfer's frames on the air, through the copies they carried:
     * where in the log they lie and how many there are, so that only one
     * transfer's spans exist at a time, each in just its room. */
    guint nx = wmem_array_get_count(t->xfer_list);
    guint32 n_air = chunk_array_count(t->air);
    air_range_t *air_at = g_new0(air_range_t, nx + 1);
    /* Each copy's transfer slot + 1 (0: tied to no message), read in order
     * once rather than through each copy for every one of its frames. */
    guint32 n_copies = chunk_array_count(t->copy_list);
    guint32 *slot_of = g_new(guint32, n_copies + 1);
    for (guint32 i = 0; i < n_copies; i++) {
        const ota_copy_t *c = copy_at(t, i);
        slot_of[i] = c->msg ? c->msg->xfer->slot + 1 : 0;
    }
    for (guint32 i = 0; i < n_air; i++) {
        const ota_air_t *a = (const ota_air_t *)chunk_array_index(t->air, i);
        if (!slot_of[a->copy_index]) {
            /* A copy tied to no message (its header missed) still went on
             * the air: in its meter's transfer then, for the estimate. */
            const ota_copy_t *c = copy_at(t, a->copy_index);
            ota_transfer_t *x = meter_transfer_at(by_meter, c->src, a->end_us);
            x = x ? x : meter_transfer_at(by_meter, c->dst, a->end_us);
            if (x)
                air_at[x->slot].untied++;
            continue;
        }
        air_range_t *r = &air_at[slot_of[a->copy_index] - 1];
        if (!r->n++)
            r->first = i;
        r->last = i;
    }
    for (guint i = 0; i < wmem_array_get_count(t->xfer_list); i++) {
        ota_transfer_t *x = *(ota_transfer_t **)wmem_array_index(t->xfer_list, i);
        gint64 late_delay = late_answer_delay(x);
        for (guint k = 0; k < wmem_array_get_count(x->msgs); k++) {
            ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, k);
            if (o->is_request)
                mark_spurious(t, o, late_delay);
        }
        estimate_missed(t, x, air_at[i].n + air_at[i].untied);
        GArray *air_spans = transfer_air_spans(t, slot_of, i, &air_at[i]);
        finalize_transfer(t, x, air_spans, (wmem_array_t *)wmem_map_lookup(polls_by_xfer, x), stall_s);
        g_array_free(air_spans, TRUE);
        wmem_array_t *d1 = (wmem_array_t *)wmem_map_lookup(frag1_by_xfer, x);
        x->rec.frag1_block_bytes = d1 ? floor(quantile_s(d1, 0.5) * 1e6 + 0.5) : -1;
    }
    g_free(air_at);
    g_free(slot_of);
    wmem_destroy_allocator(tmp);
    t->dirty = FALSE;
    t->finalized_stall_s = stall_s;
}

const ota_capture_counts_t *ota_track_counts(const ota_track_t *t)
{
    return &t->counts;
}

const ota_time_base_t *ota_track_time_base(const ota_track_t *t)
{
    return &t->time_base;
}

const char *ota_stamp_kind_name(ota_stamp_kind_t kind)
{
    static const char *const names[] = { "unknown", "end", "start", "host" };
    return (guint)kind < G_N_ELEMENTS(names) ? names[kind] : "unknown";
}

ota_transfer_t *ota_track_transfer(ota_track_t *t, guint32 transfer_id)
{
    return (ota_transfer_t *)wmem_map_lookup(t->xfers, GUINT_TO_POINTER(transfer_id));
}

guint ota_track_n_transfers(const ota_track_t *t)
{
    return wmem_array_get_count(t->xfer_list);
}

ota_transfer_t *ota_track_transfer_at(ota_track_t *t, guint i)
{
    return *(ota_transfer_t **)wmem_array_index(t->xfer_list, i);
}

static int cmp_progress(const void *a, const void *b)
{
    const ota_progress_t *x = (const ota_progress_t *)a, *y = (const ota_progress_t *)b;
    return x->ts_us < y->ts_us ? -1 : x->ts_us > y->ts_us;
}

wmem_array_t *ota_track_progress(ota_track_t *t, ota_transfer_t *x, wmem_allocator_t *scope)
{
    wmem_array_t *pts = wmem_array_new(scope, sizeof(ota_progress_t));
    wmem_map_t *asked = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    wmem_map_t *got = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    (void)t;

    /* Points first, bytes after: the repeats interleave with the blocks in time. */
    for (guint i = 0; i < wmem_array_get_count(x->msgs); i++) {
        const ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, i);
        if (!o->is_request)
            continue;
        guint nr = o->rounds.n;
        gboolean again = wmem_map_contains(asked, GUINT_TO_POINTER(o->offset + 1));
        wmem_map_insert(asked, GUINT_TO_POINTER(o->offset + 1), NULL);
        for (guint k = 0; k < nr; k++) {
            const ota_round_t *rd = &o->rounds.at[k];
            if (k == 0 && !again)
                continue;
            ota_progress_t p = { rd->first_us, 0, k ? OTA_PROGRESS_RETRANSMISSION : OTA_PROGRESS_REREQUEST };
            wmem_array_append_one(pts, p);
        }
        const ota_msg_t *resp = NULL;
        const ota_round_t *acc = accepted_round(o, &resp);
        const ota_msg_t *blk = x->upload ? o : resp;
        if (!acc || !coap_code_is_success(resp->code) || !blk->has_block || !blk->len)
            continue;
        /* bytes carries the block's length until the running sum below. */
        ota_progress_t p = { acc->last_us, blk->len + 1, OTA_PROGRESS_BLOCK };
        if (wmem_map_contains(got, GUINT_TO_POINTER(blk->offset + 1)))
            p.bytes = 1;
        wmem_map_insert(got, GUINT_TO_POINTER(blk->offset + 1), NULL);
        wmem_array_append_one(pts, p);
    }
    guint n = wmem_array_get_count(pts);
    if (n)
        qsort(wmem_array_get_raw(pts), n, sizeof(ota_progress_t), cmp_progress);
    guint32 sum = 0;
    for (guint i = 0; i < n; i++) {
        ota_progress_t *p = (ota_progress_t *)wmem_array_index(pts, i);
        if (p->kind == OTA_PROGRESS_BLOCK)
            sum += p->bytes - 1;
        p->bytes = sum;
    }
    return pts;
}

/* ---- one read: what the stamps mark, told within the pass ---- */

/* The first frames are read twice over until the ACK gaps tell what the
 * stamps mark: by the tracker, as if stamped at their end, and by its start
 * copy, as if stamped at their start. Told start (firmly, or by the end of
 * the capture), the copy takes over, and everything read before is as a
 * pass with the start known from the first frame gives it
 * (meter.ota.timestamps:start); told end or host, the copy goes. So a
 * capture is read once whatever its stamps, for the price of the frames
 * before the ACKs that tell (a few dozen). A capture that tells nothing in
 * its first START_COPY_FRAMES frames (no ACKs: the gateway's Ethernet) is
 * not read twice any longer; should it tell start after all, its messages
 * before were timed as if stamped at their end (time_base.early_messages). */
#define START_COPY_FRAMES 16384
/* Pairs that must have told start before the copy takes over: the host
 * rule (learn_time_base) has had its say by then. */
#define START_FIRM_PAIRS  8

typedef struct {
    guint32         frame;
    ota_link_note_t note;
} copy_note_t;

static meter_wmem_cb_result_t destroy_copy_scope(wmem_allocator_t *parent _U_, wmem_cb_event_t event _U_,
                                                 void *scope)
{
    wmem_destroy_allocator((wmem_allocator_t *)scope);
    return FALSE;
}

static void start_copy_begin(ota_track_t *t)
{
    ota_start_copy_t *s = &t->start;

    s->copy_scope = wmem_allocator_new(WMEM_ALLOCATOR_BLOCK);
    s->parent_cb = wmem_register_callback(s->parent, destroy_copy_scope, s->copy_scope);
    s->copy = ota_track_new(s->copy_scope);
    s->copy->start.over = TRUE;
    ota_track_fix_time_base(s->copy, OTA_STAMP_START);
    s->counterparts = g_hash_table_new(g_direct_hash, g_direct_equal);
    s->notes = g_array_new(FALSE, FALSE, sizeof(copy_note_t));
}

static void start_copy_forget_counterparts(ota_start_copy_t *s)
{
    if (s->counterparts)
        g_hash_table_destroy(s->counterparts);
    if (s->notes)
        g_array_free(s->notes, TRUE);
    s->counterparts = NULL;
    s->notes = NULL;
    s->rebound = FALSE;
}

static void start_copy_drop(ota_track_t *t)
{
    ota_start_copy_t *s = &t->start;

    wmem_unregister_callback(s->parent, s->parent_cb);
    wmem_destroy_allocator(s->copy_scope);
    s->copy = NULL;
    s->copy_scope = NULL;
    s->frame = NULL;
    s->over = TRUE;
    start_copy_forget_counterparts(s);
}

/* The copy's state becomes the tracker's (the caller keeps its pointer to
 * the tracker); what the tracker read before stays in its scope, unused.
 * The copy's scope now holds the tracker's state, and goes with the scope
 * the tracker was made in (the callback stays). */
static void start_copy_take_over(ota_track_t *t)
{
    ota_start_copy_t s = t->start;
    ota_track_t *copy = s.copy;
    ota_track_t old = *t;
    guint32 decided = t->time_base.decided_frame;

    *t = *copy;
    *copy = old;
    s.copy = NULL;
    s.frame = NULL;
    s.over = TRUE;
    s.rebound = TRUE;
    t->start = s;
    /* From here on the gaps may still tell host, as in any pass. */
    t->time_base.fixed = FALSE;
    t->time_base.decided_frame = decided;
    t->dirty = TRUE;
}

static void start_copy_note(ota_start_copy_t *s, guint32 frame, ota_link_note_t note)
{
    copy_note_t n = { frame, note };

    if (note)
        g_array_append_val(s->notes, n);
}

/* An ACK the copy matched: the note it keeps for that frame says so. */
static void start_copy_acked(ota_start_copy_t *s, guint32 acked, guint32 ack_frame)
{
    for (guint i = s->notes->len; i-- > 0;) {
        copy_note_t *n = &g_array_index(s->notes, copy_note_t, i);
        if (n->frame == acked) {
            n->note = ota_link_note_acked(n->note, acked, ack_frame);
            return;
        }
        if (n->frame < acked)
            return;
    }
}

static gpointer start_copy_of(const ota_start_copy_t *s, gconstpointer mine)
{
    return mine && s->counterparts ? g_hash_table_lookup(s->counterparts, mine) : NULL;
}

/* Whether the copy takes over, goes, or reads on: it goes once the gaps
 * tell end or host; it takes over once they tell start firmly (a host's
 * stamps may fit start by chance on a pair or two, then most do not), or
 * at the end of what there is to read. */
static void start_copy_settle(ota_track_t *t, gboolean at_end)
{
    const ota_time_base_t *b = &t->time_base;
    gboolean enough = t->start.frames >= START_COPY_FRAMES;

    if (!t->start.copy)
        return;
    if (b->kind == OTA_STAMP_START && (at_end || enough || b->pairs >= START_FIRM_PAIRS))
        start_copy_take_over(t);
    else if (b->kind != OTA_STAMP_START && (b->kind != OTA_STAMP_UNKNOWN || enough))
        start_copy_drop(t);
}

ota_track_t *ota_track_new(wmem_allocator_t *scope)
{
    ota_track_t *t = track_new(scope);

    t->start.parent = scope;
    return t;
}

ota_frame_t *ota_track_frame(ota_track_t *t, const ota_link_in_t *in)
{
    ota_start_copy_t *s = &t->start;

    /* The records of the frames before a take-over were rebound by now. */
    if (s->rebound)
        start_copy_forget_counterparts(s);
    if (!s->over && !s->copy && !t->time_base.fixed && t->time_base.kind == OTA_STAMP_UNKNOWN)
        start_copy_begin(t);
    ota_frame_t *f = frame_in(t, in);
    if (s->copy) {
        s->frame = frame_in(s->copy, in);
        s->frames++;
        guint32 acked = ota_track_frame_acked(s->frame);
        if (acked)
            start_copy_acked(s, acked, in->frame);
    }
    return f;
}

void ota_track_lowpan(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv)
{
    lowpan_in(t, f, lv);
    if (t->start.copy)
        lowpan_in(t->start.copy, t->start.frame, lv);
}

coap_exchange_t *ota_track_exchange(ota_track_t *t, const meter_coap_t *m, const char *src, const char *dst,
                                    const address *src_addr, const address *dst_addr, guint32 frame,
                                    gint64 ts_us, wmem_allocator_t *tmp)
{
    coap_exchange_t *ex = exchange_in(t, m, src, dst, src_addr, dst_addr, frame, ts_us, tmp);
    ota_start_copy_t *s = &t->start;

    if (s->copy) {
        coap_exchange_t *theirs = exchange_in(s->copy, m, src, dst, src_addr, dst_addr, frame, ts_us, tmp);
        if (ex && theirs)
            g_hash_table_insert(s->counterparts, ex, theirs);
    }
    return ex;
}

ota_copy_result_t *ota_track_message(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us,
                                     const char *src, coap_exchange_t *ex, const meter_coap_t *m,
                                     const ota_image_hints_t *hints)
{
    ota_copy_result_t *r = message_in(t, f, frame, ts_us, src, ex, m, hints);
    ota_start_copy_t *s = &t->start;

    if (s->copy) {
        ota_copy_result_t *theirs = message_in(s->copy, f ? s->frame : NULL, frame, ts_us, src,
                                               (coap_exchange_t *)start_copy_of(s, ex), m, hints);
        if (r && theirs) {
            g_hash_table_insert(s->counterparts, r, theirs);
            if (r->also && theirs->also)
                g_hash_table_insert(s->counterparts, r->also, theirs->also);
        }
    }
    return r;
}

ota_link_note_t ota_track_frame_done(ota_track_t *t, ota_frame_t *f)
{
    ota_link_note_t note = frame_done(t, f);
    ota_start_copy_t *s = &t->start;

    if (!s->copy || !s->frame)
        return note;
    start_copy_note(s, s->frame->frame, frame_done(s->copy, s->frame));
    s->frame = NULL;
    start_copy_settle(t, FALSE);
    return note;
}

gboolean ota_track_rebound(const ota_track_t *t)
{
    return t->start.rebound;
}

void ota_track_rebind_done(ota_track_t *t)
{
    start_copy_forget_counterparts(&t->start);
}

gconstpointer ota_track_counterpart(const ota_track_t *t, gconstpointer mine)
{
    gconstpointer theirs = start_copy_of(&t->start, mine);

    return theirs ? theirs : mine;
}

ota_link_note_t ota_track_counterpart_note(const ota_track_t *t, guint32 frame)
{
    const GArray *notes = t->start.notes;
    guint lo = 0, hi = notes ? notes->len : 0;

    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(notes, copy_note_t, mid).frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return notes && lo < notes->len && g_array_index(notes, copy_note_t, lo).frame == frame
               ? g_array_index(notes, copy_note_t, lo).note
               : 0;
}

void ota_track_set_verified(ota_track_t *t, guint32 transfer_id)
{
    set_verified(t, transfer_id);
    if (t->start.copy)
        set_verified(t->start.copy, transfer_id);
}

void ota_track_finalize(ota_track_t *t, double stall_s)
{
    start_copy_settle(t, TRUE);
    finalize(t, stall_s);
}
