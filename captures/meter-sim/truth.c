/* truth.c: the truth's bookkeeping, one callback per event of the run.
 *
 * Capture-level counts are what a sniffer that hears every transmission
 * can see: a datagram copy on a hop is "complete on air" once each of its
 * fragments went out at least once on that hop, whether or not the receiver
 * got it; that is when a dissector can reassemble it. Per transfer, the
 * counts come from what the meter and the gateway did (xfer_count,
 * block_taken) and from its datagrams' fate on the air.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "truth_internal.h"
#include "channel.h"
#include "coap_msg.h"

static truth_xfer_t *xfer_of(const truth_t *t, int id)
{
    return id > 0 && (guint)id <= t->xfers->len ? g_ptr_array_index(t->xfers, id - 1) : NULL;
}

/* Now as the capture's timestamps count: UNIX microseconds. */
static gint64 capture_now(const truth_t *t)
{
    return t->w->p.start_epoch_us + world_now(t->w);
}

static gboolean coap_is_con(const GByteArray *c) { return c->len >= 4 && ((c->data[0] >> 4) & 3) == 0; }
static gboolean coap_is_request(const GByteArray *c) { return c->len >= 4 && c->data[1] >= 1 && c->data[1] < 32; }
static guint16 coap_mid(const GByteArray *c) { return c->len >= 4 ? (guint16)((c->data[2] << 8) | c->data[3]) : 0; }

/* Counts one copy of a CoAP message and whether it repeats a CON's MID. */
static void count_copy(GHashTable *seen, const char *link, int origin, const app_msg_t *m,
                       guint64 *messages, guint64 *block2, guint64 *retx)
{
    (*messages)++;
    if (m->has_block2)
        (*block2)++;
    if (!coap_is_con(m->coap))
        return;
    char *key = g_strdup_printf("%s|%d|%u", link, origin, coap_mid(m->coap));
    if (g_hash_table_contains(seen, key)) {
        (*retx)++;
        g_free(key);
    } else {
        g_hash_table_add(seen, key);
    }
}

/* ---- the air ---- */

static void frame_on_air(gpointer ctx, const mac_tx_t *tx, gboolean captured)
{
    truth_t *t = ctx;
    const datagram_t *dg = tx->dg;
    gint64 now = capture_now(t);
    truth_xfer_t *x;

    if (!captured)
        sniffer_truth_frame_missed(t->sniffer, tx, now);
    t->air.frames++;
    if (tx->is_poll) {
        t->air.data_requests++;
        on_air_poll_sent(t->on_air, tx->src, now - air_time_us(tx->psdu->len));
    }
    if (!tx->dst)
        t->air.broadcasts++;
    if (tx->sent > 1)
        t->air.mac_retries++;
    if (!dg)
        return;
    if (dg->fragmented)
        t->air.fragment_frames++;
    on_air_frame(t->on_air, dg, tx->hop, tx->frag, tx->sent > 1, now, air_time_us(tx->psdu->len), captured);
    pair_truth_frame(t->pair, dg, now);
    if ((x = xfer_of(t, dg->msg.xfer))) {
        if (tx->sent > 1)
            x->mac_retries++;
        else if (dg->fragmented)
            x->fragments_sent++;
    }
}

static void copy_on_air(gpointer ctx, const datagram_t *dg, int hop)
{
    truth_t *t = ctx;
    truth_xfer_t *x = xfer_of(t, dg->msg.xfer);
    gint64 now = capture_now(t);
    char link[32];

    on_air_copy(t->on_air, dg, hop, now);
    pair_truth_copy(t->pair, dg, hop, now);
    if (dg->fragmented)
        t->air.reassembled++;
    g_snprintf(link, sizeof(link), "%d>%d", dg->path[hop]->idx, dg->path[hop + 1]->idx);
    count_copy(t->air_seen, link, dg->upstream ? dg->path[0]->idx : -1, &dg->msg,
               &t->air.coap_messages, &t->air.block2_responses, &t->air.con_retransmissions);
    if (!x)
        return;
    x->air_last_activity_us = now;
    if (hop == 0 && dg->upstream && x->air_first_request_us < 0 && coap_is_request(dg->msg.coap))
        x->air_first_request_us = now;
}

static void frame_failed(gpointer ctx, const mac_tx_t *tx)
{
    truth_t *t = ctx;
    truth_xfer_t *x = tx->dg ? xfer_of(t, tx->dg->msg.xfer) : NULL;

    t->air.frames_unacked++;
    if (x && tx->dg->fragmented)
        x->fragments_unacked++;
}

static void indirect_pulled(gpointer ctx, const mac_tx_t *tx, gint64 dr_start_us)
{
    truth_t *t = ctx;

    if (tx->dg)
        on_air_poll_wait(t->on_air, tx->dg, tx->hop, tx->dst, t->w->p.start_epoch_us + tx->queued_us,
                         t->w->p.start_epoch_us + dr_start_us);
}

