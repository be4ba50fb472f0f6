/* packet-meter.h: what the meterscope parts share: the root protocol, its
 * preferences module, and one CoAP message as the hook in packet-meter.c
 * hands it to the payload decoders (config blob, history, firmware).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_H
#define PACKET_METER_H

#include <string.h>
#include <epan/packet.h>
#include <epan/prefs.h>

extern int proto_meter;
extern module_t *meter_module;   /* preferences "meter.*" */

/* Which of the meter's resources a message belongs to, by its URI path
 * (a response by the path of its request); the paths are preferences. */
typedef enum {
    METER_RES_OTHER = 0,
    METER_RES_CONFIG,    /* GET /meter/cfg */
    METER_RES_HISTORY,   /* POST /meter/his */
    METER_RES_FIRMWARE,  /* GET /firmware/... */
} meter_resource_t;

typedef struct {
    gboolean present;
    gboolean empty;      /* zero-length option value (NUM 0, M 0, SZX 0) */
    guint32  num;
    gboolean more;
    guint8   szx;        /* 0..7 */
} meter_block_t;

/* One CoAP message, parsed by coap_view.c from the bytes stock CoAP dissected. */
typedef struct {
    guint8   type;       /* 0 CON, 1 NON, 2 ACK, 3 RST */
    guint8   code;       /* class << 5 | detail */
    guint16  mid;
    guint8   tkl;
    guint8   token[8];
    const char *path;    /* "meter/cfg"; a response gets its request's; NULL if unknown */
    const char *query;   /* Uri-Query options joined with '&'; NULL if none */
    gint     content_format;   /* -1: none */
    meter_block_t block1, block2;
    gint64   size1, size2;     /* -1: none */
    tvbuff_t *payload;         /* the CoAP payload (NULL: none) */
    gint     payload_offset;   /* in the CoAP message, for error items */
} meter_coap_t;

static inline gboolean meter_coap_is_request(const meter_coap_t *m)
{
    return m->code >= 1 && m->code < 32;
}

/* RFC 7252 4.8.2, default transmission parameters: how long a Message ID
 * stays in use after a message's first transmission (EXCHANGE_LIFETIME for
 * a CON and its ACK, NON_LIFETIME for a NON). The same MID later than that
 * is a new message: an endpoint may use it again, and a capture of days
 * sees every MID many times. */
/* What, besides its Message ID, tells one message from another that uses
 * the same ID (a broken client, or IDs wrapping around): its token and the
 * byte offset of its block (Block1 if it has one, else Block2; 0 without
 * either), which a retransmission and a duplicate response repeat. */
static inline guint64 meter_coap_block_offset(const meter_coap_t *m)
{
    const meter_block_t *b = m->block1.present ? &m->block1 : &m->block2;
    return b->present ? (guint64)b->num << (4 + MIN(b->szx, 7)) : 0;
}

typedef struct {
    guint64 block_offset;
    guint8  tkl, token[8];
} meter_coap_identity_t;

static inline meter_coap_identity_t meter_coap_identity(const meter_coap_t *m)
{
    meter_coap_identity_t id = { meter_coap_block_offset(m), MIN(m->tkl, 8), { 0 } };
    memcpy(id.token, m->token, id.tkl);
    return id;
}

static inline gboolean meter_coap_same_identity(const meter_coap_identity_t *a, const meter_coap_identity_t *b)
{
    return a->block_offset == b->block_offset && a->tkl == b->tkl && memcmp(a->token, b->token, a->tkl) == 0;
}

#define COAP_EXCHANGE_LIFETIME_US G_GINT64_CONSTANT(247000000)
#define COAP_NON_LIFETIME_US      G_GINT64_CONSTANT(145000000)
static inline gboolean meter_coap_mid_in_use(guint8 type, gint64 first_us, gint64 now_us)
{
    return now_us - first_us <= (type == 1 ? COAP_NON_LIFETIME_US : COAP_EXCHANGE_LIFETIME_US);
}

/* The context a decoder gets with a message. */
typedef struct {
    const meter_coap_t *msg;
    meter_resource_t resource;
    const address *meter;      /* the meter's address (client side) */
    const address *gateway;    /* the gateway's address (server side) */
    guint32  transfer_id;      /* unique per (meter, gateway, path, transfer); 0 if not block-wise */
    guint32  request_frame;    /* for a response: its request; 0 if unknown */
} meter_ctx_t;

/* Each part registers its fields, subtrees, expert infos and preferences
 * under proto_meter, then dissects payloads through these. tree may be NULL;
 * columns, expert infos and state are updated regardless. */
void proto_register_meter_cfg(void);
void proto_register_meter_his(void);
void proto_register_meter_fw(void);
void proto_reg_handoff_meter_fw(void);

void dissect_meter_cfg(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
void dissect_meter_his(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
void dissect_meter_fw(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);

#endif
