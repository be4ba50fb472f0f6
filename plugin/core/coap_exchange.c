/* coap_exchange.c: requests by MID and token, transfers by resource
 * (coap_exchange.h says what and why).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "coap_exchange.h"
#include "key_text.h"

/* A block-wise transfer as the exchanges see it: enough to tell a new
 * transfer from a re-request of the current one. */
typedef struct {
    guint32  id;
    gint64   last_request_us;
    guint8   block0_szx;
    gboolean progressed;    /* a request for a later block was seen */
    gboolean completed;     /* the last block was answered */
} transfer_state_t;

/* A token between two endpoints (the pair by number). */
typedef struct {
    guint32 pair;
    guint8  tkl;
    guint8  token[8];
} token_key_t;

struct coap_exchanges {
    wmem_allocator_t *scope;
    /* Exchanges are many (one a request) and keep what they share once:
     * endpoint keys, paths and addresses are interned, and the tables are
     * keyed by number, the endpoint pair's. */
    wmem_map_t *strings;      /* interned text: endpoint keys and paths */
    wmem_map_t *addresses;    /* endpoint key -> address (its data interned) */
    wmem_map_t *pairs;        /* "client|server" -> pair number (guint32 *) */
    guint32 n_pairs;
    wmem_map_t *by_mid;       /* pair << 16 | mid (guint64) */
    wmem_map_t *by_token;     /* token_key_t */
    wmem_map_t *transfers;    /* "client|server|path" */
    wmem_map_t *latest_block_request;   /* pair -> the pair's latest exchange of a transfer */
    guint32 next_transfer_id;
};

static guint token_key_hash(gconstpointer p)
{
    const token_key_t *k = (const token_key_t *)p;
    guint h = k->pair * 2654435761u ^ k->tkl;

    for (guint i = 0; i < k->tkl && i < 8; i++)
        h = h * 31 + k->token[i];
    return h;
}

static gboolean token_key_equal(gconstpointer a, gconstpointer b)
{
    const token_key_t *x = (const token_key_t *)a, *y = (const token_key_t *)b;
    return x->pair == y->pair && x->tkl == y->tkl && memcmp(x->token, y->token, MIN(x->tkl, 8)) == 0;
}

coap_exchanges_t *coap_exchanges_new(wmem_allocator_t *scope)
{
    coap_exchanges_t *e = wmem_new0(scope, coap_exchanges_t);

    e->scope = scope;
    e->strings = wmem_map_new(scope, g_str_hash, g_str_equal);
    e->addresses = wmem_map_new(scope, g_str_hash, g_str_equal);
    e->pairs = wmem_map_new(scope, g_str_hash, g_str_equal);
    e->by_mid = wmem_map_new(scope, g_int64_hash, g_int64_equal);
    e->by_token = wmem_map_new(scope, token_key_hash, token_key_equal);
    e->transfers = wmem_map_new(scope, g_str_hash, g_str_equal);
    e->latest_block_request = wmem_map_new(scope, g_direct_hash, g_direct_equal);
    return e;
}

const char *coap_endpoint_key(wmem_allocator_t *scope, const address *a, guint32 port)
{
    static const char hex[] = "0123456789abcdef";
    const guint8 *d = (const guint8 *)a->data;
    gint len = MIN(a->len, 64);
    char *s = (char *)wmem_alloc(scope, 2 * len + 16);
    char *p = s;

    *p++ = (char)('A' + a->type % 26);
    for (gint i = 0; i < len; i++) {
        *p++ = hex[d[i] >> 4];
        *p++ = hex[d[i] & 15];
    }
    *p++ = '#';
    for (gint shift = 28; shift >= 0; shift -= 4)
        if ((port >> shift) || !shift)
            *p++ = hex[(port >> shift) & 15];
    *p = '\0';
    return s;
}

/* Lookup keys live in tmp; a key is copied to the table's scope only when
 * it is inserted. */
static const char *intern(coap_exchanges_t *e, const char *s)
{
    const char *kept = (const char *)wmem_map_lookup(e->strings, s);

    if (!kept) {
        kept = wmem_strdup(e->scope, s);
        wmem_map_insert(e->strings, kept, (gpointer)kept);
    }
    return kept;
}

