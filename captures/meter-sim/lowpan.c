/* lowpan.c: 6LoWPAN adaptation of the meter's IPv6/UDP datagrams: IPHC
 * header compression with UDP NHC, FRAG1/FRAGN fragmentation and the mesh
 * addressing header.
 *
 * Follows RFC 6282 (IPHC section 3, UDP NHC section 4.3), RFC 4944 (mesh
 * header section 5.2, fragmentation section 5.3) and RFC 8200 / RFC 768 for
 * the uncompressed IPv6 and UDP headers and the UDP checksum.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "lowpan.h"
#include "inet_checksum.h"

#include <string.h>

#define IPV6_HDR_LEN 40
#define UDP_HDR_LEN  8
#define IP_PROTO_UDP 17

/* RFC 4944 dispatch values and header sizes. */
#define FRAG1_DISPATCH 0xC0
#define FRAGN_DISPATCH 0xE0
#define FRAG1_HDR_LEN  4
#define FRAGN_HDR_LEN  5
#define FRAG_SIZE_MAX  0x7FF        /* 11-bit datagram_size */
#define MESH_DISPATCH  0x80
#define MESH_V_SHORT   0x20         /* originator is a 16-bit address */
#define MESH_F_SHORT   0x10         /* final destination is 16-bit */
#define MESH_HOPS_EXT  0x0F         /* hops left in an extra byte */

/* RFC 6282 IPHC bits: first byte 011 TF(2) NH HLIM(2), second byte
 * CID SAC SAM(2) M DAC DAM(2). */
#define IPHC_DISPATCH  0x60
#define IPHC_TF_ELIDED 0x18
#define IPHC_NH        0x04
#define IPHC_CID       0x80
#define IPHC_SAC       0x40
#define IPHC_SAM_SHIFT 4
#define IPHC_M         0x08
#define NHC_UDP        0xF0         /* 11110CPP */
#define NHC_UDP_PP_44  0x03         /* both ports 0xF0Bx, 4 bits each */

static void put_be16(GByteArray *out, guint16 v)
{
    guint8 b[2] = { (guint8)(v >> 8), (guint8)v };

    g_byte_array_append(out, b, 2);
}

static void put_u8(GByteArray *out, guint8 v)
{
    g_byte_array_append(out, &v, 1);
}

/* UDP checksum over the IPv6 pseudo-header (RFC 8200 8.1) and the UDP
 * header (checksum field zero) and payload. */
static guint16 udp6_checksum(const lowpan_ip6udp_t *ip, const guint8 *payload, gsize len)
{
    guint32 udp_len = (guint32)(UDP_HDR_LEN + len);
    guint8 ph[8] = { (guint8)(udp_len >> 24), (guint8)(udp_len >> 16),
                     (guint8)(udp_len >> 8), (guint8)udp_len, 0, 0, 0, IP_PROTO_UDP };
    guint8 uh[8] = { (guint8)(ip->src_port >> 8), (guint8)ip->src_port,
                     (guint8)(ip->dst_port >> 8), (guint8)ip->dst_port,
                     (guint8)(udp_len >> 8), (guint8)udp_len, 0, 0 };
    guint32 sum = 0;

    sum = inet_csum_add(sum, ip->src, 16);
    sum = inet_csum_add(sum, ip->dst, 16);
    sum = inet_csum_add(sum, ph, sizeof ph);
    sum = inet_csum_add(sum, uh, sizeof uh);
    sum = inet_csum_add(sum, payload, len);
    guint16 c = inet_csum_finish(sum);
    /* A computed 0 is sent as all ones; 0 would mean "no checksum". */
    return c == 0 ? 0xFFFF : c;
}

GByteArray *lowpan_ipv6_udp_packet(const lowpan_ip6udp_t *ip, const guint8 *payload, gsize len)
{
    GByteArray *p;
    gsize plen = UDP_HDR_LEN + len;
    static const guint8 vtf[4] = { 0x60, 0, 0, 0 };   /* version 6, tc 0, flow 0 */

    g_return_val_if_fail(ip != NULL, NULL);
    g_return_val_if_fail(payload != NULL || len == 0, NULL);
    if (plen > G_MAXUINT16)
        return NULL;                /* no jumbograms */

    p = g_byte_array_sized_new((guint)(IPV6_HDR_LEN + plen));
    g_byte_array_append(p, vtf, 4);
    put_be16(p, (guint16)plen);
    put_u8(p, IP_PROTO_UDP);
    put_u8(p, ip->hop_limit);
    g_byte_array_append(p, ip->src, 16);
    g_byte_array_append(p, ip->dst, 16);
    put_be16(p, ip->src_port);
    put_be16(p, ip->dst_port);
    put_be16(p, (guint16)plen);
    put_be16(p, udp6_checksum(ip, payload, len));
    if (len)
        g_byte_array_append(p, payload, (guint)len);
    return p;
}

