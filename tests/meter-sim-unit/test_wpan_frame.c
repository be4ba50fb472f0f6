/* test_wpan_frame.c: unit tests of the IEEE 802.15.4 frame builder: FCS
 * (CRC-16/KERMIT), MAC header layout, acknowledgements, AES-CCM* security
 * (round trip through libgcrypt) and the Thread MAC key derivation.
 * Follows IEEE 802.15.4-2006 sections 7.2 and 7.6, Thread 1.x key derivation.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <gcrypt.h>
#include <glib.h>

#include "wpan_frame.h"

static const guint8 net_key[16] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff
};

/* An independent CRC: the non-reflected CCITT algorithm on bit-reversed
 * input, reflected at the end, equals the reflected KERMIT form. */
static guint8 rev8(guint8 b)
{
    guint8 r = 0;

    for (int i = 0; i < 8; i++)
        if (b & (1u << i))
            r |= (guint8)(0x80u >> i);
    return r;
}

static guint16 crc_ref(const guint8 *d, gsize n)
{
    guint16 crc = 0, r = 0;

    for (gsize i = 0; i < n; i++) {
        crc ^= (guint16)(rev8(d[i]) << 8);
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x8000) ? (guint16)((crc << 1) ^ 0x1021) : (guint16)(crc << 1);
    }
    for (int i = 0; i < 16; i++)
        if (crc & (1u << i))
            r |= (guint16)(0x8000u >> i);
    return r;
}

/* The FCS is the CRC of everything before it, little-endian. */
static void assert_fcs_ok(const GByteArray *f)
{
    guint16 fcs;

    g_assert_cmpuint(f->len, >=, 3);
    fcs = (guint16)(f->data[f->len - 2] | (f->data[f->len - 1] << 8));
    g_assert_cmphex(fcs, ==, crc_ref(f->data, f->len - 2));
    /* KERMIT residue: the CRC over data and its own FCS is 0. */
    g_assert_cmphex(wpan_fcs(f->data, f->len), ==, 0);
}

static void test_fcs_vector(void)
{
    const guint8 *check = (const guint8 *)"123456789";

    g_assert_cmphex(wpan_fcs(check, 9), ==, 0x2189);
    g_assert_cmphex(crc_ref(check, 9), ==, 0x2189);
    g_assert_cmphex(wpan_fcs(check, 0), ==, 0x0000);
}

static void test_data_short_dst_ext_src(void)
{
    wpan_hdr_t h = { 0 };
    const guint8 payload[] = { 0x41, 0x42 };
    const guint8 expect[] = {
        0x61, 0xc8,                         /* FCF 0xc861 */
        0x42,                               /* sequence */
        0xce, 0xfa,                         /* dst PAN 0xface */
        0x34, 0x12,                         /* dst 0x1234 */
        0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00,   /* src EUI-64 */
        0x41, 0x42
    };
    GByteArray *f;

    h.frame_type = WPAN_FT_DATA;
    h.ack_request = TRUE;
    h.seq = 0x42;
    h.pan_id = 0xface;
    h.dst_mode = WPAN_ADDR_SHORT;
    h.dst_short = 0x1234;
    h.src_mode = WPAN_ADDR_EXT;
    h.src_ext = G_GUINT64_CONSTANT(0x0011223344556677);

    g_assert_cmpuint(wpan_overhead(&h, FALSE), ==, 17);
    f = wpan_frame_build(&h, payload, sizeof payload, NULL, 0);
    g_assert_nonnull(f);
    g_assert_cmpuint(f->len, ==, sizeof expect + 2);
    g_assert_cmpmem(f->data, sizeof expect, expect, sizeof expect);
    assert_fcs_ok(f);
    g_byte_array_unref(f);
}

static void test_data_ext_dst_short_src_pending(void)
{
    wpan_hdr_t h = { 0 };
    const guint8 payload[] = { 0xaa };
    const guint8 expect[] = {
        0x51, 0x8c,                         /* data, pending, PAN comp, dst ext, src short */
        0x07,
        0x34, 0x12,
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
        0xcd, 0xab,
        0xaa
    };
    GByteArray *f;

    h.frame_type = WPAN_FT_DATA;
    h.frame_pending = TRUE;
    h.seq = 7;
    h.pan_id = 0x1234;
    h.dst_mode = WPAN_ADDR_EXT;
    h.dst_ext = G_GUINT64_CONSTANT(0x0102030405060708);
    h.src_mode = WPAN_ADDR_SHORT;
    h.src_short = 0xabcd;

    f = wpan_frame_build(&h, payload, sizeof payload, NULL, 0);
    g_assert_nonnull(f);
    g_assert_cmpmem(f->data, f->len - 2, expect, sizeof expect);
    assert_fcs_ok(f);
    g_byte_array_unref(f);
}

