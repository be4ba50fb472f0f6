/* ota_track_entry.c: the session tracker's entry points (ota_track.h): block-wise
 * transfer sessions and 6LoWPAN fragment accounting (definitions:
 * docs/ota-sessions.md), fed in frame order on the first pass, each input
 * handed to the file of its concern (ota_track_state.h), and the one read
 * that tells what the stamps mark within the pass (the start copy).
 * ota_track_finalize() derives the per-transfer numbers from the raw
 * records, so it gives the same answer however often it runs.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ota_track_state.h"
#include "ws_compat.h"
#include "coap_exchange.h"

static ota_track_t *track_new(wmem_allocator_t *scope)
{
    ota_track_t *t = wmem_new0(scope, ota_track_t);

    t->scope = scope;
    t->last_by_src = wmem_map_new(scope, g_int64_hash, g_int64_equal);
    t->copies = wmem_map_new(scope, ota_copy_key_hash, ota_copy_key_equal);
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

guint ota_track_n_transfers(const ota_track_t *t)
{
    return wmem_array_get_count(t->xfer_list);
}

const meter_transfer_record_t *ota_track_record_at(const ota_track_t *t, guint i)
{
    return &(*(const ota_transfer_t **)wmem_array_index(t->xfer_list, i))->rec;
}

const meter_transfer_record_t *ota_track_record(const ota_track_t *t, guint32 transfer_id)
{
    const ota_transfer_t *x = (const ota_transfer_t *)wmem_map_lookup(t->xfers, GUINT_TO_POINTER(transfer_id));

    return x ? &x->rec : NULL;
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

static void start_copy_forget_counterparts(ota_start_copy_t *s);

/* The counterparts and notes are GLib's, not the scope's: when the scope
 * goes with them still there (a capture that ended before the stamps were
 * told, a pass that never settled), they go too. t stays valid until then. */
static meter_wmem_cb_result_t forget_counterparts(wmem_allocator_t *parent _U_, wmem_cb_event_t event _U_,
                                                  void *t)
{
    start_copy_forget_counterparts(&((ota_track_t *)t)->start);
    return FALSE;
}

static void start_copy_begin(ota_track_t *t)
{
    ota_start_copy_t *s = &t->start;

    s->copy_scope = wmem_allocator_new(WMEM_ALLOCATOR_BLOCK);
    s->parent_cb = wmem_register_callback(s->parent, destroy_copy_scope, s->copy_scope);
    wmem_register_callback(s->parent, forget_counterparts, t);
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
    ota_frame_t *f = ota_link_frame_in(t, in);
    if (s->copy) {
        s->frame = ota_link_frame_in(s->copy, in);
        s->frames++;
        guint32 acked = ota_track_frame_acked(s->frame);
        if (acked)
            start_copy_acked(s, acked, in->frame);
    }
    return f;
}

void ota_track_lowpan(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv)
{
    ota_datagram_in(t, f, lv);
    if (t->start.copy)
        ota_datagram_in(t->start.copy, t->start.frame, lv);
}

coap_exchange_t *ota_track_exchange(ota_track_t *t, const meter_coap_t *m, const char *src, const char *dst,
                                    const address *src_addr, const address *dst_addr, guint32 frame,
                                    gint64 ts_us, wmem_allocator_t *tmp)
{
    coap_exchange_t *ex = ota_exchange_in(t, m, src, dst, src_addr, dst_addr, frame, ts_us, tmp);
    ota_start_copy_t *s = &t->start;

    if (s->copy) {
        coap_exchange_t *theirs = ota_exchange_in(s->copy, m, src, dst, src_addr, dst_addr, frame, ts_us, tmp);
        if (ex && theirs)
            g_hash_table_insert(s->counterparts, ex, theirs);
    }
    return ex;
}

ota_copy_result_t *ota_track_message(ota_track_t *t, ota_frame_t *f, guint32 frame, gint64 ts_us,
                                     const char *src, coap_exchange_t *ex, const meter_coap_t *m,
                                     const ota_image_hints_t *hints)
{
    ota_copy_result_t *r = ota_message_in(t, f, frame, ts_us, src, ex, m, hints);
    ota_start_copy_t *s = &t->start;

    if (s->copy) {
        ota_copy_result_t *theirs = ota_message_in(s->copy, f ? s->frame : NULL, frame, ts_us, src,
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
    ota_link_note_t note = ota_link_frame_done(t, f);
    ota_start_copy_t *s = &t->start;

    if (!s->copy || !s->frame)
        return note;
    start_copy_note(s, s->frame->frame, ota_link_frame_done(s->copy, s->frame));
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
    ota_set_verified(t, transfer_id);
    if (t->start.copy)
        ota_set_verified(t->start.copy, transfer_id);
}

void ota_track_finalize(ota_track_t *t, double stall_s)
{
    start_copy_settle(t, TRUE);
    ota_finalize_all(t, stall_s);
}
