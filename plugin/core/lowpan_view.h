/* lowpan_view.h: reads the 6LoWPAN dispatch headers of one frame (RFC 4944
 * mesh and FRAG1/FRAGN, RFC 6282 IPHC with UDP NHC) far enough to account
 * for fragments and to find the CoAP header in a first fragment.
 *
 * Stock 6LoWPAN shows these headers but reassembles silently; the fragment
 * accounting needs them for every fragment, also for datagrams that never
 * complete, and reading them here avoids priming a dozen fields per frame.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef LOWPAN_VIEW_H
#define LOWPAN_VIEW_H

#include <epan/tvbuff.h>

typedef struct {
    gboolean has_mesh;
    guint64  mesh_orig, mesh_final;   /* short addresses as 0xffff0000 | addr */
    gboolean is_frag;
    gboolean first;                   /* FRAG1 */
    guint16  size;                    /* datagram_size */
    guint16  tag;
    guint16  offset;                  /* bytes (FRAGN offset * 8; 0 for FRAG1) */
    gint     data_offset, data_len;   /* the fragment's data within the tvb */
    guint16  frag1_span;              /* FRAG1: uncompressed bytes it carries (0: unknown) */
    /* From an unfragmented datagram or a FRAG1: the CoAP header, if UDP to
     * or from a CoAP port follows and enough bytes are there. */
    gboolean has_coap;
    guint8   coap_type, coap_code;
    guint16  coap_mid;
} lowpan_view_t;

/* Whether a UDP port carries CoAP: the ports Wireshark decodes as CoAP,
 * which only the caller knows (Decode As, CoAP's port preference). */
typedef gboolean (*lowpan_coap_port_fn)(guint16 port);

/* tvb[offset, offset + length) is the 6LoWPAN part of an 802.15.4 payload.
 * is_coap_port NULL: CoAP's default port 5683 only. */
gboolean lowpan_view_parse(tvbuff_t *tvb, gint offset, gint length, lowpan_coap_port_fn is_coap_port,
                           lowpan_view_t *out);

#endif
