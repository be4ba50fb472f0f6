/* mac.c: per-node IEEE 802.15.4-2006 MAC (unslotted CSMA/CA, 7.5.1.4;
 * acknowledgement and retransmission, 7.5.6.4; indirect transmission and
 * data polling, 7.5.6.3). Every frame goes to the sniffer (sniffer.c) when it
 * ends, and to the listener (events.h); fragments received and given up on go
 * up to the datagram layer (world_t.fragment_received, fragment_failed).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mac.h"
#include "channel.h"
#include "events.h"
#include "sniffer.h"

#define SLEEPY_RX_WINDOW_US 150000  /* a SED stays awake this long after frame pending */

static void start_next(node_t *n);

static gboolean has_indirect_for(node_t *parent, node_t *child, mac_tx_t **first)
{
    for (GList *l = parent->indirect.head; l; l = l->next) {
        mac_tx_t *tx = l->data;
        if (tx->dst == child) {
            if (first)
                *first = tx;
            return TRUE;
        }
    }
    return FALSE;
}

static GByteArray *build_psdu(mac_tx_t *tx, gboolean frame_pending)
{
    world_t *w = tx->src->w;
    wpan_hdr_t h = { 0 };
    node_t *s = tx->src;

    h.frame_type = tx->is_poll ? WPAN_FT_CMD : WPAN_FT_DATA;
    h.frame_pending = frame_pending;
    h.ack_request = tx->dst != NULL;
    h.seq = s->seq++;
    h.pan_id = PAN_ID;
    if (tx->dst) {
        h.dst_mode = WPAN_ADDR_SHORT;
        h.dst_short = tx->dst->rloc16;
        h.src_mode = WPAN_ADDR_SHORT;
        h.src_short = s->rloc16;
    } else {
        /* MLE broadcasts carry the extended source: Wireshark learns the
         * short-to-extended map from them and can then decrypt. */
        h.dst_mode = WPAN_ADDR_SHORT;
        h.dst_short = 0xffff;
        h.src_mode = WPAN_ADDR_EXT;
        h.src_ext = s->ext;
    }
    if (tx->secured) {
        h.frame_counter = s->frame_counter++;
        h.key_index = 1;   /* key sequence 0 */
    }
    return wpan_frame_build(&h, tx->payload->data, tx->payload->len,
                            tx->secured ? w->mac_key : NULL, s->ext);
}

/* ---- sleepy end device polling ---- */

static void poll_timer(gpointer obj, gpointer arg);

static void schedule_poll(node_t *n, gint64 delay_us)
{
    n->poll_gen++;
    world_at(n->w, world_now(n->w) + delay_us, poll_timer, n, GUINT_TO_POINTER(n->poll_gen));
}

static gint64 poll_period_us(const node_t *n)
{
    return 1000 * (gint64)(n->fast_poll ? n->w->p.poll_ms : n->w->p.idle_poll_ms);
}

static void send_poll(node_t *n)
{
    static const guint8 cmd = WPAN_CMD_DATA_REQUEST;
    GByteArray *payload = g_byte_array_new();
    mac_tx_t *tx;

    g_byte_array_append(payload, &cmd, 1);
    tx = mac_tx_new(n, n->parent, payload, NULL, 0, 0);
    tx->is_poll = TRUE;
    mac_send(tx);
}

static void poll_timer(gpointer obj, gpointer arg)
{
    node_t *n = obj;

    if (GPOINTER_TO_UINT(arg) != n->poll_gen || n->w->stop)
        return;
    if (!n->awake)
        send_poll(n);
    schedule_poll(n, poll_period_us(n));
}

void mac_start_polling(node_t *n)
{
    schedule_poll(n, poll_period_us(n));
}

void mac_set_fast_poll(node_t *n, gboolean fast)
{
    if (!n->sleepy || n->fast_poll == fast)
        return;
    n->fast_poll = fast;
    if (fast)
        schedule_poll(n, poll_period_us(n));
}

static void rx_window_end(gpointer obj, gpointer arg)
{
    node_t *n = obj;

    if (GPOINTER_TO_UINT(arg) == n->awake_gen)
        n->awake = FALSE;
}

static void stay_awake(node_t *n)
{
    n->awake = TRUE;
    n->awake_gen++;
    world_at(n->w, world_now(n->w) + SLEEPY_RX_WINDOW_US, rx_window_end, n,
             GUINT_TO_POINTER(n->awake_gen));
}

/* ---- CSMA/CA and transmission ---- */

typedef struct {
    mac_tx_t *tx;
    gboolean  ok;
    gboolean  ack_frame_pending;
} tx_result_t;

