/* packet-meter-cfg.c: the meter's config blob, the CBOR map a gateway
 * answers to GET /meter/cfg (2.05 Content, Content-Format 60).
 *
 * Follows shared/meter-protocol.md ("Config blob": unsigned-integer keys
 * 1..14) and RFC 8949 (CBOR). Items are read with the wscbor idiom of
 * packet-bpv7.c: wscbor_chunk_read() -> type check / wscbor_require_*() ->
 * tree item -> wscbor_chunk_mark_errors(). Nothing in the blob is trusted:
 * lengths and counts only bound loops that also stop at the end of the
 * payload (a tvb exception, caught here and shown as meter.cfg.truncated),
 * nesting is shown to CFG_MAX_DEPTH levels and skipped without recursion
 * beyond that. wscbor_skip_next_item() is not used: in 4.0 it loops forever
 * on indefinite-length items nested deeper than gui_max_tree_depth.
 *
 * The key table is a UAT ("meter_cfg_keys": key, name, type, unit). The
 * reference keys are built in and always known; the table starts filled with
 * them, and its rows add keys (a newer firmware's: shown as meter.cfg.extra)
 * or rename a reference key. A row that gives a reference key another CBOR
 * type takes it over: it is then shown as meter.cfg.extra too.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/exceptions.h>
#include <epan/expert.h>
#include <epan/prefs.h>
#include <epan/to_str.h>
#include <epan/uat.h>
#include <epan/uat-int.h>   /* uat_add_record(): fills the empty key table with the reference keys */
#include <epan/unit_strings.h>
#include <epan/wscbor.h>
#include <wsutil/str_util.h>

#include "ws_compat.h"
#include "packet-meter.h"
#include "meter-cfg.h"

#define CFG_CONTENT_FORMAT_CBOR 60
#define CFG_MAX_DEPTH 16        /* nesting levels shown; deeper items are skipped */
#define CFG_TEXT_MAX 40         /* characters of a string value shown in a label */
#define CFG_BYTES_MAX 16        /* bytes of a byte string shown in a label */
#define CFG_TAGS_MAX 4          /* tags shown per item */
#define CFG_AUTH_TOKEN_LEN 12

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
static int hf_meter_cfg_value_uint = -1;
static int hf_meter_cfg_value_int = -1;
static int hf_meter_cfg_value_float = -1;
static int hf_meter_cfg_value_text = -1;
static int hf_meter_cfg_value_bytes = -1;
static int hf_meter_cfg_value_bool = -1;
static int hf_meter_cfg_value_simple = -1;
static int hf_meter_cfg_value_array = -1;
static int hf_meter_cfg_value_map = -1;
static int hf_meter_cfg_value_tag = -1;

static gint ett_meter_cfg = -1;
static gint ett_meter_cfg_firmware = -1;
static gint ett_meter_cfg_points = -1;
static gint ett_meter_cfg_point = -1;
static gint ett_meter_cfg_extra = -1;
static gint ett_meter_cfg_unknown = -1;
static gint ett_meter_cfg_value = -1;

static expert_field ei_meter_cfg_not_map = EI_INIT;
static expert_field ei_meter_cfg_wrong_type = EI_INIT;
static expert_field ei_meter_cfg_unknown_key = EI_INIT;
static expert_field ei_meter_cfg_bad_key = EI_INIT;
static expert_field ei_meter_cfg_duplicate_key = EI_INIT;
static expert_field ei_meter_cfg_bad_value = EI_INIT;
static expert_field ei_meter_cfg_truncated = EI_INIT;
static expert_field ei_meter_cfg_trailing = EI_INIT;
static expert_field ei_meter_cfg_bad_cbor = EI_INIT;
static expert_field ei_meter_cfg_too_deep = EI_INIT;
static expert_field ei_meter_cfg_indefinite = EI_INIT;
static expert_field ei_meter_cfg_content_format = EI_INIT;

static const value_string cfg_meter_kind_vals[] = {
    { 0, "electricity" },
    { 1, "water" },
    { 2, "gas" },
    { 3, "thermal" },
    { 0, NULL },
};

static const value_string cfg_simple_vals[] = {
    { 20, "false" },
    { 21, "true" },
    { 22, "null" },
    { 23, "undefined" },
    { 31, "break" },
    { 0, NULL },
};

/* ---- the key table ---- */

typedef enum {
    CFG_T_TEXT, CFG_T_UINT, CFG_T_INT, CFG_T_FLOAT, CFG_T_BYTES, CFG_T_MAP, CFG_T_ARRAY, CFG_T_BOOL,
} cfg_type_t;

static const value_string cfg_type_vals[] = {
    { CFG_T_TEXT, "text" },
    { CFG_T_UINT, "uint" },
    { CFG_T_INT, "int" },
    { CFG_T_FLOAT, "float" },
    { CFG_T_BYTES, "bytes" },
    { CFG_T_MAP, "map" },
    { CFG_T_ARRAY, "array" },
    { CFG_T_BOOL, "bool" },
    { 0, NULL },
};

/* How a reference key's value goes into its dedicated field. */
typedef enum { CFG_V_TEXT, CFG_V_U32, CFG_V_I32, CFG_V_FLOAT, CFG_V_BYTES, CFG_V_SPECIAL } cfg_vkind_t;

typedef struct {
    guint32 key;
    const char *name;
    cfg_type_t type;
    const char *unit;
    int *hf;
    cfg_vkind_t kind;
} cfg_builtin_t;

/* shared/meter-protocol.md, "Config blob"; also the UAT's initial rows. */
static const cfg_builtin_t cfg_builtin[] = {
    {  1, "device_id",       CFG_T_TEXT,  "",    &hf_meter_cfg_device_id,       CFG_V_TEXT },
    {  2, "config_version",  CFG_T_UINT,  "",    &hf_meter_cfg_config_version,  CFG_V_U32 },
    {  3, "sample_interval", CFG_T_UINT,  "s",   &hf_meter_cfg_sample_interval, CFG_V_U32 },
    {  4, "upload_interval", CFG_T_UINT,  "s",   &hf_meter_cfg_upload_interval, CFG_V_U32 },
    {  5, "history_path",    CFG_T_TEXT,  "",    &hf_meter_cfg_history_path,    CFG_V_TEXT },
    {  6, "meter_kind",      CFG_T_UINT,  "",    &hf_meter_cfg_meter_kind,      CFG_V_U32 },
    {  7, "pulse_factor",    CFG_T_FLOAT, "",    &hf_meter_cfg_pulse_factor,    CFG_V_FLOAT },
    {  8, "unit",            CFG_T_TEXT,  "",    &hf_meter_cfg_unit,            CFG_V_TEXT },
    {  9, "utc_offset",      CFG_T_INT,   "min", &hf_meter_cfg_utc_offset,      CFG_V_I32 },
    { 10, "firmware",        CFG_T_MAP,   "",    &hf_meter_cfg_firmware,        CFG_V_SPECIAL },
    { 11, "block_szx",       CFG_T_UINT,  "",    &hf_meter_cfg_block_szx,       CFG_V_U32 },
    { 12, "ack_timeout_ms",  CFG_T_UINT,  "ms",  &hf_meter_cfg_ack_timeout_ms,  CFG_V_U32 },
    { 13, "points",          CFG_T_ARRAY, "",    &hf_meter_cfg_points,          CFG_V_SPECIAL },
    { 14, "auth_token",      CFG_T_TEXT,  "",    &hf_meter_cfg_auth_token,      CFG_V_TEXT },
};

