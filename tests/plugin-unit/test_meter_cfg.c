/* test_meter_cfg.c: unit tests of plugin/core/meter_cfg.c (the config blob
 * parser and its key table) on tvb_new_real_data() buffers, without tshark.
 *
 * The valid blob is the capture generator's own (captures/meter-sim/payloads.c,
 * linked from meter_sim_core), with every key of shared/meter-protocol.md;
 * malformed blobs are built here with the generator's CBOR writer or byte
 * by byte. Every problem kind meter_cfg.h lists has a case; truncations at
 * every length, absurd declared lengths, nesting past the depth bound and
 * random corruption must end as problems, never as a crash or a hang.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#undef G_DISABLE_ASSERT
#include <string.h>

#include <glib.h>
#include <epan/tvbuff.h>
#include <epan/wmem_scopes.h>

#include "meter_cfg.h"

/* Test blobs come from the generator's encoders (meter_sim_core). */
#include "payloads.h"
#include "cbor_enc.h"

static wmem_allocator_t *alloc;

/* ---- helpers ---------------------------------------------------------- */

static void put_raw(GByteArray *b, const char *hex)
{
    while (hex[0] && hex[1]) {
        guint8 x = (guint8)((g_ascii_xdigit_value(hex[0]) << 4) | g_ascii_xdigit_value(hex[1]));
        g_byte_array_append(b, &x, 1);
        hex += 2;
        while (*hex == ' ')
            hex++;
    }
}

static void check_value(const meter_cfg_value_t *v, gint length, guint depth)
{
    g_assert_nonnull(v->chunk);
    g_assert_cmpint(v->start, >=, 0);
    g_assert_cmpint(v->start, <=, v->end);
    g_assert_cmpint(v->end, <=, length);
    g_assert_cmpuint(depth, <=, METER_CFG_MAX_DEPTH);
    if (v->too_deep)
        g_assert_cmpuint(meter_cfg_n_items(v), ==, 0);
    for (guint i = 0; i < meter_cfg_n_items(v); i++) {
        const meter_cfg_value_t *item = meter_cfg_item(v, i);
        g_assert_cmpint(item->start, >=, v->start);
        /* only the last item can be cut short, and then so is its container */
        if (!item->complete)
            g_assert_true(i == meter_cfg_n_items(v) - 1 && !v->complete);
        check_value(item, length, depth + 1);
    }
}

static void check_map(const meter_cfg_map_t *m, gint length);

static void check_pair(const meter_cfg_pair_t *p, gint length)
{
    g_assert_cmpint(p->key_start, <=, p->value_start);
    g_assert_cmpint(p->value_start, <=, length);
    if (p->complete)
        g_assert_cmpint(p->end, <=, length);
    if (p->value)
        check_value(p->value, length, 1);
    if (p->key_item)
        check_value(p->key_item, length, 1);
    if (p->map)
        check_map(p->map, length);
    for (guint i = 0; p->points && i < meter_cfg_n_points(p->points); i++) {
        const meter_cfg_point_t *pt = meter_cfg_point(p->points, i);
        g_assert_cmpuint(pt->index, ==, i);
        if (pt->map)
            check_map(pt->map, length);
        if (pt->value)
            check_value(pt->value, length, 2);
    }
}

static void check_map(const meter_cfg_map_t *m, gint length)
{
    for (guint i = 0; i < meter_cfg_n_pairs(m); i++) {
        const meter_cfg_pair_t *p = meter_cfg_pair(m, i);
        if (!p->complete)
            g_assert_true(i == meter_cfg_n_pairs(m) - 1 && !m->complete);
        check_pair(p, length);
    }
}

/* What must hold for any input: problems inside the data, counted by kind,
 * and a parse either complete or stopped by exactly one truncation. */
static void check_invariants(const meter_cfg_t *cfg)
{
    guint by_kind[METER_CFG_PROB_COUNT] = { 0 };

    for (guint i = 0; i < meter_cfg_n_problems(cfg); i++) {
        const meter_cfg_problem_t *q = meter_cfg_problem(cfg, i);
        g_assert_cmpint(q->offset, >=, 0);
        g_assert_cmpint(q->length, >=, 0);
        g_assert_cmpint(q->offset + q->length, <=, cfg->length);
        by_kind[q->kind]++;
    }
    for (guint k = 0; k < METER_CFG_PROB_COUNT; k++)
        g_assert_cmpuint(by_kind[k], ==, cfg->n_problems[k]);
    g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_TRUNCATED], ==, cfg->complete ? 0 : 1);
    if (cfg->complete) {
        g_assert_cmpint(cfg->end, <=, cfg->length);
        g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_TRAILING], ==, cfg->end < cfg->length ? 1 : 0);
    }
    if (cfg->map)
        check_map(cfg->map, cfg->length);
    if (cfg->value)
        check_value(cfg->value, cfg->length, 1);
}

/* Parse the bytes (with keys, NULL: the reference ones); the result lives
 * in alloc, the tvb is freed. */
