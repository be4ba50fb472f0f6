/* vantage_transfers.h: the transfers of a two-vantage pairing: one Thread
 * node and one path from a request for block 0 on, answers with the
 * request they answer; per transfer and direction the fates, lateness and
 * backhaul legs, and the answered exchanges' round trips split into the
 * backhaul legs and the gateway's own time (docs/analyser.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VANTAGE_TRANSFERS_H
#define VANTAGE_TRANSFERS_H
#include "vantage_pair_model.h"

/* Fills out->transfers from out->msgs (in time order) and sets each
 * message's transfer. */
void ms_pair_transfers(ms_pair_t *out);

#endif
