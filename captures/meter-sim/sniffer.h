/* sniffer.h: the sniffer that writes the capture: which frames on the air
 * it hears (a perfect one hears all; an imperfect one misses some, at
 * random, in bursts, or from nodes far from where it sits), and the
 * timestamp, RSSI and LQI it gives each. Its randomness is its own, so the
 * run on the air is the same whatever it misses (docs/meter-sim.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIFFER_H
#define SNIFFER_H
#include "world.h"

typedef struct sniffer sniffer_t;

sniffer_t *sniffer_new(const sim_params_t *p);
void       sniffer_free(sniffer_t *s);
/* Mesh hops from the node the sniffer sits next to, to n (tree distance). */
int        sniffer_hops_to(const world_t *w, const node_t *n);
/* The frame psdu, sent by tx, ends now: writes it to the capture unless the
 * sniffer misses it. TRUE when it was captured. */
gboolean   sniffer_frame(world_t *w, const node_t *tx, const GByteArray *psdu);

#endif
