/* meter_cfg.c: the config blob (shared/meter-protocol.md, "Config blob";
 * RFC 8949 CBOR) read with wscbor into the structs of meter_cfg.h, and the
 * key table the reading goes by. No proto_tree here: the display is
 * epan/packet-meter-cfg.c, which shows the items in the order they are read
 * here, so the order of the reads below is the order of the tree.
 *
 * wscbor 4.0 notes: there is no float helper (minor types 25/26/27 are
 * decoded from the head value wscbor reads), wscbor_require_tstr() asserts
 * on a zero-length definite text string, and a string's declared length is
 * added to the offset before it is checked (cfg_chunk_read()).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "meter_cfg.h"
#include "cbor_item.h"
#include "ws_compat.h"

#include <string.h>

#include <epan/exceptions.h>

/* ---- the reference keys and the key table ---- */

/* shared/meter-protocol.md, "Config blob": key, name, type, unit. */
#define REFERENCE_KEYS(X) \
    X(METER_CFG_DEVICE_ID,       "device_id",       METER_CFG_TEXT,  "") \
    X(METER_CFG_CONFIG_VERSION,  "config_version",  METER_CFG_UINT,  "") \
    X(METER_CFG_SAMPLE_INTERVAL, "sample_interval", METER_CFG_UINT,  "s") \
    X(METER_CFG_UPLOAD_INTERVAL, "upload_interval", METER_CFG_UINT,  "s") \
    X(METER_CFG_HISTORY_PATH,    "history_path",    METER_CFG_TEXT,  "") \
    X(METER_CFG_METER_KIND,      "meter_kind",      METER_CFG_UINT,  "") \
    X(METER_CFG_PULSE_FACTOR,    "pulse_factor",    METER_CFG_FLOAT, "") \
    X(METER_CFG_UNIT,            "unit",            METER_CFG_TEXT,  "") \
    X(METER_CFG_UTC_OFFSET,      "utc_offset",      METER_CFG_INT,   "min") \
    X(METER_CFG_FIRMWARE,        "firmware",        METER_CFG_MAP,   "") \
    X(METER_CFG_BLOCK_SZX,       "block_szx",       METER_CFG_UINT,  "") \
    X(METER_CFG_ACK_TIMEOUT_MS,  "ack_timeout_ms",  METER_CFG_UINT,  "ms") \
    X(METER_CFG_POINTS,          "points",          METER_CFG_ARRAY, "") \
    X(METER_CFG_AUTH_TOKEN,      "auth_token",      METER_CFG_TEXT,  "")

#define KEYDEF(key, name, type, unit) { key, name, type, unit },
static const meter_cfg_keydef_t reference_keys[METER_CFG_N_REF_KEYS] = { REFERENCE_KEYS(KEYDEF) };

/* The same as key-table entries, for a parse without a table. */
#define KEY_ENTRY(key, name, type, unit) { { key, name, type, unit }, &reference_keys[(key) - 1], FALSE },
static const meter_cfg_key_t reference_entries[METER_CFG_N_REF_KEYS] = { REFERENCE_KEYS(KEY_ENTRY) };

const meter_cfg_keydef_t *meter_cfg_reference_key(guint64 key)
{
    return key >= 1 && key <= METER_CFG_N_REF_KEYS ? &reference_keys[key - 1] : NULL;
}

const meter_cfg_keydef_t *meter_cfg_reference_key_at(guint i)
{
    return i < METER_CFG_N_REF_KEYS ? &reference_keys[i] : NULL;
}

struct meter_cfg_keys {
    GHashTable *by_key;     /* guint32 key -> meter_cfg_key_t* */
};

static void key_free(gpointer data)
{
    meter_cfg_key_t *k = (meter_cfg_key_t *)data;

    g_free((char *)k->def.name);
    g_free((char *)k->def.unit);
    g_free(k);
}

static void keys_put(meter_cfg_keys_t *keys, guint32 key, const char *name, meter_cfg_type_t type,
                     const char *unit, const meter_cfg_keydef_t *reference, gboolean renamed)
{
    meter_cfg_key_t *k = g_new0(meter_cfg_key_t, 1);

    k->def.key = key;
    k->def.name = g_strdup(name);
    k->def.type = type;
    k->def.unit = g_strdup(unit ? unit : "");
    k->reference = reference;
    k->renamed = renamed;
    g_hash_table_replace(keys->by_key, GUINT_TO_POINTER(key), k);
}

