/* mcuboot_size.h: how large an MCUboot image is, from the blocks of the
 * transfer that carries it, for the tracker's size hint when neither the
 * meter's config blob nor Size2 tells (ota_track_rounds.c).
 *
 * The layout (bootutil/image.h, bootutil_tlv_iter_begin): the header
 * (hdr_size bytes), the body (img_size), the protected TLV area
 * (protect_tlv_size bytes, its own info 0x6908 included), then the TLV
 * info (magic 0x6907, it_tlv_tot: the area's length with its 4-byte
 * info) and its TLVs. Block 0's header tells where that TLV info lies;
 * until its 4 bytes have come the image is at least that and 4 bytes more,
 * then it ends at the TLV area's end. The file sent may go on after that
 * (imgtool --pad fills a slot): the size is what MCUboot reads, never more.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCUBOOT_SIZE_H
#define MCUBOOT_SIZE_H

#include <glib.h>
#include <epan/tvbuff.h>

typedef struct {
    gboolean header_seen;
    guint64  info_at;         /* hdr_size + img_size + protect_tlv_size */
    guint8   info[4];         /* the TLV info's bytes, as they come */
    guint8   have;            /* bit i: info[i] came */
} mcuboot_size_t;

typedef enum {
    MCUBOOT_SIZE_UNKNOWN,     /* no MCUboot header (yet) */
    MCUBOOT_SIZE_AT_LEAST,    /* the header's lower bound: the TLV info not seen, or not a TLV info */
    MCUBOOT_SIZE_TLV_END,     /* the end of the TLV area */
} mcuboot_size_kind_t;

/* The bytes of one block, at byte offset `offset` of the image. */
void mcuboot_size_feed(mcuboot_size_t *s, guint64 offset, tvbuff_t *block);
/* What is known of the size (in *size unless UNKNOWN). */
mcuboot_size_kind_t mcuboot_size_get(const mcuboot_size_t *s, gint64 *size);

#endif
