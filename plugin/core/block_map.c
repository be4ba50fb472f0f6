/* block_map.c: one object from the blocks of a CoAP block-wise transfer, by
 * byte offset (block_map.h).
 *
 * Why not epan/reassemble: fragment_add_check() drops its head when an
 * object completes, so a retransmitted copy of a block (or a MAC-retry copy
 * passed up again) that arrives after that opens a new reassembly that
 * never ends; its repeats are compared only when the object completes; and
 * the contiguous prefix of an unfinished download (for Export Objects) is
 * only reachable through the fragment list's internals. A byte map per
 * object (a buffer plus one bit per byte received, first copy wins) does all
 * of that in a few lines: a repeat is checked when it arrives, also after
 * completion, and the state stays visible to the export-object tap.
 *
 * Cost: a block costs its length, and the contiguous prefix only moves
 * forward, so thousands of blocks in any order stay linear.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "block_map.h"

struct block_map {
    guint32 max_size;
    guint32 cap;          /* bytes in buf, and bits in received */
    guint8 *buf;          /* g_malloc */
    guint8 *received;     /* g_malloc, one bit per byte of buf */
    guint32 contiguous;
    gboolean end_known;
    guint32 total;        /* end of the first last block */
    gboolean complete;
};

#define BLOCK_MAP_FIRST_CAP 4096u

static gboolean byte_received(const block_map_t *map, guint32 i)
{
    return (map->received[i >> 3] >> (i & 7)) & 1;
}

block_map_t *block_map_new(guint32 max_size)
{
    block_map_t *map = g_new0(block_map_t, 1);

    map->max_size = MIN(max_size, BLOCK_MAP_MAX_SIZE);
    return map;
}

void block_map_free(block_map_t *map)
{
    if (!map)
        return;
    g_free(map->buf);
    g_free(map->received);
    g_free(map);
}

/* Room for bytes [0, end), end <= max_size: by a quarter at a time, so
 * growth stays linear and a large image wastes at most a quarter of its
 * size (doubling would waste up to all of it). */
static void grow(block_map_t *map, guint32 end)
{
    guint32 cap = map->cap ? map->cap : BLOCK_MAP_FIRST_CAP;
    guint32 old_bits = (map->cap + 7) / 8, new_bits;

    if (end <= map->cap)
        return;
    while (cap < end)
        cap = cap > map->max_size - cap / 4 ? map->max_size : cap + cap / 4;
    new_bits = (cap + 7) / 8;
    map->buf = (guint8 *)g_realloc(map->buf, cap);
    map->received = (guint8 *)g_realloc(map->received, new_bits);
    memset(map->received + old_bits, 0, new_bits - old_bits);
    map->cap = cap;
}

/* A block after completion changes nothing: it is compared with the object. */
static void compare_with_complete(const block_map_t *map, guint64 offset, const guint8 *data,
                                  guint32 len, gboolean last, block_map_add_t *r)
{
    gboolean inside = offset <= map->total && len <= map->total - offset;

    r->after_complete = TRUE;
    if (len > 0 && offset < map->total) {
        guint32 n = (guint32)MIN((guint64)len, map->total - offset);

        r->overlap = TRUE;
        r->conflict = memcmp(map->buf + offset, data, n) != 0;
    }
    r->duplicate = len > 0 && inside;
    r->other_end = last && !(inside && offset + len == map->total);
}

void block_map_add(block_map_t *map, guint64 offset, const guint8 *data, guint32 len,
                   gboolean last, block_map_add_t *r)
{
    guint32 off, end, covered = 0;

    memset(r, 0, sizeof *r);
    if (map->complete) {
        compare_with_complete(map, offset, data, len, last, r);
        return;
    }
    if (offset > map->max_size || len > map->max_size - offset) {
        r->beyond_limit = TRUE;
        return;
    }
    off = (guint32)offset;
    end = off + len;
    grow(map, end);
    for (guint32 i = off; i < end; i++) {
        if (byte_received(map, i)) {
            covered++;
            if (map->buf[i] != data[i - off])
                r->conflict = TRUE;
        } else {
            map->buf[i] = data[i - off];
            map->received[i >> 3] |= (guint8)(1u << (i & 7));
        }
    }
    r->overlap = covered > 0;
    r->duplicate = len > 0 && covered == len;

    if (last && !map->end_known) {
        map->end_known = TRUE;
        map->total = end;
    } else if (last && end != map->total) {
        r->other_end = TRUE;
    }
    while (map->contiguous < map->cap && byte_received(map, map->contiguous))
        map->contiguous++;
    if (map->end_known && map->total > 0 && map->contiguous >= map->total) {
        map->complete = TRUE;
        r->completed = TRUE;
        /* Complete: only its bytes are read from now on, kept at their size. */
        map->cap = MAX(map->total, map->contiguous);
        map->buf = (guint8 *)g_realloc(map->buf, map->cap);
    }
}

guint32 block_map_contiguous(const block_map_t *map)
{
    return map->contiguous;
}

gboolean block_map_end_known(const block_map_t *map)
{
    return map->end_known;
}

guint32 block_map_total(const block_map_t *map)
{
    return map->total;
}

gboolean block_map_complete(const block_map_t *map)
{
    return map->complete;
}

const guint8 *block_map_bytes(const block_map_t *map)
{
    return map->contiguous ? map->buf : NULL;
}
