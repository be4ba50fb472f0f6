/* backhaul.h: the stage between the border router and the cloud gateway
 * beyond the Internet's round trip: datagrams it loses and extra delay it
 * adds (meter-sim --backhaul-loss, --backhaul-delay-ms), drawn from a random
 * stream of its own so that the radio's run keeps its draws; and the clock
 * of the gateway's own capture (--gateway-clock-offset-ms, -drift-ppm).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef BACKHAUL_H
#define BACKHAUL_H
#include <glib.h>
#include "scenario.h"

typedef struct backhaul backhaul_t;

backhaul_t *backhaul_new(const sim_params_t *p);
void        backhaul_free(backhaul_t *b);
/* One datagram crossing the backhaul: FALSE when it is lost; else
 * *extra_us is the delay added to the Internet's one-way time. */
gboolean    backhaul_pass(backhaul_t *b, gint64 *extra_us);
/* What the gateway capture's clock reads at the true UNIX time true_us. */
gint64      backhaul_gateway_clock(const sim_params_t *p, gint64 true_us);

#endif
