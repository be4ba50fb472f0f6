/* miss_estimate.h: how many frames of a transfer the sniffer missed, from
 * the share of its captured ACKs whose frame the capture lacks. An ACK
 * answers one transmission, captured or not, so that share estimates the
 * chance that the sniffer misses a frame; applied to the frames it did
 * capture, it tells how many it did not, also those no later frame gives
 * away (a first transmission whose retry was captured, an ACK whose frame
 * was sent again).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MISS_ESTIMATE_H
#define MISS_ESTIMATE_H

#include <glib.h>

typedef struct {
    guint32 estimate;   /* at least proven */
    guint32 high;       /* the high end of its 99% range (Wilson score interval of the share) */
} miss_estimate_t;

/* missed of missed + heard samples (ACKs captured whose frame is missing,
 * and those whose frame is not); captured:
 * the transfer's captured frames; proven: the frames missed that the
 * frames after them show. */
miss_estimate_t miss_estimate(guint32 missed, guint32 heard, guint32 captured, guint32 proven);

#endif