static meter_cfg_t *parse_keys(const guint8 *d, guint len, const meter_cfg_keys_t *keys)
{
    tvbuff_t *tvb = tvb_new_real_data(d, len, len);
    meter_cfg_t *cfg = meter_cfg_parse(alloc, tvb, keys);

    check_invariants(cfg);
    tvb_free(tvb);
    return cfg;
}

static meter_cfg_t *parse(const GByteArray *b)
{
    return parse_keys(b->data, b->len, NULL);
}

static const meter_cfg_problem_t *first_problem(const meter_cfg_t *cfg, meter_cfg_problem_kind_t kind)
{
    for (guint i = 0; i < meter_cfg_n_problems(cfg); i++) {
        if (meter_cfg_problem(cfg, i)->kind == kind)
            return meter_cfg_problem(cfg, i);
    }
    return NULL;
}

static void dump_problems(const meter_cfg_t *cfg)
{
    for (guint i = 0; i < meter_cfg_n_problems(cfg); i++) {
        const meter_cfg_problem_t *q = meter_cfg_problem(cfg, i);
        g_test_message("problem %s @%d+%d", meter_cfg_problem_name(q->kind), q->offset, q->length);
    }
}

/* The config the generator's gateway gives a meter (gateway_config_for()). */
static void generator_config(meter_config_t *c)
{
    memset(c, 0, sizeof *c);
    g_strlcpy(c->device_id, "mtr-00124b0001a0c000", sizeof c->device_id);
    c->config_version = 7;
    c->sample_interval = 900;
    c->upload_interval = 21600;
    g_strlcpy(c->history_path, "meter/his", sizeof c->history_path);
    c->meter_kind = 1;
    c->pulse_factor = 0.001;
    g_strlcpy(c->unit, "m3", sizeof c->unit);
    c->utc_offset = -90;
    g_strlcpy(c->fw_version, "2.1.0", sizeof c->fw_version);
    g_strlcpy(c->fw_path, "firmware/v2.1.0.img", sizeof c->fw_path);
    c->fw_size = 12608;
    for (guint i = 0; i < 32; i++)
        c->fw_sha256[i] = (guint8)(0xa0 + i);
    c->block_szx = 4;
    c->ack_timeout_ms = 2500;
    c->n_points = 2;
    g_strlcpy(c->points[0].name, "energy", sizeof c->points[0].name);
    g_strlcpy(c->points[0].point_id, "6f1c2a40-0001-4e3b-9a57-00124b0001a0", sizeof c->points[0].point_id);
    g_strlcpy(c->points[0].unit, "Wh", sizeof c->points[0].unit);
    g_strlcpy(c->points[1].name, "volume", sizeof c->points[1].name);
    g_strlcpy(c->points[1].point_id, "6f1c2a40-0002-4e3b-9a57-00124b0001a0", sizeof c->points[1].point_id);
    g_strlcpy(c->points[1].unit, "m3", sizeof c->points[1].unit);
    g_strlcpy(c->auth_token, "ABCDEFGHJKLM", sizeof c->auth_token);
}

static GByteArray *generator_blob(void)
{
    meter_config_t c;

    generator_config(&c);
    return payload_config_encode(&c);
}

/* A map of `n` pairs: unsigned key, then whatever the caller appends. */
static GByteArray *map_head(guint64 n)
{
    GByteArray *b = g_byte_array_new();

    cbor_put_map(b, n);
    return b;
}

/* ---- the valid blob: every key ---------------------------------------- */

