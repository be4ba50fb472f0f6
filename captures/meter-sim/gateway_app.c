/* gateway_app.c: the cloud CoAP server the meters talk to.
 *
 * Like a real server it keeps a response cache per (client, Message ID) and
 * answers a retransmitted CON from it (RFC 7252 4.5), and it may send an
 * empty ACK first and the response later as a separate CON (5.2.2).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "gateway_app.h"
#include "coap_msg.h"
#include "events.h"
#include "mesh.h"

struct gateway_app {
    world_t         *w;
    const catalogue_t *cat;
    GHashTable      *cache;       /* (node idx << 16 | MID) -> cached_t* */
    GHashTable      *pending;     /* separate CON responses awaiting their ACK */
    guint16          next_mid;
};

#define EXCHANGE_LIFETIME_US G_GINT64_CONSTANT(247000000)   /* RFC 7252 4.8.2 */

typedef struct {
    gint64        t;
    GByteArray   *bytes;          /* the response sent (ACK, piggy-backed or empty) */
    int           xfer;
    gboolean      has_block2;
} cached_t;

typedef struct {
    gateway_app_t *g;
    node_t        *to;
    GByteArray    *bytes;
    int            xfer;
    guint16        req_mid;       /* the request it answers */
    int            answers_dgram; /* ... and the datagram of the transmission answered */
    gboolean       has_block2;
    gboolean       retransmission;
    /* separate CON responses only */
    guint16        mid;
    int            retransmits;
    gint64         timeout_us;
    gboolean       acked;
} outgoing_t;

static void cached_free(gpointer p)
{
    cached_t *c = p;
    g_byte_array_unref(c->bytes);
    g_free(c);
}

static void deliver(world_t *w, node_t *from, const app_msg_t *msg);

gateway_app_t *gateway_app_new(world_t *w, const catalogue_t *cat)
{
    gateway_app_t *g = g_new0(gateway_app_t, 1);

    g->w = w;
    g->cat = cat;
    g->next_mid = (guint16)g_rand_int(w->rng);
    g->cache = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, cached_free);
    g->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
    w->gateway = g;
    w->gateway_deliver = deliver;
    return g;
}

void gateway_app_free(gateway_app_t *g)
{
    if (!g)
        return;
    g_hash_table_destroy(g->cache);
    g_hash_table_destroy(g->pending);
    g_free(g);
}

/* ---- sending ---- */

static void out_free(gpointer p)
{
    outgoing_t *o = p;

    g_byte_array_unref(o->bytes);
    g_free(o);
}

static void send_now(gateway_app_t *g, outgoing_t *o)
{
    app_msg_t m = { 0 };

    m.coap = g_byte_array_ref(o->bytes);
    m.xfer = o->xfer;
    m.has_block2 = o->has_block2;
    m.is_retransmission = o->retransmission;
    m.gw_time_us = world_now(g->w);
    m.req_mid = o->req_mid;
    m.answers_dgram = o->answers_dgram;
    mesh_send_down(g->w, o->to, &m);
}

static void send_event(gpointer obj, gpointer arg)
{
    gateway_app_t *g = obj;
    outgoing_t *o = arg;

    send_now(g, o);
    out_free(o);
}

static void separate_timer(gpointer obj, gpointer arg)
{
    gateway_app_t *g = obj;
    outgoing_t *o = arg;
    gpointer key = GUINT_TO_POINTER(((guint)o->to->idx << 16) | o->mid);

    if (o->acked || o->retransmits > g->w->p.max_retransmit || g->w->stop) {
        g_hash_table_remove(g->pending, key);
        out_free(o);
        return;
    }
    o->retransmission = o->retransmits > 0;
    if (o->retransmission && o->xfer)
        sim_emit(g->w, xfer_count, o->xfer, XFER_GATEWAY_RETRANSMISSION);
    send_now(g, o);
    o->retransmits++;
    world_at_owned(g->w, world_now(g->w) + o->timeout_us, separate_timer, g, o, out_free);
    o->timeout_us *= 2;
}

static outgoing_t *outgoing(gateway_app_t *g, node_t *to, GByteArray *bytes, const app_msg_t *answering,
                            int xfer, guint16 req_mid, gboolean has_block2)
{
    outgoing_t *o = g_new0(outgoing_t, 1);

    o->answers_dgram = answering ? answering->dgram : 0;
    o->g = g;
    o->to = to;
    o->bytes = bytes;
    o->xfer = xfer;
    o->req_mid = req_mid;
    o->has_block2 = has_block2;
    return o;
}

/* ---- request handling ---- */

