/* test_coap_exchange.c: which request a message answers and which transfer
 * it belongs to (plugin/core/coap_exchange.c), against RFC 7252 (matching
 * by MID for ACKs, by token for separate responses, lifetimes of 4.8.2)
 * and the transfer definition of docs/ground-truth.md.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <glib.h>
#include <epan/address.h>
#include <wsutil/wmem/wmem.h>
#include "coap_exchange.h"

#define SEC G_GINT64_CONSTANT(1000000)

static const guint8 meter_ip[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const guint8 gw_ip[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };

typedef struct {
    wmem_allocator_t *scope;
    coap_exchanges_t *e;
    address meter, gw;
    guint32 frame;
} fx_t;

static void fx_init(fx_t *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->scope = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    fx->e = coap_exchanges_new(fx->scope);
    set_address(&fx->meter, AT_IPv6, 16, meter_ip);
    set_address(&fx->gw, AT_IPv6, 16, gw_ip);
}

static void fx_done(fx_t *fx)
{
    wmem_destroy_allocator(fx->scope);
}

static meter_coap_t msg(guint8 type, guint8 code, guint16 mid, guint8 token)
{
    meter_coap_t m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.code = code;
    m.mid = mid;
    m.tkl = token ? 1 : 0;
    m.token[0] = token;
    m.path = "firmware/img";
    m.content_format = -1;
    m.size1 = m.size2 = -1;
    return m;
}

static meter_coap_t get_block(guint16 mid, guint8 token, guint32 num, guint8 szx)
{
    meter_coap_t m = msg(COAP_TYPE_CON, 1, mid, token);
    m.block2 = (meter_block_t){ TRUE, FALSE, num, FALSE, szx };
    return m;
}

static meter_coap_t block_answer(guint16 mid, guint8 token, guint32 num, gboolean more, guint8 szx)
{
    meter_coap_t m = msg(COAP_TYPE_ACK, COAP_CODE_CONTENT, mid, token);
    m.block2 = (meter_block_t){ TRUE, FALSE, num, more, szx };
    return m;
}

/* From the meter (up) or from the gateway, seen at us. */
static coap_exchange_t *send(fx_t *fx, gboolean up, const meter_coap_t *m, gint64 us)
{
    const char *src = up ? "meter#1633" : "gw#1633", *dst = up ? "gw#1633" : "meter#1633";
    return coap_exchange_for(fx->e, m, src, dst, up ? &fx->meter : &fx->gw, up ? &fx->gw : &fx->meter,
                             ++fx->frame, us, fx->scope);
}

static void test_piggybacked_and_separate(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q = msg(COAP_TYPE_CON, 1, 10, 0xaa);
    coap_exchange_t *ex = send(&fx, TRUE, &q, 0);
    g_assert_nonnull(ex);
    g_assert_cmpuint(ex->frame, ==, 1);
    g_assert_true(addresses_equal(ex->client, &fx.meter));
    g_assert_cmpstr(ex->path, ==, "firmware/img");
    g_assert_cmpuint(ex->transfer_id, ==, 0);          /* no Block option: no transfer */

    /* The empty ACK (same MID) and the separate response (a CON of the
     * server's with a MID of its own, matched by token). */
    meter_coap_t ack = msg(COAP_TYPE_ACK, COAP_CODE_EMPTY, 10, 0);
    g_assert_true(send(&fx, FALSE, &ack, SEC / 10) == ex);
    g_assert_cmpuint(ex->response_frame, ==, 0);        /* an empty ACK is no response */
    meter_coap_t sep = msg(COAP_TYPE_CON, COAP_CODE_CONTENT, 500, 0xaa);
    g_assert_true(send(&fx, FALSE, &sep, SEC) == ex);
    g_assert_cmpuint(ex->response_frame, ==, 3);
    /* The client's empty ACK to it: the separate response's MID, reversed. */
    meter_coap_t ack2 = msg(COAP_TYPE_ACK, COAP_CODE_EMPTY, 500, 0);
    g_assert_true(send(&fx, TRUE, &ack2, SEC + SEC / 100) == ex);
    /* Another token, no MID match: nothing. */
    meter_coap_t stray = msg(COAP_TYPE_CON, COAP_CODE_CONTENT, 501, 0xbb);
    g_assert_null(send(&fx, FALSE, &stray, 2 * SEC));
    /* A retransmission of the request is the same exchange. */
    g_assert_true(send(&fx, TRUE, &q, 3 * SEC) == ex);
    fx_done(&fx);
}