static gboolean is_link_local64(const guint8 a[16])
{
    static const guint8 ll[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 };

    return memcmp(a, ll, 8) == 0;
}

static gboolean all_zero(const guint8 *p, gsize n)
{
    for (gsize i = 0; i < n; i++)
        if (p[i])
            return FALSE;
    return TRUE;
}

/* Appends the destination per RFC 6282 3.1.1 and returns the M/DAC/DAM
 * bits for the second IPHC byte (DAC is always 0 here). */
static guint8 compress_dst(GByteArray *out, const guint8 d[16])
{
    if (d[0] == 0xff) {
        /* ff02::00XX */
        if (d[1] == 0x02 && all_zero(d + 2, 13)) {
            put_u8(out, d[15]);
            return IPHC_M | 0x03;
        }
        /* ffXX::00XX:XXXX */
        if (all_zero(d + 2, 11)) {
            put_u8(out, d[1]);
            g_byte_array_append(out, d + 13, 3);
            return IPHC_M | 0x02;
        }
        /* ffXX::00XX:XXXX:XXXX */
        if (all_zero(d + 2, 9)) {
            put_u8(out, d[1]);
            g_byte_array_append(out, d + 11, 5);
            return IPHC_M | 0x01;
        }
        g_byte_array_append(out, d, 16);
        return IPHC_M;
    }
    if (is_link_local64(d)) {
        g_byte_array_append(out, d + 8, 8);        /* DAM=01: IID inline */
        return 0x01;
    }
    g_byte_array_append(out, d, 16);               /* DAM=00 */
    return 0x00;
}

GByteArray *lowpan_compress(const lowpan_ip6udp_t *ip, const guint8 *payload, gsize len,
                            const lowpan_ctx_t *ctx, gsize *hdr_len)
{
    GByteArray *out;
    guint8 iphc0 = IPHC_DISPATCH | IPHC_TF_ELIDED | IPHC_NH;
    guint8 iphc1 = 0;
    gboolean use_ctx;
    gboolean cid_ext;
    guint8 nhc = NHC_UDP;

    g_return_val_if_fail(ip != NULL, NULL);
    g_return_val_if_fail(payload != NULL || len == 0, NULL);
    if (UDP_HDR_LEN + len > G_MAXUINT16)
        return NULL;

    use_ctx = ctx != NULL && ctx->use_context && ctx->context_id <= 15 &&
              memcmp(ip->src, ctx->context_prefix, 8) == 0;
    /* Context 0 is implied; any other needs the CID extension byte. */
    cid_ext = use_ctx && ctx->context_id != 0;

    switch (ip->hop_limit) {
    case 1:   iphc0 |= 0x01; break;
    case 64:  iphc0 |= 0x02; break;
    case 255: iphc0 |= 0x03; break;
    default:  break;                                /* HLIM=00: inline */
    }

    out = g_byte_array_sized_new((guint)(64 + len));
    g_byte_array_set_size(out, 2);                  /* IPHC base, filled in below */
    if (cid_ext) {
        iphc1 |= IPHC_CID;
        put_u8(out, (guint8)(ctx->context_id << 4));     /* SCI, DCI = 0 */
    }
    /* Inline fields follow in RFC 6282 order: (TF elided, NH compressed)
     * hop limit, source, destination. */
    if ((iphc0 & 0x03) == 0)
        put_u8(out, ip->hop_limit);

    if (use_ctx) {
        iphc1 |= IPHC_SAC | (0x01 << IPHC_SAM_SHIFT);     /* 64-bit IID inline */
        g_byte_array_append(out, ip->src + 8, 8);
    } else if (is_link_local64(ip->src)) {
        iphc1 |= 0x01 << IPHC_SAM_SHIFT;
        g_byte_array_append(out, ip->src + 8, 8);
    } else {
        g_byte_array_append(out, ip->src, 16);      /* SAM=00 */
    }
    iphc1 |= compress_dst(out, ip->dst);

    out->data[0] = iphc0;
    out->data[1] = iphc1;

    /* UDP NHC (RFC 6282 4.3.3): checksum always inline (C=0). */
    if ((ip->src_port & 0xFFF0) == 0xF0B0 && (ip->dst_port & 0xFFF0) == 0xF0B0) {
        nhc |= NHC_UDP_PP_44;
        put_u8(out, nhc);
        put_u8(out, (guint8)(((ip->src_port & 0x0F) << 4) | (ip->dst_port & 0x0F)));
    } else {
        put_u8(out, nhc);
        put_be16(out, ip->src_port);
        put_be16(out, ip->dst_port);
    }
    put_be16(out, udp6_checksum(ip, payload, len));

    if (hdr_len)
        *hdr_len = out->len;
    if (len)
        g_byte_array_append(out, payload, (guint)len);
    return out;
}