/* One key as the dissector sees it: the reference merged with the UAT. */
typedef struct {
    guint32 key;
    char *name;
    cfg_type_t type;
    char *unit;
    const cfg_builtin_t *builtin;   /* non-NULL: decoded into its dedicated field */
    gboolean renamed;               /* a UAT row gave the reference key another name */
} cfg_keydef_t;

typedef struct {
    guint32 key;
    char *name;
    char *type;
    char *unit;
} cfg_key_rec_t;

static cfg_key_rec_t *cfg_key_recs = NULL;
static guint cfg_key_nrecs = 0;
static uat_t *cfg_key_uat = NULL;
static gboolean cfg_key_prefill_pending = TRUE;
static GHashTable *cfg_keys = NULL;     /* guint32 key -> cfg_keydef_t* */

UAT_DEC_CB_DEF(cfg_key_recs, key, cfg_key_rec_t)
UAT_CSTRING_CB_DEF(cfg_key_recs, name, cfg_key_rec_t)
UAT_CSTRING_CB_DEF(cfg_key_recs, unit, cfg_key_rec_t)

static void cfg_key_recs_type_set_cb(void *rec, const char *buf, guint len,
                                     const void *u1 _U_, const void *u2 _U_)
{
    cfg_key_rec_t *r = (cfg_key_rec_t *)rec;

    g_free(r->type);
    r->type = g_strndup(buf, len);
}

static void cfg_key_recs_type_tostr_cb(void *rec, char **out_ptr, unsigned *out_len,
                                       const void *u1 _U_, const void *u2 _U_)
{
    const cfg_key_rec_t *r = (const cfg_key_rec_t *)rec;

    *out_ptr = g_strdup(r->type ? r->type : "");
    *out_len = (unsigned)strlen(*out_ptr);
}

static void *cfg_key_copy_cb(void *dest, const void *source, size_t len _U_)
{
    cfg_key_rec_t *d = (cfg_key_rec_t *)dest;
    const cfg_key_rec_t *s = (const cfg_key_rec_t *)source;

    d->key = s->key;
    d->name = g_strdup(s->name);
    d->type = g_strdup(s->type);
    d->unit = g_strdup(s->unit);
    return d;
}

static void cfg_key_free_cb(void *rec)
{
    cfg_key_rec_t *r = (cfg_key_rec_t *)rec;

    g_free(r->name);
    g_free(r->type);
    g_free(r->unit);
}

static void cfg_keydef_free(gpointer data)
{
    cfg_keydef_t *kd = (cfg_keydef_t *)data;

    g_free(kd->name);
    g_free(kd->unit);
    g_free(kd);
}

static const cfg_builtin_t *cfg_builtin_for(guint32 key)
{
    for (guint i = 0; i < G_N_ELEMENTS(cfg_builtin); i++) {
        if (cfg_builtin[i].key == key)
            return &cfg_builtin[i];
    }
    return NULL;
}

static gboolean cfg_type_from_str(const char *s, cfg_type_t *type)
{
    if (!s)
        return FALSE;
    for (guint i = 0; cfg_type_vals[i].strptr; i++) {
        if (g_ascii_strcasecmp(cfg_type_vals[i].strptr, s) == 0) {
            *type = (cfg_type_t)cfg_type_vals[i].value;
            return TRUE;
        }
    }
    return FALSE;
}

/* The reference keys first, then the UAT's rows in order (a later row for the
 * same key wins). Rows with an empty name or an unknown type are ignored. */
static void cfg_keys_rebuild(void)
{
    if (cfg_keys)
        g_hash_table_destroy(cfg_keys);
    cfg_keys = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, cfg_keydef_free);

    for (guint i = 0; i < G_N_ELEMENTS(cfg_builtin); i++) {
        cfg_keydef_t *kd = g_new0(cfg_keydef_t, 1);
        kd->key = cfg_builtin[i].key;
        kd->name = g_strdup(cfg_builtin[i].name);
        kd->type = cfg_builtin[i].type;
        kd->unit = g_strdup(cfg_builtin[i].unit);
        kd->builtin = &cfg_builtin[i];
        g_hash_table_replace(cfg_keys, GUINT_TO_POINTER(kd->key), kd);
    }
    for (guint i = 0; i < cfg_key_nrecs; i++) {
        const cfg_key_rec_t *r = &cfg_key_recs[i];
        const cfg_builtin_t *b = cfg_builtin_for(r->key);
        cfg_type_t type;

        if (!r->name || !*r->name || !cfg_type_from_str(r->type, &type))
            continue;
        cfg_keydef_t *kd = g_new0(cfg_keydef_t, 1);
        kd->key = r->key;
        kd->name = g_strdup(r->name);
        kd->type = type;
        kd->unit = g_strdup(r->unit ? r->unit : "");
        kd->builtin = (b && b->type == type) ? b : NULL;
        kd->renamed = kd->builtin && strcmp(b->name, r->name) != 0;
        g_hash_table_replace(cfg_keys, GUINT_TO_POINTER(kd->key), kd);
    }
}

static void cfg_key_post_update_cb(void)
{
    /* The first load of a profile without the table (or with an empty one)
     * shows the reference keys in it; emptying it later is respected, and the
     * reference keys stay known regardless. */
    if (cfg_key_prefill_pending && cfg_key_nrecs == 0 && cfg_key_uat) {
        cfg_key_prefill_pending = FALSE;
        for (guint i = 0; i < G_N_ELEMENTS(cfg_builtin); i++) {
            cfg_key_rec_t rec = {
                cfg_builtin[i].key,
                (char *)cfg_builtin[i].name,
                (char *)val_to_str_const(cfg_builtin[i].type, cfg_type_vals, "text"),
                (char *)cfg_builtin[i].unit,
            };
            uat_add_record(cfg_key_uat, &rec, TRUE);
        }
    }
    cfg_key_prefill_pending = FALSE;
    cfg_keys_rebuild();
}

static void cfg_key_reset_cb(void)
{
    cfg_key_prefill_pending = TRUE;
}

static const cfg_keydef_t *cfg_key_lookup(guint64 key)
{
    if (!cfg_keys)
        cfg_keys_rebuild();
    if (key > G_MAXUINT32)
        return NULL;
    return (const cfg_keydef_t *)g_hash_table_lookup(cfg_keys, GUINT_TO_POINTER((guint32)key));
}

/* ---- firmware announcements, for packet-meter-fw.c ---- */

static wmem_map_t *cfg_fw_by_meter;   /* meter address string -> wmem_array_t of meter_cfg_firmware_t* */

const meter_cfg_firmware_t *meter_cfg_firmware_for(const address *meter, guint32 before_frame)
{
    wmem_array_t *list;
    char *key;

    if (!meter || !cfg_fw_by_meter)
        return NULL;
    key = address_to_str(NULL, meter);
    list = (wmem_array_t *)wmem_map_lookup(cfg_fw_by_meter, key);
    wmem_free(NULL, key);
    if (!list)
        return NULL;
    for (guint i = wmem_array_get_count(list); i-- > 0;) {
        const meter_cfg_firmware_t *rec = *(const meter_cfg_firmware_t **)wmem_array_index(list, i);
        if (rec->frame <= before_frame)
            return rec;
    }
    return NULL;
}

/* ---- one dissection ---- */

typedef struct {
    packet_info *pinfo;
    tvbuff_t *tvb;
    /* what the blob said, for the Info column and the firmware record */
    const char *device_id;
    gboolean has_config_version;
    guint64 config_version;
    gboolean fw_seen;
    meter_cfg_firmware_t fw;    /* strings in pinfo->pool until recorded */
    gboolean not_map;
    gboolean truncated;
    gboolean indefinite_flagged;   /* meter.cfg.indefinite is shown once per blob */
    guint pairs;
} cfg_state_t;

