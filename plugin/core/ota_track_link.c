/* ota_track_link.c: the tracker's link accounting (ota_track_state.h):
 * each frame's record, MAC retries and sniffer duplicates, ACKs matched to
 * their frames, what the capture's stamps mark (the time base), a sleepy
 * node's polls, and the frames a sender's sequence numbers and unmatched
 * ACKs show the sniffer missed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include "ota_track_state.h"
#include "seq_gaps.h"

/* A stamp fits the start or the end of its frame when the ACK gap is the
 * standard's within this; pairs whose frame and ACK air times differ less
 * than TIME_BASE_APART_US cannot tell the two apart. */
#define TIME_BASE_FIT_US   150
#define TIME_BASE_APART_US 400
#define ORPHAN_SEQ_SPAN  16        /* the most frames a sender sends between two fragments of one copy */

/* The frame's stamp as captured. */
static gint64 frame_raw_us(const ota_frame_t *f)
{
    return f->moved_to_end ? f->ts_us - f->air_us : f->ts_us;
}

static guint64 *key64(wmem_allocator_t *s, guint64 v)
{
    guint64 *k = wmem_new(s, guint64);
    *k = v;
    return k;
}

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

ota_link_note_t ota_link_frame_done(ota_track_t *t, ota_frame_t *f)
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

/* The copy c of a view, as it stands (its fragment: v->frag_index). */
static void view_copy(const ota_copy_t *c, ota_link_view_t *v)
{
    if (!c)
        return;
    v->copy = c->id;
    v->transfer = c->msg ? c->msg->xfer->id : 0;
    v->frag_acked = v->frag_index < c->n_frags && c->frags[v->frag_index].acked;
    v->copy_src = c->src;
    v->copy_dst = c->dst;
    v->tag = c->tag;
    v->size = c->size;
    v->fragmented = c->fragmented;
    v->bad_size = c->bad_size;
    v->complete = c->complete;
    v->complete_frame = c->complete_frame;
    v->frags_seen = c->n_frags;
    v->covered = c->covered;
}

void ota_track_frame_view(const ota_frame_t *f, ota_link_view_t *v)
{
    memset(v, 0, sizeof *v);
    if (!link_followed(f->copy, f->carries_coap && f->sniffer_dup))
        return;
    v->first_tx_frame = f->mac_retry || f->sniffer_dup ? f->first_tx_frame : 0;
    v->ack_frame = f->ack_frame;
    v->frag_offset = f->frag_offset;
    v->frag_index = f->frag_index;
    v->mac_retry = f->mac_retry;
    v->sniffer_dup = f->sniffer_dup;
    view_copy(f->copy, v);
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
    const ota_copy_t *c = copy_at(t, id - 1);
    v->frag_index = (guint8)((note >> 26) & 0x3f);
    v->mac_retry = (note >> 25) & 1;
    v->sniffer_dup = (note >> 24) & 1;
    v->first_tx_frame = back ? frame - back : 0;
    v->ack_frame = on ? frame + on : 0;
    v->frag_offset = v->frag_index < c->n_frags ? c->frags[v->frag_index].offset : 0;
    view_copy(c, v);
}

gint64 ota_frame_time_us(const ota_frame_t *f)
{
    return f->ts_us;
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
void ota_link_claim_orphan_acks(ota_track_t *t, ota_copy_t *c, guint8 seq, guint missing_before, gint64 since_us,
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

ota_frame_t *ota_link_frame_in(ota_track_t *t, const ota_link_in_t *in)
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
