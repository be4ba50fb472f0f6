/* block_map.h: one object put back together from the blocks of a CoAP
 * block-wise transfer (RFC 7959), by byte offset: a firmware image over
 * Block2 (packet-meter-fw.c), a SenML pack over Block1 (packet-meter-his.c).
 *
 * Offsets are NUM * 2^(SZX+4), so a block-size change mid-transfer is
 * harmless. The first copy of a byte wins; a repeat is compared with it,
 * and one with other bytes is reported for the caller to flag. The end is
 * the end of the first last block (M=0). The object is complete once every
 * byte from 0 to that end is there; from then on blocks are only compared.
 * Nothing in a block is trusted: an object never grows beyond the size given
 * to block_map_new(), and memory grows with the highest offset received.
 * block_map.c says why this is not epan's reassembly.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef BLOCK_MAP_H
#define BLOCK_MAP_H

#include <glib.h>

/* The largest object any block map holds, whatever its caller asks. */
#define BLOCK_MAP_MAX_SIZE (16u * 1024u * 1024u)

typedef struct block_map block_map_t;

/* What one block did to the map. */
typedef struct {
    gboolean beyond_limit;   /* it ends past the map's size: nothing of it was kept */
    gboolean overlap;        /* some of its bytes had already been received */
    gboolean duplicate;      /* all of them had (a block with bytes only) */
    gboolean conflict;       /* some of those differ from the copy kept */
    gboolean other_end;      /* a last block ending elsewhere than the first last block */
    gboolean after_complete; /* the object was already complete: only compared */
    gboolean completed;      /* this block completed the object */
} block_map_add_t;

/* max_size: the largest object accepted (at most BLOCK_MAP_MAX_SIZE). */
block_map_t *block_map_new(guint32 max_size);
void block_map_free(block_map_t *map);

/* Adds len bytes at offset; last: the block says it is the final one. */
void block_map_add(block_map_t *map, guint64 offset, const guint8 *data, guint32 len,
                   gboolean last, block_map_add_t *result);

/* Bytes received contiguously from offset 0. */
guint32 block_map_contiguous(const block_map_t *map);
/* Whether a last block was seen, and where it ends (0 until then). */
gboolean block_map_end_known(const block_map_t *map);
guint32 block_map_total(const block_map_t *map);
/* Every byte from 0 to a known, non-zero end is there. */
gboolean block_map_complete(const block_map_t *map);
/* The bytes from offset 0: block_map_contiguous() of them are valid (NULL
 * when there are none). Once the object is complete its block_map_total()
 * bytes are these, and they stay where they are until block_map_free(). */
const guint8 *block_map_bytes(const block_map_t *map);

#endif