/* The short text of a generic item, for labels. */
typedef struct {
    const char *text;
} cfg_generic_t;

typedef proto_item *(*cfg_pair_fn)(cfg_state_t *st, proto_tree *tree, gint *offset, guint64 key,
                                   gint kstart, guint depth, void *data);

static proto_item *cfg_add_generic(cfg_state_t *st, proto_tree *tree, gint *offset, guint depth,
                                   cfg_generic_t *out);

/* A string for a label: at most max_chars characters, control characters as '.'. */
static const char *cfg_printable(wmem_allocator_t *pool, const char *s, glong max_chars)
{
    wmem_strbuf_t *b;
    const char *end;
    glong n;

    if (!s)
        return "";
    if (!g_utf8_validate(s, -1, NULL))
        return "(invalid UTF-8)";
    n = g_utf8_strlen(s, -1);
    end = n > max_chars ? g_utf8_offset_to_pointer(s, max_chars) : s + strlen(s);
    b = wmem_strbuf_new(pool, "");
    for (const char *p = s; p < end; p++) {
        const unsigned char ch = (unsigned char)*p;
        wmem_strbuf_append_c(b, (ch < 0x20 || ch == 0x7f) ? '.' : (char)ch);
    }
    if (n > max_chars)
        wmem_strbuf_append(b, "\xe2\x80\xa6");   /* U+2026 */
    return wmem_strbuf_finalize(b);
}

static const char *cfg_bytes_text(wmem_allocator_t *pool, const guint8 *bytes, gint len)
{
    wmem_strbuf_t *b = wmem_strbuf_new(pool, "");

    for (gint i = 0; i < len && i < CFG_BYTES_MAX; i++)
        wmem_strbuf_append_printf(b, "%02x", bytes[i]);
    if (len > CFG_BYTES_MAX)
        wmem_strbuf_append(b, "\xe2\x80\xa6");
    wmem_strbuf_append_printf(b, " (%d byte%s)", len, plurality(len, "", "s"));
    return wmem_strbuf_finalize(b);
}

static const char *cfg_major_name(const wscbor_chunk_t *c)
{
    switch (c->type_major) {
    case CBOR_TYPE_UINT: return "unsigned integer";
    case CBOR_TYPE_NEGINT: return "negative integer";
    case CBOR_TYPE_BYTESTRING: return "byte string";
    case CBOR_TYPE_STRING: return "text string";
    case CBOR_TYPE_ARRAY: return "array";
    case CBOR_TYPE_MAP: return "map";
    case CBOR_TYPE_TAG: return "tag";
    case CBOR_TYPE_FLOAT_CTRL:
        switch (c->type_minor) {
        case CBOR_CTRL_FALSE:
        case CBOR_CTRL_TRUE: return "boolean";
        case CBOR_CTRL_NULL: return "null";
        case CBOR_CTRL_UNDEF: return "undefined";
        case 25: case 26: case 27: return "float";
        case 31: return "break";
        default: return "simple value";
        }
    }
    return "item";
}

static const char *cfg_type_name(cfg_type_t type)
{
    switch (type) {
    case CFG_T_TEXT: return "text string";
    case CFG_T_UINT: return "unsigned integer";
    case CFG_T_INT: return "integer";
    case CFG_T_FLOAT: return "float";
    case CFG_T_BYTES: return "byte string";
    case CFG_T_MAP: return "map";
    case CFG_T_ARRAY: return "array";
    case CFG_T_BOOL: return "boolean";
    }
    return "item";
}

static const char *cfg_a(const char *noun)
{
    return strchr("aeiou", noun[0]) ? "an" : "a";
}

static double cfg_half_to_double(guint16 half)
{
    const int exponent = (half >> 10) & 0x1f;
    const int mantissa = half & 0x3ff;
    double val;

    if (exponent == 0)
        val = ldexp((double)mantissa, -24);
    else if (exponent != 31)
        val = ldexp((double)(mantissa + 1024), exponent - 25);
    else
        val = mantissa == 0 ? INFINITY : NAN;
    return (half & 0x8000) ? -val : val;
}

/* A float item (major type 7, minor 25/26/27): 4.0's wscbor has no helper;
 * the chunk's head value holds the raw big-endian bits. */
static gboolean cfg_float_value(const wscbor_chunk_t *c, double *out)
{
    if (c->type_major != CBOR_TYPE_FLOAT_CTRL)
        return FALSE;
    switch (c->type_minor) {
    case 25:
        *out = cfg_half_to_double((guint16)c->head_value);
        return TRUE;
    case 26: {
        const guint32 bits = (guint32)c->head_value;
        float f;
        memcpy(&f, &bits, sizeof f);
        *out = f;
        return TRUE;
    }
    case 27: {
        const guint64 bits = c->head_value;
        double d;
        memcpy(&d, &bits, sizeof d);
        *out = d;
        return TRUE;
    }
    default:
        return FALSE;
    }
}

static gboolean cfg_type_matches(cfg_type_t type, const wscbor_chunk_t *c)
{
    double d;

    switch (type) {
    case CFG_T_TEXT: return c->type_major == CBOR_TYPE_STRING;
    case CFG_T_UINT: return c->type_major == CBOR_TYPE_UINT;
    case CFG_T_INT: return c->type_major == CBOR_TYPE_UINT || c->type_major == CBOR_TYPE_NEGINT;
    case CFG_T_FLOAT:
        return cfg_float_value(c, &d) || c->type_major == CBOR_TYPE_UINT || c->type_major == CBOR_TYPE_NEGINT;
    case CFG_T_BYTES: return c->type_major == CBOR_TYPE_BYTESTRING;
    case CFG_T_MAP: return c->type_major == CBOR_TYPE_MAP;
    case CFG_T_ARRAY: return c->type_major == CBOR_TYPE_ARRAY;
    case CFG_T_BOOL:
        return c->type_major == CBOR_TYPE_FLOAT_CTRL &&
               (c->type_minor == CBOR_CTRL_FALSE || c->type_minor == CBOR_CTRL_TRUE);
    }
    return FALSE;
}

/* wscbor_require_tstr() for a text-string chunk. 4.0's wscbor keeps no value
 * tvb for an empty definite string and then asserts on it: "" here. */
static char *cfg_chunk_tstr(wmem_allocator_t *pool, wscbor_chunk_t *c)
{
    if (c->type_major == CBOR_TYPE_STRING && c->type_minor != 31 && c->head_value == 0)
        return wmem_strdup(pool, "");
    return wscbor_require_tstr(pool, c);
}

static void cfg_flag_indefinite(cfg_state_t *st, proto_item *pi)
{
    if (!st->indefinite_flagged) {
        st->indefinite_flagged = TRUE;
        expert_add_info(st->pinfo, pi, &ei_meter_cfg_indefinite);
    }
}

/* wscbor_chunk_read() that never leaves *offset outside the payload. wscbor
 * (4.0) adds a string's declared length to the offset before it checks it;
 * a length near 2^31 wraps the offset around, and the next read would go
 * backwards (fuzz/regressions/config). An item that runs past the end is
 * treated as the payload being cut short. */
static wscbor_chunk_t *cfg_chunk_read(cfg_state_t *st, gint *offset)
{
    const gint start = *offset;
    wscbor_chunk_t *c = wscbor_chunk_read(st->pinfo->pool, st->tvb, offset);

    if (*offset < start || (guint)*offset > tvb_reported_length(st->tvb)) {
        *offset = start;
        THROW(ReportedBoundsError);
    }
    return c;
}

static gboolean cfg_at_break(cfg_state_t *st, gint offset)
{
    /* Throws at the end of the payload: an indefinite item without its break. */
    return tvb_get_uint8(st->tvb, offset) == 0xff;
}

