/* coap_msg.c: CoAP message encoding (RFC 7252 section 3, RFC 7959 section 2).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "coap_msg.h"

enum {
    OPT_URI_PATH = 11, OPT_CONTENT_FORMAT = 12, OPT_URI_QUERY = 15,
    OPT_BLOCK2 = 23, OPT_BLOCK1 = 27, OPT_SIZE2 = 28,
};

void coap_msg_init(coap_msg_t *m)
{
    memset(m, 0, sizeof(*m));
    m->content_format = -1;
    m->size2 = -1;
}

guint32 coap_block_size(guint8 szx)
{
    return 1u << (szx + 4);
}

/* One option nibble (delta or length) with its 0, 1 or 2 extension bytes. */
static guint8 option_nibble(guint v, guint8 *ext, gsize *n_ext)
{
    if (v < 13)
        return (guint8)v;
    if (v < 269) {
        ext[(*n_ext)++] = (guint8)(v - 13);
        return 13;
    }
    ext[(*n_ext)++] = (guint8)((v - 269) >> 8);
    ext[(*n_ext)++] = (guint8)(v - 269);
    return 14;
}

/* Options must go out in ascending number order, each as a delta. */
static void put_option(GByteArray *out, guint *last, guint number, const guint8 *val, gsize len)
{
    guint8 ext[4];
    gsize n_ext = 0;
    guint8 d = option_nibble(number - *last, ext, &n_ext);
    guint8 l = option_nibble((guint)len, ext, &n_ext);
    guint8 first = (guint8)((d << 4) | l);

    *last = number;
    g_byte_array_append(out, &first, 1);
    g_byte_array_append(out, ext, (guint)n_ext);
    if (len)
        g_byte_array_append(out, val, (guint)len);
}

/* Unsigned option values use the fewest bytes, 0 being the empty string. */
static void put_uint_option(GByteArray *out, guint *last, guint number, guint64 v)
{
    guint8 be[8];
    gsize n = 0;

    for (guint64 t = v; t; t >>= 8)
        n++;
    for (gsize i = 0; i < n; i++)
        be[i] = (guint8)(v >> (8 * (n - 1 - i)));
    put_option(out, last, number, be, n);
}

static void put_block_option(GByteArray *out, guint *last, guint number, const coap_block_t *b)
{
    if (!b->present)
        return;
    put_uint_option(out, last, number, ((guint64)b->num << 4) | (b->more ? 8u : 0u) | b->szx);
}

GByteArray *coap_msg_encode(const coap_msg_t *m)
{
    GByteArray *out = g_byte_array_new();
    guint8 hdr[4] = {
        (guint8)(0x40 | (m->type << 4) | (m->tkl & 0x0f)),
        m->code,
        (guint8)(m->mid >> 8),
        (guint8)m->mid,
    };
    guint last = 0;

    g_byte_array_append(out, hdr, 4);
    g_byte_array_append(out, m->token, m->tkl);

    if (m->uri_path) {
        gchar **segs = g_strsplit(m->uri_path, "/", -1);
        for (gchar **s = segs; *s; s++)
            if (**s)
                put_option(out, &last, OPT_URI_PATH, (const guint8 *)*s, strlen(*s));
        g_strfreev(segs);
    }
    if (m->content_format >= 0)
        put_uint_option(out, &last, OPT_CONTENT_FORMAT, (guint64)m->content_format);
    if (m->uri_query)
        put_option(out, &last, OPT_URI_QUERY, (const guint8 *)m->uri_query, strlen(m->uri_query));
    put_block_option(out, &last, OPT_BLOCK2, &m->block2);
    put_block_option(out, &last, OPT_BLOCK1, &m->block1);
    if (m->size2 >= 0)
        put_uint_option(out, &last, OPT_SIZE2, (guint64)m->size2);
    if (m->payload_len) {
        static const guint8 marker = 0xff;
        g_byte_array_append(out, &marker, 1);
        g_byte_array_append(out, m->payload, (guint)m->payload_len);
    }
    return out;
}

static gboolean read_ext(const guint8 *buf, gsize len, gsize *pos, guint nib, guint *val)
{
    if (nib < 13) {
        *val = nib;
    } else if (nib == 13 && *pos < len) {
        *val = 13u + buf[(*pos)++];
    } else if (nib == 14 && *pos + 1 < len) {
        *val = 269u + ((guint)buf[*pos] << 8) + buf[*pos + 1];
        *pos += 2;
    } else {
        return FALSE;
    }
    return TRUE;
}

static void read_block(const guint8 *v, guint len, coap_block_t *b)
{
    guint32 x = 0;

    for (guint i = 0; i < len && i < 3; i++)
        x = (x << 8) | v[i];
    b->present = TRUE;
    b->num = x >> 4;
    b->more = (x & 8) != 0;
    b->szx = x & 7;
}

gboolean coap_msg_decode(const guint8 *buf, gsize len, coap_rx_t *out)
{
    gsize pos = 4;
    guint number = 0;

    memset(out, 0, sizeof(*out));
    out->content_format = -1;
    if (len < 4 || (buf[0] >> 6) != 1 || (buf[0] & 0x0f) > 8)
        return FALSE;
    out->type = (enum coap_type)((buf[0] >> 4) & 3);
    out->tkl = buf[0] & 0x0f;
    out->code = buf[1];
    out->mid = (guint16)((buf[2] << 8) | buf[3]);
    if (pos + out->tkl > len)
        return FALSE;
    memcpy(out->token, buf + pos, out->tkl);
    pos += out->tkl;
    while (pos < len && buf[pos] != 0xff) {
        guint d, l;
        guint8 first = buf[pos++];
        if (!read_ext(buf, len, &pos, first >> 4, &d) || !read_ext(buf, len, &pos, first & 15, &l) ||
            pos + l > len)
            return FALSE;
        number += d;
        const guint8 *v = buf + pos;
        if (number == OPT_URI_PATH) {
            if (out->path[0])
                g_strlcat(out->path, "/", sizeof(out->path));
            gsize at = strlen(out->path);
            if (at + l < sizeof(out->path)) {
                memcpy(out->path + at, v, l);
                out->path[at + l] = 0;
            }
        } else if (number == OPT_URI_QUERY && l < sizeof(out->query)) {
            memcpy(out->query, v, l);
            out->query[l] = 0;
        } else if (number == OPT_CONTENT_FORMAT) {
            out->content_format = 0;
            for (guint i = 0; i < l; i++)
                out->content_format = (out->content_format << 8) | v[i];
        } else if (number == OPT_BLOCK2) {
            read_block(v, l, &out->block2);
        } else if (number == OPT_BLOCK1) {
            read_block(v, l, &out->block1);
        }
        pos += l;
    }
    if (pos < len) {
        out->payload = buf + pos + 1;
        out->payload_len = len - pos - 1;
    }
    return TRUE;
}
