/* mesh.c: moves IPv6 datagrams through the network.
 *
 * A datagram is compressed (IPHC) and fragmented (RFC 4944) once by its
 * originator; every mesh hop then forwards each fragment as it arrives, with
 * a mesh header on router-to-router links, as Thread does. Losing one
 * fragment on any hop loses the datagram: 6LoWPAN cannot recover it.
 * Between the border router and the gateway a datagram takes the
 * Internet's one-way time, and the backhaul may delay or lose it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "mesh.h"
#include "backhaul.h"
#include "events.h"
#include "lowpan.h"
#include "mac.h"

/* Router-to-router links of a multi-hop path carry the mesh header; a
 * child's link to its parent never does. */
static gboolean hop_has_mesh(const datagram_t *dg, int hop)
{
    const node_t *a = dg->path[hop], *b = dg->path[hop + 1];

    if (dg->n_path <= 2)
        return FALSE;
    return node_is_router(a) && node_is_router(b) && a->role != ROLE_METER && b->role != ROLE_METER;
}

static wpan_hdr_t data_header(void)
{
    wpan_hdr_t h = { 0 };

    h.frame_type = WPAN_FT_DATA;
    h.ack_request = TRUE;
    h.dst_mode = WPAN_ADDR_SHORT;
    h.src_mode = WPAN_ADDR_SHORT;
    return h;
}

static void send_fragment(datagram_t *dg, int hop, int frag)
{
    const GByteArray *f = g_ptr_array_index(dg->frags, frag);
    GByteArray *payload = g_byte_array_sized_new(f->len + 5);
    node_t *src = dg->path[hop], *dst = dg->path[hop + 1];
    mac_tx_t *tx;

    g_byte_array_append(payload, f->data, f->len);
    if (hop_has_mesh(dg, hop))
        lowpan_prepend_mesh(payload, dg->path[0]->rloc16, dg->path[dg->n_path - 1]->rloc16,
                            (guint8)(dg->n_path - 1 - hop));
    tx = mac_tx_new(src, dst, payload, dg, hop, frag);
    if (dst->sleepy)
        mac_send_indirect(tx);
    else
        mac_send(tx);
}

static int path_to_br(node_t *n, node_t **path)
{
    int k = 0;

    for (node_t *x = n; x && k < MAX_PATH; x = x->parent)
        path[k++] = x;
    return k;
}

/* Compresses and fragments dg at its originator and sends its fragments;
 * takes the caller's reference. */
static void originate(world_t *w, datagram_t *dg, const lowpan_ip6udp_t *ip)
{
    lowpan_ctx_t ctx = { .use_context = w->p.iphc_context, .context_id = 1 };
    gsize hdr_len = 0, overhead = 0;
    GByteArray *compressed;
    wpan_hdr_t h = data_header();

    memcpy(ctx.context_prefix, ON_MESH_PREFIX, 8);
    dg->ipv6 = lowpan_ipv6_udp_packet(ip, dg->msg.coap->data, dg->msg.coap->len);
    dg->size = (guint16)dg->ipv6->len;
    compressed = lowpan_compress(ip, dg->msg.coap->data, dg->msg.coap->len, &ctx, &hdr_len);
    for (int hop = 0; hop + 1 < dg->n_path; hop++) {
        gsize o = wpan_overhead(&h, w->p.security) + (hop_has_mesh(dg, hop) ? 5 : 0);
        overhead = MAX(overhead, o);
    }
    dg->tag = dg->path[0]->next_tag;
    dg->frags = lowpan_fragment(compressed, hdr_len, dg->size, dg->tag, WPAN_FRAME_MAX - overhead);
    dg->fragmented = dg->frags->len > 1;
    if (dg->fragmented)
        dg->path[0]->next_tag++;
    g_byte_array_unref(compressed);
    g_assert(dg->frags->len <= MAX_FRAGS);

    sim_emit(w, datagram_sent, dg);
    for (guint i = 0; i < dg->frags->len; i++)
        send_fragment(dg, 0, (int)i);
    datagram_unref(dg);
}

static void fill_ip(const world_t *w, lowpan_ip6udp_t *ip, const guint8 *src, const guint8 *dst)
{
    memcpy(ip->src, src, 16);
    memcpy(ip->dst, dst, 16);
    ip->src_port = w->p.coap_port;
    ip->dst_port = w->p.coap_port;
    ip->hop_limit = 64;
}

void mesh_send_up(world_t *w, node_t *from, const app_msg_t *msg)
{
    datagram_t *dg = datagram_new(w, msg, TRUE);
    lowpan_ip6udp_t ip;

    dg->n_path = path_to_br(from, dg->path);
    fill_ip(w, &ip, from->ipv6, w->gateway_ip6);
    originate(w, dg, &ip);
}

