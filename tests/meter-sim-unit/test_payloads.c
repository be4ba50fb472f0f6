/* test_payloads.c: unit tests of the CBOR encoder and the meter payloads.
 *
 * Encoder vectors are RFC 8949 Appendix A; config and SenML blobs are
 * compared with bytes worked out by hand from shared/meter-protocol.md;
 * the MCUboot image is checked field by field, its TLVs recomputed and its
 * Ed25519 signature (RFC 8032) verified independently with libgcrypt.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include <glib.h>
#include <gcrypt.h>

#include "cbor_enc.h"
#include "payloads.h"

/* ---- helpers ---------------------------------------------------------- */

static GByteArray *hex_bytes(const char *hex)
{
    GByteArray *b = g_byte_array_new();

    for (const char *p = hex; *p; ) {
        guint8 v;

        if (*p == ' ') {
            p++;
            continue;
        }
        g_assert_true(g_ascii_isxdigit(p[0]) && g_ascii_isxdigit(p[1]));
        v = (guint8)(g_ascii_xdigit_value(p[0]) << 4 |
                     g_ascii_xdigit_value(p[1]));
        g_byte_array_append(b, &v, 1);
        p += 2;
    }
    return b;
}

/* Compares and frees `got`. Spaces in `hex` are for readability only. */
static void assert_hex(GByteArray *got, const char *hex)
{
    GByteArray *want = hex_bytes(hex);

    g_assert_cmpmem(got->data, got->len, want->data, want->len);
    g_byte_array_unref(want);
    g_byte_array_unref(got);
}

/* memmem() is a GNU extension; this keeps the test plain C11. */
static gboolean contains(const GByteArray *b, const void *needle, gsize n)
{
    for (gsize i = 0; i + n <= b->len; i++)
        if (memcmp(b->data + i, needle, n) == 0)
            return TRUE;
    return FALSE;
}

static guint16 rd16(const guint8 *p)
{
    return (guint16)(p[0] | p[1] << 8);
}

static guint32 rd32(const guint8 *p)
{
    return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 |
           (guint32)p[3] << 24;
}

/* ---- CBOR encoder: RFC 8949 Appendix A -------------------------------- */

