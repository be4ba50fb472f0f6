/* mle.c: MLE broadcasts: an Advertisement from each router, a Child Update
 * Request from each child. Without MLE-layer security (suite 255), so that
 * a sniffer needs no MLE key; their Source Address TLV teaches Wireshark
 * the node's short address, which it needs to decrypt MAC security.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "mle.h"
#include "lowpan.h"
#include "mac.h"

#define MLE_PORT  19788

static void put_tlv(GByteArray *b, guint8 type, const guint8 *v, guint8 len)
{
    g_byte_array_append(b, &type, 1);
    g_byte_array_append(b, &len, 1);
    g_byte_array_append(b, v, len);
}

static void send_mle(node_t *n)
{
    static const guint8 FF02_1[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    guint8 hdr[2] = { 0xff, node_is_router(n) ? 4 : 13 };   /* Advertisement / Child Update Request */
    guint8 rloc[2] = { (guint8)(n->rloc16 >> 8), (guint8)n->rloc16 };
    guint8 leader[8] = { 0x12, 0x34, 0x56, 0x78, 64, 1, 1, 1 };
    guint8 mode = 0x00;   /* sleepy, minimal device */
    GByteArray *mle = g_byte_array_new();
    lowpan_ip6udp_t ip = { .src_port = MLE_PORT, .dst_port = MLE_PORT, .hop_limit = 255 };
    lowpan_ctx_t ctx = { 0 };
    gsize hdr_len;

    g_byte_array_append(mle, hdr, 2);
    put_tlv(mle, 0, rloc, 2);
    if (node_is_router(n))
        put_tlv(mle, 11, leader, 8);
    else
        put_tlv(mle, 1, &mode, 1);
    node_link_local(n, ip.src);
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
    if (node_is_router(n) && w->p.mle_interval_s > 0) {
        double next = w->p.mle_interval_s * world_uniform(w, 0.5, 1.5);
        world_at(w, world_now(w) + (gint64)(next * 1e6), mle_timer, n, NULL);
    }
}

void mle_start(node_t *n, gint64 at_us)
{
    world_at(n->w, at_us, mle_timer, n, NULL);
}
