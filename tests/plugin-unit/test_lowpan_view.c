/* test_lowpan_view.c: the 6LoWPAN dispatch reader (RFC 4944 section 5 mesh
 * and FRAG1/FRAGN, LOWPAN_BC0; RFC 6282 IPHC and UDP NHC) on hand-built
 * headers: every IPHC address/traffic-class/hop-limit form, every UDP NHC
 * port form, the CoAP header found only for port 5683 (or the ports the
 * caller says carry CoAP), and every truncation
 * of every input read without touching a byte past the buffer (each tvb is
 * built from a heap copy of exactly the bytes given; a tvb accessor that
 * ran past it would throw, which aborts the test).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <glib.h>
#include <epan/tvbuff.h>
#include <wsutil/wmem/wmem.h>
#include "lowpan_view.h"

#define COAP_PORT 5683

/* Parses buf[0, n) as a tvb of exactly n bytes (a heap copy, so that a raw
 * read past it would also show under valgrind/ASan). */
static gboolean parse_ports(const guint8 *buf, gsize n, gint offset, gint length, lowpan_coap_port_fn ports,
                            lowpan_view_t *lv)
{
    guint8 *copy = g_memdup2(buf, n ? n : 1);
    tvbuff_t *tvb = tvb_new_real_data(copy, (guint)n, (gint)n);
    gboolean ok = lowpan_view_parse(tvb, offset, length, ports, lv);

    tvb_free(tvb);
    g_free(copy);
    return ok;
}

static gboolean parse_at(const guint8 *buf, gsize n, gint offset, gint length, lowpan_view_t *lv)
{
    return parse_ports(buf, n, offset, length, NULL, lv);
}

static gboolean parse(const guint8 *buf, gsize n, lowpan_view_t *lv)
{
    return parse_at(buf, n, 0, (gint)n, lv);
}

/* ---- a builder for IPHC + UDP + CoAP headers ---- */

typedef struct {
    guint tf, nh, hlim, cid, sac, sam, m, dac, dam;
    gint  udp;                   /* NHC ports form P (0..3); -1: NH=0, inline UDP header */
    guint next_header;           /* NH=0: the inline Next Header (17 unless testing) */
    gboolean csum_elided;
    guint16 sport, dport;        /* the ports the UDP header stands for */
    guint8  coap0;               /* first CoAP byte (version/type/TKL) */
} iphc_t;

static const gint tf_len[4] = { 4, 3, 1, 0 };

static gint src_bytes(guint sac, guint sam)
{
    static const gint stateless[4] = { 16, 8, 2, 0 }, stateful[4] = { 0, 8, 2, 0 };
    return sac ? stateful[sam] : stateless[sam];
}

/* -1: a reserved combination */
static gint dst_bytes(guint m, guint dac, guint dam)
{
    static const gint uni[4] = { 16, 8, 2, 0 }, uni_ctx[4] = { -1, 8, 2, 0 };
    static const gint multi[4] = { 16, 6, 4, 1 }, multi_ctx[4] = { 6, -1, -1, -1 };
    if (!m)
        return dac ? uni_ctx[dam] : uni[dam];
    return dac ? multi_ctx[dam] : multi[dam];
}

static void fill(GByteArray *a, gint n, guint8 v)
{
    for (gint i = 0; i < n; i++)
        g_byte_array_append(a, &v, 1);
}

static void put8(GByteArray *a, guint8 v) { g_byte_array_append(a, &v, 1); }
static void put16(GByteArray *a, guint16 v) { put8(a, v >> 8); put8(a, v & 0xff); }

/* Appends the IPHC header, UDP header and a 4-byte CoAP header (MID 0xbeef,
 * code 0x45) plus one payload byte; returns the CoAP header's offset. */