/* The endpoint's address, kept once: an exchange a request points to it. */
static const address *intern_address(coap_exchanges_t *e, const char *endpoint, const address *a)
{
    address *kept = (address *)wmem_map_lookup(e->addresses, endpoint);

    if (!kept) {
        kept = wmem_new(e->scope, address);
        copy_address_wmem(e->scope, kept, a);
        wmem_map_insert(e->addresses, intern(e, endpoint), kept);
    }
    return kept;
}

/* The pair's number; 0 for a pair not seen yet unless create. */
static guint32 pair_number(coap_exchanges_t *e, const char *client, const char *server, gboolean create)
{
    char buf[KEY_TEXT_MAX];
    const char *k = key_text(buf, client, server, NULL, 0);
    guint32 *n = (guint32 *)wmem_map_lookup(e->pairs, k);

    if (!n && create) {
        n = wmem_new(e->scope, guint32);
        *n = ++e->n_pairs;
        wmem_map_insert(e->pairs, wmem_strdup(e->scope, k), n);
    }
    return n ? *n : 0;
}

static guint64 mid_key(guint32 pair, guint16 mid)
{
    return (guint64)pair << 16 | mid;
}

static token_key_t token_key(guint32 pair, const meter_coap_t *m)
{
    token_key_t k = { pair, m->tkl, { 0 } };

    memcpy(k.token, m->token, MIN(m->tkl, 8));
    return k;
}

static void index_by_mid(coap_exchanges_t *e, guint64 key, coap_exchange_t *ex)
{
    const void *kept = NULL;

    if (!wmem_map_lookup_extended(e->by_mid, &key, &kept, NULL)) {
        guint64 *k = wmem_new(e->scope, guint64);
        *k = key;
        kept = k;
    }
    wmem_map_insert(e->by_mid, kept, ex);
}

static void index_by_token(coap_exchanges_t *e, const token_key_t *key, coap_exchange_t *ex)
{
    const void *kept = NULL;

    if (!wmem_map_lookup_extended(e->by_token, key, &kept, NULL))
        kept = wmem_memdup(e->scope, key, sizeof *key);
    wmem_map_insert(e->by_token, kept, ex);
}

/* An upload and a download of one resource are two transfers (RFC 7959
 * 3.3: a Block1 request's answer may start a Block2 download of its own). */
static char *transfer_key(wmem_allocator_t *tmp, const char *client, const char *server, const char *path,
                          gboolean upload)
{
    return wmem_strdup_printf(tmp, "%s|%s|%s|%c", client, server, path, upload ? 'u' : 'd');
}

/* A request's block: Block1 when it carries one (the block it uploads; a
 * Block2 beside it only asks for the size of the answer), else Block2. */
static const meter_block_t *request_block(const meter_coap_t *m)
{
    return m->block1.present ? &m->block1 : &m->block2;
}

/* The transfer definition (docs/ground-truth.md): a block-0 request with a
 * new Message ID starts a new transfer once the current one completed, went
 * past block 0, asked block 0 with another SZX, or asked nothing for longer
 * than an exchange lifetime (the meter gave it up: its MIDs are free again);
 * otherwise it re-requests block 0 of the current transfer. */
static guint32 transfer_for_request(coap_exchanges_t *e, wmem_allocator_t *tmp, const meter_coap_t *m,
                                    const char *client, const char *server, gint64 now)
{
    const meter_block_t *b = request_block(m);
    char *key = transfer_key(tmp, client, server, m->path, m->block1.present);
    transfer_state_t *t = (transfer_state_t *)wmem_map_lookup(e->transfers, key);
    guint32 num = b->present ? b->num : 0;
    guint8 szx = b->present ? b->szx : 6;

    if (num == 0) {
        gboolean fresh = !t || t->completed || t->progressed || t->block0_szx != szx ||
                         now - t->last_request_us > COAP_EXCHANGE_LIFETIME_US;
        if (fresh) {
            t = wmem_new0(e->scope, transfer_state_t);
            t->id = ++e->next_transfer_id;
            t->block0_szx = szx;
            wmem_map_insert(e->transfers, wmem_strdup(e->scope, key), t);
        }
        t->last_request_us = now;
        return t->id;
    }
    if (!t) {
        /* The capture started mid-transfer. */
        t = wmem_new0(e->scope, transfer_state_t);
        t->id = ++e->next_transfer_id;
        t->block0_szx = szx;
        wmem_map_insert(e->transfers, wmem_strdup(e->scope, key), t);
    }
    t->progressed = TRUE;
    t->last_request_us = now;
    return t->id;
}

