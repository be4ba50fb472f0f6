/* test_ota_size.c: the image size the tracker gives a firmware transfer
 * (core/ota_track_rounds.c, learn_size) when neither the meter's config blob nor
 * Size2 tells it: the MCUboot header of block 0 gives a lower bound
 * (hdr_size + img_size + the 4-byte TLV info) until the block with the
 * TLV info has come, then the image's whole length, TLV area included.
 * The image is the capture generator's (captures/meter-sim/payloads.c); the
 * messages are fed as the hook feeds a gateway-side capture (no 802.15.4).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <arpa/inet.h>
#include <glib.h>
#include <epan/address.h>
#include <epan/tvbuff.h>
#include <wsutil/wmem/wmem.h>
#include "ota_track.h"
#include "payloads.h"

#define M_IP "fd00::1"
#define G_IP "fd00::3"
#define MS   1000
#define SZX  2                       /* 64-byte blocks */
#define BODY 200                     /* the TLV info at 32 + 200 = 232: in block 3 */

typedef struct {
    wmem_allocator_t *scope;
    ota_track_t *t;
    guint32 frame;
    gint64 us;
    GPtrArray *tvbs;
    mcuboot_image_t img;
} fx_t;

static void fx_init(fx_t *fx)
{
    mcuboot_params_t p = { .major = 1, .hdr_size = 32, .body_size = BODY, .body_seed = 3 };
    GError *err = NULL;

    memset(fx, 0, sizeof *fx);
    fx->scope = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    fx->t = ota_track_new(fx->scope);
    fx->tvbs = g_ptr_array_new_with_free_func((GDestroyNotify)tvb_free);
    g_assert_true(payload_mcuboot_build(&p, 1, &fx->img, &err));
    g_assert_no_error(err);
    g_assert_cmpuint(fx->img.image->len, ==, 32 + BODY + 144);   /* the generator's TLV area: 144 bytes */
}

static void fx_done(fx_t *fx)
{
    payload_mcuboot_clear(&fx->img);
    g_ptr_array_free(fx->tvbs, TRUE);
    wmem_destroy_allocator(fx->scope);
}

static ota_copy_result_t *message(fx_t *fx, const char *ip_src, const char *ip_dst, const meter_coap_t *m)
{
    guint8 src_ip[16], dst_ip[16];
    address src, dst;
    ota_image_hints_t hints = { TRUE, -1 };     /* a firmware image; no size announced */

    g_assert_cmpint(inet_pton(AF_INET6, ip_src, src_ip), ==, 1);
    g_assert_cmpint(inet_pton(AF_INET6, ip_dst, dst_ip), ==, 1);
    set_address(&src, AT_IPv6, 16, src_ip);
    set_address(&dst, AT_IPv6, 16, dst_ip);
    fx->us += 50 * MS;
    coap_exchange_t *ex = ota_track_exchange(fx->t, m, ip_src, ip_dst, &src, &dst, ++fx->frame, fx->us, fx->scope);
    return ota_track_message(fx->t, NULL, fx->frame, fx->us, ip_src, ex, m, &hints);
}

static meter_coap_t coap(guint8 type, guint8 code, guint16 mid, guint32 num, gboolean more)
{
    meter_coap_t m;

    memset(&m, 0, sizeof m);
    m.type = type;
    m.code = code;
    m.mid = mid;
    m.token[0] = (guint8)(mid >> 8);
    m.token[1] = (guint8)mid;
    m.tkl = 2;
    m.path = "firmware/img";
    m.content_format = -1;
    m.size1 = m.size2 = -1;
    m.block2 = (meter_block_t){ TRUE, FALSE, num, more, SZX };
    return m;
}

/* Block num asked and answered with the image's bytes; the response's result. */
static ota_copy_result_t *exchange(fx_t *fx, guint16 mid, guint32 num, gint64 size2)
{
    const guint size = 16u << SZX, off = num * size, len = MIN(size, fx->img.image->len - off);
    meter_coap_t q = coap(0, 1, mid, num, FALSE);
    meter_coap_t a = coap(2, 69, mid, num, off + len < fx->img.image->len);

    a.payload = tvb_new_real_data(fx->img.image->data + off, len, len);
    a.size2 = size2;
    g_ptr_array_add(fx->tvbs, a.payload);
    message(fx, M_IP, G_IP, &q);
    return message(fx, G_IP, M_IP, &a);
}

/* The header's bound from block 0 on, the whole length once block 3 (the
 * TLV info) has come; the final block ends there and nothing counts more. */
static void test_bound_then_tlv_end(void)
{
    fx_t fx;
    fx_init(&fx);
    const gint64 bound = 32 + BODY + 4, whole = fx.img.image->len;
    guint32 n = (guint32)((whole + 63) / 64);

    for (guint32 num = 0; num < n; num++) {
        ota_copy_result_t *res = exchange(&fx, (guint16)(100 + num), num, -1);
        g_assert_nonnull(res);
        ota_msg_view_t v, *r = &v;
        ota_result_view(res, &v);
        g_assert_true(r->size_at_least);
        g_assert_cmpint(r->size_hint, ==, num < 3 ? bound : whole);
        g_assert_cmpuint(r->bytes_so_far, <=, (guint64)r->size_hint);
    }
    ota_track_finalize(fx.t, 60.0);
    const meter_transfer_record_t *s = ota_track_record(fx.t, 1);
    g_assert_true(s->complete);
    g_assert_cmpint(s->size_hint, ==, whole);
    g_assert_cmpuint(s->bytes, ==, (guint32)whole);
    fx_done(&fx);
}

/* Cut before the TLV info: the bound stays, and the ETA counts the blocks
 * up to it; Size2 later on replaces a bound (an exact size). */
static void test_bound_only_and_size2(void)
{
    fx_t fx;
    fx_init(&fx);
    const gint64 bound = 32 + BODY + 4;

    for (guint32 num = 0; num < 3; num++)
        exchange(&fx, (guint16)(200 + num), num, -1);
    ota_track_finalize(fx.t, 60.0);
    const meter_transfer_record_t *s = ota_track_record(fx.t, 1);
    g_assert_false(s->complete);
    g_assert_cmpint(s->size_hint, ==, bound);
    g_assert_cmpuint(s->bytes, ==, 192);
    g_assert_cmpfloat(s->eta_s, >=, 0);             /* one block more to the bound */

    ota_msg_view_t v;
    ota_result_view(exchange(&fx, 203, 3, 500), &v);     /* a Size2 after all */
    g_assert_false(v.size_at_least);
    g_assert_cmpint(v.size_hint, ==, 500);
    ota_result_view(exchange(&fx, 204, 4, -1), &v);      /* and it stays */
    g_assert_false(v.size_at_least);
    g_assert_cmpint(v.size_hint, ==, 500);
    fx_done(&fx);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    wmem_init();
    g_test_add_func("/ota_size/bound_then_tlv_end", test_bound_then_tlv_end);
    g_test_add_func("/ota_size/bound_only_and_size2", test_bound_only_and_size2);
    return g_test_run();
}
