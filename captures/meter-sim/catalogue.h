/* catalogue.h: what the cloud holds for the meters: each meter's config and
 * the firmware images. The gateway serves them (gateway_app.c); the meters'
 * scripts know their names (meter_app.c), as a provisioned meter does.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CATALOGUE_H
#define CATALOGUE_H
#include "world.h"
#include "payloads.h"

typedef struct catalogue catalogue_t;

/* Builds the images for w's parameters; NULL + *err on a libgcrypt failure. */
catalogue_t *catalogue_new(const world_t *w, GError **err);
void         catalogue_free(catalogue_t *c);
/* The image at a URI path, NULL when there is none. */
const mcuboot_image_t *catalogue_image(const catalogue_t *c, const char *path);
/* The meters' image (--image-size), and the background nodes'. */
const char  *catalogue_main_image_path(void);
const char  *catalogue_background_image_path(void);
/* n's config blob: fixed values, its own id and token, the main image. */
void         catalogue_config_for(const catalogue_t *c, const node_t *n, meter_config_t *out);

#endif
