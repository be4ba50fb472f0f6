/* ota_track_finalize.c: what the tracker derives once frames came
 * (ota_track_state.h): the copies tied to their messages, what the frames
 * after each copy show the sniffer missed, the copies and a sleepy meter's
 * poll waits counted in their transfers, each transfer's frames on the air;
 * then each transfer's statistics (ota_track_stats.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include "ota_track_state.h"
#include "miss_estimate.h"

#define ACTED_SCAN       256       /* copies after a copy looked at for what its receiver did next */
#define TIE_SCAN         64        /* copies either side looked at for another hop's copy of a datagram */

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

/* ---- messages of a copy left over ---- */

static gint64 abs64(gint64 v) { return v < 0 ? -v : v; }


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

/* A copy that never completed and came after its message's last complete
 * copy (a lost resend, say) is tied here: to the message with its MID, type
 * and code whose copies are nearest in time, preferring one that used the
 * copy's link. */
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

/* The loss of a fragment by its place in a train, in the block's direction:
 * on a busy channel or a mesh a fragment is lost more often the longer
 * its train has been on the air (another sender's frame, or the train's own
 * next fragment on the hop before, overlaps it), and the block-size model
 * fits that growth. A copy was lost at its first fragment not shown
 * acknowledged, else (incomplete) at the one after those captured. The
 * first fragment goes out at an arbitrary time and the last one is lost
 * more often on a sleepy meter (no frame pending: a retry after a lost ACK
 * finds it asleep): both counted apart from the middle ones. */
static void count_train_positions(const ota_track_t *t, const ota_copy_t *c, gboolean lost,
                                  meter_transfer_record_t *s)
{
    guint stop = c->n_frags;

    if (!c->fragmented || c->n_frags < 1 || c->frags[0].offset != 0)
        return;
    if (lost) {
        for (guint k = 0; k < c->n_frags && stop == c->n_frags; k++)
            if (t->acks_seen && !c->frags[k].acked && !c->frags[k].delivered)
                stop = k;
    }
    if (stop == 0)
        return;
    for (guint k = 1; k < c->n_frags && k <= stop; k++) {
        const ota_frag_t *fr = &c->frags[k];
        gboolean here = lost && k == stop;
        if (fr->offset && (guint32)fr->offset + fr->len >= c->size) {
            s->train_last_frames++;
            s->train_last_lost += here;
        } else {
            s->train_middle_frames++;
            s->train_middle_lost += here;
            s->train_position_sum += k;
            s->train_position_sq_sum += k * k;
            s->train_lost_position_sum += here ? k : 0;
        }
    }
    /* Incomplete, every fragment captured acknowledged: lost at the next,
     * the last one when what is missing fits in one (as much as the
     * biggest FRAGN captured carried, else 96 bytes). */
    if (lost && stop == c->n_frags && c->n_frags < OTA_MAX_FRAGS) {
        guint32 end = 0, room = 0;
        for (guint k = 0; k < c->n_frags; k++) {
            end = MAX(end, (guint32)c->frags[k].offset + c->frags[k].len);
            room = c->frags[k].offset ? MAX(room, c->frags[k].len) : room;
        }
        if (end + (room ? room : 96) >= c->size) {
            s->train_last_frames++;
            s->train_last_lost++;
            return;
        }
        s->train_middle_frames++;
        s->train_middle_lost++;
        s->train_position_sum += stop;
        s->train_position_sq_sum += stop * stop;
        s->train_lost_position_sum += stop;
    }
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

/* The meter's polls of transfer x: its Data Requests, from the first one
 * at or after the transfer's start (*from); NULL if it made none. */
static wmem_array_t *transfer_polls(const ota_track_t *t, const ota_transfer_t *x, guint *from)
{
    wmem_array_t *polls = x->meter_link ? (wmem_array_t *)wmem_map_lookup(t->polls, &x->meter_link) : NULL;
    guint lo = 0, hi = polls ? wmem_array_get_count(polls) : 0;

    /* In frame order, which is time order but for a host's jitter. */
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (((const ota_poll_t *)wmem_array_index(polls, mid))->start_us < x->first_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    *from = lo;
    return polls;
}

/* A sleepy node polls again at once while its parent has frames pending
 * for it (each fragment of a train): polls this close follow a frame, not
 * the poll period. */
#define POLL_BURST_US 20000

/* How often the meter polled while x went on: its Data Requests and the
 * median time between two of them that were not a burst (what a shorter or
 * longer poll period would change: docs/recommendation.md). */
static void count_polls(const ota_track_t *t, ota_transfer_t *x, wmem_allocator_t *tmp)
{
    guint from, n;
    wmem_array_t *polls = transfer_polls(t, x, &from);
    wmem_array_t *gaps = wmem_array_new(tmp, sizeof(gint64));
    gint64 prev = -1;

    n = polls ? wmem_array_get_count(polls) : 0;
    x->rec.polls = 0;
    for (guint i = from; i < n; i++) {
        const ota_poll_t *p = (const ota_poll_t *)wmem_array_index(polls, i);
        if (p->start_us > x->last_us)
            break;
        x->rec.polls++;
        if (prev >= 0 && p->start_us > prev + POLL_BURST_US) {
            gint64 gap = p->start_us - prev;
            wmem_array_append_one(gaps, gap);
        }
        prev = p->start_us;
    }
    x->rec.poll_period_s = ota_quantile_s(gaps, 0.5);
}

/* The frames of x the sniffer missed, estimated (miss_estimate.h): its
 * frames captured are those of its copies and their ACKs (air_frames), and
 * the meter's polls and their ACKs while it went on. */
static void estimate_missed(const ota_track_t *t, ota_transfer_t *x, guint32 air_frames)
{
    guint lo, n;
    wmem_array_t *polls = transfer_polls(t, x, &lo);
    guint32 captured = air_frames + x->frames_captured_unlogged, acks = x->acks_matched;

    n = polls ? wmem_array_get_count(polls) : 0;
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

void ota_finalize_all(ota_track_t *t, double stall_s)
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
        if (code_known && is_request == c->msg->xfer->upload)
            count_train_positions(t, c, lost, s);
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
        gint64 late_delay = ota_late_answer_delay(x);
        for (guint k = 0; k < wmem_array_get_count(x->msgs); k++) {
            ota_msg_t *o = *(ota_msg_t **)wmem_array_index(x->msgs, k);
            if (o->is_request)
                ota_mark_spurious(t, o, late_delay);
        }
        estimate_missed(t, x, air_at[i].n + air_at[i].untied);
        count_polls(t, x, tmp);
        GArray *air_spans = transfer_air_spans(t, slot_of, i, &air_at[i]);
        ota_finalize_transfer(t, x, air_spans, (wmem_array_t *)wmem_map_lookup(polls_by_xfer, x), stall_s);
        g_array_free(air_spans, TRUE);
        wmem_array_t *d1 = (wmem_array_t *)wmem_map_lookup(frag1_by_xfer, x);
        x->rec.frag1_block_bytes = d1 ? floor(ota_quantile_s(d1, 0.5) * 1e6 + 0.5) : -1;
    }
    g_free(air_at);
    g_free(slot_of);
    wmem_destroy_allocator(tmp);
    t->dirty = FALSE;
    t->finalized_stall_s = stall_s;
}