/* Skips one whole item (with everything nested in it) without recursion:
 * an explicit stack of open containers. Every step consumes at least one
 * byte or closes a container, so it ends; running out of payload throws.
 * Returns the number of CBOR errors met (unexpected breaks, invalid heads). */
typedef struct {
    guint64 remaining;     /* items still to read (a map counts 2 per pair) */
    gboolean indefinite;
} cfg_skip_level_t;

static guint cfg_skip_item(cfg_state_t *st, gint *offset)
{
    wmem_allocator_t *pool = st->pinfo->pool;
    guint cap = 16, n = 0, errors = 0;
    cfg_skip_level_t *stack = wmem_alloc_array(pool, cfg_skip_level_t, cap);

    stack[n].remaining = 1;
    stack[n].indefinite = FALSE;
    n++;
    while (n > 0) {
        cfg_skip_level_t *top = &stack[n - 1];

        if (top->indefinite) {
            if (cfg_at_break(st, *offset)) {
                *offset += 1;
                n--;
                continue;
            }
        } else if (top->remaining == 0) {
            n--;
            continue;
        } else {
            top->remaining--;
        }
        wscbor_chunk_t *c = cfg_chunk_read(st, offset);
        errors += wscbor_has_errors(c);
        if (wscbor_is_indefinite_break(c)) {
            errors++;           /* a break where an item belongs */
        } else if (c->type_major == CBOR_TYPE_ARRAY || c->type_major == CBOR_TYPE_MAP) {
            if (n == cap) {
                cap *= 2;
                stack = (cfg_skip_level_t *)wmem_realloc(pool, stack, cap * sizeof *stack);
            }
            stack[n].indefinite = c->type_minor == 31;
            if (c->type_major == CBOR_TYPE_MAP)
                stack[n].remaining = c->head_value > G_MAXUINT64 / 2 ? G_MAXUINT64 : 2 * c->head_value;
            else
                stack[n].remaining = c->head_value;
            n++;
        }
        wscbor_chunk_free(c);
    }
    return errors;
}

/* Any CBOR item, shown generically under meter.cfg.value.*: containers to
 * CFG_MAX_DEPTH, deeper content skipped (meter.cfg.too_deep). */
static proto_item *cfg_add_generic(cfg_state_t *st, proto_tree *tree, gint *offset, guint depth,
                                   cfg_generic_t *out)
{
    packet_info *pinfo = st->pinfo;
    tvbuff_t *tvb = st->tvb;
    wmem_allocator_t *pool = pinfo->pool;
    const gint start = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(st, offset);
    proto_item *pi = NULL;
    const char *text = "";
    double d;

    switch (c->type_major) {
    case CBOR_TYPE_UINT: {
        const guint64 *v = wscbor_require_uint64(pool, c);
        pi = proto_tree_add_cbor_uint64(tree, hf_meter_cfg_value_uint, pinfo, tvb, c, v);
        text = wmem_strdup_printf(pool, "%" PRIu64, v ? *v : 0);
        break;
    }
    case CBOR_TYPE_NEGINT: {
        const gint64 *v = wscbor_require_int64(pool, c);
        pi = proto_tree_add_cbor_int64(tree, hf_meter_cfg_value_int, pinfo, tvb, c, v);
        text = wmem_strdup_printf(pool, "%" PRId64, v ? *v : 0);
        break;
    }
    case CBOR_TYPE_BYTESTRING: {
        tvbuff_t *b = wscbor_require_bstr(pool, c);
        const gint len = b ? (gint)tvb_reported_length(b) : 0;
        const guint8 *bytes = len ? (const guint8 *)tvb_memdup(pool, b, 0, len) : NULL;
        pi = proto_tree_add_bytes_with_length(tree, hf_meter_cfg_value_bytes, tvb, c->start, c->data_length,
                                              bytes, len);
        wscbor_chunk_mark_errors(pinfo, pi, c);
        text = cfg_bytes_text(pool, bytes, len);
        break;
    }
    case CBOR_TYPE_STRING: {
        const char *s = cfg_chunk_tstr(pool, c);
        pi = proto_tree_add_string(tree, hf_meter_cfg_value_text, tvb, c->start, c->data_length, s);
        wscbor_chunk_mark_errors(pinfo, pi, c);
        text = wmem_strdup_printf(pool, "\"%s\"", cfg_printable(pool, s, CFG_TEXT_MAX));
        break;
    }
    case CBOR_TYPE_ARRAY:
    case CBOR_TYPE_MAP: {
        const gboolean is_map = c->type_major == CBOR_TYPE_MAP;
        const gboolean indef = c->type_minor == 31;
        const int hf = is_map ? hf_meter_cfg_value_map : hf_meter_cfg_value_array;
        const char *what = is_map ? "pair" : "item";
        proto_tree *sub;
        guint64 n = 0;

        if (indef)
            pi = proto_tree_add_uint64_format_value(tree, hf, tvb, c->start, c->head_length, 0, "indefinite length");
        else
            pi = proto_tree_add_uint64_format_value(tree, hf, tvb, c->start, c->head_length, c->head_value,
                                                    "%" PRIu64 " %s%s", c->head_value, what,
                                                    plurality(c->head_value, "", "s"));
        wscbor_chunk_mark_errors(pinfo, pi, c);
        sub = proto_item_add_subtree(pi, ett_meter_cfg_value);
        if (depth >= CFG_MAX_DEPTH) {
            *offset = start;
            const guint errors = cfg_skip_item(st, offset);
            expert_add_info_format(pinfo, pi, &ei_meter_cfg_too_deep,
                                   "Nested deeper than %u levels: content not shown", CFG_MAX_DEPTH);
            if (errors)
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_cbor,
                                       "%u CBOR error%s in the content not shown", errors, plurality(errors, "", "s"));
            text = is_map ? "{\xe2\x80\xa6}" : "[\xe2\x80\xa6]";
        } else {
            const guint64 count = indef ? G_MAXUINT64 : c->head_value;
            for (n = 0; n < count; n++) {
                if (indef && cfg_at_break(st, *offset)) {
                    *offset += 1;
                    break;
                }
                if (is_map) {
                    cfg_generic_t k;
                    cfg_add_generic(st, sub, offset, depth + 1, &k);
                    proto_item *vi = cfg_add_generic(st, sub, offset, depth + 1, NULL);
                    proto_item_prepend_text(vi, "[%s] ", k.text);
                } else {
                    cfg_add_generic(st, sub, offset, depth + 1, NULL);
                }
            }
            if (indef) {
                proto_item_append_text(pi, ", %" PRIu64 " %s%s", n, what, plurality(n, "", "s"));
                cfg_flag_indefinite(st, pi);
            }
            text = wmem_strdup_printf(pool, is_map ? "{%" PRIu64 " pair%s}" : "[%" PRIu64 " item%s]",
                                      n, plurality(n, "", "s"));
        }
        proto_item_set_end(pi, tvb, *offset);
        break;
    }
    case CBOR_TYPE_FLOAT_CTRL:
        if (c->type_minor == CBOR_CTRL_FALSE || c->type_minor == CBOR_CTRL_TRUE) {
            pi = proto_tree_add_boolean(tree, hf_meter_cfg_value_bool, tvb, c->start, c->head_length,
                                        c->type_minor == CBOR_CTRL_TRUE);
            text = c->type_minor == CBOR_CTRL_TRUE ? "true" : "false";
        } else if (cfg_float_value(c, &d)) {
            pi = proto_tree_add_double(tree, hf_meter_cfg_value_float, tvb, c->start, c->head_length, d);
            text = wmem_strdup_printf(pool, "%g", d);
        } else {
            const guint32 simple = c->type_minor < 24 || c->type_minor == 31
                                   ? c->type_minor : (guint32)(c->head_value & 0xff);
            pi = proto_tree_add_uint(tree, hf_meter_cfg_value_simple, tvb, c->start, c->head_length, simple);
            /* try_val_to_str: val_to_str's signature changed in 4.6. */
            text = try_val_to_str(simple, cfg_simple_vals);
            if (!text)
                text = wmem_strdup_printf(pool, "simple(%u)", simple);
            if (c->type_minor == 31)
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_cbor, "Break (0xff) where an item belongs");
        }
        wscbor_chunk_mark_errors(pinfo, pi, c);
        break;
    default:    /* tags are part of the chunk: a chunk never has major type 6 */
        pi = proto_tree_add_uint64(tree, hf_meter_cfg_value_tag, tvb, c->start, c->head_length, c->head_value);
        wscbor_chunk_mark_errors(pinfo, pi, c);
        break;
    }

    if (wmem_list_count(c->tags) > 0) {
        /* shown up to CFG_TAGS_MAX: a blob can hold thousands of nested tags */
        proto_tree *sub = proto_item_add_subtree(pi, ett_meter_cfg_value);
        wmem_strbuf_t *tags = wmem_strbuf_new(pool, "");
        const guint ntags = wmem_list_count(c->tags);
        guint shown = 0;
        for (wmem_list_frame_t *f = wmem_list_head(c->tags); f && shown < CFG_TAGS_MAX; f = wmem_list_frame_next(f)) {
            const wscbor_tag_t *tag = (const wscbor_tag_t *)wmem_list_frame_data(f);
            proto_tree_add_uint64(sub, hf_meter_cfg_value_tag, tvb, tag->start, tag->length, tag->value);
            wmem_strbuf_append_printf(tags, "%stag %" PRIu64, shown ? ", " : "", tag->value);
            shown++;
        }
        if (ntags > shown)
            wmem_strbuf_append_printf(tags, " and %u more", ntags - shown);
        proto_item_append_text(pi, " (%s)", wmem_strbuf_get_str(tags));
        text = wmem_strdup_printf(pool, "%s (%s)", text, wmem_strbuf_get_str(tags));
    }
    if (out)
        out->text = text;
    return pi;
}