static void ack_on_air(gpointer ctx, const datagram_t *dg, const node_t *acked_sender, int hop, int frag,
                       gsize ack_len, gboolean captured)
{
    truth_t *t = ctx;
    gint64 now = capture_now(t);

    t->air.frames++;
    t->air.acks++;
    if (!captured)
        sniffer_truth_ack_missed(t->sniffer, dg, acked_sender, now);
    on_air_acked(t->on_air, dg, hop, frag, now, air_time_us(ack_len), captured);
}

/* ---- datagrams ---- */

static void datagram_sent(gpointer ctx, const datagram_t *dg)
{
    truth_t *t = ctx;
    truth_xfer_t *x = xfer_of(t, dg->msg.xfer);

    on_air_datagram(t->on_air, dg, capture_now(t));
    if (dg->upstream)
        pair_truth_up(t->pair, dg, capture_now(t));
    t->air.datagrams++;
    if (dg->fragmented)
        t->air.datagrams_fragmented++;
    if (x) {
        x->datagrams_sent++;
        if (dg->fragmented)
            x->datagrams_fragmented++;
    }
}

static void datagram_delivered(gpointer ctx, const datagram_t *dg)
{
    truth_t *t = ctx;
    truth_xfer_t *x = xfer_of(t, dg->msg.xfer);

    t->air.datagrams_delivered++;
    pair_truth_delivered(t->pair, dg);
    if (x)
        x->datagrams_delivered++;
}

static void gateway_received(gpointer ctx, const datagram_t *dg)
{
    truth_t *t = ctx;
    truth_xfer_t *x = xfer_of(t, dg->msg.xfer);
    int peer = dg->path[0]->idx;
    char link[16];

    on_air_gateway(t->on_air, dg, capture_now(t));
    pair_truth_at_gateway(t->pair, dg, capture_now(t));
    g_snprintf(link, sizeof(link), "up%d", peer);
    count_copy(t->gw_seen, link, peer, &dg->msg, &t->gw.coap_messages, &t->gw.block2_responses,
               &t->gw.con_retransmissions);
    if (x && x->gw_first_request_us < 0 && coap_is_request(dg->msg.coap))
        x->gw_first_request_us = capture_now(t);
}

static void gateway_sent(gpointer ctx, const datagram_t *dg)
{
    truth_t *t = ctx;
    char link[16];

    on_air_datagram(t->on_air, dg, capture_now(t));
    on_air_gateway(t->on_air, dg, capture_now(t));
    pair_truth_down(t->pair, dg, capture_now(t));
    g_snprintf(link, sizeof(link), "down%d", dg->path[dg->n_path - 1]->idx);
    count_copy(t->gw_seen, link, -1, &dg->msg, &t->gw.coap_messages, &t->gw.block2_responses,
               &t->gw.con_retransmissions);
}

static void backhaul_lost(gpointer ctx, const datagram_t *dg)
{
    truth_t *t = ctx;

    pair_truth_backhaul_lost(t->pair, dg);
}

/* ---- the applications ---- */

static void history(gpointer ctx, const node_t *n, const senml_sample_t *samples, guint n_samples)
{
    truth_t *t = ctx;
    GArray *a = g_array_sized_new(FALSE, FALSE, sizeof(senml_sample_t), n_samples);

    g_array_append_vals(a, samples, n_samples);
    g_hash_table_replace(t->history, (gpointer)n, a);
}

/* The config the gateway served each meter, once. */
static void config_taken(gpointer ctx, const node_t *n, const meter_config_t *cfg)
{
    truth_t *t = ctx;

    if (n->role != ROLE_METER)
        return;
    for (guint i = 0; i < t->configs->len; i++)
        if (g_array_index(t->configs, config_entry_t, i).node == n)
            return;
    config_entry_t e = { n, *cfg };
    g_array_append_val(t->configs, e);
}

static void xfer_begin(gpointer ctx, const xfer_info_t *info)
{
    truth_t *t = ctx;
    truth_xfer_t *x = g_new0(truth_xfer_t, 1);

    x->id = (int)t->xfers->len + 1;
    g_assert(x->id == info->id);
    x->meter = info->meter;
    x->background = info->background;
    g_strlcpy(x->kind, info->kind, sizeof(x->kind));
    g_strlcpy(x->method, info->method, sizeof(x->method));
    g_strlcpy(x->path, info->path, sizeof(x->path));
    g_strlcpy(x->query, info->query, sizeof(x->query));
    x->szx_requested = x->szx = info->szx;
    x->resource_size = info->resource_size;
    if (info->sha256) {
        memcpy(x->sha256, info->sha256, 32);
        x->has_sha256 = TRUE;
    }
    g_strlcpy(x->outcome, "unfinished", sizeof(x->outcome));
    x->air_first_request_us = x->air_last_response_us = x->air_last_activity_us = -1;
    x->gw_first_request_us = x->gw_last_response_us = -1;
    g_ptr_array_add(t->xfers, x);
}

