/* gateway_app.h: the cloud CoAP gateway behind the border router: serves
 * the config blob and firmware images (Block2), accepts history (Block1),
 * de-duplicates retransmissions from its response cache, and can be told to
 * reproduce real gateways' edge behaviour (SZX 7, SZX 0, renegotiation).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef GATEWAY_APP_H
#define GATEWAY_APP_H
#include "world.h"
#include "payloads.h"

typedef struct gateway_app gateway_app_t;

gateway_app_t *gateway_app_new(world_t *w, GError **err);
void           gateway_app_free(gateway_app_t *g);
void           gateway_app_deliver(world_t *w, node_t *from, const app_msg_t *msg);
/* What the gateway serves, for the meters' scripts and the truth file. */
const mcuboot_image_t *gateway_image(gateway_app_t *g, const char *path);
void           gateway_config_for(gateway_app_t *g, const node_t *n, meter_config_t *out);
const char    *gateway_main_image_path(void);
const char    *gateway_background_image_path(void);

#endif
