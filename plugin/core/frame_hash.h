/* frame_hash.h: 64-bit fingerprints of a frame's bytes, so that the tracker
 * can tell the same frame sent again (a MAC retry) or captured twice (a
 * merged capture) without keeping the bytes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FRAME_HASH_H
#define FRAME_HASH_H

#include <epan/tvbuff.h>

/* A hash of the captured bytes of tvb, from seed (0: a fixed basis).
 * Never 0, which the tracker reads as "no fingerprint". */
guint64 frame_hash_tvb(tvbuff_t *tvb, guint64 seed);
/* h (0: the basis) with n bytes folded in, the same way. */
guint64 frame_hash_bytes(guint64 h, const void *bytes, guint n);
/* h with v folded in, the same way. */
guint64 frame_hash_u64(guint64 h, guint64 v);

#endif