static void test_cbor_uint(void)
{
    static const struct { guint64 v; const char *hex; } vec[] = {
        { 0, "00" }, { 1, "01" }, { 10, "0a" }, { 23, "17" }, { 24, "1818" },
        { 25, "1819" }, { 100, "1864" }, { 255, "18ff" }, { 256, "190100" },
        { 1000, "1903e8" }, { 65535, "19ffff" }, { 65536, "1a00010000" },
        { 1000000, "1a000f4240" }, { 4294967295u, "1affffffff" },
        { G_GUINT64_CONSTANT(4294967296), "1b0000000100000000" },
        { G_GUINT64_CONSTANT(1000000000000), "1b000000e8d4a51000" },
        { G_MAXUINT64, "1bffffffffffffffff" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(vec); i++) {
        GByteArray *b = g_byte_array_new();

        cbor_put_uint(b, vec[i].v);
        assert_hex(b, vec[i].hex);
    }
}

static void test_cbor_int(void)
{
    static const struct { gint64 v; const char *hex; } vec[] = {
        { 0, "00" }, { 23, "17" }, { 24, "1818" }, { 1000000, "1a000f4240" },
        { -1, "20" }, { -10, "29" }, { -24, "37" }, { -25, "3818" },
        { -100, "3863" }, { -1000, "3903e7" },
        { G_MAXINT64, "1b7fffffffffffffff" },
        { G_MININT64, "3b7fffffffffffffff" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(vec); i++) {
        GByteArray *b = g_byte_array_new();

        cbor_put_int(b, vec[i].v);
        assert_hex(b, vec[i].hex);
    }
}

static void test_cbor_strings(void)
{
    static const guint8 four[] = { 1, 2, 3, 4 };
    GByteArray *b;

    b = g_byte_array_new();
    cbor_put_bytes(b, NULL, 0);
    assert_hex(b, "40");
    b = g_byte_array_new();
    cbor_put_bytes(b, four, sizeof four);
    assert_hex(b, "44 01020304");
    b = g_byte_array_new();
    cbor_put_text(b, "");
    assert_hex(b, "60");
    b = g_byte_array_new();
    cbor_put_text(b, "a");
    assert_hex(b, "61 61");
    b = g_byte_array_new();
    cbor_put_text(b, "IETF");
    assert_hex(b, "64 49455446");
    b = g_byte_array_new();
    cbor_put_text(b, "\"\\");
    assert_hex(b, "62 225c");
    b = g_byte_array_new();
    cbor_put_text(b, "\xc3\xbc");                 /* U+00FC */
    assert_hex(b, "62 c3bc");
    b = g_byte_array_new();
    cbor_put_text(b, "\xe6\xb0\xb4");             /* U+6C34 */
    assert_hex(b, "63 e6b0b4");
    /* 24 characters: the length moves out of the initial byte. */
    b = g_byte_array_new();
    cbor_put_text(b, "abcdefghijklmnopqrstuvwx");
    assert_hex(b, "7818 616263646566676869 6a6b6c6d6e6f70 7172737475767778");
}

static void test_cbor_containers(void)
{
    GByteArray *b;

    b = g_byte_array_new();
    cbor_put_array(b, 0);
    assert_hex(b, "80");

    b = g_byte_array_new();                 /* [1, 2, 3] */
    cbor_put_array(b, 3);
    cbor_put_uint(b, 1);
    cbor_put_uint(b, 2);
    cbor_put_uint(b, 3);
    assert_hex(b, "83 010203");

    b = g_byte_array_new();                 /* [1, [2, 3], [4, 5]] */
    cbor_put_array(b, 3);
    cbor_put_uint(b, 1);
    cbor_put_array(b, 2);
    cbor_put_uint(b, 2);
    cbor_put_uint(b, 3);
    cbor_put_array(b, 2);
    cbor_put_uint(b, 4);
    cbor_put_uint(b, 5);
    assert_hex(b, "83 01 820203 820405");

    b = g_byte_array_new();                 /* [1, 2, ..., 25] */
    cbor_put_array(b, 25);
    for (guint i = 1; i <= 25; i++)
        cbor_put_uint(b, i);
    assert_hex(b, "9819 0102030405060708090a0b0c0d0e0f1011121314151617"
                  "1818 1819");

    b = g_byte_array_new();
    cbor_put_map(b, 0);
    assert_hex(b, "a0");

    b = g_byte_array_new();                 /* {1: 2} */
    cbor_put_map(b, 1);
    cbor_put_uint(b, 1);
    cbor_put_uint(b, 2);
    assert_hex(b, "a1 0102");

    b = g_byte_array_new();                 /* {1: 2, 3: 4} */
    cbor_put_map(b, 2);
    cbor_put_uint(b, 1);
    cbor_put_uint(b, 2);
    cbor_put_uint(b, 3);
    cbor_put_uint(b, 4);
    assert_hex(b, "a2 01020304");

    b = g_byte_array_new();                 /* {"a": 1, "b": [2, 3]} */
    cbor_put_map(b, 2);
    cbor_put_text(b, "a");
    cbor_put_uint(b, 1);
    cbor_put_text(b, "b");
    cbor_put_array(b, 2);
    cbor_put_uint(b, 2);
    cbor_put_uint(b, 3);
    assert_hex(b, "a2 6161 01 6162 820203");
}

static void test_cbor_simple_float(void)
{
    static const struct { double v; const char *hex; } dbl[] = {
        { 1.1, "fb3ff199999999999a" },
        { 1.0e+300, "fb7e37e43c8800759c" },
        { -4.1, "fbc010666666666666" },
        { 0.0, "fb0000000000000000" },
        { 1.0, "fb3ff0000000000000" },
    };
    GByteArray *b;

    b = g_byte_array_new();
    cbor_put_bool(b, FALSE);
    assert_hex(b, "f4");
    b = g_byte_array_new();
    cbor_put_bool(b, TRUE);
    assert_hex(b, "f5");

    for (gsize i = 0; i < G_N_ELEMENTS(dbl); i++) {
        b = g_byte_array_new();
        cbor_put_double(b, dbl[i].v);
        assert_hex(b, dbl[i].hex);
    }
    b = g_byte_array_new();
    cbor_put_double(b, -INFINITY);
    assert_hex(b, "fbfff0000000000000");

    b = g_byte_array_new();
    cbor_put_float(b, 100000.0f);
    assert_hex(b, "fa47c35000");
    b = g_byte_array_new();
    cbor_put_float(b, 3.4028234663852886e+38f);
    assert_hex(b, "fa7f7fffff");
    b = g_byte_array_new();
    cbor_put_float(b, INFINITY);
    assert_hex(b, "fa7f800000");
}

static void test_cbor_head(void)
{
    GByteArray *b;

    b = g_byte_array_new();               /* tag 1 (epoch time) head */
    cbor_put_head(b, 6, 1);
    assert_hex(b, "c1");
    b = g_byte_array_new();               /* simple value 24 needs 1 byte */
    cbor_put_head(b, 7, 24);
    assert_hex(b, "f818");
    b = g_byte_array_new();               /* absurd declared byte length */
    cbor_put_head(b, 2, G_MAXUINT32);
    assert_hex(b, "5affffffff");
}

/* ---- config blob ------------------------------------------------------ */

static void fill_config(meter_config_t *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->device_id, "m1");
    c->config_version = 7;
    c->sample_interval = 900;
    c->upload_interval = 86400;
    strcpy(c->history_path, "meter/his");
    c->meter_kind = 1;
    c->pulse_factor = 0.5;
    strcpy(c->unit, "l");
    c->utc_offset = -60;
    strcpy(c->fw_version, "v2.1.0");
    strcpy(c->fw_path, "fw/a.img");
    c->fw_size = 524288;
    for (guint i = 0; i < 32; i++)
        c->fw_sha256[i] = (guint8)i;
    c->block_szx = 6;
    c->ack_timeout_ms = 2000;
    strcpy(c->points[0].name, "volume");
    strcpy(c->points[0].point_id, "p-1");
    strcpy(c->points[0].unit, "l");
    c->n_points = 1;
    strcpy(c->auth_token, "ABCDEFGHIJKL");
}

static void test_config_blob(void)
{
    meter_config_t c;

    fill_config(&c);
    /* Worked out by hand from the key table in meter-protocol.md. */
    assert_hex(payload_config_encode(&c),
        "ae"                                   /* map, 14 pairs */
        "01 62 6d31"                           /* device_id "m1" */
        "02 07"                                /* config_version */
        "03 19 0384"                           /* sample_interval 900 */
        "04 1a 00015180"                       /* upload_interval 86400 */
        "05 69 6d657465722f686973"             /* "meter/his" */
        "06 01"                                /* meter_kind water */
        "07 fb 3fe0000000000000"               /* pulse_factor 0.5 */
        "08 61 6c"                             /* unit "l" */
        "09 38 3b"                             /* utc_offset -60 */
        "0a a4"                                /* firmware {4 pairs} */
        "  01 66 76322e312e30"                 /* "v2.1.0" */
        "  02 68 66772f612e696d67"             /* "fw/a.img" */
        "  03 1a 00080000"                     /* size 524288 */
        "  04 5820 000102030405060708090a0b0c0d0e0f"
        "          101112131415161718191a1b1c1d1e1f"
        "0b 06"                                /* block_szx */
        "0c 19 07d0"                           /* ack_timeout_ms 2000 */
        "0d 81 a3"                             /* points [{...}] */
        "  01 66 766f6c756d65"                 /* "volume" */
        "  02 63 702d31"                       /* "p-1" */
        "  03 61 6c"                           /* "l" */
        "0e 6c 4142434445464748494a4b4c");     /* auth_token */
}

static void test_config_edges(void)
{
    meter_config_t c;
    GByteArray *b;
    static const guint8 no_points[] = { 0x0d, 0x80, 0x0e, 0x6c };
    static const guint8 full_unit[] = { 0x08, 0x68, 'A', 'B', 'C', 'D',
                                        'E', 'F', 'G', 'H', 0x09 };

    fill_config(&c);
    c.n_points = 0;
    c.utc_offset = 330;                 /* positive: major 0 */
    memcpy(c.unit, "ABCDEFGH", 8);      /* no NUL: bounded by the field */
    b = payload_config_encode(&c);
    g_assert_cmpuint(b->data[0], ==, 0xae);
    g_assert_true(contains(b, no_points, sizeof no_points));
    g_assert_true(contains(b, full_unit, sizeof full_unit));
    g_assert_true(contains(b, "\x09\x19\x01\x4a", 4));
    g_byte_array_unref(b);

    /* Four points, the maximum. */
    fill_config(&c);
    for (guint i = 1; i < 4; i++)
        c.points[i] = c.points[0];
    c.n_points = 4;
    b = payload_config_encode(&c);
    g_assert_true(contains(b, "\x0d\x84\xa3\x01", 4));
    g_byte_array_unref(b);
}

/* ---- SenML pack ------------------------------------------------------- */

static void test_senml_pack(void)
{
    static const senml_sample_t s[] = {
        { 1700000000.0, 12345.0 },
        { 1700000900.0, 12346.5 },
        { 1700001800.5, 12350.0 },
    };
    senml_pack_t pk = { .eui64 = G_GUINT64_CONSTANT(0x0011223344556677),
                        .samples = s, .n_samples = G_N_ELEMENTS(s) };

    strcpy(pk.name, "energy");
    strcpy(pk.unit, "Wh");
    assert_hex(payload_senml_encode(&pk),
        "83"
        "a6"
        "  21 781d 75726e3a6465763a6d61633a"   /* bn "urn:dev:mac:" */
        "          30303131323233333434353536363737 3a"
        "  22 1a 6553f100"                     /* bt 1700000000 */
        "  00 66 656e65726779"                 /* n "energy" */
        "  01 62 5768"                         /* u "Wh" */
        "  02 fb 40c81c8000000000"             /* v 12345.0 */
        "  06 00"                              /* t 0 */
        "a4"
        "  00 66 656e65726779 01 62 5768"
        "  02 fb 40c81d4000000000"             /* v 12346.5 */
        "  06 19 0384"                         /* t 900 */
        "a4"
        "  00 66 656e65726779 01 62 5768"
        "  02 fb 40c81f0000000000"             /* v 12350.0 */
        "  06 fb 409c220000000000");           /* t 1800.5 */
}

static void test_senml_edges(void)
{
    static const senml_sample_t s[] = { { 1700000000.25, 1.0 } };
    senml_pack_t pk = { .eui64 = G_GUINT64_CONSTANT(0xfedcba9876543210),
                        .samples = s, .n_samples = 1 };
    GByteArray *b;

    strcpy(pk.name, "volume");
    strcpy(pk.unit, "m3");
    b = payload_senml_encode(&pk);
    /* Lowercase hex in bn; fractional bt as a double. */
    g_assert_true(contains(b, "urn:dev:mac:fedcba9876543210:", 29));
    g_assert_true(contains(b, "\x22\xfb\x41\xd9\x54\xfc\x40\x10\x00\x00", 10));
    g_assert_cmpuint(b->data[0], ==, 0x81);
    g_assert_cmpuint(b->data[1], ==, 0xa6);
    g_byte_array_unref(b);

    pk.n_samples = 0;
    assert_hex(payload_senml_encode(&pk), "80");
}

/* ---- MCUboot image ---------------------------------------------------- */

static const mcuboot_params_t fw_params = {
    .major = 2, .minor = 1, .revision = 0x0304, .build = 0x05060708,
    .load_addr = 0x00020000, .hdr_size = 64, .body_size = 1001,
    .flags = 0x00000010, .body_seed = 0,
};

static void build_ok(const mcuboot_params_t *p, guint64 key_seed,
                     mcuboot_image_t *img)
{
    GError *err = NULL;

    g_assert_true(payload_mcuboot_build(p, key_seed, img, &err));
    g_assert_no_error(err);
    g_assert_nonnull(img->image);
}

static void test_mcuboot_header(void)
{
    mcuboot_image_t img;
    const guint8 *d;
    /* splitmix64 reference outputs for state 0: 0xe220a8397b1dcdaf, ... */
    static const guint8 body0[] = { 0xaf, 0xcd, 0x1d, 0x7b, 0x39, 0xa8, 0x20,
                                    0xe2, 0xf4, 0x65, 0xb9, 0xa1 };

    build_ok(&fw_params, 1, &img);
    d = img.image->data;
    g_assert_cmphex(rd32(d + 0), ==, 0x96f3b83d);
    g_assert_cmphex(rd32(d + 4), ==, 0x00020000);
    g_assert_cmpuint(rd16(d + 8), ==, 64);
    g_assert_cmpuint(rd16(d + 10), ==, 0);           /* protect_tlv_size */
    g_assert_cmpuint(rd32(d + 12), ==, 1001);        /* img_size */
    g_assert_cmphex(rd32(d + 16), ==, 0x10);
    g_assert_cmpuint(d[20], ==, 2);
    g_assert_cmpuint(d[21], ==, 1);
    g_assert_cmphex(rd16(d + 22), ==, 0x0304);
    g_assert_cmphex(rd32(d + 24), ==, 0x05060708);
    g_assert_cmpuint(rd32(d + 28), ==, 0);           /* pad */
    for (guint i = 32; i < 64; i++)
        g_assert_cmpuint(d[i], ==, 0);
    g_assert_cmpmem(d + 64, sizeof body0, body0, sizeof body0);
    payload_mcuboot_clear(&img);
    g_assert_null(img.image);
}

static void test_mcuboot_tlvs(void)
{
    mcuboot_image_t img;
    const guint8 *d;
    guint len, off, end, hb;
    guint8 h[32];
    gboolean seen_key = FALSE, seen_sha = FALSE, seen_sig = FALSE;

    build_ok(&fw_params, 1, &img);
    d = img.image->data;
    len = img.image->len;
    hb = rd16(d + 8) + rd32(d + 12);                 /* header + body */

    g_assert_cmphex(rd16(d + hb), ==, 0x6907);
    end = hb + rd16(d + hb + 2);
    g_assert_cmpuint(end, ==, len);                  /* tlv_tot spans all */

    gcry_md_hash_buffer(GCRY_MD_SHA256, h, d, hb);
    g_assert_cmpmem(h, 32, img.sha256, 32);

    for (off = hb + 4; off + 4 <= end; ) {
        guint16 type = rd16(d + off), tl = rd16(d + off + 2);
        const guint8 *v = d + off + 4;

        g_assert_cmpuint(off + 4 + tl, <=, end);
        switch (type) {
        case 0x01:
            g_assert_cmpuint(tl, ==, 32);
            gcry_md_hash_buffer(GCRY_MD_SHA256, h, img.pubkey, 32);
            g_assert_cmpmem(v, tl, h, 32);
            seen_key = TRUE;
            break;
        case 0x10:
            g_assert_cmpuint(tl, ==, 32);
            gcry_md_hash_buffer(GCRY_MD_SHA256, h, d, hb);
            g_assert_cmpmem(v, tl, h, 32);
            seen_sha = TRUE;
            break;
        case 0x24:
            g_assert_cmpmem(v, tl, img.signature, 64);
            seen_sig = TRUE;
            break;
        default:
            g_assert_not_reached();
        }
        off += 4 + tl;
    }
    g_assert_cmpuint(off, ==, len);                  /* walk ends exactly */
    g_assert_true(seen_key && seen_sha && seen_sig);
    payload_mcuboot_clear(&img);
}

static gcry_error_t ed25519_verify(const guint8 pub[32], const guint8 *msg,
                                   gsize n, const guint8 sig[64])
{
    gcry_sexp_t k = NULL, m = NULL, s = NULL;
    gcry_error_t e;

    g_assert_cmpint(gcry_sexp_build(&k, NULL,
        "(public-key (ecc (curve Ed25519) (flags eddsa) (q %b)))",
        32, pub), ==, 0);
    g_assert_cmpint(gcry_sexp_build(&m, NULL,
        "(data (flags eddsa) (hash-algo sha512) (value %b))",
        (int)n, msg), ==, 0);
    g_assert_cmpint(gcry_sexp_build(&s, NULL,
        "(sig-val (eddsa (r %b) (s %b)))", 32, sig, 32, sig + 32), ==, 0);
    e = gcry_pk_verify(s, m, k);
    gcry_sexp_release(k);
    gcry_sexp_release(m);
    gcry_sexp_release(s);
    return e;
}

static void test_mcuboot_signature(void)
{
    mcuboot_image_t img;
    guint8 digest[32], sig[64];

    build_ok(&fw_params, 1, &img);
    g_assert_cmpint(ed25519_verify(img.pubkey, img.sha256, 32, img.signature),
                    ==, 0);

    memcpy(digest, img.sha256, 32);
    digest[31] ^= 0x01;
    g_assert_cmpint(gcry_err_code(ed25519_verify(img.pubkey, digest, 32,
                                                 img.signature)),
                    ==, GPG_ERR_BAD_SIGNATURE);

    memcpy(sig, img.signature, 64);
    sig[40] ^= 0x80;
    g_assert_cmpint(ed25519_verify(img.pubkey, img.sha256, 32, sig), !=, 0);
    payload_mcuboot_clear(&img);
}

static void test_mcuboot_determinism(void)
{
    mcuboot_image_t a, b, c, k;
    mcuboot_params_t p2 = fw_params;
    guint hb = fw_params.hdr_size + fw_params.body_size;

    build_ok(&fw_params, 1, &a);
    build_ok(&fw_params, 1, &b);
    g_assert_cmpmem(a.image->data, a.image->len, b.image->data, b.image->len);
    g_assert_cmpmem(a.signature, 64, b.signature, 64);

    /* Another body seed: another body and digest, same key. */
    p2.body_seed = 42;
    build_ok(&p2, 1, &c);
    g_assert_cmpuint(c.image->len, ==, a.image->len);
    g_assert_false(memcmp(a.image->data + 64, c.image->data + 64,
                          fw_params.body_size) == 0);
    g_assert_false(memcmp(a.sha256, c.sha256, 32) == 0);
    g_assert_cmpmem(a.pubkey, 32, c.pubkey, 32);

    /* Another key seed: same header and body, another key and signature. */
    build_ok(&fw_params, 2, &k);
    g_assert_cmpmem(a.image->data, hb, k.image->data, hb);
    g_assert_false(memcmp(a.pubkey, k.pubkey, 32) == 0);
    g_assert_false(memcmp(a.signature, k.signature, 64) == 0);
    g_assert_cmpint(ed25519_verify(k.pubkey, k.sha256, 32, k.signature),
                    ==, 0);
    g_assert_cmpint(ed25519_verify(a.pubkey, k.sha256, 32, k.signature),
                    !=, 0);

    payload_mcuboot_clear(&a);
    payload_mcuboot_clear(&b);
    payload_mcuboot_clear(&c);
    payload_mcuboot_clear(&k);
}

static void test_mcuboot_sizes(void)
{
    mcuboot_image_t img;
    mcuboot_params_t p = fw_params;
    GError *err = NULL;

    /* Minimal header and an empty body still give a well-formed image. */
    p.hdr_size = 32;
    p.body_size = 0;
    build_ok(&p, 7, &img);
    g_assert_cmpuint(img.image->len, ==, 32 + 4 + 36 + 36 + 68);
    g_assert_cmphex(rd16(img.image->data + 32), ==, 0x6907);
    g_assert_cmpint(ed25519_verify(img.pubkey, img.sha256, 32, img.signature),
                    ==, 0);
    payload_mcuboot_clear(&img);

    /* A header shorter than 32 bytes cannot be built. */
    p.hdr_size = 16;
    g_assert_false(payload_mcuboot_build(&p, 7, &img, &err));
    g_assert_nonnull(err);
    g_assert_null(img.image);
    g_clear_error(&err);
    payload_mcuboot_clear(&img);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    /* The tests hash with libgcrypt themselves; payloads.c finishes the
     * initialisation on first use. */
    gcry_check_version(NULL);

    g_test_add_func("/cbor/uint", test_cbor_uint);
    g_test_add_func("/cbor/int", test_cbor_int);
    g_test_add_func("/cbor/strings", test_cbor_strings);
    g_test_add_func("/cbor/containers", test_cbor_containers);
    g_test_add_func("/cbor/simple-float", test_cbor_simple_float);
    g_test_add_func("/cbor/head", test_cbor_head);
    g_test_add_func("/payloads/config/blob", test_config_blob);
    g_test_add_func("/payloads/config/edges", test_config_edges);
    g_test_add_func("/payloads/senml/pack", test_senml_pack);
    g_test_add_func("/payloads/senml/edges", test_senml_edges);
    g_test_add_func("/payloads/mcuboot/header", test_mcuboot_header);
    g_test_add_func("/payloads/mcuboot/tlvs", test_mcuboot_tlvs);
    g_test_add_func("/payloads/mcuboot/signature", test_mcuboot_signature);
    g_test_add_func("/payloads/mcuboot/determinism", test_mcuboot_determinism);
    g_test_add_func("/payloads/mcuboot/sizes", test_mcuboot_sizes);
    return g_test_run();
}