static gint build_iphc(GByteArray *a, const iphc_t *h)
{
    gint dl = dst_bytes(h->m, h->dac, h->dam);

    put8(a, (guint8)(0x60 | h->tf << 3 | (h->udp >= 0) << 2 | h->hlim));
    put8(a, (guint8)(h->cid << 7 | h->sac << 6 | h->sam << 4 | h->m << 3 | h->dac << 2 | h->dam));
    if (h->cid)
        put8(a, 0x12);
    fill(a, tf_len[h->tf], 0xa5);
    if (h->udp < 0)
        put8(a, (guint8)h->next_header);
    if (h->hlim == 0)
        put8(a, 64);
    fill(a, src_bytes(h->sac, h->sam), 0x11);
    fill(a, dl < 0 ? 0 : dl, 0x22);   /* reserved: nothing, so a reader that took it finds CoAP */
    switch (h->udp) {
    case -1:
        put16(a, h->sport);
        put16(a, h->dport);
        put16(a, 12);
        put16(a, 0xcafe);
        break;
    case 0:
        put8(a, (guint8)(0xf0 | h->csum_elided << 2 | 0));
        put16(a, h->sport);
        put16(a, h->dport);
        break;
    case 1:
        g_assert_cmpuint(h->dport & 0xff00, ==, 0xf000);
        put8(a, (guint8)(0xf0 | h->csum_elided << 2 | 1));
        put16(a, h->sport);
        put8(a, h->dport & 0xff);
        break;
    case 2:
        g_assert_cmpuint(h->sport & 0xff00, ==, 0xf000);
        put8(a, (guint8)(0xf0 | h->csum_elided << 2 | 2));
        put8(a, h->sport & 0xff);
        put16(a, h->dport);
        break;
    default:
        g_assert_cmpuint(h->sport & 0xfff0, ==, 0xf0b0);
        g_assert_cmpuint(h->dport & 0xfff0, ==, 0xf0b0);
        put8(a, (guint8)(0xf0 | h->csum_elided << 2 | 3));
        put8(a, (guint8)((h->sport & 15) << 4 | (h->dport & 15)));
        break;
    }
    if (h->udp >= 0 && !h->csum_elided)
        put16(a, 0x1234);
    gint coap = (gint)a->len;
    put8(a, h->coap0);
    put8(a, 0x45);
    put16(a, 0xbeef);
    put8(a, 0xff);
    return coap;
}

static gboolean expect_coap(const iphc_t *h)
{
    return dst_bytes(h->m, h->dac, h->dam) >= 0 && (h->udp >= 0 || h->next_header == 17) &&
           (h->sport == COAP_PORT || h->dport == COAP_PORT) && (h->coap0 >> 6) == 1;
}

/* Every prefix of buf: no exception, and the view is what the prefix holds:
 * CoAP only once its 4 header bytes are all inside.
 * frag_hdr is the fragment header's size before the IPHC (0: unfragmented). */
static void check_prefixes(const guint8 *buf, gsize n, gint coap_at, gboolean coap, gsize frag_hdr,
                           guint8 code, guint16 mid)
{
    for (gsize k = 0; k <= n; k++) {
        lowpan_view_t lv;
        gboolean ok = parse(buf, k, &lv);
        if (k == 0 || k < frag_hdr) {
            g_assert_false(ok);
            continue;
        }
        g_assert_true(ok);
        g_assert_cmpint(lv.has_coap, ==, coap && (gint)k >= coap_at + 4);
        if (lv.has_coap) {
            g_assert_cmpuint(lv.coap_mid, ==, mid);
            g_assert_cmpuint(lv.coap_code, ==, code);
        }
        if (frag_hdr) {
            g_assert_true(lv.is_frag);
            g_assert_cmpint(lv.data_offset, ==, (gint)frag_hdr);
            g_assert_cmpint(lv.data_len, ==, (gint)(k - frag_hdr));
            /* FRAG1's span: IPv6 40 + UDP 8 + what follows, once the UDP
             * header is all there; unknown (0) before. */
            g_assert_cmpuint(lv.frag1_span, ==, coap && (gint)k >= coap_at ? 48 + (gint)k - coap_at : 0);
        } else {
            g_assert_cmpuint(lv.frag1_span, ==, 0);
        }
    }
}

/* Every IPHC form (TF, NH, HLIM, CID, SAC/SAM, M/DAC/DAM) with every UDP
 * form, unfragmented and in a FRAG1, each at every length. */
