/* vantage_pair.h: a radio capture and a gateway capture of the same
 * network paired message by message: the same CoAP transmission found in
 * both, the two clocks aligned from them (clock_align.h), and for every
 * transmission where it was lost or how long its radio and backhaul legs
 * took, per transfer and direction (docs/analyser.md, "Two vantage points").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VANTAGE_PAIR_H
#define VANTAGE_PAIR_H
#include <glib.h>
#include "vantage_pair_model.h"

/* Pairs radio with gateway into out. FALSE with *why (a sentence for the
 * user) when they cannot be paired: nothing shared, one direction only, the
 * wrong kind of capture at a vantage point. */
gboolean    ms_pair_build(const ms_vantage_t *radio, const ms_vantage_t *gateway, ms_pair_t *out, char **why);
void        ms_pair_clear(ms_pair_t *p);
const char *ms_fate_name(ms_fate_t f);

#endif
