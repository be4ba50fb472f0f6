/* ota_track_datagram.c: the tracker's 6LoWPAN datagram copies
 * (ota_track_state.h): a datagram on one link, its fragments and their
 * coverage, tied to the CoAP message it carries, and whether a copy was lost.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ota_track_state.h"

guint ota_copy_key_hash(gconstpointer p)
{
    const copy_key_t *k = (const copy_key_t *)p;
    guint64 h = k->src * G_GUINT64_CONSTANT(0x9e3779b97f4a7c15) ^ k->dst ^ (k->orig << 7) ^
                ((guint64)k->tag << 16 | k->size);
    return (guint)(h ^ (h >> 32));
}

gboolean ota_copy_key_equal(gconstpointer a, gconstpointer b)
{
    const copy_key_t *x = (const copy_key_t *)a, *y = (const copy_key_t *)b;
    return x->src == y->src && x->dst == y->dst && x->orig == y->orig && x->tag == y->tag &&
           x->size == y->size;
}

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

void ota_datagram_in(ota_track_t *t, ota_frame_t *f, const lowpan_view_t *lv)
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
            ota_link_claim_orphan_acks(t, c, f->seq, (guint)(lv->offset + MAX(lv->data_len, 8) - 1) / (guint)MAX(lv->data_len, 8),
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

gboolean ota_copy_lost(const ota_track_t *t, const ota_copy_t *c, gint64 before_us)
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
void ota_attribute_copies(ota_track_t *t, ota_msg_t *msg, gint64 now)
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
gboolean ota_msg_lost_before(const ota_track_t *t, const ota_msg_t *msg, guint8 type, gint64 after,
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
        if (c != current && c->coap_type == type && ota_copy_lost(t, c, before) &&
            (type != COAP_TYPE_CON || c->coap_code == msg->code))
            return TRUE;
    }
    return FALSE;
}
