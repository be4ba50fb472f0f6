/* mle.h: Thread's Mesh Link Establishment traffic, as a sniffer sees it:
 * every node introduces itself once, routers advertise periodically.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLE_H
#define MLE_H
#include "world.h"

/* n's first MLE message goes out at at_us; a router's then follow every
 * --mle-interval seconds or so. */
void mle_start(node_t *n, gint64 at_us);

#endif