static coap_exchange_t *request_exchange(coap_exchanges_t *e, const meter_coap_t *m, const char *src,
                                         const char *dst, const address *src_addr, const address *dst_addr,
                                         guint32 frame, gint64 now, wmem_allocator_t *tmp)
{
    guint32 pair = pair_number(e, src, dst, TRUE);
    guint64 k = mid_key(pair, m->mid);
    coap_exchange_t *ex = (coap_exchange_t *)wmem_map_lookup(e->by_mid, &k);
    meter_coap_identity_t id = meter_coap_identity(m);

    if (ex && meter_coap_mid_in_use(ex->type, ex->first_us, now) && meter_coap_same_identity(&ex->id, &id))
        return ex;
    ex = wmem_new0(e->scope, coap_exchange_t);
    ex->path = m->path ? intern(e, m->path) : NULL;
    ex->frame = frame;
    ex->first_us = now;
    ex->type = m->type;
    ex->code = m->code;
    ex->mid = m->mid;
    ex->id = id;
    ex->client = intern_address(e, src, src_addr);
    ex->server = intern_address(e, dst, dst_addr);
    ex->client_key = intern(e, src);
    /* Every block-wise transfer is followed, on any path. */
    if (ex->path && (m->block1.present || m->block2.present)) {
        ex->transfer_id = transfer_for_request(e, tmp, m, src, dst, now);
        ex->upload = m->block1.present;
        wmem_map_insert(e->latest_block_request, GUINT_TO_POINTER(pair), ex);
    }
    index_by_mid(e, k, ex);
    token_key_t tk = token_key(pair, m);
    index_by_token(e, &tk, ex);
    return ex;
}

static void mark_completed(coap_exchanges_t *e, wmem_allocator_t *tmp, const coap_exchange_t *ex, guint32 id,
                           gboolean upload, const char *client, const char *server)
{
    transfer_state_t *t = (transfer_state_t *)wmem_map_lookup(e->transfers,
                                                             transfer_key(tmp, client, server, ex->path, upload));
    if (t && t->id == id)
        t->completed = TRUE;
}

/* The exchange of a block-wise answer whose request the sniffer missed:
 * the one its Message ID names, of the transfer its pair was in (a client
 * runs one exchange at a time), by the rules a request for its block
 * follows. NULL when the pair had no transfer within an exchange lifetime. */
static coap_exchange_t *missed_request_exchange(coap_exchanges_t *e, const meter_coap_t *m, guint32 pair,
                                                const char *client, const char *server, guint32 frame,
                                                gint64 now, wmem_allocator_t *tmp)
{
    const coap_exchange_t *prev =
        (const coap_exchange_t *)wmem_map_lookup(e->latest_block_request, GUINT_TO_POINTER(pair));
    gboolean upload = m->block1.present;

    if (!prev || !prev->path || prev->upload != upload || !(upload || m->block2.present) ||
        !meter_coap_mid_in_use(COAP_TYPE_CON, prev->first_us, now))
        return NULL;
    meter_coap_t req = { 0 };
    req.type = COAP_TYPE_CON;
    req.code = prev->code;
    req.mid = m->mid;
    req.path = prev->path;
    req.block1 = upload ? m->block1 : req.block1;
    req.block2 = upload ? req.block2 : m->block2;
    coap_exchange_t *ex = wmem_new0(e->scope, coap_exchange_t);
    *ex = *prev;
    memset(&ex->msgs, 0, sizeof ex->msgs);
    ex->frame = frame;
    ex->first_us = now;
    ex->type = COAP_TYPE_CON;
    ex->mid = m->mid;
    ex->id = meter_coap_identity(&req);
    ex->response_frame = 0;
    ex->response_transfer_id = 0;
    ex->request_missed = TRUE;
    ex->transfer_id = transfer_for_request(e, tmp, &req, client, server, now);
    index_by_mid(e, mid_key(pair, m->mid), ex);
    token_key_t tk = token_key(pair, m);
    index_by_token(e, &tk, ex);
    return ex;
}

