/* test_lowpan.c: unit tests of the 6LoWPAN adaptation: uncompressed IPv6/UDP
 * datagram and its checksum, IPHC/UDP NHC byte layout, FRAG1/FRAGN sizes and
 * offsets (with reassembly), and the mesh header.
 * Follows RFC 6282 and RFC 4944 (sections 5.2, 5.3).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <glib.h>

#include "lowpan.h"

static const guint8 ctx_prefix[8] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00 };
/* 2001:db8:1::211:2233:4455:6677 (inside the context prefix) */
static const guint8 meter_addr[16] = {
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00,
    0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77
};
/* 2001:db8:ffff::1 */
static const guint8 gw_addr[16] = {
    0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01
};
/* fe80::211:2233:4455:6677 */
static const guint8 ll_addr[16] = {
    0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77
};

static void fill(guint8 *p, gsize n)
{
    for (gsize i = 0; i < n; i++)
        p[i] = (guint8)(i * 7 + 3);
}

static lowpan_ip6udp_t meter_to_gateway(void)
{
    lowpan_ip6udp_t ip;

    memset(&ip, 0, sizeof ip);
    memcpy(ip.src, meter_addr, 16);
    memcpy(ip.dst, gw_addr, 16);
    ip.src_port = 49153;
    ip.dst_port = 5683;
    ip.hop_limit = 64;
    return ip;
}

/* One's-complement sum over the pseudo-header and the whole UDP datagram
 * (checksum field included): all ones when the checksum is right. */
static guint16 udp6_verify(const guint8 *pkt, gsize len)
{
    guint32 sum = 0;
    gsize udp_len = len - 40;

    for (gsize i = 8; i < 40; i += 2)                   /* src and dst */
        sum += (guint32)((pkt[i] << 8) | pkt[i + 1]);
    sum += (guint32)(udp_len >> 16) + (guint32)(udp_len & 0xFFFF);
    sum += 17;
    for (gsize i = 40; i + 1 < len; i += 2)
        sum += (guint32)((pkt[i] << 8) | pkt[i + 1]);
    if (udp_len & 1)
        sum += (guint32)(pkt[len - 1] << 8);
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (guint16)sum;
}

static void test_ipv6_udp_packet(void)
{
    lowpan_ip6udp_t ip = meter_to_gateway();
    guint8 payload[101];
    GByteArray *p;

    fill(payload, sizeof payload);
    p = lowpan_ipv6_udp_packet(&ip, payload, sizeof payload);
    g_assert_nonnull(p);
    g_assert_cmpuint(p->len, ==, 40 + 8 + sizeof payload);
    g_assert_cmphex(p->data[0], ==, 0x60);
    g_assert_cmphex(p->data[1] | p->data[2] | p->data[3], ==, 0);
    g_assert_cmpuint((p->data[4] << 8) | p->data[5], ==, 8 + sizeof payload);
    g_assert_cmpuint(p->data[6], ==, 17);
    g_assert_cmpuint(p->data[7], ==, 64);
    g_assert_cmpmem(p->data + 8, 16, meter_addr, 16);
    g_assert_cmpmem(p->data + 24, 16, gw_addr, 16);
    g_assert_cmpuint((p->data[40] << 8) | p->data[41], ==, 49153);
    g_assert_cmpuint((p->data[42] << 8) | p->data[43], ==, 5683);
    g_assert_cmpuint((p->data[44] << 8) | p->data[45], ==, 8 + sizeof payload);
    g_assert_cmpuint((p->data[46] << 8) | p->data[47], !=, 0);
    g_assert_cmphex(udp6_verify(p->data, p->len), ==, 0xFFFF);
    g_assert_cmpmem(p->data + 48, sizeof payload, payload, sizeof payload);
    g_byte_array_unref(p);

    /* Empty payload still gets a valid checksum. */
    p = lowpan_ipv6_udp_packet(&ip, NULL, 0);
    g_assert_cmpuint(p->len, ==, 48);
    g_assert_cmphex(udp6_verify(p->data, p->len), ==, 0xFFFF);
    g_byte_array_unref(p);
}

