/* coap_exchange.h: which request a CoAP message answers, and which
 * block-wise transfer that request belongs to. The one place the plugin
 * decides message and transfer identity; the session tracker (ota_track.h)
 * owns the table and follows the transfers' messages from it.
 *
 * Requests and responses are matched by Message ID between the same
 * endpoints (piggy-backed responses and empty ACKs) and by token (separate
 * responses), so OpenThread's tokenless follow-up blocks are matched too;
 * a Message ID or token names one exchange for its lifetime only (RFC 7252
 * 4.8.2), so captures of days that see every MID many times stay right.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef COAP_EXCHANGE_H
#define COAP_EXCHANGE_H

#include <epan/address.h>
#include <epan/wmem_scopes.h>
#include "coap_msg.h"

struct ota_msg;

/* One exchange: a request and what answered it. */
typedef struct {
    const char *path;          /* the request's Uri-Path; NULL if it had none */
    guint32 frame;             /* the first frame the request was seen in */
    gint64  first_us;          /* ... and when: its MID is in use for an exchange lifetime */
    guint8  type, code;        /* the request's */
    guint16 mid;
    meter_coap_identity_t id;  /* with its MID, what tells it from another request */
    guint32 response_frame;    /* the first response to it (0: none yet) */
    guint32 transfer_id;       /* its block-wise transfer (0: none) */
    gboolean upload;           /* that transfer is a Block1 upload */
    /* The Block2 download its response starts when the request is part of
     * an upload (RFC 7959 3.3: a Block1 exchange answered with Block2): the
     * exchange is in both (0: none). */
    guint32 response_transfer_id;
    const address *client, *server;   /* interned: kept once per endpoint */
    gboolean request_missed;   /* made for an answer whose request the capture lacks */
    const char *client_key;    /* the endpoints as coap_endpoint_key() gives them */
    struct {                   /* the tracker's messages of this exchange, both ways */
        struct ota_msg **at;
        guint32 n, cap;
    } msgs;
} coap_exchange_t;

typedef struct coap_exchanges coap_exchanges_t;

coap_exchanges_t *coap_exchanges_new(wmem_allocator_t *scope);

/* An endpoint as a compact exact key (address type, raw bytes, port), in
 * scope: cheaper than address_to_str, and this runs for every message. */
const char *coap_endpoint_key(wmem_allocator_t *scope, const address *a, guint32 port);

/* The exchange of message m, sent from src to dst (endpoint keys, and the
 * addresses) at now_us in frame: a request's own (new the first time it is
 * seen), a response's or empty ACK's by MID or token; for a block-wise
 * answer to no request seen, one made for it in the transfer its endpoints
 * were in (request_missed); else NULL. A block-0 request (or a request answered with block 0,
 * RFC 7959 2.4) starts or continues a transfer by the rules of
 * docs/ground-truth.md; uploads (a request with Block1) and downloads
 * (Block2) of one resource are transfers of their own. tmp holds lookup
 * keys (the packet pool). */
coap_exchange_t *coap_exchange_for(coap_exchanges_t *e, const meter_coap_t *m, const char *src,
                                   const char *dst, const address *src_addr, const address *dst_addr,
                                   guint32 frame, gint64 now_us, wmem_allocator_t *tmp);

#endif
