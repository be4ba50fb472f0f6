/* coap_view.h: reads one CoAP message (RFC 7252 section 3) into the
 * meter_coap_t the decoders use: header, token, Uri-Path, Uri-Query,
 * Content-Format, Block1/Block2 (RFC 7959), Size1/Size2, payload.
 *
 * Stock CoAP does the display; this only reads. It is written here because
 * stock CoAP exports neither which block option (Block1 or Block2) a
 * block number belongs to nor the SZX as fields, and keeps one block option
 * per frame in its private state.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef COAP_VIEW_H
#define COAP_VIEW_H

#include "coap_msg.h"

/* Parses tvb[offset, offset + length). Strings and the payload tvb come
 * from scope / tvb. FALSE when the bytes are not a well-formed CoAP message
 * (a bad version, token length or option encoding); out is then undefined. */
gboolean coap_view_parse(tvbuff_t *tvb, gint offset, gint length, wmem_allocator_t *scope,
                         meter_coap_t *out);

#endif