static void test_generator_blob(void)
{
    GByteArray *b = generator_blob();
    meter_config_t c;
    meter_cfg_t *cfg = parse(b);
    const meter_cfg_pair_t *p;

    generator_config(&c);
    dump_problems(cfg);
    g_assert_true(cfg->complete);
    g_assert_true(cfg->is_map);
    g_assert_cmpuint(meter_cfg_n_problems(cfg), ==, 0);
    g_assert_cmpint(cfg->end, ==, (gint)b->len);
    g_assert_cmpuint(meter_cfg_n_pairs(cfg->map), ==, METER_CFG_N_REF_KEYS);

    /* Every pair is a reference key, named and typed by the key table,
     * decoded, and the pairs tile the map after its one-byte head. */
    gint at = 1;
    for (guint i = 0; i < METER_CFG_N_REF_KEYS; i++) {
        p = meter_cfg_pair(cfg->map, i);
        g_assert_cmpuint(p->kind, ==, METER_CFG_PAIR_KNOWN);
        g_assert_cmpuint(p->key, ==, i + 1);
        g_assert_nonnull(p->def);
        g_assert_true(p->def->reference == meter_cfg_reference_key(i + 1));
        g_assert_cmpstr(p->def->def.name, ==, meter_cfg_reference_key(i + 1)->name);
        g_assert_false(p->def->renamed);
        g_assert_true(p->decoded);
        g_assert_true(p->complete);
        g_assert_false(p->duplicate);
        g_assert_cmpint(p->key_start, ==, at);
        g_assert_cmpint(p->value_start, ==, at + 1);
        g_assert_cmpint(p->end, >, p->value_start);
        at = p->end;
    }
    g_assert_cmpint(at, ==, (gint)b->len);

    g_assert_cmpstr(meter_cfg_find(cfg, METER_CFG_DEVICE_ID)->text, ==, c.device_id);
    g_assert_cmpstr(cfg->device_id, ==, c.device_id);
    g_assert_true(cfg->has_config_version);
    g_assert_cmpuint(cfg->config_version, ==, 7);
    g_assert_cmpuint(meter_cfg_find(cfg, METER_CFG_SAMPLE_INTERVAL)->uint, ==, 900);
    g_assert_cmpstr(meter_cfg_find(cfg, METER_CFG_SAMPLE_INTERVAL)->def->def.unit, ==, "s");
    g_assert_cmpuint(meter_cfg_find(cfg, METER_CFG_UPLOAD_INTERVAL)->uint, ==, 21600);
    g_assert_cmpstr(meter_cfg_find(cfg, METER_CFG_HISTORY_PATH)->text, ==, "meter/his");
    g_assert_cmpuint(meter_cfg_find(cfg, METER_CFG_METER_KIND)->uint, ==, 1);
    g_assert_cmpfloat(meter_cfg_find(cfg, METER_CFG_PULSE_FACTOR)->number, ==, 0.001);
    g_assert_cmpstr(meter_cfg_find(cfg, METER_CFG_UNIT)->text, ==, "m3");
    g_assert_cmpint(meter_cfg_find(cfg, METER_CFG_UTC_OFFSET)->sint, ==, -90);
    g_assert_cmpstr(meter_cfg_find(cfg, METER_CFG_UTC_OFFSET)->def->def.unit, ==, "min");
    g_assert_cmpuint(meter_cfg_find(cfg, METER_CFG_BLOCK_SZX)->uint, ==, 4);
    g_assert_cmpuint(meter_cfg_find(cfg, METER_CFG_ACK_TIMEOUT_MS)->uint, ==, 2500);
    g_assert_cmpstr(meter_cfg_find(cfg, METER_CFG_AUTH_TOKEN)->text, ==, "ABCDEFGHJKLM");

    /* key 10: the firmware announcement */
    p = meter_cfg_find(cfg, METER_CFG_FIRMWARE);
    g_assert_nonnull(p->map);
    g_assert_cmpuint(meter_cfg_n_pairs(p->map), ==, 4);
    g_assert_true(cfg->firmware == p->firmware);
    g_assert_cmpstr(cfg->firmware->version, ==, "2.1.0");
    g_assert_cmpstr(cfg->firmware->path, ==, "firmware/v2.1.0.img");
    g_assert_true(cfg->firmware->has_size);
    g_assert_cmpuint(cfg->firmware->size, ==, 12608);
    g_assert_true(cfg->firmware->has_sha256);
    g_assert_cmpmem(cfg->firmware->sha256, 32, c.fw_sha256, 32);
    g_assert_cmpint(p->map->end, ==, p->end);

    /* key 13: the points */
    p = meter_cfg_find(cfg, METER_CFG_POINTS);
    g_assert_nonnull(p->points);
    g_assert_false(p->points->indefinite);
    g_assert_cmpuint(meter_cfg_n_points(p->points), ==, 2);
    for (guint i = 0; i < 2; i++) {
        const meter_cfg_point_t *pt = meter_cfg_point(p->points, i);
        g_assert_nonnull(pt->map);
        g_assert_cmpstr(pt->name, ==, c.points[i].name);
        g_assert_cmpstr(pt->unit, ==, c.points[i].unit);
        g_assert_cmpstr(meter_cfg_pair(pt->map, 1)->text, ==, c.points[i].point_id);
    }
    g_byte_array_free(b, TRUE);
}

/* Floats come as any width, and as integers from encoders that keep
 * integral numbers integral. */
static void test_pulse_factor_forms(void)
{
    static const struct { const char *hex; double want; } forms[] = {
        { "f9 3c00", 1.0 }, { "fa 3e800000", 0.25 }, { "fb 3fe0000000000000", 0.5 },
        { "03", 3.0 }, { "23", -4.0 },
    };

    for (guint i = 0; i < G_N_ELEMENTS(forms); i++) {
        GByteArray *b = map_head(1);
        meter_cfg_t *cfg;

        cbor_put_uint(b, METER_CFG_PULSE_FACTOR);
        put_raw(b, forms[i].hex);
        cfg = parse(b);
        g_assert_cmpuint(meter_cfg_n_problems(cfg), ==, 0);
        g_assert_true(meter_cfg_find(cfg, METER_CFG_PULSE_FACTOR)->decoded);
        g_assert_cmpfloat(meter_cfg_find(cfg, METER_CFG_PULSE_FACTOR)->number, ==, forms[i].want);
        g_byte_array_free(b, TRUE);
    }
}

/* ---- the key table ---------------------------------------------------- */

