/* packet-meter-cfg.c: the meter's config blob, the CBOR map a gateway
 * answers to GET /meter/cfg (2.05 Content, Content-Format 60): its fields
 * and expert infos, and its tree, drawn from what core/meter_cfg.c parsed.
 *
 * Follows shared/meter-protocol.md ("Config blob": unsigned-integer keys
 * 1..14) and RFC 8949 (CBOR), with the wscbor idiom of packet-bpv7.c: the
 * parser reads wscbor chunks (wscbor_chunk_read(), type check /
 * wscbor_require_*()), this file adds each item and marks its chunk's
 * errors (wscbor_chunk_mark_errors()). The tree follows the order of the
 * parse: a blob cut short shows every item read up to the cut, then
 * meter.cfg.truncated. Generic items (unknown keys, wrong types) are drawn
 * by meter-cfg-value.c, the key table is meter-cfg-keys.c, and the firmware
 * announcements other parts read are kept by meter-cfg-firmware.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/unit_strings.h>
#include <epan/wscbor.h>
#include <wsutil/str_util.h>

#include "packet-meter-cfg.h"
#include "meter_cfg.h"
#include "meter-cfg-firmware.h"
#include "meter-cfg-keys.h"
#include "meter-cfg-value.h"
#include "cbor_item.h"

#define CFG_CONTENT_FORMAT_CBOR 60

/* ---- fields ---- */

static int hf_meter_cfg = -1;
static int hf_meter_cfg_device_id = -1;
static int hf_meter_cfg_config_version = -1;
static int hf_meter_cfg_sample_interval = -1;
static int hf_meter_cfg_upload_interval = -1;
static int hf_meter_cfg_history_path = -1;
static int hf_meter_cfg_meter_kind = -1;
static int hf_meter_cfg_pulse_factor = -1;
static int hf_meter_cfg_unit = -1;
static int hf_meter_cfg_utc_offset = -1;
static int hf_meter_cfg_firmware = -1;
static int hf_meter_cfg_firmware_version = -1;
static int hf_meter_cfg_firmware_path = -1;
static int hf_meter_cfg_firmware_size = -1;
static int hf_meter_cfg_firmware_sha256 = -1;
static int hf_meter_cfg_block_szx = -1;
static int hf_meter_cfg_block_size = -1;
static int hf_meter_cfg_ack_timeout_ms = -1;
static int hf_meter_cfg_points = -1;
static int hf_meter_cfg_point = -1;
static int hf_meter_cfg_point_name = -1;
static int hf_meter_cfg_point_point_id = -1;
static int hf_meter_cfg_point_unit = -1;
static int hf_meter_cfg_auth_token = -1;
static int hf_meter_cfg_extra = -1;
static int hf_meter_cfg_extra_key = -1;
static int hf_meter_cfg_extra_name = -1;
static int hf_meter_cfg_extra_value = -1;
static int hf_meter_cfg_unknown = -1;
static int hf_meter_cfg_unknown_key = -1;

static gint ett_meter_cfg = -1;
static gint ett_meter_cfg_firmware = -1;
static gint ett_meter_cfg_points = -1;
static gint ett_meter_cfg_point = -1;
static gint ett_meter_cfg_extra = -1;
static gint ett_meter_cfg_unknown = -1;

static expert_field ei_meter_cfg_not_map = EI_INIT;
static expert_field ei_meter_cfg_wrong_type = EI_INIT;
static expert_field ei_meter_cfg_unknown_key = EI_INIT;
static expert_field ei_meter_cfg_bad_key = EI_INIT;
static expert_field ei_meter_cfg_duplicate_key = EI_INIT;
static expert_field ei_meter_cfg_bad_value = EI_INIT;
static expert_field ei_meter_cfg_truncated = EI_INIT;
static expert_field ei_meter_cfg_trailing = EI_INIT;
static expert_field ei_meter_cfg_content_format = EI_INIT;

static const value_string cfg_meter_kind_vals[] = {
    { 0, "electricity" },
    { 1, "water" },
    { 2, "gas" },
    { 3, "thermal" },
    { 0, NULL },
};

/* The field of each scalar reference key's decoded value (firmware and
 * points have trees of their own). */
static int *const cfg_reference_hf[METER_CFG_N_REF_KEYS + 1] = {
    [METER_CFG_DEVICE_ID] = &hf_meter_cfg_device_id,
    [METER_CFG_CONFIG_VERSION] = &hf_meter_cfg_config_version,
    [METER_CFG_SAMPLE_INTERVAL] = &hf_meter_cfg_sample_interval,
    [METER_CFG_UPLOAD_INTERVAL] = &hf_meter_cfg_upload_interval,
    [METER_CFG_HISTORY_PATH] = &hf_meter_cfg_history_path,
    [METER_CFG_METER_KIND] = &hf_meter_cfg_meter_kind,
    [METER_CFG_PULSE_FACTOR] = &hf_meter_cfg_pulse_factor,
    [METER_CFG_UNIT] = &hf_meter_cfg_unit,
    [METER_CFG_UTC_OFFSET] = &hf_meter_cfg_utc_offset,
    [METER_CFG_BLOCK_SZX] = &hf_meter_cfg_block_szx,
    [METER_CFG_ACK_TIMEOUT_MS] = &hf_meter_cfg_ack_timeout_ms,
    [METER_CFG_AUTH_TOKEN] = &hf_meter_cfg_auth_token,
};

