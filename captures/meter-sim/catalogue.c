/* catalogue.c: the cloud's content: the two MCUboot images (deterministic
 * from the seed) and each meter's config.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "catalogue.h"

#define MAIN_IMAGE_PATH "firmware/v2.1.0.img"
#define BG_IMAGE_PATH   "firmware/v1.4.2.img"
#define BG_IMAGE_SIZE   8192

struct catalogue {
    const world_t   *w;
    mcuboot_image_t  main_img, bg_img;
};

const char *catalogue_main_image_path(void) { return MAIN_IMAGE_PATH; }
const char *catalogue_background_image_path(void) { return BG_IMAGE_PATH; }

catalogue_t *catalogue_new(const world_t *w, GError **err)
{
    catalogue_t *c = g_new0(catalogue_t, 1);
    mcuboot_params_t mp = {
        .major = 2, .minor = 1, .revision = 0, .build = 1342,
        .load_addr = 0, .hdr_size = 32, .body_size = w->p.image_size, .flags = 0,
        .body_seed = w->p.seed ^ G_GUINT64_CONSTANT(0x6d65746572736370),
    };
    mcuboot_params_t bp = mp;

    c->w = w;
    bp.major = 1;
    bp.minor = 4;
    bp.revision = 2;
    bp.build = 77;
    bp.body_size = BG_IMAGE_SIZE;
    bp.body_seed = mp.body_seed + 1;
    if (!payload_mcuboot_build(&mp, w->p.seed, &c->main_img, err) ||
        !payload_mcuboot_build(&bp, w->p.seed, &c->bg_img, err)) {
        catalogue_free(c);
        return NULL;
    }
    return c;
}

void catalogue_free(catalogue_t *c)
{
    if (!c)
        return;
    payload_mcuboot_clear(&c->main_img);
    payload_mcuboot_clear(&c->bg_img);
    g_free(c);
}

const mcuboot_image_t *catalogue_image(const catalogue_t *c, const char *path)
{
    if (strcmp(path, MAIN_IMAGE_PATH) == 0)
        return &c->main_img;
    if (strcmp(path, BG_IMAGE_PATH) == 0)
        return &c->bg_img;
    return NULL;
}

void catalogue_config_for(const catalogue_t *c, const node_t *n, meter_config_t *cfg)
{
    static const char *alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789";
    const sim_params_t *p = &c->w->p;
    guint64 x = n->ext * G_GUINT64_CONSTANT(0x9e3779b97f4a7c15) ^ p->seed;
    int meter_idx = 0;

    for (int i = 0; i < SIM_MAX_METERS; i++)
        if (c->w->meters[i] == n)
            meter_idx = i;
    memset(cfg, 0, sizeof(*cfg));
    g_snprintf(cfg->device_id, sizeof(cfg->device_id), "mtr-%016" G_GINT64_MODIFIER "x", n->ext);
    cfg->config_version = 7;
    cfg->sample_interval = 900;
    cfg->upload_interval = 21600;
    g_strlcpy(cfg->history_path, "meter/his", sizeof(cfg->history_path));
    cfg->meter_kind = (guint32)(n->idx % 2);
    cfg->pulse_factor = cfg->meter_kind == 0 ? 0.5 : 0.001;
    g_strlcpy(cfg->unit, cfg->meter_kind == 0 ? "Wh" : "m3", sizeof(cfg->unit));
    cfg->utc_offset = 60;
    g_strlcpy(cfg->fw_version, "2.1.0", sizeof(cfg->fw_version));
    g_strlcpy(cfg->fw_path, MAIN_IMAGE_PATH, sizeof(cfg->fw_path));
    cfg->fw_size = c->main_img.image->len;
    memcpy(cfg->fw_sha256, c->main_img.sha256, 32);
    cfg->block_szx = (guint32)CLAMP(p->fw_szx[meter_idx], 0, 6);
    cfg->ack_timeout_ms = (guint32)(p->ack_timeout_s * 1000);
    cfg->n_points = 2;
    g_strlcpy(cfg->points[0].name, "energy", sizeof(cfg->points[0].name));
    g_snprintf(cfg->points[0].point_id, sizeof(cfg->points[0].point_id),
               "6f1c2a40-%04x-4e3b-9a57-%012" G_GINT64_MODIFIER "x", n->idx, n->ext & 0xffffffffffff);
    g_strlcpy(cfg->points[0].unit, "Wh", sizeof(cfg->points[0].unit));
    g_strlcpy(cfg->points[1].name, "power", sizeof(cfg->points[1].name));
    g_snprintf(cfg->points[1].point_id, sizeof(cfg->points[1].point_id),
               "0b9d7e22-%04x-41aa-8c0e-%012" G_GINT64_MODIFIER "x", n->idx, n->ext & 0xffffffffffff);
    g_strlcpy(cfg->points[1].unit, "W", sizeof(cfg->points[1].unit));
    for (int i = 0; i < 12; i++) {
        cfg->auth_token[i] = alphabet[x % 56];
        x = x / 56 + (guint64)(i + 1) * G_GUINT64_CONSTANT(0x2545f4914f6cdd1d);
    }
}