static void test_key_table(void)
{
    meter_cfg_keys_t *keys = meter_cfg_keys_new();
    const meter_cfg_key_t *k;
    GByteArray *b;
    meter_cfg_t *cfg;
    const meter_cfg_pair_t *p;

    /* the reference */
    for (guint i = 1; i <= METER_CFG_N_REF_KEYS; i++) {
        k = meter_cfg_keys_lookup(keys, i);
        g_assert_nonnull(k);
        g_assert_true(k->reference == meter_cfg_reference_key(i));
        g_assert_true(meter_cfg_reference_key_at(i - 1) == meter_cfg_reference_key(i));
    }
    g_assert_cmpstr(meter_cfg_reference_key(METER_CFG_FIRMWARE)->name, ==, "firmware");
    g_assert_cmpuint(meter_cfg_reference_key(METER_CFG_POINTS)->type, ==, METER_CFG_ARRAY);
    g_assert_null(meter_cfg_reference_key(0));
    g_assert_null(meter_cfg_reference_key(15));
    g_assert_null(meter_cfg_keys_lookup(keys, 20));
    g_assert_null(meter_cfg_keys_lookup(keys, G_GUINT64_CONSTANT(1) << 32 | 1));

    /* rows: a new key, a renamed and a retyped reference key; a nameless row */
    g_assert_true(meter_cfg_keys_add(keys, 20, "x_voltage", METER_CFG_FLOAT, "V"));
    g_assert_true(meter_cfg_keys_add(keys, 3, "sample_period", METER_CFG_UINT, "s"));
    g_assert_true(meter_cfg_keys_add(keys, 2, "config_version_text", METER_CFG_TEXT, NULL));
    g_assert_false(meter_cfg_keys_add(keys, 21, "", METER_CFG_UINT, ""));
    g_assert_true(meter_cfg_keys_add(keys, 22, "first", METER_CFG_UINT, ""));
    g_assert_true(meter_cfg_keys_add(keys, 22, "second", METER_CFG_TEXT, ""));
    g_assert_null(meter_cfg_keys_lookup(keys, 21));
    g_assert_cmpstr(meter_cfg_keys_lookup(keys, 22)->def.name, ==, "second");
    k = meter_cfg_keys_lookup(keys, 3);
    g_assert_true(k->renamed);
    g_assert_nonnull(k->reference);
    k = meter_cfg_keys_lookup(keys, 2);
    g_assert_null(k->reference);
    g_assert_cmpstr(k->def.unit, ==, "");

    /* the parse goes by them */
    b = map_head(5);
    cbor_put_uint(b, 20); cbor_put_double(b, 230.5);
    cbor_put_uint(b, 3); cbor_put_uint(b, 60);
    cbor_put_uint(b, 2); cbor_put_text(b, "seven");
    cbor_put_uint(b, 22); cbor_put_uint(b, 9);    /* the table says text */
    cbor_put_uint(b, 99); cbor_put_uint(b, 1);
    cfg = parse_keys(b->data, b->len, keys);
    dump_problems(cfg);
    p = meter_cfg_find(cfg, 20);
    g_assert_cmpuint(p->kind, ==, METER_CFG_PAIR_EXTRA);
    g_assert_cmpstr(p->def->def.name, ==, "x_voltage");
    g_assert_cmpstr(p->def->def.unit, ==, "V");
    g_assert_true(p->value->is_float);
    g_assert_cmpfloat(p->value->number, ==, 230.5);
    g_assert_cmpuint(p->problems, ==, 0);
    p = meter_cfg_find(cfg, 3);
    g_assert_cmpuint(p->kind, ==, METER_CFG_PAIR_KNOWN);
    g_assert_true(p->decoded);
    g_assert_cmpuint(p->uint, ==, 60);
    p = meter_cfg_find(cfg, 2);
    g_assert_cmpuint(p->kind, ==, METER_CFG_PAIR_EXTRA);
    g_assert_cmpstr(p->value->text, ==, "seven");
    g_assert_false(cfg->has_config_version);
    p = meter_cfg_find(cfg, 22);
    g_assert_cmpuint(p->kind, ==, METER_CFG_PAIR_EXTRA);
    g_assert_true(p->problems & METER_CFG_PROB_BIT(METER_CFG_PROB_WRONG_TYPE));
    g_assert_cmpuint(meter_cfg_find(cfg, 99)->kind, ==, METER_CFG_PAIR_UNKNOWN);
    g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_WRONG_TYPE], ==, 1);
    g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_UNKNOWN_KEY], ==, 1);
    g_assert_cmpuint(meter_cfg_n_problems(cfg), ==, 2);
    g_byte_array_free(b, TRUE);
    meter_cfg_keys_free(keys);
}

/* ---- one case per problem kind ---------------------------------------- */

typedef struct {
    const char *what;
    const char *hex;                    /* the blob */
    meter_cfg_problem_kind_t kind;      /* the problem it must have */
    guint count;                        /* how many of that kind */
    gint offset, length;                /* of the first one */
    guint n_problems;                   /* problems in all */
} malformed_t;

