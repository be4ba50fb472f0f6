/* frame_hash.c: FNV-1a, 64-bit (a few cycles a byte: frames are short).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "frame_hash.h"
#include "ws_compat.h"

#define FNV_BASIS G_GUINT64_CONSTANT(0xcbf29ce484222325)
#define FNV_PRIME G_GUINT64_CONSTANT(0x100000001b3)

static guint64 fnv_bytes(guint64 h, const guint8 *p, guint n)
{
    for (guint i = 0; i < n; i++)
        h = (h ^ p[i]) * FNV_PRIME;
    return h ? h : 1;
}

guint64 frame_hash_tvb(tvbuff_t *tvb, guint64 seed)
{
    guint n = tvb_captured_length(tvb);

    return fnv_bytes(seed ? seed : FNV_BASIS, n ? tvb_get_ptr(tvb, 0, n) : NULL, n);
}

guint64 frame_hash_u64(guint64 h, guint64 v)
{
    guint8 b[8];

    for (guint i = 0; i < 8; i++)
        b[i] = (guint8)(v >> (8 * i));
    return fnv_bytes(h, b, sizeof b);
}