/* ---- one blob's tree ----
 * Each function below adds one part of the parse result and returns FALSE
 * when that part was cut short by the end of the data: its caller then adds
 * nothing more, so the tree ends where the parse ended. */

typedef gboolean (*cfg_pair_fn)(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                                proto_item **pi);

static gboolean cfg_has(guint problems, meter_cfg_problem_kind_t kind)
{
    return (problems & METER_CFG_PROB_BIT(kind)) != 0;
}

static const char *cfg_type_name(meter_cfg_type_t type)
{
    switch (type) {
    case METER_CFG_TEXT: return "text string";
    case METER_CFG_UINT: return "unsigned integer";
    case METER_CFG_INT: return "integer";
    case METER_CFG_FLOAT: return "float";
    case METER_CFG_BYTES: return "byte string";
    case METER_CFG_MAP: return "map";
    case METER_CFG_ARRAY: return "array";
    case METER_CFG_BOOL: return "boolean";
    }
    return "item";
}

/* A value whose CBOR type is not the key's: shown generically and flagged. */
static gboolean cfg_wrong_type(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_value_t *v,
                               const char *label, const char *expected, proto_item **out)
{
    const char *text, *actual;
    proto_item *pi;

    if (!meter_cfg_value_add(d, tree, v, &pi, &text))
        return FALSE;
    actual = cbor_item_type_name(v->chunk);
    proto_item_set_text(pi, "%s: %s [wrong type: %s, expected %s]", label, text, actual, expected);
    expert_add_info_format(d->pinfo, pi, &ei_meter_cfg_wrong_type, "%s should be %s %s, is %s %s",
                           label, cbor_article(expected), expected, cbor_article(actual), actual);
    *out = pi;
    return TRUE;
}

/* A pair with a key that nothing knows: key number, then the value generically. */
static gboolean cfg_unknown_pair(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                                 const char *where, proto_item **out)
{
    proto_item *pi = proto_tree_add_item(tree, hf_meter_cfg_unknown, d->tvb, pair->key_start, -1, ENC_NA);
    proto_tree *sub = proto_item_add_subtree(pi, ett_meter_cfg_unknown);
    const char *text;

    *out = pi;
    proto_tree_add_uint64(sub, hf_meter_cfg_unknown_key, d->tvb, pair->key_start,
                          pair->value_start - pair->key_start, pair->key);
    proto_item_set_text(pi, "Unknown %s key %" PRIu64, where, pair->key);
    expert_add_info_format(d->pinfo, pi, &ei_meter_cfg_unknown_key,
                           "Unknown %s key %" PRIu64 " (not in the key table)", where, pair->key);
    if (!meter_cfg_value_add(d, sub, pair->value, NULL, &text))
        return FALSE;
    proto_item_append_text(pi, ": %s", text);
    proto_item_set_end(pi, d->tvb, pair->value->end);
    return TRUE;
}

/* A value of the key's own type into its dedicated field hf; the item
 * covers key and value. A wrong type goes to cfg_wrong_type(). */
static gboolean cfg_add_known(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair, int hf,
                              meter_cfg_type_t type, proto_item **out)
{
    packet_info *pinfo = d->pinfo;
    const wscbor_chunk_t *c = pair->chunk;
    const char *name = proto_registrar_get_name(hf);
    const gint kstart = pair->key_start;
    proto_item *pi = NULL;
    gint len;

    if (!c)
        return FALSE;
    if (!pair->decoded) {
        const char *label = wmem_strdup_printf(pinfo->pool, "%s (key %" PRIu64 ")", name, pair->key);
        return cfg_wrong_type(d, tree, pair->value, label, cfg_type_name(type), out);
    }
    len = c->start + c->data_length - kstart;
    switch (type) {
    case METER_CFG_TEXT:
        pi = proto_tree_add_string(tree, hf, d->tvb, kstart, len, pair->text);
        break;
    case METER_CFG_UINT:
        if (cfg_has(pair->problems, METER_CFG_PROB_OUT_OF_RANGE)) {
            pi = proto_tree_add_uint_format_value(tree, hf, d->tvb, kstart, len, G_MAXUINT32,
                                                  "%" PRIu64 " (more than 32 bits)", pair->uint);
            expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_value, "%s is %" PRIu64 ", more than 32 bits",
                                   name, pair->uint);
        } else {
            pi = proto_tree_add_uint(tree, hf, d->tvb, kstart, len, (guint32)pair->uint);
        }
        break;
    case METER_CFG_INT:
        if (cfg_has(pair->problems, METER_CFG_PROB_OUT_OF_RANGE)) {
            pi = proto_tree_add_int_format_value(tree, hf, d->tvb, kstart, len,
                                                 pair->sint > 0 ? G_MAXINT32 : G_MININT32,
                                                 "%" PRId64 " (out of 32-bit range)", pair->sint);
            expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_value, "%s is %" PRId64 ", out of 32-bit range",
                                   name, pair->sint);
        } else {
            pi = proto_tree_add_int(tree, hf, d->tvb, kstart, len, (gint32)pair->sint);
        }
        break;
    case METER_CFG_FLOAT:
        pi = proto_tree_add_double(tree, hf, d->tvb, kstart, len, pair->number);
        break;
    case METER_CFG_BYTES:
        pi = proto_tree_add_bytes_with_length(tree, hf, d->tvb, kstart, len, pair->bytes, pair->bytes_len);
        break;
    case METER_CFG_MAP:
    case METER_CFG_ARRAY:
    case METER_CFG_BOOL:
        DISSECTOR_ASSERT_NOT_REACHED();     /* no reference key of these is a scalar */
    }
    wscbor_chunk_mark_errors(pinfo, pi, c);
    *out = pi;
    return TRUE;
}

