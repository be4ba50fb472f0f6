/* coap_header.h: the few parts of a CoAP message (RFC 7252 3) the pairing
 * of two vantage points needs, read from its bytes: stock CoAP's fields are
 * not used, so that the captures are read with the plugin's cheap
 * preferences (no CoAP block reassembly) and alike on every Wireshark.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef COAP_HEADER_H
#define COAP_HEADER_H
#include <glib.h>

typedef struct {
    guint8  type, code, tkl;
    guint16 mid;
    char    token[17];     /* hex */
    char    path[96];      /* "/a/b", empty without Uri-Path */
    gint64  block;         /* the Block2 (else Block1) number, -1 none */
} ms_coap_header_t;

/* FALSE when b is not a well-formed CoAP message over UDP (version 1, a
 * token of at most 8 bytes, options that fit). */
gboolean ms_coap_header_parse(const guint8 *b, gsize n, ms_coap_header_t *h);

#endif