static void xfer_count(gpointer ctx, int xfer, xfer_count_t what)
{
    truth_xfer_t *x = xfer_of(ctx, xfer);

    if (!x)
        return;
    switch (what) {
    case XFER_RETRANSMISSION:
        x->coap_retransmissions++;
        /* a retransmission is a request transmission too */
        G_GNUC_FALLTHROUGH;
    case XFER_REQUEST:
        x->requests++;
        break;
    case XFER_RESUME:
        x->resumes++;
        /* a resumption asks again with a new MID */
        G_GNUC_FALLTHROUGH;
    case XFER_REREQUEST:
        x->rerequests++;
        break;
    case XFER_SEPARATE_RESPONSE:
        x->separate_responses++;
        break;
    case XFER_DUPLICATE_RESPONSE:
        x->duplicate_responses++;
        break;
    case XFER_ERROR_RESPONSE:
        x->error_responses++;
        break;
    case XFER_DROPPED:
        x->dropped_by_meter++;
        break;
    case XFER_GATEWAY_RETRANSMISSION:
        x->gateway_retransmissions++;
        break;
    }
}

static void block_taken(gpointer ctx, int xfer, guint32 offset, guint32 len)
{
    truth_xfer_t *x = xfer_of(ctx, xfer);

    if (!x)
        return;
    x->blocks++;
    x->bytes = offset + len;
}

static void renegotiated(gpointer ctx, int xfer, int szx)
{
    truth_xfer_t *x = xfer_of(ctx, xfer);

    if (!x)
        return;
    x->szx = szx;
    x->renegotiated = TRUE;
}

static void response_taken(gpointer ctx, const datagram_t *dg)
{
    truth_t *t = ctx;

    on_air_taken(t->on_air, dg, capture_now(t));
}

static void xfer_end(gpointer ctx, int xfer, const char *outcome, const datagram_t *last_response)
{
    truth_t *t = ctx;
    truth_xfer_t *x = xfer_of(t, xfer);

    if (!x)
        return;
    g_strlcpy(x->outcome, outcome, sizeof(x->outcome));
    if (last_response) {
        /* Its copy on the hop into the meter; at the gateway, when it left. */
        x->air_last_response_us = last_response->complete_on_air_us[last_response->n_path - 2];
        x->gw_last_response_us = t->w->p.start_epoch_us + last_response->msg.gw_time_us;
    }
}

static void run_end(gpointer ctx, gint64 end_us)
{
    truth_t *t = ctx;

    t->end_us = end_us;
}

/* ---- the truth ---- */

truth_t *truth_new(const world_t *w)
{
    truth_t *t = g_new0(truth_t, 1);

    t->w = w;
    t->listener = (sim_listener_t){
        .ctx = t,
        .frame_on_air = frame_on_air, .copy_on_air = copy_on_air, .frame_failed = frame_failed,
        .indirect_pulled = indirect_pulled, .ack_on_air = ack_on_air,
        .datagram_sent = datagram_sent, .datagram_delivered = datagram_delivered,
        .gateway_received = gateway_received, .gateway_sent = gateway_sent, .backhaul_lost = backhaul_lost,
        .history = history, .config_taken = config_taken, .xfer_begin = xfer_begin, .xfer_count = xfer_count,
        .block_taken = block_taken, .renegotiated = renegotiated, .response_taken = response_taken,
        .xfer_end = xfer_end, .run_end = run_end,
    };
    t->xfers = g_ptr_array_new_with_free_func(g_free);
    t->air_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    t->gw_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    t->configs = g_array_new(FALSE, TRUE, sizeof(config_entry_t));
    t->history = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
    t->on_air = on_air_new();
    t->sniffer = sniffer_truth_new();
    if (w->p.gateway_pair)
        t->pair = pair_truth_new();
    return t;
}

void truth_free(truth_t *t)
{
    if (!t)
        return;
    g_ptr_array_unref(t->xfers);
    g_hash_table_destroy(t->air_seen);
    g_hash_table_destroy(t->gw_seen);
    g_array_free(t->configs, TRUE);
    g_hash_table_destroy(t->history);
    on_air_free(t->on_air);
    sniffer_truth_free(t->sniffer);
    pair_truth_free(t->pair);
    g_free(t);
}

const sim_listener_t *truth_listener(truth_t *t)
{
    return &t->listener;
}

void truth_set_gateway_capture(truth_t *t, const char *path)
{
    t->gateway_capture = path;
}

void truth_set_firmware_pubkey(truth_t *t, const guint8 pubkey[32])
{
    memcpy(t->firmware_pubkey, pubkey, 32);
}
