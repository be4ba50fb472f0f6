/* world.c: builds the network and moves IPv6 datagrams through it.
 *
 * A datagram is compressed (IPHC) and fragmented (RFC 4944) once by its
 * originator; every mesh hop then forwards each fragment as it arrives, with
 * a mesh header on router-to-router links, as Thread does. Losing one
 * fragment on any hop loses the datagram: 6LoWPAN cannot recover it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "world.h"
#include "channel.h"
#include "lowpan.h"
#include "mac.h"
#include "meter_app.h"
#include "gateway_app.h"
#include "backhaul.h"
#include "truth.h"
#include "sniffer.h"

#define MLE_PORT  19788

static const guint8 ON_MESH_PREFIX[8] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00 };
static const guint8 GATEWAY_IP6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 };

double world_uniform(world_t *w, double lo, double hi)
{
    return lo + (hi - lo) * g_rand_double(w->rng);
}

static void iid_from_ext(guint8 *iid, guint64 ext)
{
    ext ^= G_GUINT64_CONSTANT(0x0200000000000000);   /* RFC 4291 U/L bit */
    for (int i = 0; i < 8; i++)
        iid[i] = (guint8)(ext >> (56 - 8 * i));
}

static node_t *node_new(world_t *w, node_role_t role, const char *name, guint64 ext, guint16 rloc16)
{
    node_t *n = g_new0(node_t, 1);

    n->w = w;
    n->idx = (int)w->nodes->len;
    n->role = role;
    g_strlcpy(n->name, name, sizeof(n->name));
    n->ext = ext;
    n->rloc16 = rloc16;
    memcpy(n->ipv6, ON_MESH_PREFIX, 8);
    iid_from_ext(n->ipv6 + 8, ext);
    n->seq = (guint8)(ext * 37);
    /* Real stacks draw the first datagram tag at boot; here it follows the
     * node and the capture's start (its boot), so a meter recorded on two
     * days does not repeat its tags, and a scenario's captures stay as they
     * are at the default start. */
    n->next_tag = (guint16)(ext * 101 + (guint64)(w->p.start_epoch_us - SIM_DEFAULT_START_US) / 1000000 * 40503u);
    n->ge_bad = TRUE;          /* the first state change makes it good */
    g_queue_init(&n->txq);
    g_queue_init(&n->indirect);
    n->last_rx_seq = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_ptr_array_add(w->nodes, n);
    return n;
}

static void node_free(gpointer p)
{
    node_t *n = p;

    g_queue_clear_full(&n->txq, (GDestroyNotify)mac_tx_free);
    g_queue_clear_full(&n->indirect, (GDestroyNotify)mac_tx_free);
    mac_tx_free(n->cur);
    g_hash_table_destroy(n->last_rx_seq);
    if (n->role == ROLE_METER || n->role == ROLE_BACKGROUND)
        meter_app_free(n->app);
    g_free(n);
}

/* ---- datagrams ---- */

void datagram_unref(datagram_t *dg)
{
    if (--dg->refs > 0)
        return;
    g_byte_array_unref(dg->ipv6);
    g_ptr_array_unref(dg->frags);
    if (dg->msg.coap)
        g_byte_array_unref(dg->msg.coap);
    g_free(dg);
}

static gboolean is_router(const node_t *n)
{
    return n->role == ROLE_ROUTER || n->role == ROLE_BORDER_ROUTER ||
           (n->role == ROLE_BACKGROUND && !n->sleepy);
}

/* Router-to-router links of a multi-hop path carry the mesh header; a
 * child's link to its parent never does. */