static const malformed_t malformed[] = {
    { "empty", "", METER_CFG_PROB_NOT_MAP, 1, 0, 0, 1 },
    { "array", "82 01 02", METER_CFG_PROB_NOT_MAP, 1, 0, 3, 1 },
    { "text as config_version", "a2 01 61 78 02 65 73 65 76 65 6e", METER_CFG_PROB_WRONG_TYPE, 1, 5, 6, 1 },
    { "array as firmware", "a1 0a 81 01", METER_CFG_PROB_WRONG_TYPE, 1, 2, 1, 1 },
    { "map as points", "a1 0d a0", METER_CFG_PROB_WRONG_TYPE, 1, 2, 1, 1 },
    { "point not a map", "a1 0d 82 a0 07", METER_CFG_PROB_WRONG_TYPE, 1, 4, 1, 1 },
    { "key 99", "a2 01 61 78 18 63 05", METER_CFG_PROB_UNKNOWN_KEY, 1, 4, 2, 1 },
    { "firmware key 9", "a1 0a a1 09 01", METER_CFG_PROB_UNKNOWN_KEY, 1, 3, 1, 1 },
    { "point key 7", "a1 0d 81 a1 07 01", METER_CFG_PROB_UNKNOWN_KEY, 1, 4, 1, 1 },
    { "text key", "a1 63 6b 65 79 01", METER_CFG_PROB_BAD_KEY, 1, 1, 5, 1 },
    { "negative key", "a1 20 01", METER_CFG_PROB_BAD_KEY, 1, 1, 2, 1 },
    { "key 1 twice", "a2 01 61 61 01 61 62", METER_CFG_PROB_DUPLICATE_KEY, 1, 4, 3, 1 },
    { "config_version 2^33", "a1 02 1b 00 00 00 02 00 00 00 00", METER_CFG_PROB_OUT_OF_RANGE, 1, 2, 9, 1 },
    { "utc_offset -2^40", "a1 09 3b 00 00 00ff ff ff ff ff", METER_CFG_PROB_OUT_OF_RANGE, 1, 2, 9, 1 },
    { "firmware size 2^40", "a1 0a a1 03 1b 00 00 01 00 00 00 00 00", METER_CFG_PROB_OUT_OF_RANGE, 1, 4, 9, 1 },
    { "block_szx 7", "a1 0b 07", METER_CFG_PROB_BAD_VALUE, 1, 2, 1, 1 },
    { "SHA-256 of 3 bytes", "a1 0a a1 04 43 01 02 03", METER_CFG_PROB_BAD_VALUE, 1, 4, 4, 1 },
    { "auth_token of 5", "a1 0e 65 73 68 6f 72 74", METER_CFG_PROB_BAD_VALUE, 1, 2, 6, 1 },
    { "reserved head as value", "a1 18 63 1c", METER_CFG_PROB_INVALID_CBOR, 1, 3, 1, 2 },
    { "reserved head as key", "a1 1c 01", METER_CFG_PROB_INVALID_CBOR, 1, 1, 1, 1 },
    { "byte chunk in a text string", "a1 18 63 7f 61 61 40 ff", METER_CFG_PROB_INVALID_CBOR, 1, 3, 1, 2 },
    { "break where a value belongs", "a2 18 63 ff 01 61 61", METER_CFG_PROB_INVALID_CBOR, 1, 3, 1, 2 },
    { "break where a key belongs", "a2 01 61 61 ff", METER_CFG_PROB_INVALID_CBOR, 1, 4, 1, 1 },
    { "bad CBOR skipped for depth",
      "a1 18 63 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 9f 1c ff",
      METER_CFG_PROB_INVALID_CBOR, 1, 18, 4, 3 },
    { "arrays 17 deep", "a1 18 63 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 01",
      METER_CFG_PROB_TOO_DEEP, 1, 18, 3, 2 },
    { "indefinite map", "bf 01 61 61 ff", METER_CFG_PROB_INDEFINITE, 1, 0, 1, 1 },
    { "indefinite points", "a1 0d 9f a0 ff", METER_CFG_PROB_INDEFINITE, 1, 2, 1, 1 },
    { "indefinite value", "a1 18 63 9f 9f ff ff", METER_CFG_PROB_INDEFINITE, 2, 3, 1, 3 },
    { "map of 2 with 1 pair", "a2 01 61 61", METER_CFG_PROB_TRUNCATED, 1, 4, 0, 1 },
    { "text cut short", "a1 01 65 61 62", METER_CFG_PROB_TRUNCATED, 1, 2, 3, 1 },
    { "indefinite map without break", "bf 02 01", METER_CFG_PROB_TRUNCATED, 1, 3, 0, 2 },
    { "bytes after the map", "a1 02 01 00 00", METER_CFG_PROB_TRAILING, 1, 3, 2, 1 },
};