/* A map's pairs; fn adds each pair with an unsigned-integer key. Pairs with
 * other keys, duplicate keys and stray breaks are shown here. */
static gboolean cfg_add_map(meter_cfg_display_t *d, proto_tree *tree, proto_item *map_item, const meter_cfg_map_t *m,
                            cfg_pair_fn fn)
{
    packet_info *pinfo = d->pinfo;

    if (m->indefinite)
        meter_cfg_flag_indefinite(d, map_item);
    for (guint i = 0; i < meter_cfg_n_pairs(m); i++) {
        const meter_cfg_pair_t *pair = meter_cfg_pair(m, i);
        proto_item *pi;

        switch (pair->kind) {
        case METER_CFG_PAIR_BREAK:
            /* a break in a definite-length map: shown, no value follows */
            if (!meter_cfg_value_add(d, tree, pair->key_item, NULL, NULL))
                return FALSE;
            break;
        case METER_CFG_PAIR_BAD_KEY: {
            proto_tree *sub;
            const char *key_text, *value_text;

            pi = proto_tree_add_item(tree, hf_meter_cfg_unknown, d->tvb, pair->key_start, -1, ENC_NA);
            sub = proto_item_add_subtree(pi, ett_meter_cfg_unknown);
            if (!meter_cfg_value_add(d, sub, pair->key_item, NULL, &key_text) ||
                !meter_cfg_value_add(d, sub, pair->value, NULL, &value_text))
                return FALSE;
            proto_item_set_text(pi, "Pair with key %s: %s", key_text, value_text);
            proto_item_set_end(pi, d->tvb, pair->end);
            if (cfg_has(pair->problems, METER_CFG_PROB_BAD_KEY)) {
                const char *major = cbor_item_type_name(pair->key_item->chunk);
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_key, "Map key is %s %s, not an unsigned integer",
                                       cbor_article(major), major);
            }
            break;
        }
        default:
            if (!fn(d, tree, pair, &pi))
                return FALSE;
            if (pair->duplicate)
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_duplicate_key,
                                       "Key %" PRIu64 " appears more than once (the last one is used)", pair->key);
            break;
        }
    }
    return m->complete;
}

/* ---- firmware (key 10) ---- */

static gboolean cfg_firmware_pair(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                                  proto_item **out)
{
    switch (pair->kind == METER_CFG_PAIR_KNOWN ? pair->key : 0) {
    case METER_CFG_FW_VERSION:
        return cfg_add_known(d, tree, pair, hf_meter_cfg_firmware_version, METER_CFG_TEXT, out);
    case METER_CFG_FW_PATH:
        return cfg_add_known(d, tree, pair, hf_meter_cfg_firmware_path, METER_CFG_TEXT, out);
    case METER_CFG_FW_SIZE:
        return cfg_add_known(d, tree, pair, hf_meter_cfg_firmware_size, METER_CFG_UINT, out);
    case METER_CFG_FW_SHA256:
        if (!cfg_add_known(d, tree, pair, hf_meter_cfg_firmware_sha256, METER_CFG_BYTES, out))
            return FALSE;
        if (cfg_has(pair->problems, METER_CFG_PROB_BAD_VALUE))
            expert_add_info_format(d->pinfo, *out, &ei_meter_cfg_bad_value,
                                   "SHA-256 is %d bytes, should be 32", pair->bytes_len);
        return TRUE;
    default:
        return cfg_unknown_pair(d, tree, pair, "firmware", out);
    }
}