static void test_compress_context(void)
{
    lowpan_ip6udp_t ip = meter_to_gateway();
    lowpan_ctx_t ctx = { .use_context = TRUE, .context_id = 1 };
    guint8 payload[20];
    GByteArray *c, *full;
    gsize hl = 0;
    const guint8 expect[] = {
        0x7e,                   /* 011 TF=11 NH=1 HLIM=10 (64) */
        0xd0,                   /* CID=1 SAC=1 SAM=01 M=0 DAC=0 DAM=00 */
        0x10,                   /* SCI=1, DCI=0 */
        0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,     /* source IID */
        0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
        0xf0,                   /* UDP NHC, C=0, PP=00 */
        0xc0, 0x01, 0x16, 0x33  /* ports 49153, 5683 */
    };

    memcpy(ctx.context_prefix, ctx_prefix, 8);
    fill(payload, sizeof payload);
    c = lowpan_compress(&ip, payload, sizeof payload, &ctx, &hl);
    full = lowpan_ipv6_udp_packet(&ip, payload, sizeof payload);
    g_assert_nonnull(c);
    g_assert_cmpuint(hl, ==, sizeof expect + 2);
    g_assert_cmpmem(c->data, sizeof expect, expect, sizeof expect);
    /* The inline checksum is the one of the uncompressed datagram. */
    g_assert_cmpmem(c->data + sizeof expect, 2, full->data + 46, 2);
    g_assert_cmpmem(c->data + hl, c->len - hl, payload, sizeof payload);
    g_byte_array_unref(c);

    /* Context 0 needs no CID extension byte. */
    ctx.context_id = 0;
    c = lowpan_compress(&ip, payload, sizeof payload, &ctx, &hl);
    g_assert_cmpuint(hl, ==, sizeof expect + 1);
    g_assert_cmphex(c->data[1], ==, 0x50);
    g_assert_cmpmem(c->data + 2, 8, meter_addr + 8, 8);
    g_byte_array_unref(c);

    /* Without a matching context the source goes inline (SAM=00). */
    ctx.context_prefix[7] = 1;
    c = lowpan_compress(&ip, payload, sizeof payload, &ctx, &hl);
    g_assert_cmphex(c->data[1], ==, 0x00);
    g_assert_cmpmem(c->data + 2, 16, meter_addr, 16);
    g_assert_cmpuint(hl, ==, 2 + 16 + 16 + 1 + 4 + 2);
    g_byte_array_unref(c);
    c = lowpan_compress(&ip, payload, sizeof payload, NULL, &hl);
    g_assert_cmphex(c->data[1], ==, 0x00);
    g_byte_array_unref(c);
    g_byte_array_unref(full);
}

static void test_compress_link_local_multicast(void)
{
    lowpan_ip6udp_t ip;
    const guint8 payload[3] = { 1, 2, 3 };
    GByteArray *c, *full;
    gsize hl;
    const guint8 expect[] = {
        0x7f,                   /* HLIM=11 (255) */
        0x1b,                   /* SAC=0 SAM=01, M=1 DAM=11 */
        0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
        0x01,                   /* ff02::1 */
        0xf3,                   /* UDP NHC, PP=11 */
        0x12                    /* ports 0xf0b1, 0xf0b2 */
    };

    memset(&ip, 0, sizeof ip);
    memcpy(ip.src, ll_addr, 16);
    ip.dst[0] = 0xff;
    ip.dst[1] = 0x02;
    ip.dst[15] = 0x01;
    ip.src_port = 0xf0b1;
    ip.dst_port = 0xf0b2;
    ip.hop_limit = 255;
    c = lowpan_compress(&ip, payload, sizeof payload, NULL, &hl);
    full = lowpan_ipv6_udp_packet(&ip, payload, sizeof payload);
    g_assert_cmpuint(hl, ==, sizeof expect + 2);
    g_assert_cmpmem(c->data, sizeof expect, expect, sizeof expect);
    g_assert_cmpmem(c->data + sizeof expect, 2, full->data + 46, 2);
    g_byte_array_unref(c);
    g_byte_array_unref(full);

    /* Only one 0xF0Bx port: both inline. */
    ip.dst_port = 5683;
    c = lowpan_compress(&ip, payload, sizeof payload, NULL, &hl);
    g_assert_cmphex(c->data[11], ==, 0xf0);
    g_assert_cmpuint(hl, ==, 11 + 1 + 4 + 2);
    g_byte_array_unref(c);
}