meter_cfg_keys_t *meter_cfg_keys_new(void)
{
    meter_cfg_keys_t *keys = g_new0(meter_cfg_keys_t, 1);

    keys->by_key = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, key_free);
    for (guint i = 0; i < METER_CFG_N_REF_KEYS; i++) {
        const meter_cfg_keydef_t *r = &reference_keys[i];
        keys_put(keys, r->key, r->name, r->type, r->unit, r, FALSE);
    }
    return keys;
}

void meter_cfg_keys_free(meter_cfg_keys_t *keys)
{
    if (!keys)
        return;
    g_hash_table_destroy(keys->by_key);
    g_free(keys);
}

gboolean meter_cfg_keys_add(meter_cfg_keys_t *keys, guint32 key, const char *name, meter_cfg_type_t type,
                            const char *unit)
{
    const meter_cfg_keydef_t *r = meter_cfg_reference_key(key);
    /* A reference key keeps its decoding only with its own type: given
     * another, it is read as the table says. */
    const meter_cfg_keydef_t *reference = (r && r->type == type) ? r : NULL;

    if (!name || !*name)
        return FALSE;
    keys_put(keys, key, name, type, unit, reference, reference && strcmp(r->name, name) != 0);
    return TRUE;
}

const meter_cfg_key_t *meter_cfg_keys_lookup(const meter_cfg_keys_t *keys, guint64 key)
{
    if (!keys)
        return key >= 1 && key <= METER_CFG_N_REF_KEYS ? &reference_entries[key - 1] : NULL;
    if (key > G_MAXUINT32)
        return NULL;
    return (const meter_cfg_key_t *)g_hash_table_lookup(keys->by_key, GUINT_TO_POINTER((guint32)key));
}

static const char *const problem_names[METER_CFG_PROB_COUNT] = {
    [METER_CFG_PROB_NOT_MAP] = "not_map",
    [METER_CFG_PROB_WRONG_TYPE] = "wrong_type",
    [METER_CFG_PROB_UNKNOWN_KEY] = "unknown_key",
    [METER_CFG_PROB_BAD_KEY] = "bad_key",
    [METER_CFG_PROB_DUPLICATE_KEY] = "duplicate_key",
    [METER_CFG_PROB_OUT_OF_RANGE] = "out_of_range",
    [METER_CFG_PROB_BAD_VALUE] = "bad_value",
    [METER_CFG_PROB_INVALID_CBOR] = "invalid_cbor",
    [METER_CFG_PROB_TOO_DEEP] = "too_deep",
    [METER_CFG_PROB_INDEFINITE] = "indefinite",
    [METER_CFG_PROB_TRUNCATED] = "truncated",
    [METER_CFG_PROB_TRAILING] = "trailing",
};

const char *meter_cfg_problem_name(meter_cfg_problem_kind_t kind)
{
    return (unsigned)kind < METER_CFG_PROB_COUNT ? problem_names[kind] : "unknown";
}

/* ---- reading ---- */

typedef struct {
    wmem_allocator_t *alloc;
    tvbuff_t *tvb;
    const meter_cfg_keys_t *keys;
    meter_cfg_t *cfg;
    gint reading;                   /* where the item being read starts (for a truncation) */
} parse_ctx_t;

static void add_problem(parse_ctx_t *ctx, guint *bits, meter_cfg_problem_kind_t kind, gint offset, gint length)
{
    meter_cfg_problem_t p = { kind, offset, length < 0 ? 0 : length };

    wmem_array_append_one(ctx->cfg->problem_list, p);
    ctx->cfg->n_problems[kind]++;
    if (bits)
        *bits |= METER_CFG_PROB_BIT(kind);
}

static wmem_array_t *ptr_array(parse_ctx_t *ctx)
{
    return wmem_array_new(ctx->alloc, sizeof(void *));
}

static void append_ptr(wmem_array_t *a, const void *p)
{
    wmem_array_append_one(a, p);
}

/* wscbor_chunk_read() that never leaves *offset outside the data. wscbor
 * (4.0) adds a string's declared length to the offset before it checks it;
 * a length near 2^31 wraps the offset around, and the next read would go
 * backwards (fuzz/regressions/config). An item that runs past the end is
 * treated as the data being cut short. */