/* A value whose CBOR type is not the key's: shown generically and flagged;
 * decoding goes on with the next pair. */
static proto_item *cfg_wrong_type(cfg_state_t *st, proto_tree *tree, gint *offset, gint vstart, guint depth,
                                  const char *label, const char *expected, const wscbor_chunk_t *c)
{
    const char *actual = cfg_major_name(c);
    cfg_generic_t g;
    proto_item *pi;

    *offset = vstart;
    pi = cfg_add_generic(st, tree, offset, depth, &g);
    proto_item_set_text(pi, "%s: %s [wrong type: %s, expected %s]", label, g.text, actual, expected);
    expert_add_info_format(st->pinfo, pi, &ei_meter_cfg_wrong_type, "%s should be %s %s, is %s %s",
                           label, cfg_a(expected), expected, cfg_a(actual), actual);
    return pi;
}

/* A pair with a key that nothing knows: key number, then the value generically. */
static proto_item *cfg_unknown_pair(cfg_state_t *st, proto_tree *tree, gint *offset, guint64 key, gint kstart,
                                    guint depth, const char *where)
{
    packet_info *pinfo = st->pinfo;
    proto_item *pi = proto_tree_add_item(tree, hf_meter_cfg_unknown, st->tvb, kstart, -1, ENC_NA);
    proto_tree *sub = proto_item_add_subtree(pi, ett_meter_cfg_unknown);
    cfg_generic_t g;

    proto_tree_add_uint64(sub, hf_meter_cfg_unknown_key, st->tvb, kstart, *offset - kstart, key);
    proto_item_set_text(pi, "Unknown %s key %" PRIu64, where, key);
    expert_add_info_format(pinfo, pi, &ei_meter_cfg_unknown_key, "Unknown %s key %" PRIu64 " (not in the key table)",
                           where, key);
    cfg_add_generic(st, sub, offset, depth, &g);
    proto_item_append_text(pi, ": %s", g.text);
    proto_item_set_end(pi, st->tvb, *offset);
    return pi;
}

typedef struct {
    gboolean ok;            /* the value had the key's type */
    const char *text;
    guint64 u;
    gint64 i;
    double d;
    const guint8 *bytes;
    gint len;
    proto_item *item;
} cfg_value_t;

/* A reference key's scalar value into its dedicated field; the item covers
 * key and value. A wrong type goes to cfg_wrong_type(). */
static proto_item *cfg_add_known(cfg_state_t *st, proto_tree *tree, gint *offset, gint kstart, guint64 key,
                                 guint depth, int hf, cfg_vkind_t kind, cfg_value_t *v)
{
    packet_info *pinfo = st->pinfo;
    tvbuff_t *tvb = st->tvb;
    wmem_allocator_t *pool = pinfo->pool;
    const gint vstart = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(st, offset);
    const gint len = c->start + c->data_length - kstart;
    const char *name = proto_registrar_get_name(hf);
    const char *expected = "item";

    memset(v, 0, sizeof *v);
    switch (kind) {
    case CFG_V_TEXT:
        expected = "text string";
        if (c->type_major != CBOR_TYPE_STRING)
            break;
        v->text = cfg_chunk_tstr(pool, c);
        v->item = proto_tree_add_string(tree, hf, tvb, kstart, len, v->text);
        v->ok = TRUE;
        break;
    case CFG_V_U32: {
        expected = "unsigned integer";
        if (c->type_major != CBOR_TYPE_UINT)
            break;
        const guint64 *p = wscbor_require_uint64(pool, c);
        v->u = p ? *p : 0;
        if (v->u > G_MAXUINT32) {
            v->item = proto_tree_add_uint_format_value(tree, hf, tvb, kstart, len, G_MAXUINT32,
                                                       "%" PRIu64 " (more than 32 bits)", v->u);
            expert_add_info_format(pinfo, v->item, &ei_meter_cfg_bad_value, "%s is %" PRIu64 ", more than 32 bits",
                                   name, v->u);
        } else {
            v->item = proto_tree_add_uint(tree, hf, tvb, kstart, len, (guint32)v->u);
        }
        v->ok = TRUE;
        break;
    }
    case CFG_V_I32: {
        expected = "integer";
        if (c->type_major != CBOR_TYPE_UINT && c->type_major != CBOR_TYPE_NEGINT)
            break;
        const gint64 *p = wscbor_require_int64(pool, c);
        v->i = p ? *p : 0;
        if (v->i > G_MAXINT32 || v->i < G_MININT32) {
            v->item = proto_tree_add_int_format_value(tree, hf, tvb, kstart, len,
                                                      v->i > 0 ? G_MAXINT32 : G_MININT32,
                                                      "%" PRId64 " (out of 32-bit range)", v->i);
            expert_add_info_format(pinfo, v->item, &ei_meter_cfg_bad_value, "%s is %" PRId64 ", out of 32-bit range",
                                   name, v->i);
        } else {
            v->item = proto_tree_add_int(tree, hf, tvb, kstart, len, (gint32)v->i);
        }
        v->ok = TRUE;
        break;
    }
    case CFG_V_FLOAT:
        expected = "float";
        if (cfg_float_value(c, &v->d)) {
            v->ok = TRUE;
        } else if (c->type_major == CBOR_TYPE_UINT) {
            /* encoders that keep integral numbers integral (JavaScript) */
            v->d = (double)c->head_value;
            v->ok = TRUE;
        } else if (c->type_major == CBOR_TYPE_NEGINT) {
            v->d = -1.0 - (double)c->head_value;
            v->ok = TRUE;
        }
        if (v->ok)
            v->item = proto_tree_add_double(tree, hf, tvb, kstart, len, v->d);
        break;
    case CFG_V_BYTES: {
        expected = "byte string";
        if (c->type_major != CBOR_TYPE_BYTESTRING)
            break;
        tvbuff_t *b = wscbor_require_bstr(pool, c);
        v->len = b ? (gint)tvb_reported_length(b) : 0;
        v->bytes = v->len ? (const guint8 *)tvb_memdup(pool, b, 0, v->len) : NULL;
        v->item = proto_tree_add_bytes_with_length(tree, hf, tvb, kstart, len, v->bytes, v->len);
        v->ok = TRUE;
        break;
    }
    case CFG_V_SPECIAL:
        break;
    }
    if (!v->ok) {
        const char *label = wmem_strdup_printf(pool, "%s (key %" PRIu64 ")", name, key);
        v->item = cfg_wrong_type(st, tree, offset, vstart, depth, label, expected, c);
        return v->item;
    }
    wscbor_chunk_mark_errors(pinfo, v->item, c);
    return v->item;
}