static void test_lifetimes(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q = msg(COAP_TYPE_CON, 1, 7, 0x01);
    coap_exchange_t *ex = send(&fx, TRUE, &q, 0);
    /* Within EXCHANGE_LIFETIME (247 s) the MID is the same exchange ... */
    g_assert_true(send(&fx, TRUE, &q, 247 * SEC) == ex);
    /* ... after it, a new one, and an ACK is matched to the new one only. */
    coap_exchange_t *later = send(&fx, TRUE, &q, 248 * SEC);
    g_assert_true(later != ex);
    meter_coap_t ack = msg(COAP_TYPE_ACK, COAP_CODE_CONTENT, 7, 0x01);
    g_assert_true(send(&fx, FALSE, &ack, 249 * SEC) == later);
    /* An answer after the lifetime of its request matches nothing. */
    g_assert_null(send(&fx, FALSE, &ack, 248 * SEC + 248 * SEC));
    /* Same MID, other token, in the lifetime: another request. */
    meter_coap_t other = msg(COAP_TYPE_CON, 1, 7, 0x02);
    coap_exchange_t *third = send(&fx, TRUE, &other, 250 * SEC);
    g_assert_true(third != later);
    /* A NON's MID lives NON_LIFETIME (145 s). */
    meter_coap_t non = msg(COAP_TYPE_NON, 1, 9, 0x03);
    coap_exchange_t *n = send(&fx, TRUE, &non, 0);
    g_assert_true(send(&fx, TRUE, &non, 145 * SEC) == n);
    g_assert_true(send(&fx, TRUE, &non, 146 * SEC) != n);
    fx_done(&fx);
}

static void test_transfers(void)
{
    fx_t fx;
    fx_init(&fx);
    /* Blocks 0 and 1 of one transfer; OpenThread's follow-up blocks carry no token. */
    meter_coap_t q0 = get_block(1, 0x11, 0, 4), q1 = get_block(2, 0, 1, 4);
    coap_exchange_t *e0 = send(&fx, TRUE, &q0, 0);
    g_assert_cmpuint(e0->transfer_id, ==, 1);
    meter_coap_t a0 = block_answer(1, 0x11, 0, TRUE, 4);
    g_assert_true(send(&fx, FALSE, &a0, SEC / 10) == e0);
    coap_exchange_t *e1 = send(&fx, TRUE, &q1, SEC / 5);
    g_assert_cmpuint(e1->transfer_id, ==, 1);
    meter_coap_t a1 = block_answer(2, 0, 1, FALSE, 4);      /* the last block */
    g_assert_true(send(&fx, FALSE, &a1, SEC / 4) == e1);

    /* Block 0 again after completion: a new transfer. */
    meter_coap_t r0 = get_block(3, 0x12, 0, 4);
    coap_exchange_t *f0 = send(&fx, TRUE, &r0, SEC);
    g_assert_cmpuint(f0->transfer_id, ==, 2);
    /* Block 0 with a new MID before any progress: a re-request of transfer 2. */
    meter_coap_t r0b = get_block(4, 0x13, 0, 4);
    g_assert_cmpuint(send(&fx, TRUE, &r0b, 3 * SEC)->transfer_id, ==, 2);
    /* Block 0 with another SZX: a new transfer. */
    meter_coap_t r0c = get_block(5, 0x14, 0, 2);
    g_assert_cmpuint(send(&fx, TRUE, &r0c, 4 * SEC)->transfer_id, ==, 3);
    /* Nothing asked for longer than an exchange lifetime: the meter gave up. */
    meter_coap_t r0d = get_block(6, 0x15, 0, 2);
    g_assert_cmpuint(send(&fx, TRUE, &r0d, 4 * SEC + 248 * SEC)->transfer_id, ==, 4);

    /* Another path: its own transfers; one first seen at block 3 (the
     * capture started mid-transfer) is a transfer too. */
    meter_coap_t h = get_block(7, 0x16, 3, 4);
    h.path = "firmware/other";
    g_assert_cmpuint(send(&fx, TRUE, &h, 300 * SEC)->transfer_id, ==, 5);
    fx_done(&fx);
}

/* RFC 7959 2.4: a GET without Block2 answered with Block2 block 0 starts a transfer. */
static void test_late_negotiation(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q = msg(COAP_TYPE_CON, 1, 20, 0x21);
    coap_exchange_t *ex = send(&fx, TRUE, &q, 0);
    g_assert_cmpuint(ex->transfer_id, ==, 0);
    meter_coap_t a = block_answer(20, 0x21, 0, TRUE, 6);
    g_assert_true(send(&fx, FALSE, &a, SEC / 10) == ex);
    g_assert_cmpuint(ex->transfer_id, ==, 1);
    meter_coap_t q1 = get_block(21, 0x21, 1, 6);
    g_assert_cmpuint(send(&fx, TRUE, &q1, SEC / 5)->transfer_id, ==, 1);
    fx_done(&fx);
}

/* RFC 7959 3.3: an upload (Block1) whose last request is answered with
 * Block2 block 0 is one upload plus one download; the exchange is in both,
 * and the download's later requests (Block2 only) are not the upload's. */