static gboolean cfg_add_firmware(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                                 proto_item **out)
{
    const meter_cfg_firmware_info_t *fw = pair->firmware;
    proto_item *pi;
    proto_tree *sub;

    if (!pair->chunk)
        return FALSE;
    if (!pair->map)
        return cfg_wrong_type(d, tree, pair->value,
                              wmem_strdup_printf(d->pinfo->pool, "Firmware (key %" PRIu64 ")", pair->key), "map", out);
    pi = proto_tree_add_item(tree, hf_meter_cfg_firmware, d->tvb, pair->key_start, -1, ENC_NA);
    *out = pi;
    wscbor_chunk_mark_errors(d->pinfo, pi, pair->map->chunk);
    sub = proto_item_add_subtree(pi, ett_meter_cfg_firmware);
    if (!cfg_add_map(d, sub, pi, pair->map, cfg_firmware_pair))
        return FALSE;
    proto_item_set_end(pi, d->tvb, pair->map->end);
    if (fw->version && *fw->version)
        proto_item_append_text(pi, ": %s", meter_cfg_printable(d->pinfo->pool, fw->version, METER_CFG_TEXT_MAX));
    if (fw->has_size)
        proto_item_append_text(pi, ", %u bytes", fw->size);
    return TRUE;
}

/* ---- points (key 13) ---- */

static gboolean cfg_point_pair(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                               proto_item **out)
{
    switch (pair->kind == METER_CFG_PAIR_KNOWN ? pair->key : 0) {
    case METER_CFG_POINT_NAME:
        return cfg_add_known(d, tree, pair, hf_meter_cfg_point_name, METER_CFG_TEXT, out);
    case METER_CFG_POINT_ID:
        return cfg_add_known(d, tree, pair, hf_meter_cfg_point_point_id, METER_CFG_TEXT, out);
    case METER_CFG_POINT_UNIT:
        return cfg_add_known(d, tree, pair, hf_meter_cfg_point_unit, METER_CFG_TEXT, out);
    default:
        return cfg_unknown_pair(d, tree, pair, "point", out);
    }
}

static gboolean cfg_add_point(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_point_t *pt)
{
    wmem_allocator_t *pool = d->pinfo->pool;
    proto_item *pi;
    proto_tree *sub;

    if (!pt->map)
        return cfg_wrong_type(d, tree, pt->value, wmem_strdup_printf(pool, "Point %" PRIu64, pt->index), "map", &pi);
    pi = proto_tree_add_item(tree, hf_meter_cfg_point, d->tvb, pt->start, -1, ENC_NA);
    wscbor_chunk_mark_errors(d->pinfo, pi, pt->chunk);
    proto_item_append_text(pi, " %" PRIu64, pt->index);
    sub = proto_item_add_subtree(pi, ett_meter_cfg_point);
    if (!cfg_add_map(d, sub, pi, pt->map, cfg_point_pair))
        return FALSE;
    proto_item_set_end(pi, d->tvb, pt->map->end);
    if (pt->name)
        proto_item_append_text(pi, ": %s", meter_cfg_printable(pool, pt->name, METER_CFG_TEXT_MAX));
    if (pt->unit)
        proto_item_append_text(pi, " (%s)", meter_cfg_printable(pool, pt->unit, METER_CFG_TEXT_MAX));
    return TRUE;
}

static gboolean cfg_add_points(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                               proto_item **out)
{
    const meter_cfg_points_t *points = pair->points;
    const wscbor_chunk_t *c = pair->chunk;
    const gint kstart = pair->key_start;
    proto_item *pi;
    proto_tree *sub;

    if (!c)
        return FALSE;
    if (!points)
        return cfg_wrong_type(d, tree, pair->value,
                              wmem_strdup_printf(d->pinfo->pool, "Points (key %" PRIu64 ")", pair->key), "array", out);
    /* an indefinite-length array's count is known only at its end: 0 here */
    if (cfg_has(pair->problems, METER_CFG_PROB_OUT_OF_RANGE))
        pi = proto_tree_add_uint_format_value(tree, hf_meter_cfg_points, d->tvb, kstart,
                                              c->start + c->head_length - kstart, G_MAXUINT32,
                                              "%" PRIu64 " (more than 32 bits)", c->head_value);
    else
        pi = proto_tree_add_uint(tree, hf_meter_cfg_points, d->tvb, kstart, c->start + c->head_length - kstart,
                                 points->indefinite ? 0 : (guint32)c->head_value);
    *out = pi;
    wscbor_chunk_mark_errors(d->pinfo, pi, c);
    sub = proto_item_add_subtree(pi, ett_meter_cfg_points);
    if (points->indefinite)
        meter_cfg_flag_indefinite(d, pi);
    for (guint i = 0; i < meter_cfg_n_points(points); i++) {
        if (!cfg_add_point(d, sub, meter_cfg_point(points, i)))
            return FALSE;
    }
    if (!points->complete)
        return FALSE;
    proto_item_set_end(pi, d->tvb, points->end);
    if (points->indefinite)
        proto_item_set_text(pi, "Points: %u (indefinite length)", meter_cfg_n_points(points));
    return TRUE;
}

/* ---- a key known from the key table only (or retyped by it) ---- */

