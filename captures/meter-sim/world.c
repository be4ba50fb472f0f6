/* world.c: the network's nodes in their routing tree, its datagrams and
 * frames, from creation to release. Nothing here acts on them: that is the
 * parts above (world.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "world.h"

const guint8 ON_MESH_PREFIX[8] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00 };
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

void node_link_local(const node_t *n, guint8 addr[16])
{
    memset(addr, 0, 16);
    addr[0] = 0xfe;
    addr[1] = 0x80;
    iid_from_ext(addr + 8, n->ext);
}

gboolean node_is_router(const node_t *n)
{
    return n->role == ROLE_ROUTER || n->role == ROLE_BORDER_ROUTER ||
           (n->role == ROLE_BACKGROUND && !n->sleepy);
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
    g_free(n);
}

/* ---- datagrams and frames ---- */

datagram_t *datagram_new(world_t *w, const app_msg_t *msg, gboolean upstream)
{
    datagram_t *dg = g_new0(datagram_t, 1);

    dg->id = ++w->next_dgram_id;
    dg->refs = 1;
    dg->msg = *msg;
    dg->msg.dgram = dg->id;
    dg->upstream = upstream;
    return dg;
}

void datagram_unref(datagram_t *dg)
{
    if (--dg->refs > 0)
        return;
    if (dg->ipv6)
        g_byte_array_unref(dg->ipv6);
    if (dg->frags)
        g_ptr_array_unref(dg->frags);
    if (dg->msg.coap)
        g_byte_array_unref(dg->msg.coap);
    g_free(dg);
}

mac_tx_t *mac_tx_new(node_t *src, node_t *dst, GByteArray *payload, datagram_t *dg, int hop,
                     int frag)
{
    mac_tx_t *tx = g_new0(mac_tx_t, 1);

    tx->src = src;
    tx->dst = dst;
    tx->payload = payload;
    tx->dg = dg;
    tx->hop = hop;
    tx->frag = frag;
    tx->secured = src->w->p.security && dst != NULL;
    if (dg)
        dg->refs++;
    return tx;
}

void mac_tx_free(mac_tx_t *tx)
{
    if (!tx)
        return;
    if (tx->payload)
        g_byte_array_unref(tx->payload);
    if (tx->psdu)
        g_byte_array_unref(tx->psdu);
    if (tx->dg)
        datagram_unref(tx->dg);
    g_free(tx);
}

/* ---- topology ---- */

static void build_topology(world_t *w)
{
    const sim_params_t *p = &w->p;
    node_t *parent, *relay = NULL;
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
        /* The first hidden node relays for the other hidden ones: what it
         * forwards to them and from them is on the air unheard by the meters'
         * path (their children, other OTA campaigns, behind a router out of
         * range of the meters' parent). */
        if (p->bg_hidden_relay && bg->hidden) {
            if (relay)
                bg->parent = relay;
            else
                relay = bg;
        }
    }
}

world_t *world_new(const sim_params_t *p, capture_writer_t *cap, GError **err)
{
    world_t *w = g_new0(world_t, 1);
    guint32 seed[2] = { (guint32)p->seed, (guint32)(p->seed >> 32) };

    w->p = *p;
    w->rng = g_rand_new_with_seed_array(seed, 2);
    w->eq = event_queue_new();
    w->cap = cap;
    w->nodes = g_ptr_array_new_with_free_func(node_free);
    memcpy(w->gateway_ip6, GATEWAY_IP6, 16);
    if (!wpan_thread_mac_key(p->network_key, 0, w->mac_key)) {
        g_set_error(err, g_quark_from_static_string("meter-sim"), 1, "MAC key derivation failed");
        world_free(w);
        return NULL;
    }
    build_topology(w);
    return w;
}

void world_free(world_t *w)
{
    if (!w)
        return;
    g_ptr_array_unref(w->nodes);
    event_queue_free(w->eq);
    g_rand_free(w->rng);
    g_free(w);
}
