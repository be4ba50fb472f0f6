/* capture_framer.c: pcap is a 24-byte header, then records of 16 bytes
 * plus their captured length; pcapng is blocks that carry their total
 * length at byte 4, in the byte order of the section's header.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "capture_framer.h"

#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_BOM 0x1a2b3c4du
#define PCAPNG_EPB 6u
#define PCAPNG_SPB 3u
#define PCAPNG_PB  2u    /* the obsolete Packet Block */

static guint32 u32_at(const ms_framer_t *f, const guint8 *p)
{
    guint32 v;

    memcpy(&v, p, 4);
    return f->swapped ? GUINT32_SWAP_LE_BE(v) : v;
}

static void find_kind(ms_framer_t *f, const guint8 *data, gsize len)
{
    guint32 magic;

    memcpy(&magic, data, 4);
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du)
        f->kind = FRAMER_PCAP;
    else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u)
        f->kind = FRAMER_PCAP, f->swapped = TRUE;
    else if (magic == PCAPNG_SHB && len >= 12)
        f->kind = FRAMER_PCAPNG;
    else if (magic != PCAPNG_SHB)
        f->kind = FRAMER_OPAQUE;
}

/* The length of the unit at data, 0 while not all of it is there, G_MAXSIZE: not a capture after all. */
static gsize unit_length(ms_framer_t *f, const guint8 *data, gsize len, gboolean first)
{
    if (f->kind == FRAMER_PCAP) {
        if (first)
            return len >= 24 ? 24 : 0;
        if (len < 16)
            return 0;
        return 16 + (gsize)u32_at(f, data + 8);
    }
    if (len < 12)
        return 0;
    guint32 type;
    memcpy(&type, data, 4);
    if (type == PCAPNG_SHB) {
        /* A new section may change the byte order. */
        guint32 bom;
        memcpy(&bom, data + 8, 4);
        if (bom != PCAPNG_BOM && GUINT32_SWAP_LE_BE(bom) != PCAPNG_BOM)
            return G_MAXSIZE;
        f->swapped = bom != PCAPNG_BOM;
    }
    guint32 total = u32_at(f, data + 4);
    return total >= 12 && total % 4 == 0 ? total : G_MAXSIZE;
}

gsize ms_framer_whole(ms_framer_t *f, const guint8 *data, gsize len, guint64 stop_at)
{
    gsize at = 0;

    if (f->kind == FRAMER_UNKNOWN && len >= 4)
        find_kind(f, data, len);
    if (f->kind == FRAMER_UNKNOWN)
        return 0;
    if (f->kind == FRAMER_OPAQUE)
        return len;
    for (;;) {
        gboolean first = f->kind == FRAMER_PCAP && !f->header_done;
        gsize n = unit_length(f, data + at, len - at, first);
        if (n == G_MAXSIZE) {
            /* Not what it looked like: hand it all to tshark, which will say what is wrong. */
            f->kind = FRAMER_OPAQUE;
            return len;
        }
        if (!n || n > len - at)
            return at;
        guint32 type = f->kind == FRAMER_PCAPNG ? u32_at(f, data + at) : 0;
        gboolean packet = !first && (f->kind == FRAMER_PCAP || type == PCAPNG_EPB || type == PCAPNG_SPB ||
                                     type == PCAPNG_PB);
        if (packet && stop_at && f->frames >= stop_at)
            return at;
        if (!f->header)
            f->header = g_byte_array_new();
        if (first) {
            f->header_done = TRUE;
            g_byte_array_append(f->header, data + at, (guint)n);
        } else if (packet) {
            f->frames++;
        } else {
            /* A new section replaces the last one's blocks. */
            if (type == PCAPNG_SHB)
                g_byte_array_set_size(f->header, 0);
            g_byte_array_append(f->header, data + at, (guint)n);
        }
        at += n;
    }
}

void ms_framer_clear(ms_framer_t *f)
{
    if (f->header)
        g_byte_array_free(f->header, TRUE);
    memset(f, 0, sizeof(*f));
}