static void test_compress_other_forms(void)
{
    lowpan_ip6udp_t ip = meter_to_gateway();
    const guint8 payload[1] = { 0x42 };
    GByteArray *c;
    gsize hl;

    /* Hop limit 1 -> HLIM=01; link-local destination -> DAM=01. */
    memcpy(ip.src, ll_addr, 16);
    memset(ip.dst, 0, 16);
    ip.dst[0] = 0xfe;
    ip.dst[1] = 0x80;
    ip.dst[15] = 0x01;
    ip.hop_limit = 1;
    c = lowpan_compress(&ip, payload, sizeof payload, NULL, &hl);
    g_assert_cmphex(c->data[0], ==, 0x7d);
    g_assert_cmphex(c->data[1], ==, 0x11);
    g_assert_cmpmem(c->data + 10, 8, ip.dst + 8, 8);
    g_assert_cmpuint(hl, ==, 2 + 8 + 8 + 1 + 4 + 2);
    g_byte_array_unref(c);

    /* Other hop limits inline (HLIM=00), right after the base bytes;
     * ff05::1:3 -> M=1 DAM=10 (32 bits). */
    ip.hop_limit = 10;
    memset(ip.dst, 0, 16);
    ip.dst[0] = 0xff;
    ip.dst[1] = 0x05;
    ip.dst[13] = 0x01;
    ip.dst[15] = 0x03;
    c = lowpan_compress(&ip, payload, sizeof payload, NULL, &hl);
    g_assert_cmphex(c->data[0], ==, 0x7c);
    g_assert_cmphex(c->data[1], ==, 0x1a);
    g_assert_cmpuint(c->data[2], ==, 10);
    {
        const guint8 d[4] = { 0x05, 0x01, 0x00, 0x03 };

        g_assert_cmpmem(c->data + 11, 4, d, 4);
    }
    g_byte_array_unref(c);

    /* ff0e::1:2:3:4 does not fit 48 bits: M=1 DAM=00, 16 bytes. */
    memset(ip.dst, 0, 16);
    ip.dst[0] = 0xff;
    ip.dst[1] = 0x0e;
    ip.dst[9] = 1;
    ip.dst[11] = 2;
    ip.dst[13] = 3;
    ip.dst[15] = 4;
    c = lowpan_compress(&ip, payload, sizeof payload, NULL, &hl);
    g_assert_cmphex(c->data[1], ==, 0x18);
    g_assert_cmpmem(c->data + 11, 16, ip.dst, 16);
    g_byte_array_unref(c);
}

/* Checks the fragments of one datagram and rebuilds the compressed form. */
static void check_fragments(const GByteArray *c, gsize hl, guint16 size, guint16 tag,
                            gsize max_payload)
{
    GPtrArray *frags = lowpan_fragment(c, hl, size, tag, max_payload);
    GByteArray *re = g_byte_array_new();
    gsize offset = 0;

    g_assert_nonnull(frags);
    if (c->len <= max_payload) {
        g_assert_cmpuint(frags->len, ==, 1);
        g_assert_cmpmem(((GByteArray *)frags->pdata[0])->data,
                        ((GByteArray *)frags->pdata[0])->len, c->data, c->len);
        g_ptr_array_unref(frags);
        g_byte_array_unref(re);
        return;
    }
    g_assert_cmpuint(frags->len, >=, 2);
    for (guint i = 0; i < frags->len; i++) {
        GByteArray *f = frags->pdata[i];
        guint fsize, ftag;

        g_assert_cmpuint(f->len, <=, max_payload);
        fsize = ((f->data[0] & 0x07u) << 8) | f->data[1];
        ftag = (guint)((f->data[2] << 8) | f->data[3]);
        g_assert_cmpuint(fsize, ==, size);
        g_assert_cmpuint(ftag, ==, tag);
        if (i == 0) {
            g_assert_cmphex(f->data[0] & 0xf8, ==, 0xc0);
            g_byte_array_append(re, f->data + 4, f->len - 4);
            /* Headers stand for 48 uncompressed bytes (IPv6 + UDP). */
            offset = 48 + (f->len - 4 - hl);
        } else {
            g_assert_cmphex(f->data[0] & 0xf8, ==, 0xe0);
            g_assert_cmpuint(offset % 8, ==, 0);
            g_assert_cmpuint(f->data[4], ==, offset / 8);
            if (i + 1 < frags->len)
                g_assert_cmpuint((f->len - 5) % 8, ==, 0);
            g_byte_array_append(re, f->data + 5, f->len - 5);
            offset += f->len - 5;
        }
    }
    g_assert_cmpuint(offset, ==, size);
    g_assert_cmpmem(re->data, re->len, c->data, c->len);
    g_byte_array_unref(re);
    g_ptr_array_unref(frags);
}