static void test_iphc_all_forms(void)
{
    static const struct { gint udp; guint16 sport, dport; gboolean coap; } ports[] = {
        { -1, 49152, COAP_PORT, TRUE },  { -1, COAP_PORT, 49152, TRUE },  { -1, 5684, 5684, FALSE },
        { 0, 49152, COAP_PORT, TRUE },   { 0, COAP_PORT, 1234, TRUE },    { 0, 5684, 5682, FALSE },
        { 1, COAP_PORT, 0xf012, TRUE },  { 1, 5684, 0xf012, FALSE },
        { 2, 0xf0b3, COAP_PORT, TRUE },  { 2, 0xf016, 0x1633 + 1, FALSE },
        { 3, 0xf0b3, 0xf0b3, FALSE },    /* 4-bit ports can never be 5683 */
    };
    guint n_checked = 0, n_coap = 0;

    for (guint tf = 0; tf < 4; tf++)
    for (guint hlim = 0; hlim < 4; hlim++)
    for (guint cid = 0; cid < 2; cid++)
    for (guint sac = 0; sac < 2; sac++)
    for (guint sam = 0; sam < 4; sam++)
    for (guint m = 0; m < 2; m++)
    for (guint dac = 0; dac < 2; dac++)
    for (guint dam = 0; dam < 4; dam++)
    for (guint p = 0; p < G_N_ELEMENTS(ports); p++)
    for (guint csum = 0; csum < 2; csum++) {
        if (ports[p].udp < 0 && csum)
            continue;
        iphc_t h = { tf, ports[p].udp >= 0, hlim, cid, sac, sam, m, dac, dam, ports[p].udp, 17,
                     csum, ports[p].sport, ports[p].dport, 0x40 };
        GByteArray *a = g_byte_array_new();
        gint coap_at = build_iphc(a, &h);
        gboolean coap = expect_coap(&h);
        lowpan_view_t lv;

        g_assert_cmpint(coap, ==, ports[p].coap && dst_bytes(m, dac, dam) >= 0);
        g_assert_true(parse(a->data, a->len, &lv));
        g_assert_false(lv.is_frag);
        g_assert_false(lv.has_mesh);
        g_assert_cmpint(lv.has_coap, ==, coap);
        g_assert_cmpuint(lv.frag1_span, ==, 0);
        if (coap) {
            g_assert_cmpuint(lv.coap_type, ==, 0);
            g_assert_cmpuint(lv.coap_code, ==, 0x45);
            g_assert_cmpuint(lv.coap_mid, ==, 0xbeef);
            n_coap++;
        }
        /* The full prefix sweep on a subset keeps the run short. */
        if ((tf == 0 || tf == 3) && (hlim == 0 || hlim == 3) && sam != 1)
            check_prefixes(a->data, a->len, coap_at, coap, 0, 0x45, 0xbeef);

        /* The same behind a FRAG1 header (size 0x123, tag 0x4242). */
        GByteArray *f = g_byte_array_new();
        put8(f, 0xc1);
        put8(f, 0x23);
        put16(f, 0x4242);
        g_byte_array_append(f, a->data, a->len);
        g_assert_true(parse(f->data, f->len, &lv));
        g_assert_true(lv.is_frag && lv.first);
        g_assert_cmpuint(lv.size, ==, 0x123);
        g_assert_cmpuint(lv.tag, ==, 0x4242);
        g_assert_cmpuint(lv.offset, ==, 0);
        g_assert_cmpint(lv.data_offset, ==, 4);
        g_assert_cmpint(lv.data_len, ==, (gint)a->len);
        g_assert_cmpint(lv.has_coap, ==, coap);
        g_assert_cmpuint(lv.frag1_span, ==, coap ? 48 + a->len - coap_at : 0);
        if (coap)
            g_assert_cmpuint(lv.coap_mid, ==, 0xbeef);
        if (tf == 3 && hlim == 3 && cid == 0)
            check_prefixes(f->data, f->len, coap_at + 4, coap, 4, 0x45, 0xbeef);
        g_byte_array_free(f, TRUE);
        g_byte_array_free(a, TRUE);
        n_checked++;
    }
    g_assert_cmpuint(n_checked, >, 5000);
    g_assert_cmpuint(n_coap, >, 1000);
}

/* Specific address lengths, spelled out (a table typo in both the reader
 * and the builder above would otherwise go unnoticed). */
