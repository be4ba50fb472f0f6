/* channel.h: the shared 2.4 GHz channel: who is on the air when, what a
 * clear channel assessment hears, collisions, and frame loss at a receiver
 * (Bernoulli, or bursty Gilbert-Elliott in time), plus link outages.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CHANNEL_H
#define CHANNEL_H
#include "world.h"

#define SYMBOL_US        16      /* O-QPSK 2.4 GHz: 62.5 ksymbol/s */
#define BYTE_US          32      /* 250 kbit/s */
#define PHY_OVERHEAD     6       /* preamble 4, SFD 1, PHR 1 */
#define BACKOFF_US       (20 * SYMBOL_US)   /* aUnitBackoffPeriod */
#define CCA_US           (8 * SYMBOL_US)
#define TURNAROUND_US    (12 * SYMBOL_US)   /* aTurnaroundTime */
#define ACK_WAIT_US      (54 * SYMBOL_US)   /* macAckWaitDuration */

static inline gint64 air_time_us(gsize psdu_len) { return (gint64)(psdu_len + PHY_OVERHEAD) * BYTE_US; }

typedef struct channel channel_t;

/* The channel of a run goes in world_t.channel. */
channel_t *channel_new(void);
void       channel_free(channel_t *c);
/* tx is on the air over [start, end]. */
void       channel_add(world_t *w, node_t *tx, gint64 start, gint64 end);
/* CCA by listener over [t0, t1]: is an audible transmission on the air? */
gboolean   channel_busy(world_t *w, const node_t *listener, gint64 t0, gint64 t1);
/* Does rx fail to receive tx's frame on air over [start, end]? */
gboolean   channel_lost(world_t *w, node_t *tx, node_t *rx, gint64 start, gint64 end);

#endif