static void firmware(gateway_app_t *g, const coap_rx_t *r, coap_msg_t *resp)
{
    const sim_params_t *p = &g->w->p;
    const mcuboot_image_t *img = catalogue_image(g->cat, r->path);
    coap_block_t req = r->block2;
    guint32 len, size, offset;

    if (!img) {
        resp->code = COAP_CODE(4, 4);
        return;
    }
    len = img->image->len;
    if (!req.present) {
        req.present = TRUE;
        req.szx = 6;
    }
    if (req.szx == 7) {
        /* node-coap: 4.02 Bad Option, and the payload all the same. */
        resp->code = p->gw_szx7_payload ? COAP_BAD_OPTION : COAP_BAD_REQUEST;
        if (p->gw_szx7_payload) {
            resp->content_format = COAP_CF_OCTET_STREAM;
            resp->payload = img->image->data;
            resp->payload_len = MIN(1024u, len);
        }
        return;
    }
    if (req.szx == 0 && p->gw_szx0 == GW_SZX0_BAD_OPTION) {
        resp->code = COAP_BAD_OPTION;
        resp->content_format = COAP_CF_OCTET_STREAM;
        resp->payload = img->image->data + MIN(req.num * 16u, len);
        resp->payload_len = MIN(16u, len - MIN(req.num * 16u, len));
        return;
    }
    resp->code = COAP_CONTENT;
    resp->content_format = COAP_CF_OCTET_STREAM;
    resp->block2.present = TRUE;
    if (req.szx == 0 && req.num == 0 && p->gw_szx0 == GW_SZX0_EMPTY) {
        /* node-coap 1.5 and the zero-length Block2 option: M=1, no payload. */
        resp->block2.more = TRUE;
        resp->block2.szx = 0;
        return;
    }
    /* RFC 7959 2.5: a smaller block size in the response renegotiates. */
    resp->block2.szx = (guint8)MIN(req.szx, (guint8)p->gw_max_szx);
    size = coap_block_size(resp->block2.szx);
    offset = req.num * coap_block_size(req.szx);
    if (offset >= len) {
        resp->code = COAP_BAD_REQUEST;
        resp->block2.present = FALSE;
        resp->content_format = -1;
        return;
    }
    resp->block2.num = offset / size;
    resp->block2.more = offset + size < len;
    resp->payload = img->image->data + offset;
    resp->payload_len = MIN(size, len - offset);
    if (req.num == 0 && p->gw_size2)
        resp->size2 = len;
}

static void history(const coap_rx_t *r, coap_msg_t *resp)
{
    if (r->block1.present) {
        resp->block1 = r->block1;
        resp->code = r->block1.more ? COAP_CONTINUE : COAP_CHANGED;
    } else {
        resp->code = COAP_CHANGED;
    }
}

/* A datagram from a node reached the gateway. */
static void deliver(world_t *w, node_t *from, const app_msg_t *msg)
{
    gateway_app_t *g = w->gateway;
    const sim_params_t *p = &w->p;
    gint64 proc = (gint64)(p->gw_proc_ms * 1000);
    coap_rx_t r;
    coap_msg_t resp;
    GByteArray *blob = NULL;
    gpointer key;

    if (!coap_msg_decode(msg->coap->data, msg->coap->len, &r))
        return;
    key = GUINT_TO_POINTER(((guint)from->idx << 16) | r.mid);
    if (r.type == COAP_ACK && r.code == COAP_EMPTY) {
        outgoing_t *o = g_hash_table_lookup(g->pending, key);
        if (o)
            o->acked = TRUE;
        return;
    }
    if (r.type != COAP_CON)
        return;
    cached_t *c = g_hash_table_lookup(g->cache, key);
    if (c && world_now(w) - c->t < EXCHANGE_LIFETIME_US) {
        /* A retransmission: answer from the cache, do not run the request again. */
        outgoing_t *o = outgoing(g, from, g_byte_array_ref(c->bytes), msg, c->xfer, r.mid, c->has_block2);
        o->retransmission = TRUE;
        world_at_owned(w, world_now(w) + proc, send_event, g, o, out_free);
        return;
    }

    coap_msg_init(&resp);
    resp.type = COAP_ACK;
    resp.mid = r.mid;
    resp.tkl = r.tkl;
    memcpy(resp.token, r.token, r.tkl);
    if (strcmp(r.path, "meter/cfg") == 0 && r.code == COAP_GET) {
        meter_config_t cfg;
        catalogue_config_for(g->cat, from, &cfg);
        blob = payload_config_encode(&cfg);
        resp.code = COAP_CONTENT;
        resp.content_format = COAP_CF_CBOR;
        resp.payload = blob->data;
        resp.payload_len = blob->len;
    } else if (strcmp(r.path, "meter/his") == 0 && r.code == COAP_POST) {
        history(&r, &resp);
    } else if (g_str_has_prefix(r.path, "firmware/") && r.code == COAP_GET) {
        firmware(g, &r, &resp);
    } else {
        resp.code = COAP_CODE(4, 4);
    }

    gboolean separate = g_rand_double(w->rng) < p->separate_p;
    cached_t *entry = g_new0(cached_t, 1);
    entry->t = world_now(w);
    entry->xfer = msg->xfer;
    entry->has_block2 = resp.block2.present;
    if (separate) {
        coap_msg_t empty;
        coap_msg_init(&empty);
        empty.type = COAP_ACK;
        empty.mid = r.mid;
        entry->bytes = coap_msg_encode(&empty);
        entry->has_block2 = FALSE;
        world_at_owned(w, world_now(w) + proc, send_event, g,
                       outgoing(g, from, g_byte_array_ref(entry->bytes), msg, msg->xfer, r.mid, FALSE), out_free);
        /* The response follows as a CON of the gateway's own. */
        resp.type = COAP_CON;
        resp.mid = g->next_mid++;
        outgoing_t *o = outgoing(g, from, coap_msg_encode(&resp), msg, msg->xfer, r.mid, resp.block2.present);
        o->mid = resp.mid;
        o->timeout_us = (gint64)(1e6 * p->ack_timeout_s * world_uniform(w, 1.0, p->ack_random_factor));
        g_hash_table_insert(g->pending, GUINT_TO_POINTER(((guint)from->idx << 16) | o->mid), o);
        world_at_owned(w, world_now(w) + proc + (gint64)(p->separate_delay_ms * 1000), separate_timer, g, o, out_free);
    } else {
        entry->bytes = coap_msg_encode(&resp);
        world_at_owned(w, world_now(w) + proc, send_event, g,
                       outgoing(g, from, g_byte_array_ref(entry->bytes), msg, msg->xfer, r.mid, entry->has_block2),
                       out_free);
    }
    g_hash_table_insert(g->cache, key, entry);
    if (blob)
        g_byte_array_unref(blob);
}