static void csma_backoff(node_t *n);

static gint64 backoff_us(node_t *n, int be)
{
    return (gint64)g_rand_int_range(n->w->rng, 0, 1 << be) * BACKOFF_US;
}

/* An ACK on its way to the air, and for the listener the frame it answers. */
typedef struct {
    GByteArray *ack;
    datagram_t *dg;
    const node_t *sender;        /* of the frame acknowledged */
    int         hop, frag;
} ack_out_t;

static void ack_out_free(gpointer p)
{
    ack_out_t *ao = p;

    g_byte_array_unref(ao->ack);
    if (ao->dg)
        datagram_unref(ao->dg);
    g_free(ao);
}

static void ack_written(gpointer obj, gpointer arg)
{
    node_t *acker = obj;
    ack_out_t *ao = arg;

    gboolean captured = sniffer_frame(acker->w, acker, ao->ack);

    sim_emit(acker->w, ack_on_air, ao->dg, ao->sender, ao->hop, ao->frag, ao->ack->len, captured);
    ack_out_free(ao);
}

static void deliver_frame(node_t *rx, mac_tx_t *tx)
{
    world_t *w = rx->w;
    gpointer last = g_hash_table_lookup(rx->last_rx_seq, tx->src);
    guint8 seq = tx->psdu->data[2];

    /* A retry whose ACK was lost: acknowledge again, pass it up once. */
    if (last && GPOINTER_TO_UINT(last) == (guint)seq + 1)
        return;
    g_hash_table_insert(rx->last_rx_seq, tx->src, GUINT_TO_POINTER((guint)seq + 1));

    if (tx->is_poll) {
        mac_tx_t *first;
        if (has_indirect_for(rx, tx->src, &first)) {
            g_queue_remove(&rx->indirect, first);
            sim_emit(w, indirect_pulled, first, world_now(w) - air_time_us(tx->psdu->len));
            g_queue_push_head(&rx->txq, first);
            if (!rx->cur)
                start_next(rx);
        }
        return;
    }
    if (rx->sleepy) {
        /* More frames pending: poll again at once, as OpenThread does. */
        rx->awake = FALSE;
        if (tx->psdu->data[0] & 0x10)
            send_poll(rx);
    }
    if (tx->dg)
        w->fragment_received(w, tx->dg, tx->hop, tx->frag);
}

static void tx_done(gpointer obj, gpointer arg);

/* A fragment's first transmission on its hop: once every fragment went out
 * there, the copy on that hop is complete on air (where a sniffer that
 * heard them all can reassemble it). */
static void fragment_on_air(world_t *w, const mac_tx_t *tx)
{
    datagram_t *dg = tx->dg;
    guint32 bit = 1u << tx->frag;
    guint32 all = dg->frags->len >= 32 ? 0xffffffffu : (1u << dg->frags->len) - 1;

    if (dg->sent_mask[tx->hop] & bit)
        return;
    dg->sent_mask[tx->hop] |= bit;
    if (dg->sent_mask[tx->hop] != all)
        return;
    dg->complete_on_air_us[tx->hop] = w->p.start_epoch_us + world_now(w);
    sim_emit(w, copy_on_air, dg, tx->hop);
}

static void tx_end(gpointer obj, gpointer arg)
{
    node_t *n = obj;
    world_t *w = n->w;
    mac_tx_t *tx = n->cur;
    gint64 end = world_now(w);
    gint64 start = end - air_time_us(tx->psdu->len);
    tx_result_t *res = g_new0(tx_result_t, 1);
    (void)arg;

    res->tx = tx;
    gboolean captured = sniffer_frame(w, n, tx->psdu);
    tx->sent++;
    sim_emit(w, frame_on_air, tx, captured);
    if (tx->dg)
        fragment_on_air(w, tx);

    if (!tx->dst) {
        /* Broadcast: nobody acknowledges; the result is success. */
        res->ok = TRUE;
        world_at_owned(w, end, tx_done, n, res, g_free);
        return;
    }

    node_t *rx = tx->dst;
    gboolean listening = !rx->sleepy || rx->awake;
    if (listening && !channel_lost(w, n, rx, start, end)) {
        gboolean fp = tx->is_poll && has_indirect_for(rx, n, NULL);
        ack_out_t *ao = g_new0(ack_out_t, 1);
        ao->ack = wpan_ack_build(tx->psdu->data[2], fp);
        gint64 ack_start = end + TURNAROUND_US;
        gint64 ack_end = ack_start + air_time_us(ao->ack->len);

        channel_add(w, rx, ack_start, ack_end);
        res->ok = !channel_lost(w, rx, n, ack_start, ack_end);
        res->ack_frame_pending = fp;
        ao->dg = tx->dg;
        ao->sender = n;
        ao->hop = tx->hop;
        ao->frag = tx->frag;
        if (ao->dg)
            ao->dg->refs++;
        deliver_frame(rx, tx);
        world_at_owned(w, ack_end, ack_written, rx, ao, ack_out_free);
        world_at_owned(w, res->ok ? ack_end : end + ACK_WAIT_US, tx_done, n, res, g_free);
    } else {
        world_at_owned(w, end + ACK_WAIT_US, tx_done, n, res, g_free);
    }
}

