/* gateway_app.h: the cloud CoAP gateway behind the border router: serves
 * the config blob and firmware images (Block2), accepts history (Block1),
 * de-duplicates retransmissions from its response cache, and can be told to
 * reproduce real gateways' edge behaviour (SZX 7, SZX 0, renegotiation).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef GATEWAY_APP_H
#define GATEWAY_APP_H
#include "world.h"
#include "catalogue.h"

typedef struct gateway_app gateway_app_t;

/* The gateway of w (world_t.gateway), serving what cat holds. */
gateway_app_t *gateway_app_new(world_t *w, const catalogue_t *cat);
void           gateway_app_free(gateway_app_t *g);

#endif