static gboolean cfg_add_extra(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                              proto_item **out)
{
    packet_info *pinfo = d->pinfo;
    wmem_allocator_t *pool = pinfo->pool;
    const meter_cfg_keydef_t *kd = &pair->def->def;
    const gint kstart = pair->key_start, vstart = pair->value_start;
    proto_item *pi = proto_tree_add_item(tree, hf_meter_cfg_extra, d->tvb, kstart, -1, ENC_NA);
    proto_tree *sub = proto_item_add_subtree(pi, ett_meter_cfg_extra);
    const char *name = meter_cfg_printable(pool, kd->name, METER_CFG_TEXT_MAX);
    const char *text, *value;
    proto_item *ti;

    *out = pi;
    if (!pair->chunk)
        return FALSE;
    proto_tree_add_uint64(sub, hf_meter_cfg_extra_key, d->tvb, kstart, vstart - kstart, kd->key);
    ti = proto_tree_add_string(sub, hf_meter_cfg_extra_name, d->tvb, kstart, vstart - kstart, kd->name);
    proto_item_set_generated(ti);
    proto_item_set_text(pi, "%s (key %u)", name, kd->key);
    if (cfg_has(pair->problems, METER_CFG_PROB_WRONG_TYPE)) {
        const char *expected = cfg_type_name(kd->type), *actual = cbor_item_type_name(pair->chunk);
        expert_add_info_format(pinfo, pi, &ei_meter_cfg_wrong_type, "%s (key %u) should be %s %s, is %s %s",
                               name, kd->key, cbor_article(expected), expected, cbor_article(actual), actual);
    }
    if (!meter_cfg_value_add(d, sub, pair->value, NULL, &text))
        return FALSE;
    value = (kd->unit && *kd->unit) ? wmem_strdup_printf(pool, "%s %s", text, kd->unit) : text;
    ti = proto_tree_add_string(sub, hf_meter_cfg_extra_value, d->tvb, vstart, pair->value->end - vstart, value);
    proto_item_set_generated(ti);
    proto_item_set_text(pi, "%s (key %u): %s", name, kd->key, value);
    proto_item_set_end(pi, d->tvb, pair->value->end);
    return TRUE;
}

/* ---- the top-level map ---- */

static gboolean cfg_top_pair(meter_cfg_display_t *d, proto_tree *tree, const meter_cfg_pair_t *pair,
                             proto_item **out)
{
    const meter_cfg_key_t *kd = pair->def;
    const meter_cfg_keydef_t *ref;
    proto_item *pi;

    if (pair->kind == METER_CFG_PAIR_UNKNOWN)
        return cfg_unknown_pair(d, tree, pair, "config", out);
    if (pair->kind == METER_CFG_PAIR_EXTRA)
        return cfg_add_extra(d, tree, pair, out);
    ref = kd->reference;
    switch (ref->key) {
    case METER_CFG_FIRMWARE:
        if (!cfg_add_firmware(d, tree, pair, &pi))
            return FALSE;
        break;
    case METER_CFG_POINTS:
        if (!cfg_add_points(d, tree, pair, &pi))
            return FALSE;
        break;
    default:
        if (!cfg_add_known(d, tree, pair, *cfg_reference_hf[ref->key], ref->type, &pi))
            return FALSE;
        if (!pair->decoded)
            break;
        if (ref->key == METER_CFG_BLOCK_SZX) {
            if (!cfg_has(pair->problems, METER_CFG_PROB_BAD_VALUE)) {
                proto_item *ti = proto_tree_add_uint(tree, hf_meter_cfg_block_size, d->tvb, pair->key_start, 0,
                                                     meter_block_size((guint8)pair->uint));
                proto_item_set_generated(ti);
            } else {
                expert_add_info_format(d->pinfo, pi, &ei_meter_cfg_bad_value,
                                       "Block SZX %" PRIu64 " is not 0..6 (7 is reserved in CoAP over UDP)", pair->uint);
            }
        } else if (ref->key == METER_CFG_AUTH_TOKEN && cfg_has(pair->problems, METER_CFG_PROB_BAD_VALUE)) {
            expert_add_info_format(d->pinfo, pi, &ei_meter_cfg_bad_value,
                                   "Authentication token has %ld characters, should be %d",
                                   (long)g_utf8_strlen(pair->text, -1), METER_CFG_AUTH_TOKEN_LEN);
        }
        break;
    }
    if (kd->renamed)
        proto_item_append_text(pi, " [%s]", meter_cfg_printable(d->pinfo->pool, kd->def.name, METER_CFG_TEXT_MAX));
    *out = pi;
    return TRUE;
}

static gboolean cfg_add_blob(meter_cfg_display_t *d, proto_tree *tree, proto_item *root, const meter_cfg_t *cfg)
{
    packet_info *pinfo = d->pinfo;

    if (cfg->length == 0) {
        expert_add_info_format(pinfo, root, &ei_meter_cfg_not_map, "Config blob is empty, not a CBOR map");
        return TRUE;
    }
    if (!cfg->head)
        return FALSE;
    if (!cfg->is_map) {
        const char *major = cbor_item_type_name(cfg->head);
        expert_add_info_format(pinfo, root, &ei_meter_cfg_not_map, "Config blob is %s %s, not a CBOR map",
                               cbor_article(major), major);
        if (!meter_cfg_value_add(d, tree, cfg->value, NULL, NULL))
            return FALSE;
    } else {
        const guint pairs = meter_cfg_n_pairs(cfg->map);
        wscbor_chunk_mark_errors(pinfo, root, cfg->head);
        if (!cfg_add_map(d, tree, root, cfg->map, cfg_top_pair))
            return FALSE;
        proto_item_append_text(root, ", %u pair%s", pairs, plurality(pairs, "", "s"));
    }
    if (cfg_has(cfg->problems, METER_CFG_PROB_TRAILING))
        proto_tree_add_expert_format(tree, pinfo, &ei_meter_cfg_trailing, d->tvb, cfg->end, cfg->length - cfg->end,
                                     "%d byte%s after the config blob", cfg->length - cfg->end,
                                     plurality(cfg->length - cfg->end, "", "s"));
    return TRUE;
}

