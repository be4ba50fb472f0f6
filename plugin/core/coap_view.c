/* coap_view.c: a bounded reader of CoAP messages (RFC 7252 3.1, RFC 7959 2.2).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "coap_view.h"
#include "ws_compat.h"

enum {
    OPT_URI_PATH = 11, OPT_CONTENT_FORMAT = 12, OPT_URI_QUERY = 15,
    OPT_BLOCK2 = 23, OPT_BLOCK1 = 27, OPT_SIZE2 = 28, OPT_SIZE1 = 60,
};

/* An option delta or length nibble with its extension bytes. */
static gboolean read_nibble(tvbuff_t *tvb, gint *pos, gint end, guint nibble, guint *value)
{
    if (nibble < 13) {
        *value = nibble;
        return TRUE;
    }
    if (nibble == 13 && *pos + 1 <= end) {
        *value = 13u + tvb_get_uint8(tvb, *pos);
        *pos += 1;
        return TRUE;
    }
    if (nibble == 14 && *pos + 2 <= end) {
        *value = 269u + tvb_get_ntohs(tvb, *pos);
        *pos += 2;
        return TRUE;
    }
    return FALSE;   /* 15 is reserved for the payload marker */
}

static guint64 read_uint(tvbuff_t *tvb, gint pos, guint len)
{
    guint64 v = 0;

    for (guint i = 0; i < len && i < 8; i++)
        v = (v << 8) | tvb_get_uint8(tvb, pos + (gint)i);
    return v;
}

static void read_block(tvbuff_t *tvb, gint pos, guint len, meter_block_t *b)
{
    guint64 v = read_uint(tvb, pos, MIN(len, 3));

    b->present = TRUE;
    b->empty = len == 0;
    b->num = (guint32)(v >> 4);
    b->more = (v & 0x08) != 0;
    b->szx = (guint8)(v & 0x07);
}

gboolean coap_view_parse(tvbuff_t *tvb, gint offset, gint length, wmem_allocator_t *scope,
                         meter_coap_t *out)
{
    gint end, pos;
    guint number = 0;
    wmem_strbuf_t *path = NULL, *query = NULL;

    memset(out, 0, sizeof(*out));
    out->content_format = -1;
    out->size1 = out->size2 = -1;
    if (length < 4 || !tvb_bytes_exist(tvb, offset, length))
        return FALSE;
    end = offset + length;
    guint8 first = tvb_get_uint8(tvb, offset);
    if ((first >> 6) != 1 || (first & 0x0f) > 8)
        return FALSE;
    out->type = (first >> 4) & 3;
    out->tkl = first & 0x0f;
    out->code = tvb_get_uint8(tvb, offset + 1);
    out->mid = tvb_get_ntohs(tvb, offset + 2);
    pos = offset + 4;
    if (pos + out->tkl > end)
        return FALSE;
    tvb_memcpy(tvb, out->token, pos, out->tkl);
    pos += out->tkl;

    /* Each option consumes at least one byte, so this loop is bounded. */
    while (pos < end) {
        guint8 head = tvb_get_uint8(tvb, pos);
        guint delta, len;

        if (head == 0xff) {
            pos++;
            if (pos >= end)
                return FALSE;   /* a marker with no payload is a format error */
            out->payload = tvb_new_subset_length(tvb, pos, end - pos);
            out->payload_offset = pos - offset;
            break;
        }
        pos++;
        if (!read_nibble(tvb, &pos, end, head >> 4, &delta) ||
            !read_nibble(tvb, &pos, end, head & 0x0f, &len) || pos + (gint)len > end)
            return FALSE;
        number += delta;
        switch (number) {
        case OPT_URI_PATH:
            if (!path)
                path = wmem_strbuf_new(scope, "");
            else
                wmem_strbuf_append_c(path, '/');
            wmem_strbuf_append(path, (const char *)tvb_get_string_enc(scope, tvb, pos, len, ENC_UTF_8));
            break;
        case OPT_URI_QUERY:
            if (!query)
                query = wmem_strbuf_new(scope, "");
            else
                wmem_strbuf_append_c(query, '&');
            wmem_strbuf_append(query, (const char *)tvb_get_string_enc(scope, tvb, pos, len, ENC_UTF_8));
            break;
        case OPT_CONTENT_FORMAT:
            out->content_format = (gint)read_uint(tvb, pos, MIN(len, 2));
            break;
        case OPT_BLOCK2:
            read_block(tvb, pos, len, &out->block2);
            break;
        case OPT_BLOCK1:
            read_block(tvb, pos, len, &out->block1);
            break;
        case OPT_SIZE2:
            out->size2 = (gint64)read_uint(tvb, pos, MIN(len, 4));
            break;
        case OPT_SIZE1:
            out->size1 = (gint64)read_uint(tvb, pos, MIN(len, 4));
            break;
        default:
            break;
        }
        pos += (gint)len;
    }
    out->path = path ? wmem_strbuf_get_str(path) : NULL;
    out->query = query ? wmem_strbuf_get_str(query) : NULL;
    return TRUE;
}
