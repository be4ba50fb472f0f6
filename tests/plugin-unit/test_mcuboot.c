/* test_mcuboot.c: the MCUboot parser and checks (plugin/core/mcuboot.c) on the
 * capture generator's own images (captures/meter-sim/payloads.c, compiled in
 * here: this program links only meter_plugin_core), on images crafted by
 * hand (protected TLVs) and on malformed ones: bad magic, hdr_size beyond
 * the image, img_size 0xFFFFFFFF, a TLV running past the end, tlv_tot
 * inconsistent, and random corruption (must stay bounded).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>
#include <gcrypt.h>
#include <epan/tvbuff.h>

#include "mcuboot.h"

/* Test images come from the generator's own builder (meter_sim_core). */
#include "payloads.h"
#include "gcrypt_init.h"

/* ---- helpers ---------------------------------------------------------- */

static void t_put16(guint8 *p, guint16 v)
{
    p[0] = (guint8)v;
    p[1] = (guint8)(v >> 8);
}

static void t_put32(guint8 *p, guint32 v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (guint8)(v >> (8 * i));
}

/* An image as the generator builds it for seed `seed`. */
static void build(mcuboot_image_t *out, guint64 seed, guint16 hdr_size, guint32 body)
{
    mcuboot_params_t p = {
        .major = 2, .minor = 1, .revision = 0, .build = 1342,
        .load_addr = 0x8000, .hdr_size = hdr_size, .body_size = body,
        .flags = 0, .body_seed = seed * 7 + 1,
    };
    GError *err = NULL;

    g_assert_true(payload_mcuboot_build(&p, seed, out, &err));
    g_assert_no_error(err);
}

/* The generator's image, parsed and checked with its own public key. */
static void check(const guint8 *img, gsize len, const guint8 *pubkey,
                  mcuboot_image_info_t *info, mcuboot_verify_t *v)
{
    mcuboot_parse(img, len, info);
    mcuboot_verify(img, info, pubkey, v);
}

/* ---- well-formed images ----------------------------------------------- */

static void test_generator_image(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;
    char ver[48];

    build(&im, 1, 32, 12432);
    g_assert_cmpuint(im.image->len, ==, 32 + 12432 + 144);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);

    g_assert_true(info.hdr_ok);
    g_assert_cmpuint(info.problems, ==, 0);
    g_assert_cmphex(info.hdr.magic, ==, MCUBOOT_MAGIC);
    g_assert_cmphex(info.hdr.load_addr, ==, 0x8000);
    g_assert_cmpuint(info.hdr.hdr_size, ==, 32);
    g_assert_cmpuint(info.hdr.protect_tlv_size, ==, 0);
    g_assert_cmpuint(info.hdr.img_size, ==, 12432);
    g_assert_cmpuint(info.hdr.flags, ==, 0);
    mcuboot_version_str(&info.hdr, ver, sizeof ver);
    g_assert_cmpstr(ver, ==, "2.1.0+1342");

    g_assert_cmpuint(info.tlv_start, ==, 32 + 12432);
    g_assert_cmpuint(info.hashed_len, ==, 32 + 12432);
    g_assert_false(info.prot.present);
    g_assert_true(info.unprot.present);
    g_assert_cmphex(info.unprot.magic, ==, MCUBOOT_TLV_INFO);
    g_assert_cmpuint(info.unprot.tlv_tot, ==, 4 + 36 + 36 + 68);
    g_assert_cmpuint(info.end, ==, im.image->len);
    g_assert_cmpuint(info.n_tlvs, ==, 3);
    g_assert_cmphex(info.tlvs[0].type, ==, MCUBOOT_TLV_KEYHASH);
    g_assert_cmpuint(info.tlvs[0].len, ==, 32);
    g_assert_cmphex(info.tlvs[1].type, ==, MCUBOOT_TLV_SHA256);
    g_assert_cmpuint(info.tlvs[1].len, ==, 32);
    g_assert_cmphex(info.tlvs[2].type, ==, MCUBOOT_TLV_ED25519);
    g_assert_cmpuint(info.tlvs[2].len, ==, 64);
    g_assert_cmpuint(info.tlvs[2].offset, ==, im.image->len - 68);
    g_assert_cmpmem(mcuboot_tlv_value(im.image->data, &info, 2), 64, im.signature, 64);

    g_assert_true(v.computed);
    g_assert_cmpmem(v.sha256_computed, 32, im.sha256, 32);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_GOOD);

    /* No key: not checked. Another seed's key: bad. */
    mcuboot_verify(im.image->data, &info, NULL, &v);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_NOT_CHECKED);
    {
        mcuboot_image_t other;
        build(&other, 2, 32, 100);
        mcuboot_verify(im.image->data, &info, other.pubkey, &v);
        g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_BAD);
        payload_mcuboot_clear(&other);
    }
    payload_mcuboot_clear(&im);
}