void dissect_meter_cfg(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx)
{
    meter_cfg_display_t d = { pinfo, payload, FALSE };
    const meter_cfg_t *cfg;
    const meter_cfg_firmware_info_t *fw;
    proto_item *root;
    proto_tree *cfg_tree;
    wmem_strbuf_t *info;
    gboolean truncated;

    if (!payload)
        return;
    root = proto_tree_add_item(tree, hf_meter_cfg, payload, 0, -1, ENC_NA);
    cfg_tree = proto_item_add_subtree(root, ett_meter_cfg);
    if (ctx && ctx->msg && ctx->msg->content_format != CFG_CONTENT_FORMAT_CBOR) {
        if (ctx->msg->content_format < 0)
            expert_add_info_format(pinfo, root, &ei_meter_cfg_content_format,
                                   "No Content-Format (expected 60, application/cbor): decoded as CBOR anyway");
        else
            expert_add_info_format(pinfo, root, &ei_meter_cfg_content_format,
                                   "Content-Format %d, not 60 (application/cbor): decoded as CBOR anyway",
                                   ctx->msg->content_format);
    }

    cfg = meter_cfg_parse(pinfo->pool, payload, meter_cfg_key_table());
    truncated = cfg_has(cfg->problems, METER_CFG_PROB_TRUNCATED);
    fw = cfg->firmware;
    cfg_add_blob(&d, cfg_tree, root, cfg);
    if (truncated)
        expert_add_info(pinfo, root, &ei_meter_cfg_truncated);

    info = wmem_strbuf_new(pinfo->pool, " [cfg");
    if (cfg_has(cfg->problems, METER_CFG_PROB_NOT_MAP))
        wmem_strbuf_append(info, " not a map");
    if (cfg->device_id && *cfg->device_id)
        wmem_strbuf_append_printf(info, " dev=%s", meter_cfg_printable(pinfo->pool, cfg->device_id, 24));
    if (cfg->has_config_version)
        wmem_strbuf_append_printf(info, " v%" PRIu64, cfg->config_version);
    if (fw && fw->version && *fw->version)
        wmem_strbuf_append_printf(info, " fw=%s", meter_cfg_printable(pinfo->pool, fw->version, 16));
    if (truncated)
        wmem_strbuf_append(info, " truncated");
    wmem_strbuf_append_c(info, ']');
    col_append_str(pinfo->cinfo, COL_INFO, wmem_strbuf_get_str(info));
    if (cfg->device_id && *cfg->device_id)
        proto_item_append_text(root, ", device %s", meter_cfg_printable(pinfo->pool, cfg->device_id, METER_CFG_TEXT_MAX));
    if (cfg->has_config_version)
        proto_item_append_text(root, ", version %" PRIu64, cfg->config_version);

    /* a blob cut short is one the meter cannot use: it announces nothing */
    if (!PINFO_FD_VISITED(pinfo) && fw && !truncated && ctx && ctx->meter)
        meter_cfg_firmware_record(ctx->session, ctx->meter, pinfo->num, cfg);
}

/* ---- registration ---- */

static void cfg_fmt_szx(gchar *buf, guint32 szx)
{
    if (szx <= 6)
        snprintf(buf, ITEM_LABEL_LENGTH, "%u (%u bytes)", szx, meter_block_size((guint8)szx));
    else if (szx == 7)
        snprintf(buf, ITEM_LABEL_LENGTH, "%u (reserved)", szx);
    else
        snprintf(buf, ITEM_LABEL_LENGTH, "%u (out of range)", szx);
}