static wscbor_chunk_t *cfg_chunk_read(parse_ctx_t *ctx, gint *offset)
{
    const gint start = *offset;
    wscbor_chunk_t *c;

    ctx->reading = start;
    c = wscbor_chunk_read(ctx->alloc, ctx->tvb, offset);
    if (*offset < start || (guint)*offset > tvb_reported_length(ctx->tvb)) {
        *offset = start;
        THROW(ReportedBoundsError);
    }
    return c;
}

/* Throws at the end of the data: an indefinite item without its break. */
static gboolean at_break(parse_ctx_t *ctx, gint offset)
{
    ctx->reading = offset;
    return tvb_get_uint8(ctx->tvb, offset) == 0xff;
}

/* A byte string's bytes, NULL when it has none. */
static const guint8 *chunk_bytes(parse_ctx_t *ctx, wscbor_chunk_t *c, gint *len)
{
    guint n = 0;
    const guint8 *b = cbor_item_bytes(ctx->alloc, c, &n);

    *len = (gint)n;
    return n ? b : NULL;
}

static gboolean type_matches(meter_cfg_type_t type, const wscbor_chunk_t *c)
{
    double d;

    switch (type) {
    case METER_CFG_TEXT: return c->type_major == CBOR_TYPE_STRING;
    case METER_CFG_UINT: return c->type_major == CBOR_TYPE_UINT;
    case METER_CFG_INT: return c->type_major == CBOR_TYPE_UINT || c->type_major == CBOR_TYPE_NEGINT;
    case METER_CFG_FLOAT:
        return cbor_item_float(c, &d) || c->type_major == CBOR_TYPE_UINT || c->type_major == CBOR_TYPE_NEGINT;
    case METER_CFG_BYTES: return c->type_major == CBOR_TYPE_BYTESTRING;
    case METER_CFG_MAP: return c->type_major == CBOR_TYPE_MAP;
    case METER_CFG_ARRAY: return c->type_major == CBOR_TYPE_ARRAY;
    case METER_CFG_BOOL:
        return c->type_major == CBOR_TYPE_FLOAT_CTRL &&
               (c->type_minor == CBOR_CTRL_FALSE || c->type_minor == CBOR_CTRL_TRUE);
    }
    return FALSE;
}

static gboolean is_container(const wscbor_chunk_t *c)
{
    return c->type_major == CBOR_TYPE_ARRAY || c->type_major == CBOR_TYPE_MAP;
}

/* wscbor's own errors on an item's head (a reserved additional information,
 * a wrong chunk in an indefinite string, a length beyond 2^31): wscbor
 * keeps them on the chunk, and they are noted once per item. */
static void note_chunk_errors(parse_ctx_t *ctx, guint *bits, const wscbor_chunk_t *c)
{
    if (wscbor_has_errors(c))
        add_problem(ctx, bits, METER_CFG_PROB_INVALID_CBOR, c->start, c->head_length);
}

/* Skips one whole item (with everything nested in it) without recursion:
 * an explicit stack of open containers. Every step consumes at least one
 * byte or closes a container, so it ends; running out of data throws.
 * Returns the number of CBOR errors met (unexpected breaks, invalid heads).
 * wscbor_skip_next_item() is not used: in 4.0 it loops forever on
 * indefinite-length items nested deeper than gui_max_tree_depth, and its
 * return value changed after 4.0. */
typedef struct {
    guint64 remaining;     /* items still to read (a map counts 2 per pair) */
    gboolean indefinite;
} skip_level_t;