static void test_iphc_address_lengths(void)
{
    static const struct { guint8 b1; gint inline_addr; } cases[] = {
        { 0x00, 32 },   /* SAM 00, DAM 00: 16 + 16 */
        { 0x11, 16 },   /* SAM 01 (64 bits), DAM 01 (64 bits) */
        { 0x22, 4 },    /* 16 + 16 bits */
        { 0x33, 0 },    /* both elided */
        { 0x40, 16 },   /* SAC, SAM 00: the unspecified address, nothing inline; DAM 00: 16 */
        { 0x73, 0 },    /* SAC SAM 11 */
        { 0x3c, 6 },    /* M DAC DAM 00: 48 bits */
        { 0x38, 16 },   /* M DAM 00: 128 bits */
        { 0x39, 6 },    /* M DAM 01: 48 bits */
        { 0x3a, 4 },    /* M DAM 10: 32 bits */
        { 0x3b, 1 },    /* M DAM 11: 8 bits (ff02::XX) */
        { 0x35, 8 },    /* DAC DAM 01: 64 bits */
        { 0xb3, 1 },    /* CID: one extension byte, addresses elided */
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        /* IPHC TF 11 NH 1 HLIM 11, then addresses, UDP NHC 0xf7, ports byte, CoAP */
        guint8 buf[64];
        gsize n = 0;
        lowpan_view_t lv;

        buf[n++] = 0x7f;
        buf[n++] = cases[i].b1;
        for (gint k = 0; k < cases[i].inline_addr; k++)
            buf[n++] = 0xee;
        buf[n++] = 0xf4;                     /* UDP NHC, checksum elided, ports inline */
        buf[n++] = 0x16; buf[n++] = 0x33;    /* 5683 */
        buf[n++] = 0xc0; buf[n++] = 0x01;
        buf[n++] = 0x50; buf[n++] = 0x02; buf[n++] = 0x12; buf[n++] = 0x34;  /* NON POST MID 0x1234 */
        g_assert_true(parse(buf, n, &lv));
        g_assert_true(lv.has_coap);
        g_assert_cmpuint(lv.coap_type, ==, 1);
        g_assert_cmpuint(lv.coap_code, ==, 2);
        g_assert_cmpuint(lv.coap_mid, ==, 0x1234);
        /* One address byte fewer inline: the CoAP header is read one byte early. */
        if (cases[i].inline_addr) {
            memmove(buf + 2, buf + 3, n - 3);
            g_assert_true(parse(buf, n - 1, &lv));
            g_assert_false(lv.has_coap && lv.coap_mid == 0x1234);
        }
    }
}

/* Reserved destination modes, a non-UDP next header, a non-UDP NHC, a bad
 * CoAP version, a non-IPHC dispatch: no CoAP, and no exception. */
static void test_iphc_refused(void)
{
    static const guint8 dac_dam00[] = { 0x7f, 0x34, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0, 1 };
    static const guint8 nhc_reserved[] = { 0x7f, 0x33, 0xfc, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0, 1 };
    static const guint8 m_dac_dam01[] = { 0x7f, 0x3d, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0, 1 };
    static const guint8 nh_tcp[] = { 0x7b, 0x33, 6, 0x16, 0x33, 0x16, 0x33, 0, 0, 0, 0, 0x40, 0x01, 0, 1 };
    static const guint8 nhc_ext[] = { 0x7f, 0x33, 0xe0, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0, 1 };
    static const guint8 bad_version[] = { 0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x80, 0x01, 0, 1 };
    static const guint8 good[] = { 0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0, 1 };
    static const guint8 ipv6_dispatch[] = { 0x41, 0x60, 0, 0, 0, 0, 12, 17, 64 };
    static const guint8 nh_udp_inline[] = { 0x7b, 0x33, 17, 0xc0, 0x00, 0x16, 0x33, 0, 12, 0, 0,
                                            0x40, 0x01, 0xab, 0xcd };
    lowpan_view_t lv;

    g_assert_true(parse(good, sizeof good, &lv));
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 1);
    g_assert_true(parse(nh_udp_inline, sizeof nh_udp_inline, &lv));
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 0xabcd);
    const struct { const guint8 *b; gsize n; } bad[] = {
        { dac_dam00, sizeof dac_dam00 }, { m_dac_dam01, sizeof m_dac_dam01 }, { nh_tcp, sizeof nh_tcp },
        { nhc_ext, sizeof nhc_ext }, { nhc_reserved, sizeof nhc_reserved }, { bad_version, sizeof bad_version },
        { ipv6_dispatch, sizeof ipv6_dispatch },
    };
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++)
        for (gsize k = 0; k <= bad[i].n; k++) {
            gboolean ok = parse(bad[i].b, k, &lv);
            g_assert_true(!ok || !lv.has_coap);
            g_assert_true(!ok || !lv.is_frag);
        }
}