static gint64 one_way_us(world_t *w)
{
    double ms = w->p.rtt_ms / 2 + world_uniform(w, -w->p.rtt_jitter_ms / 2, w->p.rtt_jitter_ms / 2);
    return (gint64)(1000 * MAX(ms, 0.1));
}

static void br_originate_down(gpointer obj, gpointer arg)
{
    world_t *w = obj;
    datagram_t *dg = arg;
    lowpan_ip6udp_t ip;

    fill_ip(w, &ip, w->gateway_ip6, dg->path[dg->n_path - 1]->ipv6);
    originate(w, dg, &ip);
}

void mesh_send_down(world_t *w, node_t *to, const app_msg_t *msg)
{
    datagram_t *dg = datagram_new(w, msg, FALSE);
    node_t *up[MAX_PATH];
    int k = path_to_br(to, up);
    lowpan_ip6udp_t ip;
    GByteArray *pkt;

    for (int i = 0; i < k; i++)
        dg->path[i] = up[k - 1 - i];
    dg->n_path = k;
    /* The gateway's own capture sees the datagram as it leaves. */
    fill_ip(w, &ip, w->gateway_ip6, to->ipv6);
    pkt = lowpan_ipv6_udp_packet(&ip, msg->coap->data, msg->coap->len);
    capture_writer_ipv6(w->cap, w->p.start_epoch_us + world_now(w), pkt->data, pkt->len, FALSE);
    if (w->gw_cap)
        capture_writer_ipv6(w->gw_cap, backhaul_gateway_clock(&w->p, w->p.start_epoch_us + world_now(w)),
                            pkt->data, pkt->len, FALSE);
    sim_emit(w, gateway_sent, dg);
    g_byte_array_unref(pkt);
    gint64 delay = one_way_us(w), extra;
    if (!backhaul_pass(w->backhaul, &extra)) {
        sim_emit(w, backhaul_lost, dg);
        datagram_unref(dg);
        return;
    }
    world_at_owned(w, world_now(w) + delay + extra, br_originate_down, w, dg,
                   (GDestroyNotify)datagram_unref);
}

static void gateway_arrival(gpointer obj, gpointer arg)
{
    world_t *w = obj;
    datagram_t *dg = arg;

    capture_writer_ipv6(w->cap, w->p.start_epoch_us + world_now(w), dg->ipv6->data, dg->ipv6->len, TRUE);
    if (w->gw_cap)
        capture_writer_ipv6(w->gw_cap, backhaul_gateway_clock(&w->p, w->p.start_epoch_us + world_now(w)),
                            dg->ipv6->data, dg->ipv6->len, TRUE);
    sim_emit(w, gateway_received, dg);
    w->gateway_deliver(w, dg->path[0], &dg->msg);
    datagram_unref(dg);
}

static guint32 all_frags(const datagram_t *dg)
{
    return dg->frags->len >= 32 ? 0xffffffffu : (1u << dg->frags->len) - 1;
}

static void fragment_received(world_t *w, datagram_t *dg, int hop, int frag)
{
    node_t *rx = dg->path[hop + 1];

    dg->rx_mask[hop] |= 1u << frag;
    if (hop + 2 < dg->n_path) {
        /* A forwarder passes each fragment on as it arrives, once it has the
         * FRAG1 that told it where the datagram goes and until it has given
         * up on the datagram (as OpenThread does). */
        if ((dg->rx_mask[hop] & 1u) && !dg->hop_failed[hop + 1])
            send_fragment(dg, hop + 1, frag);
        return;
    }
    if (dg->rx_mask[hop] != all_frags(dg) || dg->delivered)
        return;
    dg->delivered = TRUE;
    sim_emit(w, datagram_delivered, dg);
    if (dg->upstream) {
        gint64 delay = one_way_us(w), extra;
        if (!backhaul_pass(w->backhaul, &extra)) {
            sim_emit(w, backhaul_lost, dg);
            return;
        }
        dg->refs++;
        world_at_owned(w, world_now(w) + delay + extra, gateway_arrival, w, dg, (GDestroyNotify)datagram_unref);
    } else if (rx->deliver) {
        rx->deliver(rx, &dg->msg, dg);
    }
}

static void fragment_failed(world_t *w, datagram_t *dg, int hop)
{
    (void)w;
    dg->hop_failed[hop] = TRUE;
    mac_drop_datagram(dg->path[hop], dg, hop);
}

void mesh_init(world_t *w)
{
    w->fragment_received = fragment_received;
    w->fragment_failed = fragment_failed;
}