static void test_src_only_keeps_pan(void)
{
    wpan_hdr_t h = { 0 };
    const guint8 expect[] = { 0x01, 0x80, 0x01, 0x34, 0x12, 0x02, 0x00 };
    GByteArray *f;

    /* No destination: no PAN ID compression, the PAN goes with the source. */
    h.frame_type = WPAN_FT_DATA;
    h.seq = 1;
    h.pan_id = 0x1234;
    h.src_mode = WPAN_ADDR_SHORT;
    h.src_short = 0x0002;
    g_assert_cmpuint(wpan_overhead(&h, FALSE), ==, 9);
    f = wpan_frame_build(&h, NULL, 0, NULL, 0);
    g_assert_nonnull(f);
    g_assert_cmpmem(f->data, f->len - 2, expect, sizeof expect);
    assert_fcs_ok(f);
    g_byte_array_unref(f);
}

static void test_ack(void)
{
    GByteArray *a = wpan_ack_build(0x17, FALSE);
    GByteArray *p = wpan_ack_build(0x18, TRUE);

    g_assert_cmpuint(a->len, ==, 5);
    g_assert_cmphex(a->data[0], ==, 0x02);
    g_assert_cmphex(a->data[1], ==, 0x00);
    g_assert_cmphex(a->data[2], ==, 0x17);
    assert_fcs_ok(a);

    g_assert_cmpuint(p->len, ==, 5);
    g_assert_cmphex(p->data[0], ==, 0x12);
    g_assert_cmphex(p->data[1], ==, 0x00);
    g_assert_cmphex(p->data[2], ==, 0x18);
    assert_fcs_ok(p);
    g_byte_array_unref(a);
    g_byte_array_unref(p);
}

static void test_too_long(void)
{
    wpan_hdr_t h = { 0 };
    guint8 payload[127] = { 0 };
    gsize room;
    GByteArray *f;

    h.frame_type = WPAN_FT_DATA;
    h.dst_mode = WPAN_ADDR_SHORT;
    h.src_mode = WPAN_ADDR_EXT;
    room = WPAN_FRAME_MAX - wpan_overhead(&h, FALSE);
    f = wpan_frame_build(&h, payload, room, NULL, 0);
    g_assert_nonnull(f);
    g_assert_cmpuint(f->len, ==, WPAN_FRAME_MAX);
    g_byte_array_unref(f);
    g_assert_null(wpan_frame_build(&h, payload, room + 1, NULL, 0));

    /* The same limit with security (aux header + MIC). */
    room = WPAN_FRAME_MAX - wpan_overhead(&h, TRUE);
    g_assert_cmpuint(wpan_overhead(&h, TRUE), ==, wpan_overhead(&h, FALSE) + 10);
    f = wpan_frame_build(&h, payload, room, net_key, 1);
    g_assert_nonnull(f);
    g_assert_cmpuint(f->len, ==, WPAN_FRAME_MAX);
    g_byte_array_unref(f);
    g_assert_null(wpan_frame_build(&h, payload, room + 1, net_key, 1));

    /* A command frame needs its command identifier. */
    h.frame_type = WPAN_FT_CMD;
    g_assert_null(wpan_frame_build(&h, NULL, 0, NULL, 0));
}

/* Decrypts and authenticates frame f (FCS stripped) whose first a_len
 * bytes are clear, and returns the plaintext, or NULL if the MIC fails. */
static GByteArray *ccm_open(const GByteArray *f, gsize a_len, const guint8 key[16],
                            guint64 src_ext, guint32 fc)
{
    gcry_cipher_hd_t hd;
    guint8 nonce[13];
    gsize m_len = f->len - 2 - 4 - a_len;      /* minus FCS and MIC */
    guint64 lens[3] = { m_len, a_len, 4 };
    GByteArray *out = g_byte_array_new();
    gboolean ok;

    for (int i = 0; i < 8; i++)
        nonce[i] = (guint8)(src_ext >> (56 - 8 * i));
    nonce[8] = (guint8)(fc >> 24);
    nonce[9] = (guint8)(fc >> 16);
    nonce[10] = (guint8)(fc >> 8);
    nonce[11] = (guint8)fc;
    nonce[12] = 5;

    g_byte_array_set_size(out, (guint)m_len);
    g_assert_cmpint(gcry_cipher_open(&hd, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CCM, 0), ==, 0);
    g_assert_cmpint(gcry_cipher_setkey(hd, key, 16), ==, 0);
    g_assert_cmpint(gcry_cipher_setiv(hd, nonce, sizeof nonce), ==, 0);
    g_assert_cmpint(gcry_cipher_ctl(hd, GCRYCTL_SET_CCM_LENGTHS, lens, sizeof lens), ==, 0);
    g_assert_cmpint(gcry_cipher_authenticate(hd, f->data, a_len), ==, 0);
    if (m_len)
        g_assert_cmpint(gcry_cipher_decrypt(hd, out->data, m_len, f->data + a_len, m_len), ==, 0);
    ok = gcry_cipher_checktag(hd, f->data + a_len + m_len, 4) == 0;
    gcry_cipher_close(hd);
    if (!ok) {
        g_byte_array_unref(out);
        return NULL;
    }
    return out;
}

