/* frame_hash.c: a 64-bit hash that takes its input eight bytes at a time
 * (every frame of a capture is hashed, and FNV-1a's multiply per byte was
 * a percent of a long run), mixed at the end as splitmix64 does. Equal
 * bytes give equal fingerprints, which is all the tracker asks.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "frame_hash.h"
#include "ws_compat.h"

#define BASIS G_GUINT64_CONSTANT(0xcbf29ce484222325)
#define MUL   G_GUINT64_CONSTANT(0x9e3779b97f4a7c15)

static guint64 mix(guint64 h, guint64 w)
{
    h = (h ^ w) * MUL;
    return h ^ (h >> 29);
}

static guint64 finish(guint64 h)
{
    h ^= h >> 30;
    h *= G_GUINT64_CONSTANT(0xbf58476d1ce4e5b9);
    h ^= h >> 27;
    h *= G_GUINT64_CONSTANT(0x94d049bb133111eb);
    h ^= h >> 31;
    return h ? h : 1;
}

static guint64 hash_bytes(guint64 h, const guint8 *p, guint n)
{
    guint64 w;

    h = mix(h, n);
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = mix(h, w);
    }
    w = 0;
    if (n)
        memcpy(&w, p, n);
    return finish(mix(h, w));
}

guint64 frame_hash_tvb(tvbuff_t *tvb, guint64 seed)
{
    guint n = tvb_captured_length(tvb);

    return hash_bytes(seed ? seed : BASIS, n ? tvb_get_ptr(tvb, 0, n) : NULL, n);
}

guint64 frame_hash_bytes(guint64 h, const void *bytes, guint n)
{
    return hash_bytes(h ? h : BASIS, (const guint8 *)bytes, n);
}

guint64 frame_hash_u64(guint64 h, guint64 v)
{
    return finish(mix(h ? h : BASIS, v));
}
