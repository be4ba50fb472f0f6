/* fuzz_config.c: the config blob parser (meter_cfg_parse) as the config
 * decoder reads a GET /meter/cfg response. The first byte picks the key
 * table: bit 0 clear, the reference keys only; set, rows adding a key of
 * every type, renaming one reference key and retyping another (the key
 * table's paths); the rest is the blob.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"
#include "meter_cfg.h"

static meter_cfg_keys_t *fuzz_keys(void)
{
    static meter_cfg_keys_t *keys;
    static const struct { guint32 key; const char *name; meter_cfg_type_t type; const char *unit; } rows[] = {
        { 20, "x_text", METER_CFG_TEXT, "" },   { 21, "x_uint", METER_CFG_UINT, "Wh" },
        { 22, "x_int", METER_CFG_INT, "" },     { 23, "x_float", METER_CFG_FLOAT, "V" },
        { 24, "x_bytes", METER_CFG_BYTES, "" }, { 25, "x_map", METER_CFG_MAP, "" },
        { 26, "x_array", METER_CFG_ARRAY, "" }, { 27, "x_bool", METER_CFG_BOOL, "" },
        { 2, "config_version_text", METER_CFG_TEXT, "" },
        { 3, "sample_period", METER_CFG_UINT, "s" },
    };

    if (!keys) {
        keys = meter_cfg_keys_new();
        for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
            meter_cfg_keys_add(keys, rows[i].key, rows[i].name, rows[i].type, rows[i].unit);
    }
    return keys;
}

/* Walk everything the display would show. */
static guint walk_value(const meter_cfg_value_t *v)
{
    guint n = 1;

    for (guint i = 0; v && i < meter_cfg_n_items(v); i++)
        n += walk_value(meter_cfg_item(v, i));
    return n;
}

static guint walk_map(const meter_cfg_map_t *m)
{
    guint n = 0;

    for (guint i = 0; m && i < meter_cfg_n_pairs(m); i++) {
        const meter_cfg_pair_t *p = meter_cfg_pair(m, i);
        n += walk_value(p->value) + walk_value(p->key_item) + walk_map(p->map);
        for (guint j = 0; p->points && j < meter_cfg_n_points(p->points); j++) {
            const meter_cfg_point_t *pt = meter_cfg_point(p->points, j);
            n += walk_map(pt->map) + walk_value(pt->value);
        }
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    fuzz_init_once();
    wmem_allocator_t *alloc = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    guint len = (guint)MIN(size - 1, G_MAXINT32);
    tvbuff_t *tvb = tvb_new_real_data(data + 1, len, (gint)len);
    meter_cfg_t *cfg = meter_cfg_parse(alloc, tvb, (data[0] & 1) ? fuzz_keys() : NULL);

    (void)walk_map(cfg->map);
    (void)walk_value(cfg->value);
    for (guint i = 0; i < meter_cfg_n_problems(cfg); i++)
        (void)meter_cfg_problem_name(meter_cfg_problem(cfg, i)->kind);
    tvb_free(tvb);
    wmem_destroy_allocator(alloc);
    return 0;
}