static void test_header_padding(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;

    build(&im, 3, 0x200, 1000);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_cmpuint(info.problems, ==, 0);
    g_assert_cmpuint(info.hdr.hdr_size, ==, 0x200);
    g_assert_cmpuint(info.tlv_start, ==, 0x200 + 1000);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_GOOD);
    payload_mcuboot_clear(&im);
}

static void test_header_from_tvb(void)
{
    mcuboot_image_t im;
    mcuboot_hdr_t h;
    tvbuff_t *tvb;

    build(&im, 1, 32, 64);
    tvb = tvb_new_real_data(im.image->data, 40, 40);
    g_assert_true(mcuboot_hdr_read_tvb(tvb, 0, &h));
    g_assert_cmphex(h.magic, ==, MCUBOOT_MAGIC);
    g_assert_cmpuint(h.img_size, ==, 64);
    g_assert_cmpuint(h.build, ==, 1342);
    g_assert_cmpuint(mcuboot_hdr_problems(&h), ==, 0);
    g_assert_false(mcuboot_hdr_read_tvb(tvb, 9, &h));   /* 31 bytes left */
    g_assert_false(mcuboot_hdr_read_tvb(tvb, -1, &h));
    tvb_free(tvb);
    payload_mcuboot_clear(&im);
}

/* A hand-made image with a protected TLV area (security counter), hashed
 * with it as MCUboot does. */
static void test_protected_tlvs(void)
{
    const guint32 body = 100;
    const guint16 prot = 4 + 8;      /* info + TLV 0x50 len 4 */
    const guint16 tot = 4 + 36;
    guint32 len = 32 + body + prot + tot, o;
    guint8 *img = g_malloc0(len);
    guint8 digest[32];
    mcuboot_image_info_t info;
    mcuboot_verify_t v;

    t_put32(img, MCUBOOT_MAGIC);
    t_put16(img + 8, 32);
    t_put16(img + 10, prot);
    t_put32(img + 12, body);
    for (guint32 i = 0; i < body; i++)
        img[32 + i] = (guint8)i;
    o = 32 + body;
    t_put16(img + o, MCUBOOT_TLV_PROT_INFO);
    t_put16(img + o + 2, prot);
    t_put16(img + o + 4, MCUBOOT_TLV_SEC_CNT);
    t_put16(img + o + 6, 4);
    t_put32(img + o + 8, 7);
    o += prot;
    gcry_md_hash_buffer(GCRY_MD_SHA256, digest, img, o);
    t_put16(img + o, MCUBOOT_TLV_INFO);
    t_put16(img + o + 2, tot);
    t_put16(img + o + 4, MCUBOOT_TLV_SHA256);
    t_put16(img + o + 6, 32);
    memcpy(img + o + 8, digest, 32);

    check(img, len, NULL, &info, &v);
    g_assert_cmpuint(info.problems, ==, 0);
    g_assert_true(info.prot.present);
    g_assert_cmphex(info.prot.magic, ==, MCUBOOT_TLV_PROT_INFO);
    g_assert_cmpuint(info.hashed_len, ==, 32 + body + prot);
    g_assert_cmpuint(info.n_tlvs, ==, 2);
    g_assert_true(info.tlvs[0].protected_area);
    g_assert_cmphex(info.tlvs[0].type, ==, MCUBOOT_TLV_SEC_CNT);
    g_assert_false(info.tlvs[1].protected_area);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_ABSENT);

    /* The protected area is hashed: changing it breaks the SHA-256. */
    img[32 + body + 8] ^= 1;
    check(img, len, NULL, &info, &v);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_BAD);

    /* Its tlv_tot disagreeing with protect_tlv_size is flagged. */
    img[32 + body + 8] ^= 1;
    t_put16(img + 32 + body + 2, prot + 4);
    check(img, len, NULL, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_TOT);
    g_free(img);
}