static GByteArray *frag_new(guint8 dispatch, guint16 size, guint16 tag)
{
    GByteArray *f = g_byte_array_new();

    put_u8(f, (guint8)(dispatch | ((size >> 8) & 0x07)));
    put_u8(f, (guint8)size);
    put_be16(f, tag);
    return f;
}

GPtrArray *lowpan_fragment(const GByteArray *compressed, gsize hdr_len,
                           guint16 datagram_size, guint16 tag, gsize max_payload)
{
    GPtrArray *frags;
    gsize payload_len, uncomp_hdr, n, pos, offset, per_fragn;
    GByteArray *f;

    g_return_val_if_fail(compressed != NULL, NULL);
    g_return_val_if_fail(hdr_len <= compressed->len, NULL);

    frags = g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
    if (compressed->len <= max_payload) {
        f = g_byte_array_sized_new(compressed->len);
        g_byte_array_append(f, compressed->data, compressed->len);
        g_ptr_array_add(frags, f);
        return frags;
    }

    /* Offsets count uncompressed bytes: the compressed headers stand for
     * datagram_size minus the (uncompressed) payload that follows them. */
    payload_len = compressed->len - hdr_len;
    if (datagram_size > FRAG_SIZE_MAX || datagram_size < payload_len)
        goto fail;
    uncomp_hdr = datagram_size - payload_len;

    /* FRAG1: headers + payload up to an 8-octet boundary of the
     * uncompressed datagram (RFC 4944 5.3: offsets are in 8-octet units). */
    if (max_payload < FRAG1_HDR_LEN + hdr_len)
        goto fail;
    n = ((max_payload - FRAG1_HDR_LEN - hdr_len + uncomp_hdr) / 8) * 8;
    if (n <= uncomp_hdr)
        goto fail;                  /* no payload byte fits before a boundary */
    n -= uncomp_hdr;

    f = frag_new(FRAG1_DISPATCH, datagram_size, tag);
    g_byte_array_append(f, compressed->data, (guint)(hdr_len + n));
    g_ptr_array_add(frags, f);
    pos = hdr_len + n;
    offset = uncomp_hdr + n;

    /* FRAGN: multiples of 8 bytes, except the last. */
    if (max_payload < FRAGN_HDR_LEN + 8)
        goto fail;
    per_fragn = ((max_payload - FRAGN_HDR_LEN) / 8) * 8;
    while (pos < compressed->len) {
        gsize chunk = MIN(per_fragn, compressed->len - pos);

        f = frag_new(FRAGN_DISPATCH, datagram_size, tag);
        put_u8(f, (guint8)(offset / 8));
        g_byte_array_append(f, compressed->data + pos, (guint)chunk);
        g_ptr_array_add(frags, f);
        pos += chunk;
        offset += chunk;
    }
    return frags;

fail:
    g_ptr_array_unref(frags);
    return NULL;
}

void lowpan_prepend_mesh(GByteArray *frag, guint16 originator, guint16 final_dst,
                         guint8 hops_left)
{
    guint8 h[6];
    guint n = 0;

    g_return_if_fail(frag != NULL);

    /* 10 V F HopsLeft; both addresses short, sent big-endian. */
    if (hops_left < MESH_HOPS_EXT) {
        h[n++] = MESH_DISPATCH | MESH_V_SHORT | MESH_F_SHORT | hops_left;
    } else {
        /* 0xF: the hop count follows in its own byte (deep hops left). */
        h[n++] = MESH_DISPATCH | MESH_V_SHORT | MESH_F_SHORT | MESH_HOPS_EXT;
        h[n++] = hops_left;
    }
    h[n++] = (guint8)(originator >> 8);
    h[n++] = (guint8)originator;
    h[n++] = (guint8)(final_dst >> 8);
    h[n++] = (guint8)final_dst;
    g_byte_array_prepend(frag, h, n);
}
