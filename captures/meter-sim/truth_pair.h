/* truth_pair.h: with meter-sim --gateway-output, the truth of the two
 * vantage points of one run, message by message: every CoAP transmission
 * to or from a Thread node, where it was lost (on the radio, at the border
 * router, on the backhaul) and how long its radio and backhaul legs took,
 * in the true time and in the gateway capture's clock. Written as the
 * truth's `pair` section (docs/ground-truth.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_PAIR_H
#define TRUTH_PAIR_H
#include <glib.h>
#include <json-glib/json-glib.h>
#include "world.h"

typedef struct pair_truth pair_truth_t;

pair_truth_t *pair_truth_new(void);
void          pair_truth_free(pair_truth_t *pt);
/* Each of the following does nothing when pt is NULL (no --gateway-output). */
/* The meter (or a background node) handed dg to its radio at UNIX time us. */
void pair_truth_up(pair_truth_t *pt, const datagram_t *dg, gint64 us);
/* The gateway sent dg down at UNIX time us. */
void pair_truth_down(pair_truth_t *pt, const datagram_t *dg, gint64 us);
/* A transmission of a frame of dg ended at us; the copy on hop became
 * complete on air (every fragment sent at least once) at us. */
void pair_truth_frame(pair_truth_t *pt, const datagram_t *dg, gint64 us);
void pair_truth_copy(pair_truth_t *pt, const datagram_t *dg, int hop, gint64 us);
void pair_truth_delivered(pair_truth_t *pt, const datagram_t *dg);
void pair_truth_backhaul_lost(pair_truth_t *pt, const datagram_t *dg);
void pair_truth_at_gateway(pair_truth_t *pt, const datagram_t *dg, gint64 us);
/* Adds the "pair" member. */
void pair_truth_write(const pair_truth_t *pt, JsonBuilder *b, const sim_params_t *p, const char *gateway_capture);

#endif