static void tx_done(gpointer obj, gpointer arg)
{
    node_t *n = obj;
    tx_result_t *res = arg;
    mac_tx_t *tx = res->tx;
    world_t *w = n->w;

    if (res->ok) {
        if (tx->is_poll && res->ack_frame_pending)
            stay_awake(n);
        n->cur = NULL;
        mac_tx_free(tx);
    } else if (tx->attempts <= w->p.mac_max_frame_retries) {
        /* Retry the same PSDU: same sequence number and frame counter. */
        g_free(res);
        csma_backoff(n);
        return;
    } else {
        n->cur = NULL;
        sim_emit(w, frame_failed, tx);
        if (tx->dg)
            w->fragment_failed(w, tx->dg, tx->hop);
        mac_tx_free(tx);
    }
    g_free(res);
    start_next(n);
}

typedef struct {
    int nb, be;
} csma_state_t;

static void cca(gpointer obj, gpointer arg);

static void csma_step(node_t *n, csma_state_t *cs)
{
    world_at_owned(n->w, world_now(n->w) + backoff_us(n, cs->be), cca, n, cs, g_free);
}

static void csma_backoff(node_t *n)
{
    csma_state_t *cs = g_new0(csma_state_t, 1);

    cs->be = n->w->p.mac_min_be;
    csma_step(n, cs);
}

static void cca(gpointer obj, gpointer arg)
{
    node_t *n = obj;
    csma_state_t *cs = arg;
    world_t *w = n->w;
    mac_tx_t *tx = n->cur;
    gint64 now = world_now(w);

    if (channel_busy(w, n, now, now + CCA_US)) {
        cs->nb++;
        cs->be = MIN(cs->be + 1, w->p.mac_max_be);
        if (cs->nb <= w->p.mac_max_csma_backoffs) {
            csma_step(n, cs);
            return;
        }
        /* Channel access failure counts as a failed attempt. */
        g_free(cs);
        tx->attempts++;
        tx_result_t *res = g_new0(tx_result_t, 1);
        res->tx = tx;
        if (!tx->psdu)
            tx->psdu = build_psdu(tx, FALSE);
        world_at_owned(w, now, tx_done, n, res, g_free);
        return;
    }
    g_free(cs);
    if (!tx->psdu) {
        gboolean fp = tx->dst && tx->dst->sleepy && has_indirect_for(n, tx->dst, NULL);
        tx->psdu = build_psdu(tx, fp);
    }
    tx->attempts++;
    gint64 start = now + CCA_US + TURNAROUND_US;
    gint64 end = start + air_time_us(tx->psdu->len);
    channel_add(w, n, start, end);
    world_at(w, end, tx_end, n, NULL);
}

static void start_next(node_t *n)
{
    if (n->cur || n->w->stop)
        return;
    n->cur = g_queue_pop_head(&n->txq);
    if (n->cur)
        csma_backoff(n);
}

void mac_send(mac_tx_t *tx)
{
    g_queue_push_tail(&tx->src->txq, tx);
    start_next(tx->src);
}

void mac_send_indirect(mac_tx_t *tx)
{
    tx->queued_us = world_now(tx->src->w);
    g_queue_push_tail(&tx->src->indirect, tx);
}

static void drop_from(GQueue *q, datagram_t *dg, int hop)
{
    GList *l = q->head;
    while (l) {
        GList *next = l->next;
        mac_tx_t *tx = l->data;
        if (tx->dg == dg && tx->hop == hop) {
            g_queue_delete_link(q, l);
            mac_tx_free(tx);
        }
        l = next;
    }
}

void mac_drop_datagram(node_t *n, datagram_t *dg, int hop)
{
    drop_from(&n->txq, dg, hop);
    drop_from(&n->indirect, dg, hop);
}

void mac_broadcast(node_t *n, GByteArray *payload)
{
    mac_send(mac_tx_new(n, NULL, payload, NULL, 0, 0));
}
