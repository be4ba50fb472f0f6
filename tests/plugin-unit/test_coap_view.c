/* test_coap_view.c: the CoAP reader on hand-made messages (RFC 7252 3.1,
 * RFC 7959 2.2), including the encodings OpenThread and node-coap produce
 * and malformed ones that must be refused, not misread.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <epan/tvbuff.h>
#include <wsutil/wmem/wmem.h>
#include "coap_view.h"
#include "ws_compat.h"

static wmem_allocator_t *scope;

static gboolean parse(const guint8 *b, gsize n, meter_coap_t *m)
{
    tvbuff_t *tvb = tvb_new_real_data(b, (guint)n, (gint)n);
    gboolean ok = coap_view_parse(tvb, 0, (gint)n, scope, m);
    return ok;
}

/* CON GET, token 4 bytes, Uri-Path firmware / v2.1.0.img, Uri-Query, Block2 NUM 3 SZX 6 */
static void test_block2_request(void)
{
    static const guint8 msg[] = {
        0x44, 0x01, 0x12, 0x34, 0xde, 0xad, 0xbe, 0xef,
        0xb8, 'f', 'i', 'r', 'm', 'w', 'a', 'r', 'e',
        0x0a, 'v', '2', '.', '1', '.', '0', '.', 'i', 'm', 'g',
        0x47, 't', 'o', 'k', '=', 'a', 'b', 'c',     /* delta 4 -> 15 Uri-Query */
        0x81, 0x36,                                  /* delta 8 -> 23 Block2: NUM 3, M 0, SZX 6 */
    };
    meter_coap_t m;

    g_assert_true(parse(msg, sizeof msg, &m));
    g_assert_cmpuint(m.type, ==, 0);
    g_assert_cmpuint(m.code, ==, 1);
    g_assert_cmpuint(m.mid, ==, 0x1234);
    g_assert_cmpuint(m.tkl, ==, 4);
    g_assert_cmpuint(m.token[3], ==, 0xef);
    g_assert_cmpstr(m.path, ==, "firmware/v2.1.0.img");
    g_assert_cmpstr(m.query, ==, "tok=abc");
    g_assert_true(m.block2.present);
    g_assert_false(m.block1.present);
    g_assert_cmpuint(m.block2.num, ==, 3);
    g_assert_false(m.block2.more);
    g_assert_cmpuint(m.block2.szx, ==, 6);
    g_assert_null(m.payload);
}

/* ACK 2.05, Content-Format 42, Block2 NUM 300 M 1 SZX 4 (2 bytes), Size2, payload */
static void test_block2_response(void)
{
    static const guint8 msg[] = {
        0x60, 0x45, 0x00, 0x07,
        0xc1, 0x2a,                         /* 12 Content-Format 42 */
        0xb2, 0x12, 0xcc,                   /* 23 Block2: 0x12cc = NUM 300, M 1, SZX 4 */
        0x52, 0x30, 0x90,                   /* 28 Size2 12432 */
        0xff, 0x01, 0x02, 0x03,
    };
    meter_coap_t m;

    g_assert_true(parse(msg, sizeof msg, &m));
    g_assert_cmpuint(m.type, ==, 2);
    g_assert_cmpuint(m.code, ==, 0x45);
    g_assert_cmpint(m.content_format, ==, 42);
    g_assert_cmpuint(m.block2.num, ==, 300);
    g_assert_true(m.block2.more);
    g_assert_cmpuint(m.block2.szx, ==, 4);
    g_assert_cmpint(m.size2, ==, 12432);
    g_assert_nonnull(m.payload);
    g_assert_cmpuint(tvb_reported_length(m.payload), ==, 3);
    g_assert_cmpuint(tvb_get_uint8(m.payload, 0), ==, 1);
    g_assert_cmpint(m.payload_offset, ==, 13);
}

/* Block1 and Block2 in one message, and a zero-length Block2 (node-coap). */
static void test_both_blocks_and_empty(void)
{
    static const guint8 msg[] = {
        0x40, 0x02, 0x00, 0x01,
        0xd0, 0x0a,                         /* 13 + 10 = 23: Block2, zero length */
        0x41, 0x1e,                         /* +4 = 27 Block1: NUM 1, M 1, SZX 6 */
    };
    meter_coap_t m;

    g_assert_true(parse(msg, sizeof msg, &m));
    g_assert_true(m.block2.present);
    g_assert_true(m.block2.empty);
    g_assert_cmpuint(m.block2.num, ==, 0);
    g_assert_cmpuint(m.block2.szx, ==, 0);
    g_assert_true(m.block1.present);
    g_assert_cmpuint(m.block1.num, ==, 1);
    g_assert_true(m.block1.more);
    g_assert_cmpuint(m.block1.szx, ==, 6);
}

static void test_malformed(void)
{
    static const guint8 bad_version[] = { 0x84, 0x01, 0, 1 };
    static const guint8 bad_tkl[] = { 0x49, 0x01, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    static const guint8 short_token[] = { 0x44, 0x01, 0, 1, 1, 2 };
    static const guint8 option_past_end[] = { 0x40, 0x01, 0, 1, 0xb8, 'a', 'b' };
    static const guint8 reserved_nibble[] = { 0x40, 0x01, 0, 1, 0xf1, 0 };
    static const guint8 marker_no_payload[] = { 0x40, 0x45, 0, 1, 0xff };
    static const guint8 ext_past_end[] = { 0x40, 0x01, 0, 1, 0xe0, 0x01 };
    static const guint8 too_short[] = { 0x40, 0x01, 0 };
    meter_coap_t m;

    g_assert_false(parse(bad_version, sizeof bad_version, &m));
    g_assert_false(parse(bad_tkl, sizeof bad_tkl, &m));
    g_assert_false(parse(short_token, sizeof short_token, &m));
    g_assert_false(parse(option_past_end, sizeof option_past_end, &m));
    g_assert_false(parse(reserved_nibble, sizeof reserved_nibble, &m));
    g_assert_false(parse(marker_no_payload, sizeof marker_no_payload, &m));
    g_assert_false(parse(ext_past_end, sizeof ext_past_end, &m));
    g_assert_false(parse(too_short, sizeof too_short, &m));
}

/* A message inside a larger buffer: the reader stays within its range. */
static void test_bounded_by_length(void)
{
    static const guint8 buf[] = { 0xaa, 0x40, 0x01, 0x00, 0x05, 0xb1, 'x', 0xff, 0x99 };
    tvbuff_t *tvb = tvb_new_real_data(buf, sizeof buf, sizeof buf);
    meter_coap_t m;

    g_assert_true(coap_view_parse(tvb, 1, 6, scope, &m));
    g_assert_cmpstr(m.path, ==, "x");
    g_assert_null(m.payload);
}

int main(int argc, char **argv)
{
    int rc;

    g_test_init(&argc, &argv, NULL);
    wmem_init();
    scope = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    g_test_add_func("/coap_view/block2_request", test_block2_request);
    g_test_add_func("/coap_view/block2_response", test_block2_response);
    g_test_add_func("/coap_view/both_blocks_and_empty", test_both_blocks_and_empty);
    g_test_add_func("/coap_view/malformed", test_malformed);
    g_test_add_func("/coap_view/bounded_by_length", test_bounded_by_length);
    rc = g_test_run();
    wmem_destroy_allocator(scope);
    wmem_cleanup();
    return rc;
}