static void test_secured_data_roundtrip(void)
{
    wpan_hdr_t h = { 0 };
    guint8 key[16];
    guint8 payload[60];
    const guint64 eui = G_GUINT64_CONSTANT(0x0011223344556677);
    GByteArray *f, *plain, *bad;
    gsize a_len;

    for (guint i = 0; i < sizeof payload; i++)
        payload[i] = (guint8)(i * 3 + 1);
    g_assert_true(wpan_thread_mac_key(net_key, 0, key));

    h.frame_type = WPAN_FT_DATA;
    h.ack_request = TRUE;
    h.seq = 9;
    h.pan_id = 0xface;
    h.dst_mode = WPAN_ADDR_SHORT;
    h.dst_short = 0x0400;
    h.src_mode = WPAN_ADDR_EXT;
    h.src_ext = eui;
    h.frame_counter = 0x01020304;
    h.key_index = 1;

    f = wpan_frame_build(&h, payload, sizeof payload, key, eui);
    g_assert_nonnull(f);
    g_assert_cmpuint(f->len, ==, wpan_overhead(&h, TRUE) + sizeof payload);
    assert_fcs_ok(f);
    /* FCF: data, security, AR, PAN comp, dst short, version 2006, src ext. */
    g_assert_cmphex(f->data[0], ==, 0x69);
    g_assert_cmphex(f->data[1], ==, 0xd8);
    a_len = 3 + 2 + 2 + 8;
    /* Auxiliary security header: 0x0d, frame counter LE, key index. */
    g_assert_cmphex(f->data[a_len], ==, 0x0d);
    g_assert_cmphex(f->data[a_len + 1], ==, 0x04);
    g_assert_cmphex(f->data[a_len + 2], ==, 0x03);
    g_assert_cmphex(f->data[a_len + 3], ==, 0x02);
    g_assert_cmphex(f->data[a_len + 4], ==, 0x01);
    g_assert_cmphex(f->data[a_len + 5], ==, 0x01);
    a_len += 6;
    /* Encrypted: the payload does not appear in clear. */
    g_assert_true(memcmp(f->data + a_len, payload, sizeof payload) != 0);

    plain = ccm_open(f, a_len, key, eui, h.frame_counter);
    g_assert_nonnull(plain);
    g_assert_cmpmem(plain->data, plain->len, payload, sizeof payload);
    g_byte_array_unref(plain);

    /* Any change to the authenticated header breaks the MIC. */
    bad = g_byte_array_new();
    g_byte_array_append(bad, f->data, f->len);
    bad->data[2] ^= 1;
    g_assert_null(ccm_open(bad, a_len, key, eui, h.frame_counter));
    /* So does a wrong nonce (another sender's EUI-64). */
    g_assert_null(ccm_open(f, a_len, key, eui + 1, h.frame_counter));
    g_byte_array_unref(bad);
    g_byte_array_unref(f);
}

static void test_secured_command_id_clear(void)
{
    wpan_hdr_t h = { 0 };
    guint8 key[16];
    const guint8 cmd = WPAN_CMD_DATA_REQUEST;
    const guint64 eui = G_GUINT64_CONSTANT(0x0011223344556677);
    GByteArray *f, *plain;
    gsize a_len = 3 + 2 + 2 + 8 + 6;

    g_assert_true(wpan_thread_mac_key(net_key, 0, key));
    h.frame_type = WPAN_FT_CMD;
    h.ack_request = TRUE;
    h.seq = 200;
    h.pan_id = 0xface;
    h.dst_mode = WPAN_ADDR_SHORT;
    h.dst_short = 0x0400;
    h.src_mode = WPAN_ADDR_EXT;
    h.src_ext = eui;
    h.frame_counter = 77;
    h.key_index = 1;

    f = wpan_frame_build(&h, &cmd, 1, key, eui);
    g_assert_nonnull(f);
    /* Header, aux header, command id (clear), MIC, FCS. */
    g_assert_cmpuint(f->len, ==, a_len + 1 + 4 + 2);
    g_assert_cmphex(f->data[0], ==, 0x6b);
    g_assert_cmphex(f->data[a_len], ==, WPAN_CMD_DATA_REQUEST);
    assert_fcs_ok(f);
    /* The command id is authenticated with the header (a-data). */
    plain = ccm_open(f, a_len + 1, key, eui, h.frame_counter);
    g_assert_nonnull(plain);
    g_assert_cmpuint(plain->len, ==, 0);
    g_byte_array_unref(plain);
    g_byte_array_unref(f);
}