static void test_malformed(gconstpointer data)
{
    const malformed_t *m = (const malformed_t *)data;
    GByteArray *b = g_byte_array_new();
    meter_cfg_t *cfg;
    const meter_cfg_problem_t *q;

    put_raw(b, m->hex);
    cfg = parse(b);
    dump_problems(cfg);
    g_assert_cmpuint(cfg->n_problems[m->kind], ==, m->count);
    q = first_problem(cfg, m->kind);
    g_assert_nonnull(q);
    g_assert_cmpint(q->offset, ==, m->offset);
    g_assert_cmpint(q->length, ==, m->length);
    g_assert_cmpuint(meter_cfg_n_problems(cfg), ==, m->n_problems);
    g_byte_array_free(b, TRUE);
}

/* The problem lands on the item it concerns, and decoding goes on. */
static void test_problem_items(void)
{
    GByteArray *b = g_byte_array_new();
    meter_cfg_t *cfg;
    const meter_cfg_pair_t *p;

    /* key 2 as text, key 1 twice, a text key, key 99, then a good key 3 */
    put_raw(b, "a6 02 61 37 01 61 61 01 61 62 61 6b 00 18 63 f5 03 19 03 84");
    cfg = parse(b);
    g_assert_true(cfg->complete);
    g_assert_cmpuint(meter_cfg_n_pairs(cfg->map), ==, 6);
    p = meter_cfg_pair(cfg->map, 0);
    g_assert_false(p->decoded);
    g_assert_cmpstr(p->value->text, ==, "7");
    g_assert_true(p->problems & METER_CFG_PROB_BIT(METER_CFG_PROB_WRONG_TYPE));
    g_assert_false(meter_cfg_pair(cfg->map, 1)->duplicate);
    g_assert_true(meter_cfg_pair(cfg->map, 2)->duplicate);
    g_assert_cmpstr(cfg->device_id, ==, "b");      /* the last one is used */
    p = meter_cfg_pair(cfg->map, 3);
    g_assert_cmpuint(p->kind, ==, METER_CFG_PAIR_BAD_KEY);
    g_assert_cmpstr(p->key_item->text, ==, "k");
    g_assert_cmpuint(p->value->uint, ==, 0);
    p = meter_cfg_pair(cfg->map, 4);
    g_assert_cmpuint(p->kind, ==, METER_CFG_PAIR_UNKNOWN);
    g_assert_cmpuint(p->key, ==, 99);
    g_assert_cmpuint(p->value->chunk->type_minor, ==, CBOR_CTRL_TRUE);
    g_assert_cmpuint(meter_cfg_find(cfg, METER_CFG_SAMPLE_INTERVAL)->uint, ==, 900);
    g_byte_array_free(b, TRUE);
}

/* A second firmware key replaces the first; a wrong-typed third does not. */
static void test_second_firmware(void)
{
    GByteArray *b = g_byte_array_new();
    meter_cfg_t *cfg;

    put_raw(b, "a3 0a a1 01 63 31 2e 30  0a a1 02 62 66 77  0a 05");
    cfg = parse(b);
    g_assert_nonnull(cfg->firmware);
    g_assert_null(cfg->firmware->version);
    g_assert_cmpstr(cfg->firmware->path, ==, "fw");
    g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_DUPLICATE_KEY], ==, 2);
    g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_WRONG_TYPE], ==, 1);
    g_byte_array_free(b, TRUE);
}

/* Every kind of generic item, as an unknown key's value shows it. */
static void test_generic_items(void)
{
    GByteArray *b = g_byte_array_new();
    meter_cfg_t *cfg;
    const meter_cfg_value_t *v, *m;

    /* {99: [1, -5, 1.5f16, "x", h'0102', false, null, simple(16), simple(32),
     *       1(5), [_ 1], {_ 1: 2}, 0.25f32]} */
    put_raw(b, "a1 18 63 8d 01 24 f9 3e00 61 78 42 01 02 f4 f6 f0 f8 20 c1 05 9f 01 ff bf 01 02 ff fa 3e800000");
    cfg = parse(b);
    dump_problems(cfg);
    v = meter_cfg_find(cfg, 99)->value;
    g_assert_cmpuint(meter_cfg_n_items(v), ==, 13);
    g_assert_cmpuint(meter_cfg_item(v, 0)->uint, ==, 1);
    g_assert_cmpint(meter_cfg_item(v, 1)->sint, ==, -5);
    g_assert_true(meter_cfg_item(v, 2)->is_float);
    g_assert_cmpfloat(meter_cfg_item(v, 2)->number, ==, 1.5);
    g_assert_cmpstr(meter_cfg_item(v, 3)->text, ==, "x");
    g_assert_cmpint(meter_cfg_item(v, 4)->bytes_len, ==, 2);
    g_assert_cmpmem(meter_cfg_item(v, 4)->bytes, 2, "\x01\x02", 2);
    g_assert_cmpuint(meter_cfg_item(v, 5)->chunk->type_minor, ==, CBOR_CTRL_FALSE);
    g_assert_cmpuint(meter_cfg_item(v, 6)->simple, ==, 22);
    g_assert_cmpuint(meter_cfg_item(v, 7)->simple, ==, 16);
    g_assert_cmpuint(meter_cfg_item(v, 8)->simple, ==, 32);
    g_assert_cmpuint(wmem_list_count(meter_cfg_item(v, 9)->chunk->tags), ==, 1);
    g_assert_cmpuint(meter_cfg_item(v, 9)->uint, ==, 5);
    g_assert_true(meter_cfg_item(v, 10)->indefinite);
    g_assert_cmpuint(meter_cfg_n_items(meter_cfg_item(v, 10)), ==, 1);
    m = meter_cfg_item(v, 11);
    g_assert_true(m->indefinite);
    g_assert_cmpuint(meter_cfg_n_items(m), ==, 2);       /* key and value */
    g_assert_cmpuint(meter_cfg_item(m, 1)->uint, ==, 2);
    g_assert_cmpfloat(meter_cfg_item(v, 12)->number, ==, 0.25);
    g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_INDEFINITE], ==, 2);
    g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_UNKNOWN_KEY], ==, 1);
    g_assert_cmpuint(meter_cfg_n_problems(cfg), ==, 3);
    g_assert_cmpint(v->end, ==, (gint)b->len);
    g_byte_array_free(b, TRUE);
}