static void test_upload_then_download(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t p0 = msg(COAP_TYPE_CON, 2, 30, 0x31);
    p0.block1 = (meter_block_t){ TRUE, FALSE, 0, TRUE, 2 };
    coap_exchange_t *ex0 = send(&fx, TRUE, &p0, 0);
    g_assert_cmpuint(ex0->transfer_id, ==, 1);
    g_assert_true(ex0->upload);
    meter_coap_t p1 = msg(COAP_TYPE_CON, 2, 31, 0x31);
    p1.block1 = (meter_block_t){ TRUE, FALSE, 1, FALSE, 2 };
    coap_exchange_t *ex1 = send(&fx, TRUE, &p1, SEC / 10);
    g_assert_cmpuint(ex1->transfer_id, ==, 1);
    meter_coap_t a1 = block_answer(31, 0x31, 0, TRUE, 2);
    a1.code = COAP_CODE(2, 4);
    a1.block1 = p1.block1;
    g_assert_true(send(&fx, FALSE, &a1, SEC / 5) == ex1);
    g_assert_cmpuint(ex1->transfer_id, ==, 1);
    g_assert_cmpuint(ex1->response_transfer_id, ==, 2);
    meter_coap_t q = msg(COAP_TYPE_CON, 2, 32, 0x31);
    q.block2 = (meter_block_t){ TRUE, FALSE, 1, FALSE, 2 };
    coap_exchange_t *ex2 = send(&fx, TRUE, &q, SEC / 4);
    g_assert_cmpuint(ex2->transfer_id, ==, 2);
    g_assert_false(ex2->upload);
    /* The upload completed: a new Block1 block 0 is a new upload. */
    meter_coap_t again = p0;
    again.mid = 33;
    g_assert_cmpuint(send(&fx, TRUE, &again, SEC / 2)->transfer_id, ==, 3);
    fx_done(&fx);
}

/* Endpoint keys are exact: address type, bytes and port. */
static void test_endpoint_key(void)
{
    wmem_allocator_t *s = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    address a, b;
    set_address(&a, AT_IPv6, 16, meter_ip);
    set_address(&b, AT_IPv6, 16, gw_ip);
    g_assert_cmpstr(coap_endpoint_key(s, &a, 5683), ==, coap_endpoint_key(s, &a, 5683));
    g_assert_cmpstr(coap_endpoint_key(s, &a, 5683), !=, coap_endpoint_key(s, &a, 5684));
    g_assert_cmpstr(coap_endpoint_key(s, &a, 5683), !=, coap_endpoint_key(s, &b, 5683));
    wmem_destroy_allocator(s);
}

/* An answer whose request the sniffer missed (a response to a request it
 * never saw): followed in the transfer its endpoints were in, by its MID;
 * not where the pair had no transfer, nor for an answer without a block. */
static void test_request_missed(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q0 = get_block(1, 0x10, 0, 6), a0 = block_answer(1, 0x10, 0, TRUE, 6);
    meter_coap_t a1 = block_answer(2, 0x11, 1, TRUE, 6), a1_again = block_answer(2, 0x11, 1, TRUE, 6);
    meter_coap_t stray = msg(COAP_TYPE_ACK, COAP_CODE_CONTENT, 3, 0x12);

    coap_exchange_t *x0 = send(&fx, TRUE, &q0, 0);
    g_assert_true(send(&fx, FALSE, &a0, SEC / 10) == x0);
    coap_exchange_t *x1 = send(&fx, FALSE, &a1, SEC);
    g_assert_nonnull(x1);
    g_assert_true(x1->request_missed);
    g_assert_cmpuint(x1->transfer_id, ==, x0->transfer_id);
    g_assert_cmpuint(x1->mid, ==, 2);
    /* The same answer again (a duplicate) is the same exchange. */
    g_assert_true(send(&fx, FALSE, &a1_again, SEC + SEC / 10) == x1);
    g_assert_null(send(&fx, FALSE, &stray, 2 * SEC));
    fx_done(&fx);

    /* No transfer between the pair before (a plain GET): nothing to follow. */
    fx_init(&fx);
    meter_coap_t plain = msg(COAP_TYPE_CON, 1, 5, 0x20);
    g_assert_nonnull(send(&fx, TRUE, &plain, 0));
    g_assert_null(send(&fx, FALSE, &a1, SEC));
    fx_done(&fx);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    wmem_init();
    g_test_add_func("/coap_exchange/piggybacked_and_separate", test_piggybacked_and_separate);
    g_test_add_func("/coap_exchange/lifetimes", test_lifetimes);
    g_test_add_func("/coap_exchange/transfers", test_transfers);
    g_test_add_func("/coap_exchange/late_negotiation", test_late_negotiation);
    g_test_add_func("/coap_exchange/upload_then_download", test_upload_then_download);
    g_test_add_func("/coap_exchange/endpoint_key", test_endpoint_key);
    g_test_add_func("/coap_exchange/request_missed", test_request_missed);
    int rc = g_test_run();
    wmem_cleanup();
    return rc;
}