/* ---- checks that must fail -------------------------------------------- */

static void test_sha256_and_signature_bad(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;
    guint8 *d;
    guint len;

    build(&im, 1, 32, 2000);
    d = im.image->data;
    len = im.image->len;

    /* A flipped body bit: hash and signature both fail. */
    d[32 + 1000] ^= 0x10;
    check(d, len, im.pubkey, &info, &v);
    g_assert_cmpuint(info.problems, ==, 0);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_BAD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_BAD);
    d[32 + 1000] ^= 0x10;

    /* A flipped SHA-256 TLV: the hash TLV is wrong, the image is still the
     * signed one (the signature is checked over the computed digest). */
    d[info.tlvs[1].offset + 4] ^= 1;
    check(d, len, im.pubkey, &info, &v);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_BAD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_GOOD);
    d[info.tlvs[1].offset + 4] ^= 1;

    /* A flipped signature byte (in R, then in S). */
    d[info.tlvs[2].offset + 4 + 5] ^= 0x80;
    check(d, len, im.pubkey, &info, &v);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_BAD);
    d[info.tlvs[2].offset + 4 + 5] ^= 0x80;
    d[info.tlvs[2].offset + 4 + 40] ^= 0x01;
    check(d, len, im.pubkey, &info, &v);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_BAD);
    d[info.tlvs[2].offset + 4 + 40] ^= 0x01;

    /* Back to good. */
    check(d, len, im.pubkey, &info, &v);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_GOOD);

    /* Keys that abort libgcrypt 1.10.1 (value below 2^192) are refused,
     * not passed on; other non-keys just do not verify. */
    {
        guint8 zero[32] = { 0 }, one[32] = { 1 }, junk[32];
        g_assert_cmpint(mcuboot_ed25519_verify(zero, im.sha256, 32, im.signature), ==,
                        MCUBOOT_CHECK_NOT_CHECKED);
        g_assert_cmpint(mcuboot_ed25519_verify(one, im.sha256, 32, im.signature), ==,
                        MCUBOOT_CHECK_NOT_CHECKED);
        memset(junk, 0xff, sizeof junk);
        g_assert_cmpint(mcuboot_ed25519_verify(junk, im.sha256, 32, im.signature), ==,
                        MCUBOOT_CHECK_BAD);
        g_assert_cmpint(mcuboot_ed25519_verify(im.pubkey, im.sha256, 32, im.signature), ==,
                        MCUBOOT_CHECK_GOOD);
    }
    payload_mcuboot_clear(&im);
}

/* ---- malformed images ------------------------------------------------- */

static void test_bad_magic(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;

    build(&im, 1, 32, 500);
    im.image->data[0] ^= 0xff;
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.hdr_ok);
    g_assert_true(info.problems & MCUBOOT_P_BAD_MAGIC);
    g_assert_cmpuint(info.n_tlvs, ==, 0);
    g_assert_false(v.computed);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_ABSENT);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_ABSENT);
    payload_mcuboot_clear(&im);
}

static void test_short_image(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;

    build(&im, 1, 32, 500);
    check(im.image->data, 31, im.pubkey, &info, &v);
    g_assert_false(info.hdr_ok);
    g_assert_true(info.problems & MCUBOOT_P_HDR_SIZE);
    g_assert_false(v.computed);
    check(NULL, 0, NULL, &info, &v);
    g_assert_false(info.hdr_ok);

    /* Header only: the TLV info is missing. */
    check(im.image->data, 32 + 500, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_INFO);
    g_assert_true(v.computed);                          /* header + body are there */
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_ABSENT);
    payload_mcuboot_clear(&im);
}

static void test_hdr_size_beyond_image(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;

    build(&im, 1, 32, 500);
    t_put16(im.image->data + 8, 0xfff0);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_HDR_SIZE);
    g_assert_cmpuint(info.n_tlvs, ==, 0);
    g_assert_false(v.computed);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_ABSENT);

    t_put16(im.image->data + 8, 16);                   /* below the header */
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_HDR_SIZE);
    payload_mcuboot_clear(&im);
}

