/* lowpan.h: 6LoWPAN adaptation (RFC 4944, RFC 6282): IPHC with UDP NHC,
 * FRAG1/FRAGN fragmentation and the mesh addressing header.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef LOWPAN_H
#define LOWPAN_H
#include <glib.h>

typedef struct {
    guint8  src[16], dst[16];
    guint16 src_port, dst_port;
    guint8  hop_limit;
} lowpan_ip6udp_t;

typedef struct {
    /* Context for stateful source compression (SAC=1, SAM=01: 64-bit IID
     * inline) when the source's /64 matches it; all else inline. */
    gboolean use_context;
    guint8   context_id;             /* 0..15 */
    guint8   context_prefix[8];      /* the /64 prefix */
} lowpan_ctx_t;

/* Full uncompressed IPv6 + UDP datagram (with a correct UDP checksum): what
 * the gateway side sees on Ethernet. */
GByteArray *lowpan_ipv6_udp_packet(const lowpan_ip6udp_t *ip, const guint8 *payload, gsize len);

/* IPHC + UDP NHC (checksum inline, ports inline unless 0xF0Bx) + payload.
 * *hdr_len receives the length of the compressed headers. */
GByteArray *lowpan_compress(const lowpan_ip6udp_t *ip, const guint8 *payload, gsize len,
                            const lowpan_ctx_t *ctx, gsize *hdr_len);

/* Splits a compressed datagram into link payloads of at most max_payload
 * bytes each. If it fits whole, returns one element without a FRAG header.
 * Otherwise FRAG1 (4 bytes) holds the compressed headers and payload up to
 * an 8-octet boundary of the uncompressed datagram, FRAGN (5 bytes) the rest
 * at offsets in 8-octet units. datagram_size is the uncompressed IPv6 size.
 * Returns a GPtrArray of GByteArray* (free with g_ptr_array_unref). */
GPtrArray *lowpan_fragment(const GByteArray *compressed, gsize hdr_len,
                           guint16 datagram_size, guint16 tag, gsize max_payload);

/* Prepends an RFC 4944 mesh header (short originator and final addresses). */
void lowpan_prepend_mesh(GByteArray *frag, guint16 originator, guint16 final_dst,
                         guint8 hops_left);

#endif
