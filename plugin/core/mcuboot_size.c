/* mcuboot_size.c: an MCUboot image's size from its blocks (mcuboot_size.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ws_compat.h"
#include "mcuboot.h"
#include "mcuboot_size.h"

void mcuboot_size_feed(mcuboot_size_t *s, guint64 offset, tvbuff_t *block)
{
    guint64 len = block ? tvb_captured_length(block) : 0;

    /* The header's magic and sizes lie in its first 16 bytes (a 16-byte block 0 has them). */
    if (!s->header_seen && offset == 0 && len >= 16 && tvb_get_letohl(block, 0) == MCUBOOT_MAGIC) {
        s->header_seen = TRUE;
        s->info_at = tvb_get_letohs(block, 8) + (guint64)tvb_get_letohl(block, 12) + tvb_get_letohs(block, 10);
    }
    if (!s->header_seen)
        return;
    for (guint i = 0; i < sizeof s->info; i++) {
        guint64 at = s->info_at + i;
        if (at >= offset && at < offset + len && !(s->have & 1u << i)) {
            s->info[i] = tvb_get_uint8(block, (gint)(at - offset));
            s->have |= (guint8)(1u << i);
        }
    }
}

mcuboot_size_kind_t mcuboot_size_get(const mcuboot_size_t *s, gint64 *size)
{
    if (!s->header_seen)
        return MCUBOOT_SIZE_UNKNOWN;
    guint16 magic = (guint16)(s->info[0] | s->info[1] << 8), tot = (guint16)(s->info[2] | s->info[3] << 8);
    /* A wrong magic or length is the image's own fault (meter.fw.tlv_info_bad): the bound stays. */
    if (s->have == 0xf && magic == MCUBOOT_TLV_INFO && tot >= MCUBOOT_TLV_INFO_LEN) {
        *size = (gint64)(s->info_at + tot);
        return MCUBOOT_SIZE_TLV_END;
    }
    *size = (gint64)(s->info_at + MCUBOOT_TLV_INFO_LEN);
    return MCUBOOT_SIZE_AT_LEAST;
}
