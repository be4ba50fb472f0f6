/* coap_view.c: a CoAP message (RFC 7252 3.1, RFC 7959 2.2) into the
 * meter_coap_t the decoders use. The bytes are read by the reader the
 * analyser uses too (common/coap_options.h); this keeps what the decoders
 * need of the options, and takes strings and the payload from the tvb.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "coap_options.h"
#include "coap_view.h"
#include "ws_compat.h"

static void read_block(const meter_coap_option_t *o, meter_block_t *b)
{
    meter_coap_block_value_t v = meter_coap_option_block(o);

    b->present = TRUE;
    b->empty = o->length == 0;
    b->num = v.num;
    b->more = v.more;
    b->szx = v.szx;
}

/* A Uri-Path or Uri-Query option appended to what came before, joined by sep. */
static void append_text(wmem_strbuf_t **text, char sep, tvbuff_t *tvb, gint pos, gint len, wmem_allocator_t *scope)
{
    if (!*text)
        *text = wmem_strbuf_new(scope, "");
    else
        wmem_strbuf_append_c(*text, sep);
    wmem_strbuf_append(*text, (const char *)tvb_get_string_enc(scope, tvb, pos, len, ENC_UTF_8));
}

gboolean coap_view_parse(tvbuff_t *tvb, gint offset, gint length, wmem_allocator_t *scope,
                         meter_coap_t *out)
{
    meter_coap_reader_t r;
    meter_coap_option_t o;
    meter_coap_next_t next;
    wmem_strbuf_t *path = NULL, *query = NULL;

    memset(out, 0, sizeof(*out));
    out->content_format = -1;
    out->size1 = out->size2 = -1;
    /* The reader is bounded by the bytes it is given, and these are in the tvb. */
    if (length < 4 || !tvb_bytes_exist(tvb, offset, length) ||
        !meter_coap_read_header(&r, tvb_get_ptr(tvb, offset, length), (size_t)length))
        return FALSE;
    out->type = r.type;
    out->tkl = r.tkl;
    out->code = r.code;
    out->mid = r.mid;
    memcpy(out->token, r.token, r.tkl);

    while ((next = meter_coap_next_option(&r, &o)) == METER_COAP_OPTION) {
        gint pos = offset + (gint)o.offset, len = (gint)o.length;

        switch (o.number) {
        case METER_COAP_OPT_URI_PATH:
            append_text(&path, '/', tvb, pos, len, scope);
            break;
        case METER_COAP_OPT_URI_QUERY:
            append_text(&query, '&', tvb, pos, len, scope);
            break;
        case METER_COAP_OPT_CONTENT_FORMAT:
            out->content_format = (gint)meter_coap_option_uint(&o, 2);
            break;
        case METER_COAP_OPT_BLOCK2:
            read_block(&o, &out->block2);
            break;
        case METER_COAP_OPT_BLOCK1:
            read_block(&o, &out->block1);
            break;
        case METER_COAP_OPT_SIZE2:
            out->size2 = (gint64)meter_coap_option_uint(&o, 4);
            break;
        case METER_COAP_OPT_SIZE1:
            out->size1 = (gint64)meter_coap_option_uint(&o, 4);
            break;
        default:
            break;
        }
    }
    if (next == METER_COAP_BAD)
        return FALSE;
    if (r.marker) {
        if (r.payload >= r.len)
            return FALSE;   /* a marker with no payload is a format error (RFC 7252 3) */
        out->payload = tvb_new_subset_length(tvb, offset + (gint)r.payload, length - (gint)r.payload);
        out->payload_offset = (gint)r.payload;
    }
    out->path = path ? wmem_strbuf_get_str(path) : NULL;
    out->query = query ? wmem_strbuf_get_str(query) : NULL;
    return TRUE;
}
