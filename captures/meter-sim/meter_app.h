/* meter_app.h: the meter's firmware as seen on the network: a CoAP client
 * (RFC 7252 retransmission, RFC 7959 block-wise) that fetches its config,
 * uploads history and downloads a firmware image, writing it to flash.
 * Background nodes run the same client with a lighter script.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_APP_H
#define METER_APP_H
#include "world.h"
#include "catalogue.h"

typedef struct meter_app meter_app_t;

/* The app running on n (node_t.app), which knows what cat holds for it. */
meter_app_t *meter_app_new(node_t *n, const catalogue_t *cat, gboolean background);
void         meter_app_free(meter_app_t *a);
void         meter_app_start(meter_app_t *a, gint64 at_us);
/* Every meter (not the background nodes) has finished its script. */
gboolean     meter_apps_all_done(world_t *w);

#endif