/* A response (or empty ACK) travels server -> client. */
static coap_exchange_t *answer_exchange(coap_exchanges_t *e, const meter_coap_t *m, const char *src,
                                        const char *dst, guint32 frame, gint64 now, wmem_allocator_t *tmp)
{
    coap_exchange_t *ex = NULL;
    guint32 pair = pair_number(e, dst, src, FALSE);     /* the request went the other way */

    if (!pair)
        return NULL;
    if (m->type == COAP_TYPE_ACK || m->type == COAP_TYPE_RST) {
        guint64 k = mid_key(pair, m->mid);
        ex = (coap_exchange_t *)wmem_map_lookup(e->by_mid, &k);
    }
    if (ex && !meter_coap_mid_in_use(ex->type, ex->first_us, now))
        ex = NULL;
    if (!ex && m->code != COAP_CODE_EMPTY) {
        token_key_t tk = token_key(pair, m);
        ex = (coap_exchange_t *)wmem_map_lookup(e->by_token, &tk);
        /* A token names one exchange too, within its lifetime. */
        if (ex && !meter_coap_mid_in_use(COAP_TYPE_CON, ex->first_us, now))
            ex = NULL;
    }
    if (!ex && m->code != COAP_CODE_EMPTY && m->type != COAP_TYPE_RST)
        ex = missed_request_exchange(e, m, pair, dst, src, frame, now, tmp);
    if (!ex || m->code == COAP_CODE_EMPTY)
        return ex;
    if (!ex->response_frame)
        ex->response_frame = frame;
    /* A separate response is a CON of the server's: the client's empty ACK
     * to it (same MID, reversed) belongs to the same exchange. */
    if (m->type == COAP_TYPE_CON)
        index_by_mid(e, mid_key(pair_number(e, src, dst, TRUE), m->mid), ex);
    /* A request without Block2 answered with Block2 block 0 starts a
     * download there (RFC 7959 2.4, late negotiation); so does the answer
     * to a Block1 upload's request (3.3), which stays in its upload too. */
    if (ex->path && m->block2.present && m->block2.num == 0 && (!ex->transfer_id || ex->upload) &&
        !ex->response_transfer_id) {
        meter_coap_t as_block0 = *m;
        as_block0.path = ex->path;
        as_block0.block1.present = FALSE;
        guint32 id = transfer_for_request(e, tmp, &as_block0, dst, src, now);
        if (ex->transfer_id)
            ex->response_transfer_id = id;
        else
            ex->transfer_id = id;
    }
    if (coap_code_is_success(m->code)) {
        /* An upload ends with the answer to its last block (a final 2.04
         * may have no Block1), a download with a Block2 of M=0. */
        gboolean upload_done = ex->transfer_id && ex->upload && !(m->block1.present && m->block1.more);
        gboolean download_done = !m->block2.present || !m->block2.more;
        if (upload_done)
            mark_completed(e, tmp, ex, ex->transfer_id, TRUE, dst, src);
        if (ex->transfer_id && !ex->upload && download_done)
            mark_completed(e, tmp, ex, ex->transfer_id, FALSE, dst, src);
        if (ex->response_transfer_id && download_done)
            mark_completed(e, tmp, ex, ex->response_transfer_id, FALSE, dst, src);
    }
    return ex;
}

coap_exchange_t *coap_exchange_for(coap_exchanges_t *e, const meter_coap_t *m, const char *src,
                                   const char *dst, const address *src_addr, const address *dst_addr,
                                   guint32 frame, gint64 now_us, wmem_allocator_t *tmp)
{
    if (meter_coap_is_request(m))
        return request_exchange(e, m, src, dst, src_addr, dst_addr, frame, now_us, tmp);
    return answer_exchange(e, m, src, dst, frame, now_us, tmp);
}