static void test_fragment(void)
{
    lowpan_ip6udp_t ip = meter_to_gateway();
    lowpan_ctx_t ctx = { .use_context = TRUE, .context_id = 1 };
    guint8 payload[400];
    GByteArray *c;
    GPtrArray *frags;
    gsize hl;

    memcpy(ctx.context_prefix, ctx_prefix, 8);
    fill(payload, sizeof payload);
    c = lowpan_compress(&ip, payload, sizeof payload, &ctx, &hl);
    g_assert_cmpuint(hl, ==, 34);

    /* 400 bytes over 100-byte link payloads, by hand: FRAG1 carries the
     * 34 header bytes + 56 payload bytes (48 + 56 = 104 = 13 * 8). */
    frags = lowpan_fragment(c, hl, 448, 0x1234, 100);
    g_assert_nonnull(frags);
    g_assert_cmpuint(frags->len, ==, 5);
    {
        GByteArray *f0 = frags->pdata[0], *f1 = frags->pdata[1], *f4 = frags->pdata[4];
        const guint8 h0[4] = { 0xc1, 0xc0, 0x12, 0x34 };
        const guint8 h1[5] = { 0xe1, 0xc0, 0x12, 0x34, 13 };

        g_assert_cmpuint(f0->len, ==, 4 + 34 + 56);
        g_assert_cmpmem(f0->data, 4, h0, 4);
        g_assert_cmpuint(f1->len, ==, 5 + 88);
        g_assert_cmpmem(f1->data, 5, h1, 5);
        g_assert_cmpuint(f4->data[4], ==, (104 + 3 * 88) / 8);
        g_assert_cmpuint(f4->len, ==, 5 + (400 - 56 - 3 * 88));
    }
    g_ptr_array_unref(frags);

    /* Invariants for many link budgets and datagram sizes. */
    for (gsize plen = 0; plen <= sizeof payload; plen += 13) {
        GByteArray *cc = lowpan_compress(&ip, payload, plen, &ctx, &hl);

        for (gsize maxp = 50; maxp <= 127; maxp++)
            check_fragments(cc, hl, (guint16)(48 + plen), (guint16)(plen + maxp), maxp);
        g_byte_array_unref(cc);
    }

    /* A budget with no room for an 8-octet step cannot be fragmented. */
    g_assert_null(lowpan_fragment(c, hl, 448, 1, 38));
    g_byte_array_unref(c);
}

static void test_fragment_fits(void)
{
    lowpan_ip6udp_t ip = meter_to_gateway();
    guint8 payload[30];
    GByteArray *c;
    GPtrArray *frags;
    gsize hl;

    fill(payload, sizeof payload);
    c = lowpan_compress(&ip, payload, sizeof payload, NULL, &hl);
    frags = lowpan_fragment(c, hl, 78, 7, c->len);
    g_assert_cmpuint(frags->len, ==, 1);
    g_assert_cmpmem(((GByteArray *)frags->pdata[0])->data,
                    ((GByteArray *)frags->pdata[0])->len, c->data, c->len);
    g_ptr_array_unref(frags);
    frags = lowpan_fragment(c, hl, 78, 7, c->len - 1);
    g_assert_cmpuint(frags->len, ==, 2);
    g_ptr_array_unref(frags);
    g_byte_array_unref(c);
}

static void test_mesh(void)
{
    const guint8 body[2] = { 0x7e, 0xd0 };
    const guint8 expect[] = { 0xb5, 0x04, 0x01, 0x00, 0x00, 0x7e, 0xd0 };
    const guint8 deep[] = { 0xbf, 20, 0xab, 0xcd, 0x12, 0x34 };
    GByteArray *f = g_byte_array_new();

    g_byte_array_append(f, body, 2);
    lowpan_prepend_mesh(f, 0x0401, 0x0000, 5);
    g_assert_cmpmem(f->data, f->len, expect, sizeof expect);
    g_byte_array_set_size(f, 0);

    /* 15 or more hops: 0xF and the count in its own byte. */
    lowpan_prepend_mesh(f, 0xabcd, 0x1234, 20);
    g_assert_cmpmem(f->data, f->len, deep, sizeof deep);
    g_byte_array_unref(f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/lowpan/ipv6-udp-packet", test_ipv6_udp_packet);
    g_test_add_func("/lowpan/compress-context", test_compress_context);
    g_test_add_func("/lowpan/compress-link-local-multicast", test_compress_link_local_multicast);
    g_test_add_func("/lowpan/compress-other-forms", test_compress_other_forms);
    g_test_add_func("/lowpan/fragment", test_fragment);
    g_test_add_func("/lowpan/fragment-fits", test_fragment_fits);
    g_test_add_func("/lowpan/mesh", test_mesh);
    return g_test_run();
}