void proto_register_meter_cfg(void)
{
    static hf_register_info hf[] = {
        { &hf_meter_cfg, { "Config blob", "meter.cfg", FT_NONE, BASE_NONE,
          NULL, 0x0, "The meter's configuration (CBOR map) from GET /meter/cfg", HFILL } },
        { &hf_meter_cfg_device_id, { "Device ID", "meter.cfg.device_id", FT_STRING, BASE_NONE,
          NULL, 0x0, "Key 1: the gateway's name for this meter", HFILL } },
        { &hf_meter_cfg_config_version, { "Config version", "meter.cfg.config_version", FT_UINT32, BASE_DEC,
          NULL, 0x0, "Key 2: incremented on every change", HFILL } },
        { &hf_meter_cfg_sample_interval, { "Sample interval", "meter.cfg.sample_interval", FT_UINT32,
          BASE_DEC | BASE_UNIT_STRING, &units_seconds, 0x0, "Key 3: seconds between samples", HFILL } },
        { &hf_meter_cfg_upload_interval, { "Upload interval", "meter.cfg.upload_interval", FT_UINT32,
          BASE_DEC | BASE_UNIT_STRING, &units_seconds, 0x0, "Key 4: seconds between history uploads", HFILL } },
        { &hf_meter_cfg_history_path, { "History path", "meter.cfg.history_path", FT_STRING, BASE_NONE,
          NULL, 0x0, "Key 5: URI path of the history end-point", HFILL } },
        { &hf_meter_cfg_meter_kind, { "Meter kind", "meter.cfg.meter_kind", FT_UINT32, BASE_DEC,
          VALS(cfg_meter_kind_vals), 0x0, "Key 6: what the meter measures", HFILL } },
        { &hf_meter_cfg_pulse_factor, { "Pulse factor", "meter.cfg.pulse_factor", FT_DOUBLE, BASE_NONE,
          NULL, 0x0, "Key 7: register units per pulse", HFILL } },
        { &hf_meter_cfg_unit, { "Unit", "meter.cfg.unit", FT_STRING, BASE_NONE,
          NULL, 0x0, "Key 8: SenML unit of the register", HFILL } },
        { &hf_meter_cfg_utc_offset, { "UTC offset", "meter.cfg.utc_offset", FT_INT32,
          BASE_DEC | BASE_UNIT_STRING, &units_minutes, 0x0, "Key 9: local time minus UTC, in minutes", HFILL } },
        { &hf_meter_cfg_firmware, { "Firmware", "meter.cfg.firmware", FT_NONE, BASE_NONE,
          NULL, 0x0, "Key 10: the firmware image the meter should run", HFILL } },
        { &hf_meter_cfg_firmware_version, { "Version", "meter.cfg.firmware.version", FT_STRING, BASE_NONE,
          NULL, 0x0, "Firmware key 1: image version", HFILL } },
        { &hf_meter_cfg_firmware_path, { "Path", "meter.cfg.firmware.path", FT_STRING, BASE_NONE,
          NULL, 0x0, "Firmware key 2: URI path of the image", HFILL } },
        { &hf_meter_cfg_firmware_size, { "Size", "meter.cfg.firmware.size", FT_UINT32,
          BASE_DEC | BASE_UNIT_STRING, &units_byte_bytes, 0x0, "Firmware key 3: image size", HFILL } },
        { &hf_meter_cfg_firmware_sha256, { "SHA-256", "meter.cfg.firmware.sha256", FT_BYTES, BASE_NONE,
          NULL, 0x0, "Firmware key 4: SHA-256 of the image", HFILL } },
        { &hf_meter_cfg_block_szx, { "Block SZX", "meter.cfg.block_szx", FT_UINT32, BASE_CUSTOM,
          CF_FUNC(cfg_fmt_szx), 0x0, "Key 11: preferred block size exponent for firmware download", HFILL } },
        { &hf_meter_cfg_block_size, { "Block size", "meter.cfg.block_size", FT_UINT32,
          BASE_DEC | BASE_UNIT_STRING, &units_byte_bytes, 0x0, "16 << block SZX", HFILL } },
        { &hf_meter_cfg_ack_timeout_ms, { "ACK timeout", "meter.cfg.ack_timeout_ms", FT_UINT32,
          BASE_DEC | BASE_UNIT_STRING, &units_milliseconds, 0x0, "Key 12: CoAP ACK_TIMEOUT used by the meter", HFILL } },
        { &hf_meter_cfg_points, { "Points", "meter.cfg.points", FT_UINT32, BASE_DEC,
          NULL, 0x0, "Key 13: number of data points", HFILL } },
        { &hf_meter_cfg_point, { "Point", "meter.cfg.point", FT_NONE, BASE_NONE,
          NULL, 0x0, "One data point", HFILL } },
        { &hf_meter_cfg_point_name, { "Name", "meter.cfg.point.name", FT_STRING, BASE_NONE,
          NULL, 0x0, "Point key 1: SenML name", HFILL } },
        { &hf_meter_cfg_point_point_id, { "Point ID", "meter.cfg.point.point_id", FT_STRING, BASE_NONE,
          NULL, 0x0, "Point key 2: the gateway's point id (a UUID)", HFILL } },
        { &hf_meter_cfg_point_unit, { "Unit", "meter.cfg.point.unit", FT_STRING, BASE_NONE,
          NULL, 0x0, "Point key 3: SenML unit", HFILL } },
        { &hf_meter_cfg_auth_token, { "Authentication token", "meter.cfg.auth_token", FT_STRING, BASE_NONE,
          NULL, 0x0, "Key 14: sent as ?tok=", HFILL } },
        { &hf_meter_cfg_extra, { "Key from the key table", "meter.cfg.extra", FT_NONE, BASE_NONE,
          NULL, 0x0, "A key named only in the meter_cfg_keys table", HFILL } },
        { &hf_meter_cfg_extra_key, { "Key", "meter.cfg.extra.key", FT_UINT64, BASE_DEC,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_extra_name, { "Name", "meter.cfg.extra.name", FT_STRING, BASE_NONE,
          NULL, 0x0, "The key's name in the key table", HFILL } },
        { &hf_meter_cfg_extra_value, { "Value", "meter.cfg.extra.value", FT_STRING, BASE_NONE,
          NULL, 0x0, "The value as text, with the table's unit", HFILL } },
        { &hf_meter_cfg_unknown, { "Unknown key", "meter.cfg.unknown", FT_NONE, BASE_NONE,
          NULL, 0x0, "A pair whose key is in neither the reference nor the key table", HFILL } },
        { &hf_meter_cfg_unknown_key, { "Key", "meter.cfg.unknown.key", FT_UINT64, BASE_DEC,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_uint, { "Unsigned integer", "meter.cfg.value.uint", FT_UINT64, BASE_DEC,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_int, { "Negative integer", "meter.cfg.value.int", FT_INT64, BASE_DEC,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_float, { "Float", "meter.cfg.value.float", FT_DOUBLE, BASE_NONE,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_text, { "Text string", "meter.cfg.value.text", FT_STRING, BASE_NONE,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_bytes, { "Byte string", "meter.cfg.value.bytes", FT_BYTES, BASE_NONE,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_bool, { "Boolean", "meter.cfg.value.bool", FT_BOOLEAN, BASE_NONE,
          NULL, 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_simple, { "Simple value", "meter.cfg.value.simple", FT_UINT8, BASE_DEC,
          VALS(meter_cfg_simple_vals), 0x0, NULL, HFILL } },
        { &hf_meter_cfg_value_array, { "Array", "meter.cfg.value.array", FT_UINT64, BASE_DEC,
          NULL, 0x0, "Number of items", HFILL } },
        { &hf_meter_cfg_value_map, { "Map", "meter.cfg.value.map", FT_UINT64, BASE_DEC,
          NULL, 0x0, "Number of pairs", HFILL } },
        { &hf_meter_cfg_value_tag, { "Tag", "meter.cfg.value.tag", FT_UINT64, BASE_DEC,
          NULL, 0x0, NULL, HFILL } },
    };
    static gint *ett[] = {
        &ett_meter_cfg,
        &ett_meter_cfg_firmware,
        &ett_meter_cfg_points,
        &ett_meter_cfg_point,
        &ett_meter_cfg_extra,
        &ett_meter_cfg_unknown,
        &ett_meter_cfg_value,
    };
    static ei_register_info ei[] = {
        { &ei_meter_cfg_not_map, { "meter.cfg.not_map", PI_MALFORMED, PI_ERROR,
          "Config blob is not a CBOR map", EXPFILL } },
        { &ei_meter_cfg_wrong_type, { "meter.cfg.wrong_type", PI_PROTOCOL, PI_WARN,
          "Config value has the wrong CBOR type", EXPFILL } },
        { &ei_meter_cfg_unknown_key, { "meter.cfg.unknown_key", PI_UNDECODED, PI_NOTE,
          "Unknown config key", EXPFILL } },
        { &ei_meter_cfg_bad_key, { "meter.cfg.bad_key", PI_PROTOCOL, PI_WARN,
          "Map key is not an unsigned integer", EXPFILL } },
        { &ei_meter_cfg_duplicate_key, { "meter.cfg.duplicate_key", PI_PROTOCOL, PI_WARN,
          "Key appears more than once", EXPFILL } },
        { &ei_meter_cfg_bad_value, { "meter.cfg.bad_value", PI_PROTOCOL, PI_WARN,
          "Config value out of range", EXPFILL } },
        { &ei_meter_cfg_truncated, { "meter.cfg.truncated", PI_MALFORMED, PI_ERROR,
          "Config blob ends inside an item", EXPFILL } },
        { &ei_meter_cfg_trailing, { "meter.cfg.trailing", PI_MALFORMED, PI_WARN,
          "Bytes after the config blob", EXPFILL } },
        { &ei_meter_cfg_bad_cbor, { "meter.cfg.bad_cbor", PI_MALFORMED, PI_ERROR,
          "Invalid CBOR", EXPFILL } },
        { &ei_meter_cfg_too_deep, { "meter.cfg.too_deep", PI_UNDECODED, PI_WARN,
          "Nested too deep: content not shown", EXPFILL } },
        { &ei_meter_cfg_indefinite, { "meter.cfg.indefinite", PI_PROTOCOL, PI_CHAT,
          "Indefinite-length encoding", EXPFILL } },
        { &ei_meter_cfg_content_format, { "meter.cfg.content_format", PI_PROTOCOL, PI_NOTE,
          "Config blob without Content-Format 60 (application/cbor)", EXPFILL } },
    };
    expert_module_t *expert_cfg;

    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_cfg = expert_register_protocol(proto_meter);
    expert_register_field_array(expert_cfg, ei, array_length(ei));

    meter_cfg_firmware_register();
}
