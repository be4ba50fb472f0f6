/* coap_msg.h: one CoAP message as meterscope reads it (coap_view.c parses
 * it from the bytes stock CoAP dissected), and what tells one message from
 * another: the pure vocabulary the tracker and the decoders share.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef COAP_MSG_H
#define COAP_MSG_H

#include <string.h>
#include <epan/tvbuff.h>

/* RFC 7252 3: message types, and codes as class << 5 | detail. */
enum { COAP_TYPE_CON = 0, COAP_TYPE_NON = 1, COAP_TYPE_ACK = 2, COAP_TYPE_RST = 3 };
#define COAP_CODE_EMPTY    0u
#define COAP_CODE_CONTENT  69u   /* 2.05 */
#define COAP_CODE_CONTINUE 95u   /* 2.31 (RFC 7959 2.9.1) */
#define COAP_CODE(cls, detail) ((guint8)((cls) << 5 | (detail)))

static inline guint coap_code_class(guint8 code) { return code >> 5; }
static inline gboolean coap_code_is_success(guint8 code) { return coap_code_class(code) == 2; }
static inline gboolean coap_code_is_error(guint8 code) { return coap_code_class(code) >= 4; }  /* 4.xx .. 7.xx */

typedef struct {
    gboolean present;
    gboolean empty;      /* zero-length option value (NUM 0, M 0, SZX 0) */
    guint32  num;
    gboolean more;
    guint8   szx;        /* 0..7 */
} meter_block_t;

/* RFC 7959 2.2: a block holds 2^(SZX+4) bytes; SZX 7 is reserved (a
 * sender using it anyway means 2048). */
static inline guint32 meter_block_size(guint8 szx)
{
    return 16u << MIN(szx, 7);
}

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

static inline gboolean coap_code_is_request(guint8 code)
{
    return code >= 1 && code < 32;   /* 0.01 .. 0.31 */
}

static inline gboolean meter_coap_is_request(const meter_coap_t *m)
{
    return coap_code_is_request(m->code);
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
    return b->present ? (guint64)b->num * meter_block_size(b->szx) : 0;
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

#define COAP_ACK_TIMEOUT_US       G_GINT64_CONSTANT(2000000)
#define COAP_EXCHANGE_LIFETIME_US G_GINT64_CONSTANT(247000000)
#define COAP_NON_LIFETIME_US      G_GINT64_CONSTANT(145000000)
static inline gboolean meter_coap_mid_in_use(guint8 type, gint64 first_us, gint64 now_us)
{
    return now_us - first_us <= (type == COAP_TYPE_NON ? COAP_NON_LIFETIME_US : COAP_EXCHANGE_LIFETIME_US);
}

#endif