static gboolean hop_has_mesh(const datagram_t *dg, int hop)
{
    const node_t *a = dg->path[hop], *b = dg->path[hop + 1];

    if (dg->n_path <= 2)
        return FALSE;
    return is_router(a) && is_router(b) && a->role != ROLE_METER && b->role != ROLE_METER;
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

static void originate(world_t *w, datagram_t *dg, const lowpan_ip6udp_t *ip)
{
    lowpan_ctx_t ctx = { .use_context = w->p.iphc_context, .context_id = 1 };
    gsize hdr_len = 0, overhead = 0;
    GByteArray *compressed;
    wpan_hdr_t h = data_header();

    memcpy(ctx.context_prefix, ON_MESH_PREFIX, 8);
    dg->id = ++w->next_dgram_id;
    dg->refs = 1;
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

    truth_datagram_sent(w->truth, dg);
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

void world_send_up(world_t *w, node_t *from, const app_msg_t *msg)
{
    datagram_t *dg = g_new0(datagram_t, 1);
    lowpan_ip6udp_t ip;

    dg->n_path = path_to_br(from, dg->path);
    dg->msg = *msg;
    dg->upstream = TRUE;
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

/* A datagram on its way down the backhaul, not yet on the mesh. */
static void downward_free(gpointer p)
{
    datagram_t *dg = p;

    g_byte_array_unref(dg->msg.coap);
    g_free(dg);
}

void world_send_down(world_t *w, node_t *to, const app_msg_t *msg)
{
    datagram_t *dg = g_new0(datagram_t, 1);
    node_t *up[MAX_PATH];
    int k = path_to_br(to, up);
    lowpan_ip6udp_t ip;
    GByteArray *pkt;

    for (int i = 0; i < k; i++)
        dg->path[i] = up[k - 1 - i];
    dg->n_path = k;
    dg->msg = *msg;
    /* The gateway's own capture sees the datagram as it leaves. */
    fill_ip(w, &ip, w->gateway_ip6, to->ipv6);
    pkt = lowpan_ipv6_udp_packet(&ip, msg->coap->data, msg->coap->len);
    capture_writer_ipv6(w->cap, w->p.start_epoch_us + world_now(w), pkt->data, pkt->len, FALSE);
    if (w->gw_cap)
        capture_writer_ipv6(w->gw_cap, backhaul_gateway_clock(&w->p, w->p.start_epoch_us + world_now(w)),
                            pkt->data, pkt->len, FALSE);
    truth_gateway_sent(w->truth, dg, to->idx, world_now(w));
    g_byte_array_unref(pkt);
    gint64 delay = one_way_us(w), extra;
    if (!backhaul_pass(w->backhaul, &extra)) {
        truth_backhaul_lost(w->truth, dg);
        downward_free(dg);
        return;
    }
    world_at_owned(w, world_now(w) + delay + extra, br_originate_down, w, dg, downward_free);
}

typedef struct {
    node_t    *from;
    datagram_t *dg;
} internet_arrival_t;

static void arrival_free(gpointer p)
{
    internet_arrival_t *a = p;

    datagram_unref(a->dg);
    g_free(a);
}

static void gateway_arrival(gpointer obj, gpointer arg)
{
    world_t *w = obj;
    internet_arrival_t *a = arg;

    capture_writer_ipv6(w->cap, w->p.start_epoch_us + world_now(w), a->dg->ipv6->data,
                        a->dg->ipv6->len, TRUE);
    if (w->gw_cap)
        capture_writer_ipv6(w->gw_cap, backhaul_gateway_clock(&w->p, w->p.start_epoch_us + world_now(w)),
                            a->dg->ipv6->data, a->dg->ipv6->len, TRUE);
    truth_gateway_received(w->truth, a->dg, a->from->idx, world_now(w));
    gateway_app_deliver(w, a->from, &a->dg->msg);
    arrival_free(a);
}

static guint32 all_frags(const datagram_t *dg)
{
    return dg->frags->len >= 32 ? 0xffffffffu : (1u << dg->frags->len) - 1;
}

void world_fragment_received(world_t *w, datagram_t *dg, int hop, int frag)
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
    truth_datagram_delivered(w->truth, dg);
    if (dg->upstream) {
        gint64 delay = one_way_us(w), extra;
        if (!backhaul_pass(w->backhaul, &extra)) {
            truth_backhaul_lost(w->truth, dg);
            return;
        }
        internet_arrival_t *a = g_new0(internet_arrival_t, 1);
        a->from = dg->path[0];
        a->dg = dg;
        dg->refs++;
        world_at_owned(w, world_now(w) + delay + extra, gateway_arrival, w, a, arrival_free);
    } else {
        meter_app_deliver(rx, &dg->msg, dg);
    }
}

void world_fragment_failed(datagram_t *dg, int hop)
{
    dg->hop_failed[hop] = TRUE;
    mac_drop_datagram(dg->path[hop], dg, hop);
}

/* ---- MLE: advertisements from routers, a Child Update from each child ---- */

static void put_tlv(GByteArray *b, guint8 type, const guint8 *v, guint8 len)
{
    g_byte_array_append(b, &type, 1);
    g_byte_array_append(b, &len, 1);
    g_byte_array_append(b, v, len);
}

/* MLE without MLE-layer security (suite 255) so that a sniffer needs no MLE
 * key; the Source Address TLV teaches Wireshark the node's short address. */
static void send_mle(node_t *n)
{
    static const guint8 FF02_1[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    guint8 hdr[2] = { 0xff, is_router(n) ? 4 : 13 };   /* Advertisement / Child Update Request */
    guint8 rloc[2] = { (guint8)(n->rloc16 >> 8), (guint8)n->rloc16 };
    guint8 leader[8] = { 0x12, 0x34, 0x56, 0x78, 64, 1, 1, 1 };
    guint8 mode = 0x00;   /* sleepy, minimal device */
    GByteArray *mle = g_byte_array_new();
    lowpan_ip6udp_t ip = { .src_port = MLE_PORT, .dst_port = MLE_PORT, .hop_limit = 255 };
    lowpan_ctx_t ctx = { 0 };
    gsize hdr_len;

    g_byte_array_append(mle, hdr, 2);
    put_tlv(mle, 0, rloc, 2);
    if (is_router(n))
        put_tlv(mle, 11, leader, 8);
    else
        put_tlv(mle, 1, &mode, 1);
    ip.src[0] = 0xfe;
    ip.src[1] = 0x80;
    iid_from_ext(ip.src + 8, n->ext);
    memcpy(ip.dst, FF02_1, 16);
    GByteArray *payload = lowpan_compress(&ip, mle->data, mle->len, &ctx, &hdr_len);
    g_byte_array_unref(mle);
    mac_broadcast(n, payload);
}

static void mle_timer(gpointer obj, gpointer arg)
{
    node_t *n = obj;
    world_t *w = n->w;
    (void)arg;

    if (w->stop)
        return;
    send_mle(n);
    if (is_router(n) && w->p.mle_interval_s > 0) {
        double next = w->p.mle_interval_s * world_uniform(w, 0.5, 1.5);
        world_at(w, world_now(w) + (gint64)(next * 1e6), mle_timer, n, NULL);
    }
}

/* ---- topology ---- */

static void build_topology(world_t *w)
{
    const sim_params_t *p = &w->p;
    node_t *parent;
    char name[16];

    w->br = node_new(w, ROLE_BORDER_ROUTER, "br", G_GUINT64_CONSTANT(0x1a2b3c4d5e6f0001), 0x0400);
    parent = w->br;
    for (int r = 1; r < p->hops; r++) {
        g_snprintf(name, sizeof(name), "router%d", r);
        node_t *rt = node_new(w, ROLE_ROUTER, name, G_GUINT64_CONSTANT(0x1a2b3c4d5e6f0001) + (guint64)r,
                              (guint16)((r + 1) << 10));
        rt->parent = parent;
        parent = rt;
    }
    for (int m = 0; m < p->n_meters; m++) {
        g_snprintf(name, sizeof(name), "meter%d", m);
        node_t *mt = node_new(w, ROLE_METER, name, G_GUINT64_CONSTANT(0x00124b0001a0c000) + (guint64)m,
                              (guint16)(parent->rloc16 | (m + 1)));
        mt->parent = parent;
        mt->sleepy = p->sleepy;
        if (m == p->outage_meter && p->outage_s > 0) {
            mt->outage_from = (gint64)(p->outage_at_s * 1e6);
            mt->outage_until = mt->outage_from + (gint64)(p->outage_s * 1e6);
        }
        w->meters[m] = mt;
    }
    for (int b = 0; b < p->n_background; b++) {
        g_snprintf(name, sizeof(name), "bg%d", b);
        node_t *bg = node_new(w, ROLE_BACKGROUND, name, G_GUINT64_CONSTANT(0x00124b00bb000000) + (guint64)b,
                              (guint16)((b + 8) << 10));
        bg->parent = w->br;
        bg->hidden = g_rand_double(w->rng) < p->hidden_fraction;
    }
}

world_t *world_new(const sim_params_t *p, capture_writer_t *cap, GError **err)
{
    world_t *w = g_new0(world_t, 1);
    guint32 seed[2] = { (guint32)p->seed, (guint32)(p->seed >> 32) };

    w->p = *p;
    w->rng = g_rand_new_with_seed_array(seed, 2);
    w->sniffer = sniffer_new(p);
    w->backhaul = backhaul_new(&w->p);
    w->eq = event_queue_new();
    w->cap = cap;
    w->nodes = g_ptr_array_new_with_free_func(node_free);
    memcpy(w->gateway_ip6, GATEWAY_IP6, 16);
    channel_init(w);
    if (!wpan_thread_mac_key(p->network_key, 0, w->mac_key)) {
        g_set_error(err, g_quark_from_static_string("meter-sim"), 1, "MAC key derivation failed");
        world_free(w);
        return NULL;
    }
    w->truth = truth_new(w);
    build_topology(w);
    w->gateway = gateway_app_new(w, err);
    if (!w->gateway) {
        world_free(w);
        return NULL;
    }
    for (guint i = 0; i < w->nodes->len; i++) {
        node_t *n = g_ptr_array_index(w->nodes, i);
        /* Everyone introduces itself in the first 200 ms, before any data. */
        world_at(w, (gint64)(i * 200000 / w->nodes->len), mle_timer, n, NULL);
        if (n->role == ROLE_METER || n->role == ROLE_BACKGROUND)
            n->app = meter_app_new(n, n->role == ROLE_BACKGROUND);
        if (n->sleepy)
            mac_start_polling(n);
    }
    return w;
}

void world_free(world_t *w)
{
    if (!w)
        return;
    if (w->gateway)
        gateway_app_free(w->gateway);
    if (w->nodes)
        g_ptr_array_unref(w->nodes);
    if (w->truth)
        truth_free(w->truth);
    if (w->air)
        g_array_free(w->air, TRUE);
    event_queue_free(w->eq);
    g_rand_free(w->rng);
    sniffer_free(w->sniffer);
    backhaul_free(w->backhaul);
    g_free(w);
}

void world_set_gateway_capture(world_t *w, capture_writer_t *gw_cap)
{
    w->gw_cap = gw_cap;
}

void world_run(world_t *w)
{
    gint64 limit = (gint64)(w->p.max_duration_s * 1e6);
    gint64 tail_end = -1;

    for (guint i = 0; i < w->nodes->len; i++) {
        node_t *n = g_ptr_array_index(w->nodes, i);
        if (n->app)
            meter_app_start(n->app, 1000000);
    }
    while (event_queue_run_next(w->eq, tail_end >= 0 ? tail_end : limit)) {
        /* Once every meter is done, let the air settle for two seconds. */
        if (tail_end < 0 && meter_apps_all_done(w))
            tail_end = world_now(w) + 2000000;
    }
    w->stop = TRUE;
    truth_finish(w->truth, world_now(w));
}
