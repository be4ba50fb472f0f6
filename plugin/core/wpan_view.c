/* wpan_view.c: bounded reader of IEEE 802.15.4 MAC headers (802.15.4-2006
 * 7.2, 802.15.4-2015 7.2 and table 7-2 for PAN ID compression), the TAP
 * header (LINKTYPE_IEEE802_15_4_TAP) and the ZEP v2 data header.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ws_compat.h"
#include "wpan_view.h"

#define ZEP_PORT 17754

static tvbuff_t *zep_psdu(tvbuff_t *frame, gboolean *has_fcs)
{
    gint len = (gint)tvb_captured_length(frame), ip, ihl, udp, zep, plen;

    if (len < 14 + 20 + 8 + 32 || tvb_get_ntohs(frame, 12) != 0x0800)
        return NULL;
    ip = 14;
    ihl = (tvb_get_uint8(frame, ip) & 0x0f) * 4;
    if ((tvb_get_uint8(frame, ip) >> 4) != 4 || ihl < 20 || tvb_get_uint8(frame, ip + 9) != 17)
        return NULL;
    udp = ip + ihl;
    if (udp + 8 > len || tvb_get_ntohs(frame, udp + 2) != ZEP_PORT)
        return NULL;
    zep = udp + 8;
    /* "EX", version 2, type 1 (data): 32-byte header, PSDU length last. */
    if (zep + 32 > len || tvb_get_ntohs(frame, zep) != 0x4558 || tvb_get_uint8(frame, zep + 2) != 2 ||
        tvb_get_uint8(frame, zep + 3) != 1)
        return NULL;
    plen = tvb_get_uint8(frame, zep + 31);
    if (zep + 32 + plen > len)
        return NULL;
    /* CRC mode keeps the FCS; LQI mode puts LQI/RSSI in its 2 bytes. Either
     * way the PSDU ends in 2 bytes that are not payload. */
    *has_fcs = TRUE;
    return tvb_new_subset_length(frame, zep + 32, plen);
}

static tvbuff_t *tap_psdu(tvbuff_t *frame, gboolean *has_fcs)
{
    gint len = (gint)tvb_captured_length(frame), hdr, pos;

    if (len < 4 || tvb_get_uint8(frame, 0) != 0)
        return NULL;
    hdr = tvb_get_letohs(frame, 2);
    if (hdr < 4 || hdr > len)
        return NULL;
    *has_fcs = FALSE;
    /* TLVs: type u16, length u16, value padded to 4 bytes; type 0 is the FCS type. */
    for (pos = 4; pos + 4 <= hdr;) {
        guint16 type = tvb_get_letohs(frame, pos), tlen = tvb_get_letohs(frame, pos + 2);
        if (type == 0 && tlen >= 1 && pos + 5 <= hdr)
            *has_fcs = tvb_get_uint8(frame, pos + 4) != 0;
        pos += 4 + ((tlen + 3) & ~3);
    }
    return tvb_new_subset_remaining(frame, hdr);
}

tvbuff_t *wpan_view_psdu(tvbuff_t *frame, int encap, gboolean *has_fcs)
{
    switch (encap) {
    case WTAP_ENCAP_IEEE802_15_4:
        *has_fcs = TRUE;
        return frame;
    case WTAP_ENCAP_IEEE802_15_4_NOFCS:
        *has_fcs = FALSE;
        return frame;
    case WTAP_ENCAP_IEEE802_15_4_TAP:
        return tap_psdu(frame, has_fcs);
    case WTAP_ENCAP_ETHERNET:
        return zep_psdu(frame, has_fcs);
    default:
        return NULL;
    }
}

static gint addr_len(guint mode)
{
    return mode == 2 ? 2 : mode == 3 ? 8 : 0;
}

static guint64 read_addr(tvbuff_t *t, gint pos, guint mode)
{
    if (mode == 2)
        return G_GUINT64_CONSTANT(0xffff0000) | tvb_get_letohs(t, pos);
    return tvb_get_letoh64(t, pos);
}