/* ---- fragment headers ---- */

static void test_frag_headers(void)
{
    /* FRAG1: size 2047 (all 11 bits), tag 0xbeef, then IPHC/UDP/CoAP. */
    static const guint8 frag1[] = { 0xc7, 0xff, 0xbe, 0xef,
                                    0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0x00, 0x07, 0xaa };
    /* FRAGN: size 300, tag 7, offset 12 (96 bytes); its data happens to look like IPHC. */
    static const guint8 fragn[] = { 0xe1, 0x2c, 0x00, 0x07, 0x0c,
                                    0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0x00, 0x07 };
    /* FRAGN at the largest offset: 255 * 8 */
    static const guint8 fragn_max[] = { 0xe7, 0xff, 0x12, 0x34, 0xff, 1, 2, 3 };
    /* The dispatch bits above the size are not part of it. */
    static const guint8 frag1_small[] = { 0xc0, 0x50, 0x00, 0x01, 0x7f, 0x33 };
    lowpan_view_t lv;

    g_assert_true(parse(frag1, sizeof frag1, &lv));
    g_assert_true(lv.is_frag);
    g_assert_true(lv.first);
    g_assert_false(lv.has_mesh);
    g_assert_cmpuint(lv.size, ==, 2047);
    g_assert_cmpuint(lv.tag, ==, 0xbeef);
    g_assert_cmpuint(lv.offset, ==, 0);
    g_assert_cmpint(lv.data_offset, ==, 4);
    g_assert_cmpint(lv.data_len, ==, (gint)sizeof frag1 - 4);
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_type, ==, 0);
    g_assert_cmpuint(lv.coap_code, ==, 1);
    g_assert_cmpuint(lv.coap_mid, ==, 7);
    g_assert_cmpuint(lv.frag1_span, ==, 40 + 8 + 5);   /* the CoAP header and one byte */

    g_assert_true(parse(fragn, sizeof fragn, &lv));
    g_assert_true(lv.is_frag);
    g_assert_false(lv.first);
    g_assert_cmpuint(lv.size, ==, 300);
    g_assert_cmpuint(lv.tag, ==, 7);
    g_assert_cmpuint(lv.offset, ==, 96);
    g_assert_cmpint(lv.data_offset, ==, 5);
    g_assert_cmpint(lv.data_len, ==, (gint)sizeof fragn - 5);
    g_assert_false(lv.has_coap);           /* a FRAGN's data is never read as headers */
    g_assert_cmpuint(lv.frag1_span, ==, 0);

    g_assert_true(parse(fragn_max, sizeof fragn_max, &lv));
    g_assert_cmpuint(lv.offset, ==, 2040);
    g_assert_cmpuint(lv.size, ==, 2047);
    g_assert_cmpint(lv.data_len, ==, 3);

    g_assert_true(parse(frag1_small, sizeof frag1_small, &lv));
    g_assert_cmpuint(lv.size, ==, 0x50);
    g_assert_cmpuint(lv.tag, ==, 1);
    g_assert_false(lv.has_coap);
    g_assert_cmpuint(lv.frag1_span, ==, 0);            /* headers cut: span unknown */

    /* Header-only fragments: no data, still a view. */
    g_assert_true(parse(frag1, 4, &lv));
    g_assert_true(lv.first);
    g_assert_cmpint(lv.data_len, ==, 0);
    g_assert_true(parse(fragn, 5, &lv));
    g_assert_false(lv.first);
    g_assert_cmpint(lv.data_len, ==, 0);
    /* Cut inside the header: refused. */
    for (gsize k = 0; k < 4; k++)
        g_assert_false(parse(frag1, k, &lv));
    for (gsize k = 0; k < 5; k++)
        g_assert_false(parse(fragn, k, &lv));
    check_prefixes(frag1, sizeof frag1, 11, TRUE, 4, 0x01, 7);
    for (gsize k = 5; k <= sizeof fragn; k++) {
        g_assert_true(parse(fragn, k, &lv));
        g_assert_cmpuint(lv.offset, ==, 96);
        g_assert_cmpint(lv.data_len, ==, (gint)k - 5);
        g_assert_false(lv.has_coap);
    }
}