static void test_img_size_huge(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;

    build(&im, 1, 32, 500);
    t_put32(im.image->data + 12, 0xffffffffu);
    t_put16(im.image->data + 10, 0xffff);              /* and protected TLVs */
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_IMG_SIZE);
    g_assert_cmpuint(info.tlv_start, ==, (guint64)32 + 0xffffffffu);   /* no wrap-around */
    g_assert_cmpuint(info.hashed_len, ==, (guint64)32 + 0xffffffffu + 0xffff);
    g_assert_cmpuint(info.n_tlvs, ==, 0);
    g_assert_false(v.computed);
    payload_mcuboot_clear(&im);
}

static void test_tlv_past_end(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;
    guint32 sig_off;

    build(&im, 1, 32, 500);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    sig_off = info.tlvs[2].offset;

    /* The Ed25519 TLV claims 200 bytes: past the area. */
    t_put16(im.image->data + sig_off + 2, 200);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_PAST_END);
    g_assert_cmpuint(info.n_tlvs, ==, 3);
    g_assert_true(info.tlvs[2].past_end);
    g_assert_null(mcuboot_tlv_value(im.image->data, &info, 2));
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_BAD);        /* unusable Ed25519 TLV */
    mcuboot_verify(im.image->data, &info, NULL, &v);
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_NOT_CHECKED);

    /* The image cut inside a TLV (download stopped early, say). */
    t_put16(im.image->data + sig_off + 2, 64);
    check(im.image->data, im.image->len - 10, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_TOT);           /* area runs past the image */
    g_assert_true(info.problems & MCUBOOT_P_TLV_PAST_END);
    g_assert_true(info.tlvs[2].past_end);

    /* A TLV header itself cut by the end: 2 bytes of a 4-byte header. */
    check(im.image->data, sig_off + 2, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_PAST_END);
    g_assert_cmpuint(info.n_tlvs, ==, 2);
    payload_mcuboot_clear(&im);
}

static void test_tlv_tot_inconsistent(void)
{
    mcuboot_image_t im;
    mcuboot_image_info_t info;
    mcuboot_verify_t v;
    guint32 area;

    build(&im, 1, 32, 500);
    area = 32 + 500;

    /* Larger than what follows. */
    t_put16(im.image->data + area + 2, 144 + 50);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_TOT);
    g_assert_cmpuint(info.n_tlvs, ==, 3);                       /* still walked to the end */
    g_assert_cmpint(v.signature, ==, MCUBOOT_CHECK_GOOD);

    /* Smaller: the signature TLV crosses the area's end, bytes trail. */
    t_put16(im.image->data + area + 2, 100);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_PAST_END);
    g_assert_true(info.problems & MCUBOOT_P_TRAILING);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_GOOD);

    /* Below the 4-byte info. */
    t_put16(im.image->data + area + 2, 2);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_TOT);
    g_assert_cmpuint(info.n_tlvs, ==, 0);

    /* A bad TLV info magic. */
    t_put16(im.image->data + area + 2, 144);
    t_put16(im.image->data + area, 0x1234);
    check(im.image->data, im.image->len, im.pubkey, &info, &v);
    g_assert_true(info.problems & MCUBOOT_P_TLV_INFO);
    g_assert_cmpuint(info.n_tlvs, ==, 0);
    g_assert_cmpint(v.sha256, ==, MCUBOOT_CHECK_ABSENT);
    payload_mcuboot_clear(&im);
}

static void test_many_tlvs(void)
{
    /* 100 zero-length TLVs: only MCUBOOT_MAX_TLVS are kept. */
    guint32 n = 100, len = 32 + 4 + 4 * n;
    guint8 *img = g_malloc0(len);
    mcuboot_image_info_t info;

    t_put32(img, MCUBOOT_MAGIC);
    t_put16(img + 8, 32);
    t_put16(img + 32, MCUBOOT_TLV_INFO);
    t_put16(img + 34, (guint16)(4 + 4 * n));
    for (guint32 i = 0; i < n; i++)
        t_put16(img + 36 + 4 * i, 0x7f00);
    mcuboot_parse(img, len, &info);
    g_assert_cmpuint(info.n_tlvs, ==, MCUBOOT_MAX_TLVS);
    g_assert_true(info.problems & MCUBOOT_P_TOO_MANY_TLVS);
    g_free(img);
}