/* ---- truncation, absurd lengths, depth --------------------------------- */

/* Every prefix of the generator's blob: one truncation, pairs read before
 * the cut kept, never an exception. */
static void test_every_truncation(void)
{
    GByteArray *b = generator_blob();
    meter_cfg_t *whole = parse(b);
    gint ends[METER_CFG_N_REF_KEYS];
    const gint fw_start = meter_cfg_find(whole, METER_CFG_FIRMWARE)->value_start;
    char *device_id = g_strdup(whole->device_id);

    for (guint i = 0; i < METER_CFG_N_REF_KEYS; i++)
        ends[i] = meter_cfg_pair(whole->map, i)->end;
    wmem_free_all(alloc);
    for (guint len = 0; len < b->len; len++) {
        meter_cfg_t *cfg = parse_keys(b->data, len, NULL);
        guint complete_pairs = 0;

        if (len == 0) {
            g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_NOT_MAP], ==, 1);
            continue;
        }
        g_assert_false(cfg->complete);
        g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_TRUNCATED], ==, 1);
        /* a cut never looks like anything else */
        g_assert_cmpuint(meter_cfg_n_problems(cfg), ==, 1);
        g_assert_true(cfg->is_map);
        for (guint i = 0; i < meter_cfg_n_pairs(cfg->map); i++) {
            const meter_cfg_pair_t *p = meter_cfg_pair(cfg->map, i);
            if (p->complete) {
                complete_pairs++;
                g_assert_cmpint(p->end, ==, ends[i]);
            }
        }
        /* the pairs that fit entirely before the cut, and no more */
        for (guint i = 0; i < METER_CFG_N_REF_KEYS; i++) {
            if (ends[i] <= (gint)len)
                g_assert_cmpuint(complete_pairs, >, i);
            else
                g_assert_cmpuint(complete_pairs, <=, i);
        }
        if ((gint)len >= ends[0])
            g_assert_cmpstr(cfg->device_id, ==, device_id);
        else
            g_assert_null(cfg->device_id);
        g_assert_true((cfg->firmware != NULL) == ((gint)len > fw_start));
        if (len % 64 == 0)
            wmem_free_all(alloc);
    }
    g_free(device_id);
    g_byte_array_free(b, TRUE);
}

static void test_absurd_lengths(void)
{
    static const char *const blobs[] = {
        "a1 01 7a ff ff ff f0 61 62 63",                         /* device_id of 4 GB */
        "a1 01 7b 7f ff ff ff ff ff ff ff 61 62",               /* of 2^63 */
        /* 2^63 bytes, nested (fuzz/regressions/config) */
        ("a1 18 63 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81 81"
         " 5b 81 cb 00 00 00 00 00 00 78 78 78"),
        "a1 18 63 5f 5a 7f ff ff ff 61 ff",                     /* a chunk of 2^31 in an indefinite string */
        "bb 00 00 01 00 00 00 00 00 01 02",                     /* a map of 2^40 pairs */
        "a1 0d 9b ff ff ff ff ff ff ff ff a0",                  /* 2^64-1 points */
        "a1 18 63 9b ff ff ff ff ff ff ff ff 01",               /* an array of 2^64-1 */
        "a1 18 63 bb 7f ff ff ff ff ff ff ff 01 01",            /* a map of 2^63 pairs */
    };

    for (guint i = 0; i < G_N_ELEMENTS(blobs); i++) {
        GByteArray *b = g_byte_array_new();
        meter_cfg_t *cfg;

        put_raw(b, blobs[i]);
        cfg = parse(b);
        dump_problems(cfg);
        g_assert_false(cfg->complete);
        g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_TRUNCATED], ==, 1);
        g_byte_array_free(b, TRUE);
    }
}

/* Containers are read to METER_CFG_MAX_DEPTH levels (the top map is level
 * 0, a key's value level 1): the one at that level is skipped whole. */