/* A secured Data Request that tshark 4.0 decrypts and authenticates with
 * the UAT key 00112233445566778899aabbccddeeff / index 1 / "Thread hash"
 * (key sequence 0), and whose FCS it reports correct. */
static void test_known_answer(void)
{
    const guint8 expect[] = {
        0x6b, 0xd8, 0x0b, 0xce, 0xfa, 0x00, 0x04,
        0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00,
        0x0d, 0x65, 0x00, 0x00, 0x00, 0x01,
        0x04,
        0x9f, 0x84, 0x15, 0x87,
        0x4e, 0xb4
    };
    const guint8 ack[] = { 0x12, 0x00, 0x0a, 0x77, 0x9f };
    wpan_hdr_t h = { 0 };
    guint8 key[16];
    const guint8 cmd = WPAN_CMD_DATA_REQUEST;
    GByteArray *f;

    g_assert_true(wpan_thread_mac_key(net_key, 0, key));
    h.frame_type = WPAN_FT_CMD;
    h.ack_request = TRUE;
    h.seq = 11;
    h.pan_id = 0xface;
    h.dst_mode = WPAN_ADDR_SHORT;
    h.dst_short = 0x0400;
    h.src_mode = WPAN_ADDR_EXT;
    h.src_ext = G_GUINT64_CONSTANT(0x0011223344556677);
    h.frame_counter = 101;
    h.key_index = 1;
    f = wpan_frame_build(&h, &cmd, 1, key, h.src_ext);
    g_assert_nonnull(f);
    g_assert_cmpmem(f->data, f->len, expect, sizeof expect);
    g_byte_array_unref(f);

    f = wpan_ack_build(10, TRUE);
    g_assert_cmpmem(f->data, f->len, ack, sizeof ack);
    g_byte_array_unref(f);
}

static void test_thread_mac_key(void)
{
    guint8 key[16], key1[16];
    guint8 msg[10] = { 0, 0, 0, 0, 'T', 'h', 'r', 'e', 'a', 'd' };
    guint8 digest[32];
    gsize dlen = sizeof digest;
    GHmac *hmac;

    /* Cross-check against GLib's own HMAC-SHA256. */
    hmac = g_hmac_new(G_CHECKSUM_SHA256, net_key, sizeof net_key);
    g_hmac_update(hmac, msg, sizeof msg);
    g_hmac_get_digest(hmac, digest, &dlen);
    g_hmac_unref(hmac);
    g_assert_cmpuint(dlen, ==, 32);

    g_assert_true(wpan_thread_mac_key(net_key, 0, key));
    g_assert_cmpmem(key, 16, digest + 16, 16);

    /* The key sequence is big-endian in the hashed message. */
    msg[3] = 1;
    hmac = g_hmac_new(G_CHECKSUM_SHA256, net_key, sizeof net_key);
    g_hmac_update(hmac, msg, sizeof msg);
    g_hmac_get_digest(hmac, digest, &dlen);
    g_hmac_unref(hmac);
    g_assert_true(wpan_thread_mac_key(net_key, 1, key1));
    g_assert_cmpmem(key1, 16, digest + 16, 16);
    g_assert_true(memcmp(key, key1, 16) != 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/wpan/fcs-vector", test_fcs_vector);
    g_test_add_func("/wpan/data-short-dst-ext-src", test_data_short_dst_ext_src);
    g_test_add_func("/wpan/data-ext-dst-short-src-pending", test_data_ext_dst_short_src_pending);
    g_test_add_func("/wpan/src-only-keeps-pan", test_src_only_keeps_pan);
    g_test_add_func("/wpan/ack", test_ack);
    g_test_add_func("/wpan/too-long", test_too_long);
    g_test_add_func("/wpan/thread-mac-key", test_thread_mac_key);
    g_test_add_func("/wpan/secured-data-roundtrip", test_secured_data_roundtrip);
    g_test_add_func("/wpan/secured-command-id-clear", test_secured_command_id_clear);
    g_test_add_func("/wpan/known-answer-tshark", test_known_answer);
    return g_test_run();
}