/* Random corruption and truncation never reads out of bounds (run under
 * valgrind or ASan to make that visible) and never claims a good signature. */
static void test_random_corruption(void)
{
    mcuboot_image_t im;
    GRand *r = g_rand_new_with_seed(42);

    build(&im, 5, 32, 300);
    for (int round = 0; round < 2000; round++) {
        guint len = (guint)g_rand_int_range(r, 0, (gint32)im.image->len + 1);
        guint8 *copy = g_memdup2(im.image->data, len ? len : 1);
        mcuboot_image_info_t info;
        mcuboot_verify_t v;
        int flips = g_rand_int_range(r, 1, 4);
        gboolean changed = FALSE;

        for (int f = 0; f < flips && len > 0; f++) {
            guint at = (guint)g_rand_int_range(r, 0, (gint32)len);
            guint8 bit = (guint8)(1u << g_rand_int_range(r, 0, 8));
            copy[at] ^= bit;
            changed = TRUE;
        }
        mcuboot_parse(copy, len, &info);
        mcuboot_verify(copy, &info, im.pubkey, &v);
        g_assert_cmpuint(info.n_tlvs, <=, MCUBOOT_MAX_TLVS);
        if (v.signature == MCUBOOT_CHECK_GOOD && changed && len == im.image->len)
            /* Only flips outside the signed range and the signature (key
             * hash TLV or TLV headers) may leave it good. */
            g_assert_cmpmem(v.sha256_computed, 32, im.sha256, 32);
        g_free(copy);
    }
    g_rand_free(r);
    payload_mcuboot_clear(&im);
}

static void test_pubkey_hex(void)
{
    guint8 k[32];

    g_assert_true(mcuboot_parse_pubkey_hex(
        "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF", k));
    g_assert_cmphex(k[0], ==, 0x00);
    g_assert_cmphex(k[10], ==, 0xaa);
    g_assert_cmphex(k[31], ==, 0xff);
    g_assert_true(mcuboot_parse_pubkey_hex(
        "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff 00112233445566778899aabbccddeeff", k));
    g_assert_false(mcuboot_parse_pubkey_hex("", k));
    g_assert_false(mcuboot_parse_pubkey_hex(
        "0100000000000000000000000000000000000000000000000000000000000000", k));
    g_assert_false(mcuboot_parse_pubkey_hex(NULL, k));
    g_assert_false(mcuboot_parse_pubkey_hex("0011", k));
    g_assert_false(mcuboot_parse_pubkey_hex(
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00", k));
    g_assert_false(mcuboot_parse_pubkey_hex(
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeef", k));
    g_assert_false(mcuboot_parse_pubkey_hex(
        "g0112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", k));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    sim_gcrypt_init();

    g_test_add_func("/mcuboot/generator-image", test_generator_image);
    g_test_add_func("/mcuboot/header-padding", test_header_padding);
    g_test_add_func("/mcuboot/header-from-tvb", test_header_from_tvb);
    g_test_add_func("/mcuboot/protected-tlvs", test_protected_tlvs);
    g_test_add_func("/mcuboot/sha256-and-signature-bad", test_sha256_and_signature_bad);
    g_test_add_func("/mcuboot/bad-magic", test_bad_magic);
    g_test_add_func("/mcuboot/short-image", test_short_image);
    g_test_add_func("/mcuboot/hdr-size-beyond-image", test_hdr_size_beyond_image);
    g_test_add_func("/mcuboot/img-size-huge", test_img_size_huge);
    g_test_add_func("/mcuboot/tlv-past-end", test_tlv_past_end);
    g_test_add_func("/mcuboot/tlv-tot-inconsistent", test_tlv_tot_inconsistent);
    g_test_add_func("/mcuboot/many-tlvs", test_many_tlvs);
    g_test_add_func("/mcuboot/random-corruption", test_random_corruption);
    g_test_add_func("/mcuboot/pubkey-hex", test_pubkey_hex);
    return g_test_run();
}