static void test_depth_bound(void)
{
    static const guint depths[] = { 14, 15, 16, 40, 1000, 100000 };

    for (guint i = 0; i < G_N_ELEMENTS(depths); i++) {
        for (guint indefinite = 0; indefinite < 2; indefinite++) {
            GByteArray *b = map_head(2);
            meter_cfg_t *cfg;
            const meter_cfg_value_t *v;
            guint levels = 0;

            cbor_put_uint(b, 99);
            for (guint d = 0; d < depths[i]; d++)
                put_raw(b, indefinite ? "9f" : "81");
            cbor_put_uint(b, 7);
            for (guint d = 0; indefinite && d < depths[i]; d++)
                put_raw(b, "ff");
            cbor_put_uint(b, 3);
            cbor_put_uint(b, 60);
            cfg = parse(b);
            g_assert_true(cfg->complete);
            /* the pair after the deep one is still read */
            g_assert_cmpuint(meter_cfg_find(cfg, METER_CFG_SAMPLE_INTERVAL)->uint, ==, 60);
            for (v = meter_cfg_find(cfg, 99)->value; v && !v->too_deep && meter_cfg_n_items(v) > 0;
                 v = meter_cfg_item(v, 0))
                levels++;
            if (depths[i] < METER_CFG_MAX_DEPTH) {
                g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_TOO_DEEP], ==, 0);
                g_assert_cmpuint(levels, ==, depths[i]);
                g_assert_cmpuint(v->uint, ==, 7);
            } else {
                g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_TOO_DEEP], ==, 1);
                g_assert_cmpuint(levels, ==, METER_CFG_MAX_DEPTH - 1);
                g_assert_true(v->too_deep);
                /* then the outer levels' breaks and 03 18 3c */
                g_assert_cmpint(v->end, ==, (gint)b->len - 3 - (indefinite ? METER_CFG_MAX_DEPTH - 1 : 0));
            }
            g_assert_cmpuint(cfg->n_problems[METER_CFG_PROB_INVALID_CBOR], ==, 0);
            g_byte_array_free(b, TRUE);
            wmem_free_all(alloc);
        }
    }
}

/* Bit flips of the generator's blob and random bytes: the parser must
 * return, whatever it finds, with the invariants of check_invariants(). */
static void test_fuzz(void)
{
    GByteArray *b = generator_blob();
    GRand *rnd = g_rand_new_with_seed(8949);
    meter_cfg_keys_t *keys = meter_cfg_keys_new();
    guint8 buf[160];

    meter_cfg_keys_add(keys, 20, "x_map", METER_CFG_MAP, "");
    meter_cfg_keys_add(keys, 2, "config_version_text", METER_CFG_TEXT, "");
    for (guint i = 0; i < b->len * 8; i++) {
        guint8 *copy = g_memdup2(b->data, b->len);

        copy[i / 8] ^= (guint8)(1u << (i % 8));
        parse_keys(copy, b->len, i % 2 ? keys : NULL);
        g_free(copy);
        if (i % 256 == 0)
            wmem_free_all(alloc);
    }
    for (guint round = 0; round < 20000; round++) {
        guint len = (guint)g_rand_int_range(rnd, 1, sizeof buf);

        for (guint i = 0; i < len; i++)
            buf[i] = (guint8)g_rand_int(rnd);
        if (round % 2)
            buf[0] = 0xa0 | (buf[0] & 0x1f);     /* a map head */
        parse_keys(buf, len, round % 3 ? NULL : keys);
        if (round % 1000 == 0)
            wmem_free_all(alloc);
    }
    meter_cfg_keys_free(keys);
    g_rand_free(rnd);
    g_byte_array_free(b, TRUE);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    wmem_init_scopes();
    alloc = wmem_allocator_new(WMEM_ALLOCATOR_BLOCK);

    g_test_add_func("/meter_cfg/generator_blob", test_generator_blob);
    g_test_add_func("/meter_cfg/pulse_factor_forms", test_pulse_factor_forms);
    g_test_add_func("/meter_cfg/key_table", test_key_table);
    for (guint i = 0; i < G_N_ELEMENTS(malformed); i++) {
        char *path = g_strdup_printf("/meter_cfg/malformed/%s/%s", meter_cfg_problem_name(malformed[i].kind),
                                     malformed[i].what);
        for (char *c = path; *c; c++)
            if (*c == ' ')
                *c = '_';
        g_test_add_data_func(path, &malformed[i], test_malformed);
        g_free(path);
    }
    g_test_add_func("/meter_cfg/problem_items", test_problem_items);
    g_test_add_func("/meter_cfg/second_firmware", test_second_firmware);
    g_test_add_func("/meter_cfg/generic_items", test_generic_items);
    g_test_add_func("/meter_cfg/every_truncation", test_every_truncation);
    g_test_add_func("/meter_cfg/absurd_lengths", test_absurd_lengths);
    g_test_add_func("/meter_cfg/depth_bound", test_depth_bound);
    g_test_add_func("/meter_cfg/fuzz", test_fuzz);

    ret = g_test_run();
    wmem_destroy_allocator(alloc);
    wmem_cleanup_scopes();
    return ret;
}