static guint skip_item(parse_ctx_t *ctx, gint *offset)
{
    guint cap = 16, n = 0, errors = 0;
    skip_level_t *stack = wmem_alloc_array(ctx->alloc, skip_level_t, cap);

    stack[n].remaining = 1;
    stack[n].indefinite = FALSE;
    n++;
    while (n > 0) {
        skip_level_t *top = &stack[n - 1];

        if (top->indefinite) {
            if (at_break(ctx, *offset)) {
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
        wscbor_chunk_t *c = cfg_chunk_read(ctx, offset);
        errors += wscbor_has_errors(c);
        if (wscbor_is_indefinite_break(c)) {
            errors++;           /* a break where an item belongs */
        } else if (is_container(c)) {
            if (n == cap) {
                cap *= 2;
                stack = (skip_level_t *)wmem_realloc(ctx->alloc, stack, cap * sizeof *stack);
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

/* Where a generic item goes: appended to an array (a container's items) or
 * stored in one place. It goes there as soon as its head is read, before
 * its content, so that an item the end of the data cuts short stays in the
 * result. */
typedef struct {
    wmem_array_t *array;
    meter_cfg_value_t **slot;
} value_dest_t;

static value_dest_t into_array(wmem_array_t *a)
{
    value_dest_t d = { a, NULL };
    return d;
}

static value_dest_t into_slot(meter_cfg_value_t **slot)
{
    value_dest_t d = { NULL, slot };
    return d;
}

static void read_value(parse_ctx_t *ctx, value_dest_t dest, gint *offset, guint depth);

/* Any CBOR item whose head c was read at start: containers to
 * METER_CFG_MAX_DEPTH, deeper content skipped. */
static void value_from_chunk(parse_ctx_t *ctx, value_dest_t dest, wscbor_chunk_t *c, gint start, gint *offset,
                             guint depth)
{
    meter_cfg_value_t *v = wmem_new0(ctx->alloc, meter_cfg_value_t);

    v->chunk = c;
    v->start = start;
    v->end = *offset;
    if (dest.array)
        append_ptr(dest.array, v);
    else
        *dest.slot = v;
    note_chunk_errors(ctx, &v->problems, c);
    switch (c->type_major) {
    case CBOR_TYPE_UINT: {
        const guint64 *p = wscbor_require_uint64(ctx->alloc, c);
        v->uint = p ? *p : 0;
        break;
    }
    case CBOR_TYPE_NEGINT: {
        const gint64 *p = wscbor_require_int64(ctx->alloc, c);
        v->sint = p ? *p : 0;
        break;
    }
    case CBOR_TYPE_BYTESTRING:
        v->bytes = chunk_bytes(ctx, c, &v->bytes_len);
        break;
    case CBOR_TYPE_STRING:
        v->text = cbor_item_text(ctx->alloc, c);
        break;
    case CBOR_TYPE_ARRAY:
    case CBOR_TYPE_MAP:
        v->indefinite = c->type_minor == 31;
        if (v->indefinite)
            add_problem(ctx, &v->problems, METER_CFG_PROB_INDEFINITE, c->start, c->head_length);
        if (depth >= METER_CFG_MAX_DEPTH) {
            *offset = start;
            v->skipped_errors = skip_item(ctx, offset);
            v->too_deep = TRUE;
            add_problem(ctx, &v->problems, METER_CFG_PROB_TOO_DEEP, start, *offset - start);
            if (v->skipped_errors)
                add_problem(ctx, &v->problems, METER_CFG_PROB_INVALID_CBOR, start, *offset - start);
        } else {
            const guint64 count = v->indefinite ? G_MAXUINT64 : c->head_value;
            const guint per_entry = c->type_major == CBOR_TYPE_MAP ? 2 : 1;

            v->items = ptr_array(ctx);
            for (guint64 n = 0; n < count; n++) {
                if (v->indefinite && at_break(ctx, *offset)) {
                    *offset += 1;
                    break;
                }
                for (guint k = 0; k < per_entry; k++)
                    read_value(ctx, into_array(v->items), offset, depth + 1);
            }
        }
        break;
    case CBOR_TYPE_FLOAT_CTRL:
        if (cbor_item_float(c, &v->number)) {
            v->is_float = TRUE;
        } else if (c->type_minor != CBOR_CTRL_FALSE && c->type_minor != CBOR_CTRL_TRUE) {
            v->simple = c->type_minor < 24 || c->type_minor == 31 ? c->type_minor : (guint32)(c->head_value & 0xff);
            if (c->type_minor == 31)
                add_problem(ctx, &v->problems, METER_CFG_PROB_INVALID_CBOR, c->start, c->head_length);
        }
        break;
    default:    /* tags are part of the chunk: a chunk never has major type 6 */
        break;
    }
    v->end = *offset;
    v->complete = TRUE;
}

static void read_value(parse_ctx_t *ctx, value_dest_t dest, gint *offset, guint depth)
{
    const gint start = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(ctx, offset);

    value_from_chunk(ctx, dest, c, start, offset, depth);
}

/* ---- maps and pairs ---- */

typedef void (*pair_fn)(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth, void *data);

static meter_cfg_map_t *new_map(parse_ctx_t *ctx, wscbor_chunk_t *c, gint start)
{
    meter_cfg_map_t *m = wmem_new0(ctx->alloc, meter_cfg_map_t);

    m->chunk = c;
    m->start = start;
    m->end = start;
    m->indefinite = c->type_minor == 31;
    m->pairs = ptr_array(ctx);
    return m;
}

/* Reads a map's pairs; fn reads each unsigned-integer key's value. Other
 * keys, duplicate keys and stray breaks are handled here. */
static void read_map(parse_ctx_t *ctx, meter_cfg_map_t *m, gint *offset, guint depth, pair_fn fn, void *data)
{
    const guint64 count = m->indefinite ? G_MAXUINT64 : m->chunk->head_value;
    wmem_map_t *seen = wmem_map_new(ctx->alloc, g_int64_hash, g_int64_equal);

    if (m->indefinite)
        add_problem(ctx, &m->problems, METER_CFG_PROB_INDEFINITE, m->chunk->start, m->chunk->head_length);
    for (guint64 i = 0; i < count; i++) {
        if (m->indefinite && at_break(ctx, *offset)) {
            *offset += 1;
            break;
        }
        meter_cfg_pair_t *pair = wmem_new0(ctx->alloc, meter_cfg_pair_t);
        const gint kstart = *offset;
        wscbor_chunk_t *kc = cfg_chunk_read(ctx, offset);

        pair->key_start = kstart;
        pair->value_start = *offset;
        pair->end = *offset;
        append_ptr(m->pairs, pair);
        if (kc->type_major == CBOR_TYPE_UINT && !wscbor_has_errors(kc)) {
            gint64 *key = wmem_new(ctx->alloc, gint64);

            pair->key = kc->head_value;
            *key = (gint64)kc->head_value;
            pair->duplicate = wmem_map_contains(seen, key);
            if (!pair->duplicate)
                wmem_map_insert(seen, key, key);
            fn(ctx, pair, offset, depth + 1, data);
            if (pair->duplicate)
                add_problem(ctx, &pair->problems, METER_CFG_PROB_DUPLICATE_KEY, kstart, *offset - kstart);
        } else if (wscbor_is_indefinite_break(kc)) {
            /* a break in a definite-length map: no value follows */
            pair->kind = METER_CFG_PAIR_BREAK;
            *offset = kstart;
            read_value(ctx, into_slot(&pair->key_item), offset, depth + 1);
        } else {
            pair->kind = METER_CFG_PAIR_BAD_KEY;
            *offset = kstart;
            read_value(ctx, into_slot(&pair->key_item), offset, depth + 1);
            pair->value_start = *offset;
            read_value(ctx, into_slot(&pair->value), offset, depth + 1);
            /* a well-formed key of another type; an invalid head is noted on the key item */
            if (kc->type_major != CBOR_TYPE_UINT)
                add_problem(ctx, &pair->problems, METER_CFG_PROB_BAD_KEY, kstart, *offset - kstart);
        }
        pair->end = *offset;
        pair->complete = TRUE;
    }
    m->end = *offset;
    m->complete = TRUE;
}

/* A pair whose key nothing knows: the value generically. */
static void read_unknown(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth)
{
    pair->kind = METER_CFG_PAIR_UNKNOWN;
    add_problem(ctx, &pair->problems, METER_CFG_PROB_UNKNOWN_KEY, pair->key_start, pair->value_start - pair->key_start);
    read_value(ctx, into_slot(&pair->value), offset, depth);
}

/* The value of one of the map's own keys, of type `type`: decoded, or (of
 * another type) kept generically as a wrong type. */
static void read_known(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth, meter_cfg_type_t type)
{
    const gint vstart = *offset;
    wscbor_chunk_t *c;
    guint head_errors;
    gboolean ok = FALSE;

    pair->kind = METER_CFG_PAIR_KNOWN;
    c = cfg_chunk_read(ctx, offset);
    pair->chunk = c;
    head_errors = wscbor_has_errors(c);    /* before the require calls add theirs */
    switch (type) {
    case METER_CFG_TEXT:
        if (c->type_major == CBOR_TYPE_STRING) {
            pair->text = cbor_item_text(ctx->alloc, c);
            ok = TRUE;
        }
        break;
    case METER_CFG_UINT:
        if (c->type_major == CBOR_TYPE_UINT) {
            const guint64 *p = wscbor_require_uint64(ctx->alloc, c);
            pair->uint = p ? *p : 0;
            ok = TRUE;
            if (pair->uint > G_MAXUINT32)
                add_problem(ctx, &pair->problems, METER_CFG_PROB_OUT_OF_RANGE, c->start, c->data_length);
        }
        break;
    case METER_CFG_INT:
        if (c->type_major == CBOR_TYPE_UINT || c->type_major == CBOR_TYPE_NEGINT) {
            const gint64 *p = wscbor_require_int64(ctx->alloc, c);
            pair->sint = p ? *p : 0;
            ok = TRUE;
            if (pair->sint > G_MAXINT32 || pair->sint < G_MININT32)
                add_problem(ctx, &pair->problems, METER_CFG_PROB_OUT_OF_RANGE, c->start, c->data_length);
        }
        break;
    case METER_CFG_FLOAT:
        if (cbor_item_float(c, &pair->number)) {
            ok = TRUE;
        } else if (c->type_major == CBOR_TYPE_UINT) {
            /* encoders that keep integral numbers integral (JavaScript) */
            pair->number = (double)c->head_value;
            ok = TRUE;
        } else if (c->type_major == CBOR_TYPE_NEGINT) {
            pair->number = -1.0 - (double)c->head_value;
            ok = TRUE;
        }
        break;
    case METER_CFG_BYTES:
        if (c->type_major == CBOR_TYPE_BYTESTRING) {
            pair->bytes = chunk_bytes(ctx, c, &pair->bytes_len);
            ok = TRUE;
        }
        break;
    case METER_CFG_MAP:
    case METER_CFG_ARRAY:
    case METER_CFG_BOOL:
        break;      /* not a scalar: the callers read these */
    }
    if (ok) {
        pair->decoded = TRUE;
        if (head_errors)
            add_problem(ctx, &pair->problems, METER_CFG_PROB_INVALID_CBOR, c->start, c->head_length);
        return;
    }
    add_problem(ctx, &pair->problems, METER_CFG_PROB_WRONG_TYPE, vstart, c->data_length);
    value_from_chunk(ctx, into_slot(&pair->value), c, vstart, offset, depth);
}

/* ---- firmware (key 10) ---- */

static void firmware_pair(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth, void *data)
{
    meter_cfg_firmware_info_t *fw = (meter_cfg_firmware_info_t *)data;

    switch (pair->key) {
    case METER_CFG_FW_VERSION:
        read_known(ctx, pair, offset, depth, METER_CFG_TEXT);
        if (pair->decoded)
            fw->version = pair->text;
        break;
    case METER_CFG_FW_PATH:
        read_known(ctx, pair, offset, depth, METER_CFG_TEXT);
        if (pair->decoded)
            fw->path = pair->text;
        break;
    case METER_CFG_FW_SIZE:
        read_known(ctx, pair, offset, depth, METER_CFG_UINT);
        if (pair->decoded && pair->uint <= G_MAXUINT32) {
            fw->size = (guint32)pair->uint;
            fw->has_size = TRUE;
        }
        break;
    case METER_CFG_FW_SHA256:
        read_known(ctx, pair, offset, depth, METER_CFG_BYTES);
        if (pair->decoded && pair->bytes_len == METER_CFG_SHA256_LEN) {
            memcpy(fw->sha256, pair->bytes, METER_CFG_SHA256_LEN);
            fw->has_sha256 = TRUE;
        } else if (pair->decoded) {
            add_problem(ctx, &pair->problems, METER_CFG_PROB_BAD_VALUE, pair->chunk->start, pair->chunk->data_length);
        }
        break;
    default:
        read_unknown(ctx, pair, offset, depth);
        break;
    }
}

static void read_firmware(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth)
{
    const gint vstart = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(ctx, offset);

    pair->chunk = c;
    if (c->type_major != CBOR_TYPE_MAP) {
        add_problem(ctx, &pair->problems, METER_CFG_PROB_WRONG_TYPE, vstart, c->data_length);
        value_from_chunk(ctx, into_slot(&pair->value), c, vstart, offset, depth);
        return;
    }
    pair->decoded = TRUE;
    pair->map = new_map(ctx, c, vstart);
    note_chunk_errors(ctx, &pair->map->problems, c);
    /* a second firmware key replaces the first */
    pair->firmware = wmem_new0(ctx->alloc, meter_cfg_firmware_info_t);
    ctx->cfg->firmware = pair->firmware;
    read_map(ctx, pair->map, offset, depth, firmware_pair, pair->firmware);
}

/* ---- points (key 13) ---- */

static void point_pair(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth, void *data)
{
    meter_cfg_point_t *pt = (meter_cfg_point_t *)data;

    switch (pair->key) {
    case METER_CFG_POINT_NAME:
        read_known(ctx, pair, offset, depth, METER_CFG_TEXT);
        if (pair->decoded)
            pt->name = pair->text;
        break;
    case METER_CFG_POINT_ID:
        read_known(ctx, pair, offset, depth, METER_CFG_TEXT);
        break;
    case METER_CFG_POINT_UNIT:
        read_known(ctx, pair, offset, depth, METER_CFG_TEXT);
        if (pair->decoded)
            pt->unit = pair->text;
        break;
    default:
        read_unknown(ctx, pair, offset, depth);
        break;
    }
}

static void read_point(parse_ctx_t *ctx, meter_cfg_points_t *points, gint *offset, guint64 index, guint depth)
{
    const gint vstart = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(ctx, offset);
    meter_cfg_point_t *pt = wmem_new0(ctx->alloc, meter_cfg_point_t);

    pt->index = index;
    pt->start = vstart;
    pt->chunk = c;
    append_ptr(points->items, pt);
    if (c->type_major != CBOR_TYPE_MAP) {
        add_problem(ctx, &pt->problems, METER_CFG_PROB_WRONG_TYPE, vstart, c->data_length);
        value_from_chunk(ctx, into_slot(&pt->value), c, vstart, offset, depth);
    } else {
        pt->map = new_map(ctx, c, vstart);
        note_chunk_errors(ctx, &pt->map->problems, c);
        read_map(ctx, pt->map, offset, depth, point_pair, pt);
    }
    pt->end = *offset;
    pt->complete = TRUE;
}

static void read_points(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth)
{
    const gint vstart = *offset;
    wscbor_chunk_t *c = cfg_chunk_read(ctx, offset);
    meter_cfg_points_t *points;
    guint64 count;

    pair->chunk = c;
    if (c->type_major != CBOR_TYPE_ARRAY) {
        add_problem(ctx, &pair->problems, METER_CFG_PROB_WRONG_TYPE, vstart, c->data_length);
        value_from_chunk(ctx, into_slot(&pair->value), c, vstart, offset, depth);
        return;
    }
    pair->decoded = TRUE;
    points = wmem_new0(ctx->alloc, meter_cfg_points_t);
    points->chunk = c;
    points->indefinite = c->type_minor == 31;
    points->items = ptr_array(ctx);
    pair->points = points;
    note_chunk_errors(ctx, &points->problems, c);
    if (!points->indefinite && c->head_value > G_MAXUINT32)
        add_problem(ctx, &pair->problems, METER_CFG_PROB_OUT_OF_RANGE, c->start, c->head_length);
    if (points->indefinite)
        add_problem(ctx, &points->problems, METER_CFG_PROB_INDEFINITE, c->start, c->head_length);
    count = points->indefinite ? G_MAXUINT64 : c->head_value;
    for (guint64 n = 0; n < count; n++) {
        if (points->indefinite && at_break(ctx, *offset)) {
            *offset += 1;
            break;
        }
        read_point(ctx, points, offset, n, depth + 1);
    }
    points->end = *offset;
    points->complete = TRUE;
}

/* ---- a key known from the table only (or retyped by it) ---- */

static void read_extra(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth)
{
    const gint vstart = *offset;
    wscbor_chunk_t *c;

    pair->kind = METER_CFG_PAIR_EXTRA;
    c = cfg_chunk_read(ctx, offset);
    pair->chunk = c;
    if (!type_matches(pair->def->def.type, c))
        add_problem(ctx, &pair->problems, METER_CFG_PROB_WRONG_TYPE, vstart, c->data_length);
    value_from_chunk(ctx, into_slot(&pair->value), c, vstart, offset, depth);
}

/* ---- the top-level map ---- */

static void top_pair(parse_ctx_t *ctx, meter_cfg_pair_t *pair, gint *offset, guint depth, void *data _U_)
{
    meter_cfg_t *cfg = ctx->cfg;
    const meter_cfg_key_t *k = meter_cfg_keys_lookup(ctx->keys, pair->key);

    pair->def = k;
    if (!k) {
        read_unknown(ctx, pair, offset, depth);
        return;
    }
    if (!k->reference) {
        read_extra(ctx, pair, offset, depth);
        return;
    }
    pair->kind = METER_CFG_PAIR_KNOWN;
    switch (k->reference->key) {
    case METER_CFG_FIRMWARE:
        read_firmware(ctx, pair, offset, depth);
        return;
    case METER_CFG_POINTS:
        read_points(ctx, pair, offset, depth);
        return;
    default:
        break;
    }
    read_known(ctx, pair, offset, depth, k->reference->type);
    if (!pair->decoded)
        return;
    switch (k->reference->key) {
    case METER_CFG_DEVICE_ID:
        cfg->device_id = pair->text;
        break;
    case METER_CFG_CONFIG_VERSION:
        cfg->config_version = pair->uint;
        cfg->has_config_version = TRUE;
        break;
    case METER_CFG_BLOCK_SZX:
        if (pair->uint > METER_CFG_BLOCK_SZX_MAX)
            add_problem(ctx, &pair->problems, METER_CFG_PROB_BAD_VALUE, pair->chunk->start, pair->chunk->data_length);
        break;
    case METER_CFG_AUTH_TOKEN:
        if (pair->text && g_utf8_validate(pair->text, -1, NULL) &&
            g_utf8_strlen(pair->text, -1) != METER_CFG_AUTH_TOKEN_LEN)
            add_problem(ctx, &pair->problems, METER_CFG_PROB_BAD_VALUE, pair->chunk->start, pair->chunk->data_length);
        break;
    default:
        break;
    }
}

static void read_blob(parse_ctx_t *ctx)
{
    meter_cfg_t *cfg = ctx->cfg;
    gint offset = 0;
    wscbor_chunk_t *c;

    if (cfg->length == 0) {
        add_problem(ctx, &cfg->problems, METER_CFG_PROB_NOT_MAP, 0, 0);
        cfg->complete = TRUE;
        return;
    }
    c = cfg_chunk_read(ctx, &offset);
    cfg->head = c;
    if (c->type_major != CBOR_TYPE_MAP) {
        add_problem(ctx, &cfg->problems, METER_CFG_PROB_NOT_MAP, 0, cfg->length);
        value_from_chunk(ctx, into_slot(&cfg->value), c, 0, &offset, 1);
    } else {
        cfg->is_map = TRUE;
        cfg->map = new_map(ctx, c, 0);
        note_chunk_errors(ctx, &cfg->map->problems, c);
        read_map(ctx, cfg->map, &offset, 0, top_pair, NULL);
    }
    cfg->end = offset;
    cfg->complete = TRUE;
    if (offset < cfg->length)
        add_problem(ctx, &cfg->problems, METER_CFG_PROB_TRAILING, offset, cfg->length - offset);
}

meter_cfg_t *meter_cfg_parse(wmem_allocator_t *alloc, tvbuff_t *tvb, const meter_cfg_keys_t *keys)
{
    parse_ctx_t ctx;
    meter_cfg_t *cfg = wmem_new0(alloc, meter_cfg_t);

    memset(&ctx, 0, sizeof ctx);
    ctx.alloc = alloc;
    ctx.tvb = tvb;
    ctx.cfg = cfg;
    ctx.keys = keys;
    cfg->length = (gint)tvb_reported_length(tvb);
    cfg->problem_list = wmem_array_new(alloc, sizeof(meter_cfg_problem_t));

    TRY {
        read_blob(&ctx);
    }
    CATCH_BOUNDS_ERRORS {
        add_problem(&ctx, &cfg->problems, METER_CFG_PROB_TRUNCATED, ctx.reading, cfg->length - ctx.reading);
    }
    ENDTRY;
    return cfg;
}

const meter_cfg_pair_t *meter_cfg_find(const meter_cfg_t *cfg, guint64 key)
{
    for (guint i = meter_cfg_n_pairs(cfg->map); i-- > 0;) {
        const meter_cfg_pair_t *p = meter_cfg_pair(cfg->map, i);
        if (p->kind != METER_CFG_PAIR_BAD_KEY && p->kind != METER_CFG_PAIR_BREAK && p->key == key)
            return p;
    }
    return NULL;
}