/* Reads a map's pairs; fn handles each unsigned-integer key. Other keys,
 * duplicate keys and stray breaks are flagged here. Returns the pair count. */
static guint cfg_dissect_map(cfg_state_t *st, proto_tree *tree, proto_item *map_item, gint *offset,
                             const wscbor_chunk_t *mc, guint depth, cfg_pair_fn fn, void *data)
{
    packet_info *pinfo = st->pinfo;
    wmem_allocator_t *pool = pinfo->pool;
    const gboolean indef = mc->type_minor == 31;
    const guint64 count = indef ? G_MAXUINT64 : mc->head_value;
    wmem_map_t *seen = wmem_map_new(pool, g_int64_hash, g_int64_equal);
    guint pairs = 0;

    if (indef)
        cfg_flag_indefinite(st, map_item);
    for (guint64 i = 0; i < count; i++) {
        if (indef && cfg_at_break(st, *offset)) {
            *offset += 1;
            break;
        }
        const gint kstart = *offset;
        wscbor_chunk_t *kc = cfg_chunk_read(st, offset);
        if (kc->type_major == CBOR_TYPE_UINT && !wscbor_has_errors(kc)) {
            gint64 *key = wmem_new(pool, gint64);
            gboolean dup;
            proto_item *pi;

            *key = (gint64)kc->head_value;
            dup = wmem_map_contains(seen, key);
            if (!dup)
                wmem_map_insert(seen, key, key);
            pi = fn(st, tree, offset, kc->head_value, kstart, depth + 1, data);
            if (dup)
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_duplicate_key,
                                       "Key %" PRIu64 " appears more than once (the last one is used)",
                                       kc->head_value);
        } else if (wscbor_is_indefinite_break(kc)) {
            /* a break in a definite-length map: show it, no value follows */
            *offset = kstart;
            cfg_add_generic(st, tree, offset, depth + 1, NULL);
        } else {
            proto_item *pi = proto_tree_add_item(tree, hf_meter_cfg_unknown, st->tvb, kstart, -1, ENC_NA);
            proto_tree *sub = proto_item_add_subtree(pi, ett_meter_cfg_unknown);
            cfg_generic_t k, v;

            *offset = kstart;
            cfg_add_generic(st, sub, offset, depth + 1, &k);
            cfg_add_generic(st, sub, offset, depth + 1, &v);
            proto_item_set_text(pi, "Pair with key %s: %s", k.text, v.text);
            proto_item_set_end(pi, st->tvb, *offset);
            if (kc->type_major != CBOR_TYPE_UINT)   /* else an invalid head, flagged on the key by wscbor */
                expert_add_info_format(pinfo, pi, &ei_meter_cfg_bad_key, "Map key is %s %s, not an unsigned integer",
                                       cfg_a(cfg_major_name(kc)), cfg_major_name(kc));
        }
        pairs++;
    }
    return pairs;
}

/* ---- firmware (key 10) ---- */

static proto_item *cfg_firmware_pair(cfg_state_t *st, proto_tree *tree, gint *offset, guint64 key, gint kstart,
                                     guint depth, void *data _U_)
{
    cfg_value_t v;

    switch (key) {
    case 1:
        cfg_add_known(st, tree, offset, kstart, key, depth, hf_meter_cfg_firmware_version, CFG_V_TEXT, &v);
        if (v.ok)
            st->fw.version = v.text;
        break;
    case 2:
        cfg_add_known(st, tree, offset, kstart, key, depth, hf_meter_cfg_firmware_path, CFG_V_TEXT, &v);
        if (v.ok)
            st->fw.path = v.text;
        break;
    case 3:
        cfg_add_known(st, tree, offset, kstart, key, depth, hf_meter_cfg_firmware_size, CFG_V_U32, &v);
        if (v.ok && v.u <= G_MAXUINT32) {
            st->fw.size = (guint32)v.u;
            st->fw.has_size = TRUE;
        }
        break;
    case 4:
        cfg_add_known(st, tree, offset, kstart, key, depth, hf_meter_cfg_firmware_sha256, CFG_V_BYTES, &v);
        if (v.ok && v.len == 32) {
            memcpy(st->fw.sha256, v.bytes, 32);
            st->fw.has_sha256 = TRUE;
        } else if (v.ok) {
            expert_add_info_format(st->pinfo, v.item, &ei_meter_cfg_bad_value,
                                   "SHA-256 is %d bytes, should be 32", v.len);
        }
        break;
    default:
        return cfg_unknown_pair(st, tree, offset, key, kstart, depth, "firmware");
    }
    return v.item;
}

static proto_item *cfg_add_firmware(cfg_state_t *st, proto_tree *tree, gint *offset, gint kstart, guint64 key,
                                    guint depth)
{
    const gint vstart = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(st, offset);
    proto_item *pi;
    proto_tree *sub;

    if (c->type_major != CBOR_TYPE_MAP)
        return cfg_wrong_type(st, tree, offset, vstart, depth,
                              wmem_strdup_printf(st->pinfo->pool, "Firmware (key %" PRIu64 ")", key), "map", c);
    pi = proto_tree_add_item(tree, hf_meter_cfg_firmware, st->tvb, kstart, -1, ENC_NA);
    wscbor_chunk_mark_errors(st->pinfo, pi, c);
    sub = proto_item_add_subtree(pi, ett_meter_cfg_firmware);
    /* a second firmware key replaces the first */
    st->fw_seen = TRUE;
    memset(&st->fw, 0, sizeof st->fw);
    cfg_dissect_map(st, sub, pi, offset, c, depth, cfg_firmware_pair, NULL);
    proto_item_set_end(pi, st->tvb, *offset);
    if (st->fw.version && *st->fw.version)
        proto_item_append_text(pi, ": %s", cfg_printable(st->pinfo->pool, st->fw.version, CFG_TEXT_MAX));
    if (st->fw.has_size)
        proto_item_append_text(pi, ", %u bytes", st->fw.size);
    return pi;
}

/* ---- points (key 13) ---- */

typedef struct {
    const char *name;
    const char *unit;
} cfg_point_t;