/* The 6LoWPAN part inside a larger buffer: offsets are tvb offsets, and
 * nothing outside [offset, offset + length) counts. */
static void test_bounded_by_offset_and_length(void)
{
    /* 3 bytes of MAC header, FRAG1, IPHC, UDP, a CoAP header cut by length, 2 bytes of FCS */
    static const guint8 buf[] = { 0x41, 0xd8, 0x01,
                                  0xc0, 0xa0, 0x00, 0x09,
                                  0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0x00, 0x07,
                                  0x12, 0x34 };
    lowpan_view_t lv;

    g_assert_true(parse_at(buf, sizeof buf, 3, (gint)sizeof buf - 5, &lv));
    g_assert_true(lv.is_frag);
    g_assert_cmpuint(lv.size, ==, 0xa0);
    g_assert_cmpuint(lv.tag, ==, 9);
    g_assert_cmpint(lv.data_offset, ==, 7);
    g_assert_cmpint(lv.data_len, ==, (gint)sizeof buf - 5 - 4);
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 7);
    g_assert_cmpuint(lv.frag1_span, ==, 48 + 4);
    /* One byte shorter: the MID's low byte is outside, though in the tvb. */
    g_assert_true(parse_at(buf, sizeof buf, 3, (gint)sizeof buf - 6, &lv));
    g_assert_false(lv.has_coap);
    g_assert_cmpuint(lv.frag1_span, ==, 48 + 3);
    g_assert_cmpint(lv.data_len, ==, (gint)sizeof buf - 6 - 4);
    /* A range past the tvb, an empty or negative range, an offset past the end. */
    g_assert_false(parse_at(buf, sizeof buf, 3, (gint)sizeof buf, &lv));
    g_assert_false(parse_at(buf, sizeof buf, 3, 0, &lv));
    g_assert_false(parse_at(buf, sizeof buf, 3, -1, &lv));
    g_assert_false(parse_at(buf, sizeof buf, (gint)sizeof buf, 1, &lv));
    g_assert_false(parse_at(buf, sizeof buf, (gint)sizeof buf + 10, 4, &lv));
    /* Every length at offset 3. */
    for (gint len = 1; len <= (gint)sizeof buf - 3; len++) {
        gboolean ok = parse_at(buf, sizeof buf, 3, len, &lv);
        g_assert_cmpint(ok, ==, len >= 4);
        if (ok) {
            g_assert_cmpint(lv.data_offset, ==, 7);
            g_assert_cmpint(lv.data_len, ==, len - 4);
            g_assert_cmpint(lv.has_coap, ==, len >= 15);
        }
    }
}

/* ---- mesh header and broadcast ---- */

