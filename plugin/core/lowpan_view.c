/* lowpan_view.c: bounded reader of 6LoWPAN dispatch headers.
 * RFC 4944 section 5 (mesh, FRAG1/FRAGN), RFC 6282 sections 3.1 and 4.3.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "lowpan_view.h"
#include "ws_compat.h"

#define COAP_DEFAULT_PORT 5683

static guint64 short_key(guint16 a) { return G_GUINT64_CONSTANT(0xffff0000) | a; }

/* Inline bytes of an IPHC source (SAC, SAM) or destination (M, DAC, DAM). */
static gint src_len(guint sac, guint sam)
{
    static const gint stateless[4] = { 16, 8, 2, 0 }, stateful[4] = { 0, 8, 2, 0 };
    return sac ? stateful[sam] : stateless[sam];
}

static gint dst_len(guint m, guint dac, guint dam)
{
    static const gint uni[4] = { 16, 8, 2, 0 }, uni_ctx[4] = { -1, 8, 2, 0 };
    static const gint multi[4] = { 16, 6, 4, 1 }, multi_ctx[4] = { 6, -1, -1, -1 };
    if (!m)
        return dac ? uni_ctx[dam] : uni[dam];
    return dac ? multi_ctx[dam] : multi[dam];
}

static gboolean is_coap(lowpan_coap_port_fn is_coap_port, guint16 port)
{
    return is_coap_port ? is_coap_port(port) : port == COAP_DEFAULT_PORT;
}

/* Skips IPHC and the UDP header; TRUE with pos at the UDP payload when the
 * datagram is UDP to or from a CoAP port. */
static gboolean skip_to_coap(tvbuff_t *tvb, gint *pos, gint end, lowpan_coap_port_fn is_coap_port)
{
    gint p = *pos;
    guint8 b0, b1, nh;
    static const gint tf_len[4] = { 4, 3, 1, 0 };
    guint16 sport = 0, dport = 0;

    if (p + 2 > end)
        return FALSE;
    b0 = tvb_get_uint8(tvb, p);
    b1 = tvb_get_uint8(tvb, p + 1);
    if ((b0 & 0xe0) != 0x60)
        return FALSE;
    p += 2;
    if (b1 & 0x80)
        p += 1;                                  /* CID extension */
    p += tf_len[(b0 >> 3) & 3];
    nh = (b0 >> 2) & 1;
    if (!nh) {                                   /* next header inline: must be UDP */
        if (p + 1 > end || tvb_get_uint8(tvb, p) != 17)
            return FALSE;
        p += 1;
    }
    if ((b0 & 3) == 0)
        p += 1;                                  /* hop limit inline */
    p += src_len((b1 >> 6) & 1, (b1 >> 4) & 3);
    gint dl = dst_len((b1 >> 3) & 1, (b1 >> 2) & 1, b1 & 3);
    if (dl < 0)
        return FALSE;
    p += dl;
    if (nh) {
        if (p + 1 > end)
            return FALSE;
        guint8 nhc = tvb_get_uint8(tvb, p++);
        if ((nhc & 0xf8) != 0xf0)
            return FALSE;                        /* not UDP NHC */
        switch (nhc & 3) {
        case 0:
            if (p + 4 > end)
                return FALSE;
            sport = tvb_get_ntohs(tvb, p);
            dport = tvb_get_ntohs(tvb, p + 2);
            p += 4;
            break;
        case 1:
            if (p + 3 > end)
                return FALSE;
            sport = tvb_get_ntohs(tvb, p);
            dport = 0xf000 | tvb_get_uint8(tvb, p + 2);
            p += 3;
            break;
        case 2:
            if (p + 3 > end)
                return FALSE;
            sport = 0xf000 | tvb_get_uint8(tvb, p);
            dport = tvb_get_ntohs(tvb, p + 1);
            p += 3;
            break;
        default:
            if (p + 1 > end)
                return FALSE;
            sport = 0xf0b0 | (tvb_get_uint8(tvb, p) >> 4);
            dport = 0xf0b0 | (tvb_get_uint8(tvb, p) & 15);
            p += 1;
            break;
        }
        if (!(nhc & 4))
            p += 2;                              /* checksum inline */
        if (p > end)
            return FALSE;
    } else {
        if (p + 8 > end)
            return FALSE;
        sport = tvb_get_ntohs(tvb, p);
        dport = tvb_get_ntohs(tvb, p + 2);
        p += 8;
    }
    if (!is_coap(is_coap_port, sport) && !is_coap(is_coap_port, dport))
        return FALSE;
    *pos = p;
    return TRUE;
}

gboolean lowpan_view_parse(tvbuff_t *tvb, gint offset, gint length, lowpan_coap_port_fn is_coap_port,
                           lowpan_view_t *out)
{
    gint pos = offset, end = offset + length;
    guint8 d;

    memset(out, 0, sizeof(*out));
    if (length < 1 || !tvb_bytes_exist(tvb, offset, length))
        return FALSE;
    d = tvb_get_uint8(tvb, pos);
    if ((d & 0xc0) == 0x80) {                    /* mesh header */
        gboolean v = (d & 0x20) != 0, f = (d & 0x10) != 0;
        gint need = 1 + ((d & 0x0f) == 0x0f) + (v ? 2 : 8) + (f ? 2 : 8);
        if (pos + need > end)
            return FALSE;
        pos += 1 + ((d & 0x0f) == 0x0f);
        out->has_mesh = TRUE;
        out->mesh_orig = v ? short_key(tvb_get_ntohs(tvb, pos)) : tvb_get_ntoh64(tvb, pos);
        pos += v ? 2 : 8;
        out->mesh_final = f ? short_key(tvb_get_ntohs(tvb, pos)) : tvb_get_ntoh64(tvb, pos);
        pos += f ? 2 : 8;
        if (pos >= end)
            return FALSE;
        d = tvb_get_uint8(tvb, pos);
    }
    if (d == 0x50) {                             /* LOWPAN_BC0 */
        pos += 2;
        if (pos >= end)
            return FALSE;
        d = tvb_get_uint8(tvb, pos);
    }
    if ((d & 0xf8) == 0xc0 || (d & 0xf8) == 0xe0) {
        gboolean first = (d & 0xf8) == 0xc0;
        gint hl = first ? 4 : 5;
        if (pos + hl > end)
            return FALSE;
        out->is_frag = TRUE;
        out->first = first;
        out->size = tvb_get_ntohs(tvb, pos) & 0x07ff;
        out->tag = tvb_get_ntohs(tvb, pos + 2);
        out->offset = first ? 0 : (guint16)(tvb_get_uint8(tvb, pos + 4) * 8);
        pos += hl;
        out->data_offset = pos;
        out->data_len = end - pos;
        if (!first)
            return TRUE;
    }
    if (!skip_to_coap(tvb, &pos, end, is_coap_port))
        return TRUE;
    /* IPv6 (40) and UDP (8) headers, uncompressed, then the rest as is. */
    if (out->is_frag)
        out->frag1_span = (guint16)MIN(48 + (end - pos), 0xffff);
    if (pos + 4 <= end) {
        guint8 b = tvb_get_uint8(tvb, pos);
        if ((b >> 6) == 1) {
            out->has_coap = TRUE;
            out->coap_type = (b >> 4) & 3;
            out->coap_code = tvb_get_uint8(tvb, pos + 1);
            out->coap_mid = tvb_get_ntohs(tvb, pos + 2);
        }
    }
    return TRUE;
}