static proto_item *cfg_point_pair(cfg_state_t *st, proto_tree *tree, gint *offset, guint64 key, gint kstart,
                                  guint depth, void *data)
{
    cfg_point_t *pt = (cfg_point_t *)data;
    cfg_value_t v;

    switch (key) {
    case 1:
        cfg_add_known(st, tree, offset, kstart, key, depth, hf_meter_cfg_point_name, CFG_V_TEXT, &v);
        if (v.ok)
            pt->name = v.text;
        break;
    case 2:
        cfg_add_known(st, tree, offset, kstart, key, depth, hf_meter_cfg_point_point_id, CFG_V_TEXT, &v);
        break;
    case 3:
        cfg_add_known(st, tree, offset, kstart, key, depth, hf_meter_cfg_point_unit, CFG_V_TEXT, &v);
        if (v.ok)
            pt->unit = v.text;
        break;
    default:
        return cfg_unknown_pair(st, tree, offset, key, kstart, depth, "point");
    }
    return v.item;
}

static void cfg_add_point(cfg_state_t *st, proto_tree *tree, gint *offset, guint64 index, guint depth)
{
    wmem_allocator_t *pool = st->pinfo->pool;
    const gint vstart = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(st, offset);
    cfg_point_t pt = { NULL, NULL };
    proto_item *pi;
    proto_tree *sub;

    if (c->type_major != CBOR_TYPE_MAP) {
        cfg_wrong_type(st, tree, offset, vstart, depth,
                       wmem_strdup_printf(pool, "Point %" PRIu64, index), "map", c);
        return;
    }
    pi = proto_tree_add_item(tree, hf_meter_cfg_point, st->tvb, vstart, -1, ENC_NA);
    wscbor_chunk_mark_errors(st->pinfo, pi, c);
    proto_item_append_text(pi, " %" PRIu64, index);
    sub = proto_item_add_subtree(pi, ett_meter_cfg_point);
    cfg_dissect_map(st, sub, pi, offset, c, depth, cfg_point_pair, &pt);
    proto_item_set_end(pi, st->tvb, *offset);
    if (pt.name)
        proto_item_append_text(pi, ": %s", cfg_printable(pool, pt.name, CFG_TEXT_MAX));
    if (pt.unit)
        proto_item_append_text(pi, " (%s)", cfg_printable(pool, pt.unit, CFG_TEXT_MAX));
}

static proto_item *cfg_add_points(cfg_state_t *st, proto_tree *tree, gint *offset, gint kstart, guint64 key,
                                  guint depth)
{
    packet_info *pinfo = st->pinfo;
    const gint vstart = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(st, offset);
    proto_item *pi;
    proto_tree *sub;
    gboolean indef;
    guint64 count, n;

    if (c->type_major != CBOR_TYPE_ARRAY)
        return cfg_wrong_type(st, tree, offset, vstart, depth,
                              wmem_strdup_printf(pinfo->pool, "Points (key %" PRIu64 ")", key), "array", c);
    indef = c->type_minor == 31;
    count = indef ? G_MAXUINT64 : c->head_value;
    /* an indefinite-length array's count is known only at its end: 0 here */
    if (!indef && c->head_value > G_MAXUINT32)
        pi = proto_tree_add_uint_format_value(tree, hf_meter_cfg_points, st->tvb, kstart,
                                              c->start + c->head_length - kstart, G_MAXUINT32,
                                              "%" PRIu64 " (more than 32 bits)", c->head_value);
    else
        pi = proto_tree_add_uint(tree, hf_meter_cfg_points, st->tvb, kstart, c->start + c->head_length - kstart,
                                 indef ? 0 : (guint32)c->head_value);
    wscbor_chunk_mark_errors(pinfo, pi, c);
    sub = proto_item_add_subtree(pi, ett_meter_cfg_points);
    if (indef)
        cfg_flag_indefinite(st, pi);
    for (n = 0; n < count; n++) {
        if (indef && cfg_at_break(st, *offset)) {
            *offset += 1;
            break;
        }
        cfg_add_point(st, sub, offset, n, depth + 1);
    }
    proto_item_set_end(pi, st->tvb, *offset);
    if (indef)
        proto_item_set_text(pi, "Points: %" PRIu64 " (indefinite length)", n);
    return pi;
}

/* ---- a key known from the UAT only (or retyped by it) ---- */

static proto_item *cfg_add_extra(cfg_state_t *st, proto_tree *tree, gint *offset, gint kstart,
                                 const cfg_keydef_t *kd, guint depth)
{
    packet_info *pinfo = st->pinfo;
    wmem_allocator_t *pool = pinfo->pool;
    const gint vstart = *offset;
    proto_item *pi = proto_tree_add_item(tree, hf_meter_cfg_extra, st->tvb, kstart, -1, ENC_NA);
    proto_tree *sub = proto_item_add_subtree(pi, ett_meter_cfg_extra);
    proto_item *ti;
    cfg_generic_t g;
    const char *value;
    gint probe = vstart;
    wscbor_chunk_t *c;
    gboolean matches;

    c = cfg_chunk_read(st, &probe);
    matches = cfg_type_matches(kd->type, c);
    proto_tree_add_uint64(sub, hf_meter_cfg_extra_key, st->tvb, kstart, vstart - kstart, kd->key);
    ti = proto_tree_add_string(sub, hf_meter_cfg_extra_name, st->tvb, kstart, vstart - kstart, kd->name);
    proto_item_set_generated(ti);
    proto_item_set_text(pi, "%s (key %u)", cfg_printable(pool, kd->name, CFG_TEXT_MAX), kd->key);
    if (!matches)
        expert_add_info_format(pinfo, pi, &ei_meter_cfg_wrong_type, "%s (key %u) should be %s %s, is %s %s",
                               cfg_printable(pool, kd->name, CFG_TEXT_MAX), kd->key,
                               cfg_a(cfg_type_name(kd->type)), cfg_type_name(kd->type),
                               cfg_a(cfg_major_name(c)), cfg_major_name(c));
    cfg_add_generic(st, sub, offset, depth, &g);
    value = (kd->unit && *kd->unit) ? wmem_strdup_printf(pool, "%s %s", g.text, kd->unit) : g.text;
    ti = proto_tree_add_string(sub, hf_meter_cfg_extra_value, st->tvb, vstart, *offset - vstart, value);
    proto_item_set_generated(ti);
    proto_item_set_text(pi, "%s (key %u): %s", cfg_printable(pool, kd->name, CFG_TEXT_MAX), kd->key, value);
    proto_item_set_end(pi, st->tvb, *offset);
    return pi;
}

/* ---- the top-level map ---- */

static proto_item *cfg_top_pair(cfg_state_t *st, proto_tree *tree, gint *offset, guint64 key, gint kstart,
                                guint depth, void *data _U_)
{
    const cfg_keydef_t *kd = cfg_key_lookup(key);
    const cfg_builtin_t *b;
    proto_item *pi;
    cfg_value_t v;

    if (!kd)
        return cfg_unknown_pair(st, tree, offset, key, kstart, depth, "config");
    if (!kd->builtin)
        return cfg_add_extra(st, tree, offset, kstart, kd, depth);
    b = kd->builtin;

    switch (b->key) {
    case 10:
        pi = cfg_add_firmware(st, tree, offset, kstart, key, depth);
        break;
    case 13:
        pi = cfg_add_points(st, tree, offset, kstart, key, depth);
        break;
    default:
        pi = cfg_add_known(st, tree, offset, kstart, key, depth, *b->hf, b->kind, &v);
        if (!v.ok)
            break;
        switch (b->key) {
        case 1:
            st->device_id = v.text;
            break;
        case 2:
            st->config_version = v.u;
            st->has_config_version = TRUE;
            break;
        case 11:
            if (v.u <= 6) {
                proto_item *ti = proto_tree_add_uint(tree, hf_meter_cfg_block_size, st->tvb, kstart, 0,
                                                     16u << v.u);
                proto_item_set_generated(ti);
            } else {
                expert_add_info_format(st->pinfo, pi, &ei_meter_cfg_bad_value,
                                       "Block SZX %" PRIu64 " is not 0..6 (7 is reserved in CoAP over UDP)", v.u);
            }
            break;
        case 14:
            if (v.text && g_utf8_validate(v.text, -1, NULL) && g_utf8_strlen(v.text, -1) != CFG_AUTH_TOKEN_LEN)
                expert_add_info_format(st->pinfo, pi, &ei_meter_cfg_bad_value,
                                       "Authentication token has %ld characters, should be %d",
                                       (long)g_utf8_strlen(v.text, -1), CFG_AUTH_TOKEN_LEN);
            break;
        default:
            break;
        }
        break;
    }
    if (kd->renamed)
        proto_item_append_text(pi, " [%s]", cfg_printable(st->pinfo->pool, kd->name, CFG_TEXT_MAX));
    return pi;
}