static void test_mesh_headers(void)
{
    /* V=1 F=1 (short, short), hops 5, then FRAGN */
    static const guint8 short_short[] = { 0xb5, 0x12, 0x34, 0x56, 0x78, 0xe0, 0x80, 0x00, 0x05, 0x02, 0xaa };
    /* V=0 F=0 (EUI-64 both), hops 0xF: a Deep Hops Left byte follows, then FRAG1 + IPHC + CoAP */
    static const guint8 long_long_deep[] = {
        0x8f, 0x20,
        0x00, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04,
        0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
        0xc0, 0x80, 0x00, 0x03,
        0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x60, 0x45, 0x00, 0x11,
    };
    /* V=1 F=0 and V=0 F=1, hops 3, unfragmented IPHC + CoAP */
    static const guint8 short_long[] = { 0xa3, 0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8,
                                         0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x50, 0x02, 0x00, 0x22 };
    static const guint8 long_short[] = { 0x93, 1, 2, 3, 4, 5, 6, 7, 8, 0xab, 0xcd,
                                         0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x50, 0x02, 0x00, 0x22 };
    /* Mesh (short, short, hops 0xF + deep) + LOWPAN_BC0 + IPHC */
    static const guint8 mesh_bc0[] = { 0xbf, 0x40, 0x00, 0x01, 0xff, 0xff, 0x50, 0x77,
                                       0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0x01, 0x00 };
    lowpan_view_t lv;

    g_assert_true(parse(short_short, sizeof short_short, &lv));
    g_assert_true(lv.has_mesh);
    g_assert_cmphex(lv.mesh_orig, ==, G_GUINT64_CONSTANT(0xffff1234));
    g_assert_cmphex(lv.mesh_final, ==, G_GUINT64_CONSTANT(0xffff5678));
    g_assert_true(lv.is_frag);
    g_assert_false(lv.first);
    g_assert_cmpuint(lv.size, ==, 0x80);
    g_assert_cmpuint(lv.tag, ==, 5);
    g_assert_cmpuint(lv.offset, ==, 16);
    g_assert_cmpint(lv.data_offset, ==, 10);
    g_assert_cmpint(lv.data_len, ==, 1);

    g_assert_true(parse(long_long_deep, sizeof long_long_deep, &lv));
    g_assert_true(lv.has_mesh);
    g_assert_cmphex(lv.mesh_orig, ==, G_GUINT64_CONSTANT(0x00124b0001020304));
    g_assert_cmphex(lv.mesh_final, ==, G_GUINT64_CONSTANT(0xf0e1d2c3b4a59687));
    g_assert_true(lv.is_frag && lv.first);
    g_assert_cmpuint(lv.size, ==, 0x80);
    g_assert_cmpuint(lv.tag, ==, 3);
    g_assert_cmpint(lv.data_offset, ==, 22);
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_type, ==, 2);
    g_assert_cmpuint(lv.coap_code, ==, 0x45);
    g_assert_cmpuint(lv.coap_mid, ==, 0x11);
    g_assert_cmpuint(lv.frag1_span, ==, 48 + 4);

    g_assert_true(parse(short_long, sizeof short_long, &lv));
    g_assert_cmphex(lv.mesh_orig, ==, G_GUINT64_CONSTANT(0xffffabcd));
    g_assert_cmphex(lv.mesh_final, ==, G_GUINT64_CONSTANT(0x0102030405060708));
    g_assert_false(lv.is_frag);
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 0x22);
    g_assert_true(parse(long_short, sizeof long_short, &lv));
    g_assert_cmphex(lv.mesh_orig, ==, G_GUINT64_CONSTANT(0x0102030405060708));
    g_assert_cmphex(lv.mesh_final, ==, G_GUINT64_CONSTANT(0xffffabcd));
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 0x22);

    g_assert_true(parse(mesh_bc0, sizeof mesh_bc0, &lv));
    g_assert_true(lv.has_mesh);
    g_assert_cmphex(lv.mesh_orig, ==, G_GUINT64_CONSTANT(0xffff0001));
    g_assert_cmphex(lv.mesh_final, ==, G_GUINT64_CONSTANT(0xffffffff));
    g_assert_false(lv.is_frag);
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 0x100);

    /* Every truncation: refused while the mesh (and BC0) header is cut or
     * alone, then a partial view; never an exception. */
    const struct { const guint8 *b; gsize n, mesh, next; gint coap_at; } all[] = {
        { short_short, sizeof short_short, 5, 5 + 5, -1 },
        { long_long_deep, sizeof long_long_deep, 18, 18 + 4, 29 },
        { short_long, sizeof short_long, 11, 11, 18 },
        { long_short, sizeof long_short, 11, 11, 18 },
        { mesh_bc0, sizeof mesh_bc0, 6, 9, 15 },   /* BC0 with nothing after: refused */
    };
    for (guint i = 0; i < G_N_ELEMENTS(all); i++)
        for (gsize k = 0; k <= all[i].n; k++) {
            gboolean ok = parse(all[i].b, k, &lv);
            if (k <= all[i].mesh) {
                g_assert_false(ok);
                continue;
            }
            if (k < all[i].next) {
                /* inside BC0 or a fragment header */
                g_assert_false(ok && (lv.is_frag || lv.has_coap));
                continue;
            }
            g_assert_true(ok);
            g_assert_true(lv.has_mesh);
            g_assert_cmpint(lv.has_coap, ==, all[i].coap_at >= 0 && (gint)k >= all[i].coap_at + 4);
        }
}

