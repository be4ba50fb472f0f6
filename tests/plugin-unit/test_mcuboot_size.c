/* test_mcuboot_size.c: an MCUboot image's size from the blocks of its
 * transfer (plugin/core/mcuboot_size.c), on the capture generator's images
 * (captures/meter-sim/payloads.c: header, body, TLV area) and on images made by
 * hand with a protected TLV area, at every block size and with the blocks
 * in and out of order: a lower bound until the TLV info's 4 bytes have
 * come, then the image's whole length; never more than that length.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>
#include <epan/tvbuff.h>

#include "mcuboot.h"
#include "mcuboot_size.h"
#include "payloads.h"

static void put16(guint8 *p, guint16 v)
{
    p[0] = (guint8)v;
    p[1] = (guint8)(v >> 8);
}

static void put32(guint8 *p, guint32 v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (guint8)(v >> (8 * i));
}

static void feed(mcuboot_size_t *s, const guint8 *img, gsize len, guint64 offset, gsize block)
{
    gsize n = MIN(block, len - offset);
    tvbuff_t *tvb = tvb_new_real_data(img + offset, (guint)n, (gint)n);

    mcuboot_size_feed(s, offset, tvb);
    tvb_free(tvb);
}

/* Feeds every block of the image in order and checks the answer after
 * each: at least `info_at + 4` while the TLV info is not whole, then len. */
static void walk(const guint8 *img, gsize len, guint64 info_at, gsize block)
{
    mcuboot_size_t s;
    gint64 size = -1;

    memset(&s, 0, sizeof s);
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_UNKNOWN);
    for (guint64 off = 0; off < len; off += block) {
        feed(&s, img, len, off, block);
        mcuboot_size_kind_t k = mcuboot_size_get(&s, &size);
        if (off + block < info_at + 4) {
            g_assert_cmpint(k, ==, MCUBOOT_SIZE_AT_LEAST);
            g_assert_cmpint(size, ==, (gint64)info_at + 4);
        } else {
            g_assert_cmpint(k, ==, MCUBOOT_SIZE_TLV_END);
            g_assert_cmpint(size, ==, (gint64)len);
        }
    }
}

/* The generator's image: no protected TLVs, the TLV area after the body. */
static void test_generator_images(void)
{
    for (guint32 body = 100; body <= 2100; body += 237) {
        mcuboot_params_t p = { .major = 2, .minor = 1, .hdr_size = 32, .body_size = body, .body_seed = body };
        mcuboot_image_t img;
        GError *err = NULL;

        g_assert_true(payload_mcuboot_build(&p, 7, &img, &err));
        g_assert_no_error(err);
        for (gsize block = 16; block <= 1024; block *= 2)
            walk(img.image->data, img.image->len, 32 + body, block);
        payload_mcuboot_clear(&img);
    }
}

/* hdr_size 64 (a padded header), a protected TLV area of 12 bytes (its
 * info 0x6908 with tot 12, one 8-byte TLV), then the TLV info with a 36-byte
 * TLV: 64 + body + 12 + 4 + 36. The TLV info is where the protected area
 * ends, not right after the body. */
static GByteArray *protected_image(guint32 body)
{
    guint32 info_at = 64 + body + 12, len = info_at + 4 + 36;
    GByteArray *a = g_byte_array_sized_new(len);
    guint8 *p;

    g_byte_array_set_size(a, len);
    p = a->data;
    memset(p, 0x5a, len);
    put32(p, MCUBOOT_MAGIC);
    put16(p + 8, 64);
    put16(p + 10, 12);
    put32(p + 12, body);
    put16(p + 64 + body, MCUBOOT_TLV_PROT_INFO);
    put16(p + 64 + body + 2, 12);
    put16(p + 64 + body + 4, MCUBOOT_TLV_SEC_CNT);
    put16(p + 64 + body + 6, 4);
    put16(p + info_at, MCUBOOT_TLV_INFO);
    put16(p + info_at + 2, 4 + 36);
    put16(p + info_at + 4, MCUBOOT_TLV_SHA256);
    put16(p + info_at + 6, 32);
    return a;
}

static void test_protected_area(void)
{
    for (guint32 body = 180; body < 200; body++) {    /* the TLV info at every place around a block edge */
        GByteArray *a = protected_image(body);
        for (gsize block = 16; block <= 256; block *= 2)
            walk(a->data, a->len, 64 + body + 12, block);
        g_byte_array_unref(a);
    }
}

/* Blocks out of order: the TLV info only counts once the header has said
 * where it lies; a block the header had not placed yet counts when it comes again. */
static void test_out_of_order(void)
{
    GByteArray *a = protected_image(200);
    guint64 info_at = 64 + 200 + 12;
    mcuboot_size_t s;
    gint64 size = -1;

    memset(&s, 0, sizeof s);
    feed(&s, a->data, a->len, 256, 64);              /* holds the TLV info, before block 0 */
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_UNKNOWN);
    feed(&s, a->data, a->len, 0, 64);
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_AT_LEAST);
    g_assert_cmpint(size, ==, (gint64)info_at + 4);
    feed(&s, a->data, a->len, 256, 64);              /* asked again */
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_TLV_END);
    g_assert_cmpint(size, ==, (gint64)a->len);
    g_byte_array_unref(a);
}

/* What is not an image, or an image whose TLV info is broken: no size, or
 * the header's bound (the fw dissector flags the image itself). */
static void test_not_usable(void)
{
    GByteArray *a = protected_image(200);
    guint64 info_at = 64 + 200 + 12;
    mcuboot_size_t s;
    gint64 size = -1;

    memset(&s, 0, sizeof s);
    feed(&s, a->data, 15, 0, 15);                    /* block 0 of 15 bytes: img_size not there */
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_UNKNOWN);
    feed(&s, a->data, a->len, 64, 64);               /* not block 0 */
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_UNKNOWN);

    a->data[0] ^= 0xff;                              /* not the MCUboot magic */
    memset(&s, 0, sizeof s);
    feed(&s, a->data, a->len, 0, a->len);
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_UNKNOWN);
    a->data[0] ^= 0xff;

    put16(a->data + info_at, 0x1234);                /* a TLV info with a wrong magic */
    memset(&s, 0, sizeof s);
    feed(&s, a->data, a->len, 0, a->len);
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_AT_LEAST);
    g_assert_cmpint(size, ==, (gint64)info_at + 4);

    put16(a->data + info_at, MCUBOOT_TLV_INFO);      /* tlv_tot shorter than the info itself */
    put16(a->data + info_at + 2, 3);
    memset(&s, 0, sizeof s);
    feed(&s, a->data, a->len, 0, a->len);
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_AT_LEAST);

    /* img_size 0xFFFFFFFF: a bound beyond any block, no overflow. */
    put32(a->data + 12, 0xffffffffu);
    memset(&s, 0, sizeof s);
    feed(&s, a->data, a->len, 0, a->len);
    g_assert_cmpint(mcuboot_size_get(&s, &size), ==, MCUBOOT_SIZE_AT_LEAST);
    g_assert_cmpint(size, ==, G_GINT64_CONSTANT(64) + 0xffffffffu + 12 + 4);
    g_byte_array_unref(a);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mcuboot_size/generator-images", test_generator_images);
    g_test_add_func("/mcuboot_size/protected-area", test_protected_area);
    g_test_add_func("/mcuboot_size/out-of-order", test_out_of_order);
    g_test_add_func("/mcuboot_size/not-usable", test_not_usable);
    return g_test_run();
}