/* 802.15.4-2015 table 7-2: which PAN IDs are present. */
static void pan_presence(guint version, guint dst_mode, guint src_mode, gboolean comp, gboolean *dst_pan,
                         gboolean *src_pan)
{
    if (version < 2) {
        *dst_pan = dst_mode != 0;
        *src_pan = src_mode != 0 && !(comp && dst_mode != 0);
        return;
    }
    if (!dst_mode && !src_mode) {
        *dst_pan = comp;
        *src_pan = FALSE;
    } else if (!src_mode) {
        *dst_pan = !comp;
        *src_pan = FALSE;
    } else if (!dst_mode) {
        *dst_pan = FALSE;
        *src_pan = !comp;
    } else if (dst_mode == 3 && src_mode == 3) {
        *dst_pan = !comp;
        *src_pan = FALSE;
    } else {
        *dst_pan = TRUE;
        *src_pan = !comp;
    }
}

gboolean wpan_view_parse(tvbuff_t *psdu, gboolean has_fcs, wpan_view_t *out)
{
    gint len = (gint)tvb_captured_length(psdu), pos = 2, end;
    guint16 fcf;
    guint version, dst_mode, src_mode;
    gboolean dst_pan, src_pan;

    memset(out, 0, sizeof(*out));
    out->command_id = -1;
    end = len - (has_fcs ? 2 : 0);
    if (end < 2)
        return FALSE;
    fcf = tvb_get_letohs(psdu, 0);
    out->frame_type = fcf & 7;
    out->security = (fcf & 0x0008) != 0;
    out->frame_pending = (fcf & 0x0010) != 0;
    out->ack_request = (fcf & 0x0020) != 0;
    dst_mode = (fcf >> 10) & 3;
    version = (fcf >> 12) & 3;
    src_mode = (fcf >> 14) & 3;
    if (!(version == 2 && (fcf & 0x0100))) {
        if (pos + 1 > end)
            return FALSE;
        out->has_seq = TRUE;
        out->seq = tvb_get_uint8(psdu, pos++);
    }
    pan_presence(version, dst_mode, src_mode, (fcf & 0x0040) != 0, &dst_pan, &src_pan);
    pos += dst_pan ? 2 : 0;
    if (pos + addr_len(dst_mode) > end)
        return FALSE;
    if (dst_mode >= 2)
        out->dst = read_addr(psdu, pos, dst_mode);
    pos += addr_len(dst_mode) + (src_pan ? 2 : 0);
    if (pos + addr_len(src_mode) > end)
        return FALSE;
    if (src_mode >= 2)
        out->src = read_addr(psdu, pos, src_mode);
    pos += addr_len(src_mode);
    if (out->security) {
        static const gint key_id_len[4] = { 0, 1, 5, 9 };
        static const gint mic_len[4] = { 0, 4, 8, 16 };
        if (pos + 1 > end)
            return FALSE;
        guint8 sc = tvb_get_uint8(psdu, pos);
        out->security_level = sc & 7;
        out->key_id_mode = (sc >> 3) & 3;
        pos += 1 + ((version == 2 && (sc & 0x20)) ? 0 : 4) + key_id_len[(sc >> 3) & 3];
        end -= mic_len[sc & 3];
    }
    /* Header IEs (2015) would follow here; the payload offset is then only
     * a lower bound, and secured payloads come decrypted from elsewhere. */
    if (pos > end)
        return FALSE;
    out->payload_offset = pos;
    out->payload_end = end;
    /* Before 2015 a secured command's identifier is its open payload, sent
     * in the clear; a 2015 frame encrypts it. */
    if (out->frame_type == WPAN_FRAME_COMMAND && pos < end && (!out->security || version < 2))
        out->command_id = tvb_get_uint8(psdu, pos);
    return TRUE;
}