static void test_bc0_without_mesh(void)
{
    static const guint8 bc0[] = { 0x50, 0x01, 0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0x00, 0x09 };
    lowpan_view_t lv;

    g_assert_true(parse(bc0, sizeof bc0, &lv));
    g_assert_false(lv.has_mesh);
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 9);
    g_assert_false(parse(bc0, 1, &lv));
    g_assert_false(parse(bc0, 2, &lv));
    for (gsize k = 3; k <= sizeof bc0; k++) {
        g_assert_true(parse(bc0, k, &lv));
        g_assert_cmpint(lv.has_coap, ==, k == sizeof bc0);
    }
}

static gboolean port_7000_or_f0b3(guint16 port)
{
    return port == 7000 || port == 0xf0b3;
}

/* CoAP decoded on other ports (Decode As): the caller's ports, and then
 * not 5683 unless the caller says so; inline and 4-bit NHC ports alike. */
static void test_caller_ports(void)
{
    static const guint8 on_5683[] = { 0x7f, 0x33, 0xf4, 0x16, 0x33, 0x16, 0x33, 0x40, 0x01, 0, 1 };
    static const guint8 on_7000[] = { 0x7f, 0x33, 0xf4, 0x1b, 0x58, 0xc3, 0x50, 0x40, 0x01, 0, 2 };
    static const guint8 on_f0b3[] = { 0x7f, 0x33, 0xf7, 0xb3, 0x40, 0x01, 0, 3 };
    lowpan_view_t lv;

    g_assert_true(parse_ports(on_7000, sizeof on_7000, 0, sizeof on_7000, port_7000_or_f0b3, &lv));
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 2);
    g_assert_true(parse_ports(on_f0b3, sizeof on_f0b3, 0, sizeof on_f0b3, port_7000_or_f0b3, &lv));
    g_assert_true(lv.has_coap);
    g_assert_cmpuint(lv.coap_mid, ==, 3);
    g_assert_true(parse_ports(on_5683, sizeof on_5683, 0, sizeof on_5683, port_7000_or_f0b3, &lv));
    g_assert_false(lv.has_coap);
    g_assert_true(parse(on_7000, sizeof on_7000, &lv));
    g_assert_false(lv.has_coap);
    g_assert_true(parse(on_5683, sizeof on_5683, &lv));
    g_assert_true(lv.has_coap);
}

/* Random bytes behind every dispatch: never an exception, views stay inside. */
static void test_fuzz(void)
{
    GRand *r = g_rand_new_with_seed(4944);
    static const guint8 dispatch[] = { 0x80, 0x8f, 0xb0, 0xbf, 0xa5, 0x50, 0xc0, 0xe0, 0x60, 0x7f, 0x41 };

    for (guint i = 0; i < 200000; i++) {
        guint8 buf[48];
        gsize n = g_rand_int_range(r, 1, sizeof buf + 1);
        lowpan_view_t lv;
        for (gsize k = 0; k < n; k++)
            buf[k] = (guint8)g_rand_int(r);
        if (i & 1)
            buf[0] = dispatch[g_rand_int_range(r, 0, G_N_ELEMENTS(dispatch))];
        if (parse(buf, n, &lv) && lv.is_frag) {
            g_assert_cmpint(lv.data_offset, >=, 4);
            g_assert_cmpint(lv.data_offset + lv.data_len, ==, (gint)n);
        }
    }
    g_rand_free(r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    wmem_init();
    g_test_add_func("/lowpan_view/iphc_all_forms", test_iphc_all_forms);
    g_test_add_func("/lowpan_view/iphc_address_lengths", test_iphc_address_lengths);
    g_test_add_func("/lowpan_view/iphc_refused", test_iphc_refused);
    g_test_add_func("/lowpan_view/frag_headers", test_frag_headers);
    g_test_add_func("/lowpan_view/bounded_by_offset_and_length", test_bounded_by_offset_and_length);
    g_test_add_func("/lowpan_view/mesh_headers", test_mesh_headers);
    g_test_add_func("/lowpan_view/bc0_without_mesh", test_bc0_without_mesh);
    g_test_add_func("/lowpan_view/caller_ports", test_caller_ports);
    g_test_add_func("/lowpan_view/fuzz", test_fuzz);
    int rc = g_test_run();
    wmem_cleanup();
    return rc;
}