static void cfg_dissect_blob(cfg_state_t *st, proto_tree *tree, proto_item *root)
{
    packet_info *pinfo = st->pinfo;
    tvbuff_t *tvb = st->tvb;
    const gint length = (gint)tvb_reported_length(tvb);
    gint offset = 0;
    wscbor_chunk_t *c;

    if (length == 0) {
        st->not_map = TRUE;
        expert_add_info_format(pinfo, root, &ei_meter_cfg_not_map, "Config blob is empty, not a CBOR map");
        return;
    }
    c = cfg_chunk_read(st, &offset);
    if (c->type_major != CBOR_TYPE_MAP) {
        cfg_generic_t g;
        st->not_map = TRUE;
        expert_add_info_format(pinfo, root, &ei_meter_cfg_not_map, "Config blob is %s %s, not a CBOR map",
                               cfg_a(cfg_major_name(c)), cfg_major_name(c));
        offset = 0;
        cfg_add_generic(st, tree, &offset, 1, &g);
    } else {
        wscbor_chunk_mark_errors(pinfo, root, c);
        st->pairs = cfg_dissect_map(st, tree, root, &offset, c, 0, cfg_top_pair, NULL);
        proto_item_append_text(root, ", %u pair%s", st->pairs, plurality(st->pairs, "", "s"));
    }
    if (offset < length)
        proto_tree_add_expert_format(tree, pinfo, &ei_meter_cfg_trailing, tvb, offset, length - offset,
                                     "%d byte%s after the config blob", length - offset,
                                     plurality(length - offset, "", "s"));
}

static void cfg_record_firmware(const cfg_state_t *st, const meter_ctx_t *ctx)
{
    wmem_allocator_t *fs = wmem_file_scope();
    meter_cfg_firmware_t *rec = wmem_new0(fs, meter_cfg_firmware_t);
    wmem_array_t *list;
    char *key;

    *rec = st->fw;
    rec->version = st->fw.version ? wmem_strdup(fs, st->fw.version) : NULL;
    rec->path = st->fw.path ? wmem_strdup(fs, st->fw.path) : NULL;
    rec->config_version = (guint32)MIN(st->config_version, G_MAXUINT32);
    rec->has_config_version = st->has_config_version;
    rec->frame = st->pinfo->num;
    key = address_to_str(st->pinfo->pool, ctx->meter);
    list = (wmem_array_t *)wmem_map_lookup(cfg_fw_by_meter, key);
    if (!list) {
        list = wmem_array_new(fs, sizeof(meter_cfg_firmware_t *));
        wmem_map_insert(cfg_fw_by_meter, wmem_strdup(fs, key), list);
    }
    wmem_array_append_one(list, rec);
}

void dissect_meter_cfg(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx)
{
    cfg_state_t *st;
    proto_item *root;
    proto_tree *cfg_tree;
    wmem_strbuf_t *info;

    if (!payload)
        return;
    st = wmem_new0(pinfo->pool, cfg_state_t);
    st->pinfo = pinfo;
    st->tvb = payload;
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

    TRY {
        cfg_dissect_blob(st, cfg_tree, root);
    }
    CATCH_BOUNDS_ERRORS {
        st->truncated = TRUE;
        expert_add_info(pinfo, root, &ei_meter_cfg_truncated);
    }
    ENDTRY;

    info = wmem_strbuf_new(pinfo->pool, " [cfg");
    if (st->not_map)
        wmem_strbuf_append(info, " not a map");
    if (st->device_id && *st->device_id)
        wmem_strbuf_append_printf(info, " dev=%s", cfg_printable(pinfo->pool, st->device_id, 24));
    if (st->has_config_version)
        wmem_strbuf_append_printf(info, " v%" PRIu64, st->config_version);
    if (st->fw_seen && st->fw.version && *st->fw.version)
        wmem_strbuf_append_printf(info, " fw=%s", cfg_printable(pinfo->pool, st->fw.version, 16));
    if (st->truncated)
        wmem_strbuf_append(info, " truncated");
    wmem_strbuf_append_c(info, ']');
    col_append_str(pinfo->cinfo, COL_INFO, wmem_strbuf_get_str(info));
    if (st->device_id && *st->device_id)
        proto_item_append_text(root, ", device %s", cfg_printable(pinfo->pool, st->device_id, CFG_TEXT_MAX));
    if (st->has_config_version)
        proto_item_append_text(root, ", version %" PRIu64, st->config_version);

    /* a blob cut short is one the meter cannot use: it announces nothing */
    if (!PINFO_FD_VISITED(pinfo) && st->fw_seen && !st->truncated && ctx && ctx->meter)
        cfg_record_firmware(st, ctx);
}

/* ---- registration ---- */

static void cfg_fmt_szx(gchar *buf, guint32 szx)
{
    if (szx <= 6)
        snprintf(buf, ITEM_LABEL_LENGTH, "%u (%u bytes)", szx, 16u << szx);
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
          VALS(cfg_simple_vals), 0x0, NULL, HFILL } },
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
    static uat_field_t cfg_key_fields[] = {
        UAT_FLD_DEC(cfg_key_recs, key, "Key", "The map key (unsigned integer)"),
        UAT_FLD_CSTRING_ISPRINT(cfg_key_recs, name, "Name", "Name shown for the key"),
        { "type", "Type", PT_TXTMOD_ENUM,
          { uat_fld_chk_enum, cfg_key_recs_type_set_cb, cfg_key_recs_type_tostr_cb },
          { cfg_type_vals, cfg_type_vals, cfg_type_vals }, cfg_type_vals,
          "CBOR type of the value: text, uint, int, float, bytes, map, array or bool", FLDFILL },
        UAT_FLD_CSTRING(cfg_key_recs, unit, "Unit", "Unit shown after the value (may be empty)"),
        UAT_END_FIELDS
    };
    expert_module_t *expert_cfg;

    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_cfg = expert_register_protocol(proto_meter);
    expert_register_field_array(expert_cfg, ei, array_length(ei));

    cfg_key_uat = uat_new("Meter config keys",
                          sizeof(cfg_key_rec_t),
                          "meter_cfg_keys",
                          TRUE,
                          &cfg_key_recs,
                          &cfg_key_nrecs,
                          UAT_AFFECTS_DISSECTION,
                          NULL,
                          cfg_key_copy_cb,
                          NULL,
                          cfg_key_free_cb,
                          cfg_key_post_update_cb,
                          cfg_key_reset_cb,
                          cfg_key_fields);
    prefs_register_uat_preference(meter_module, "cfg_keys", "Config blob keys",
        "Names and CBOR types of the config blob's keys. The reference keys 1..14 are always known; "
        "rows add a newer firmware's keys (shown as meter.cfg.extra), rename a reference key, "
        "or give it another type (then it is shown as meter.cfg.extra too).",
        cfg_key_uat);

    cfg_fw_by_meter = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
}
