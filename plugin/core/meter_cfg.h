/* meter_cfg.h: the meter's config blob (shared/meter-protocol.md, "Config
 * blob"), a CBOR map with unsigned-integer keys 1..14, parsed from a tvb
 * with wscbor into plain structs and without any proto_tree, so that the
 * display (epan/packet-meter-cfg.c), the unit tests
 * (tests/plugin-unit/test_meter_cfg.c) and the fuzz target share one parser.
 *
 * The result keeps the blob's shape: the top-level map's pairs in order,
 * each with its key as the key table names it, its decoded value (a
 * reference key's value of the reference type) or the value as a generic
 * CBOR item (unknown keys, wrong types, keys known only from the key table),
 * the firmware sub-map and the points. Every item carries its offsets and
 * its wscbor chunk (whose errors wscbor_chunk_mark_errors() shows), every
 * problem is recorded on the item it concerns and in one list with its
 * offset and length.
 *
 * Nothing in the blob is trusted: counts only bound loops that also stop at
 * the end of the data, containers are read to METER_CFG_MAX_DEPTH levels and
 * skipped beyond, without recursion. The data ending inside an item stops the
 * parse there (METER_CFG_PROB_TRUNCATED): every item met so far is kept,
 * with `complete` FALSE on those the end cut short.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_CFG_PARSE_H
#define METER_CFG_PARSE_H

#include <glib.h>
#include <epan/tvbuff.h>
#include <epan/wscbor.h>
#include <wsutil/wmem/wmem.h>

#define METER_CFG_MAX_DEPTH       16   /* nesting levels read; deeper items are skipped */
#define METER_CFG_AUTH_TOKEN_LEN  12   /* characters of key 14 */
#define METER_CFG_SHA256_LEN      32   /* bytes of firmware key 4 */
#define METER_CFG_BLOCK_SZX_MAX   6    /* key 11: SZX 7 is reserved in CoAP over UDP */

/* The CBOR type a key's value should have (the key table's "type"). */
typedef enum {
    METER_CFG_TEXT,
    METER_CFG_UINT,
    METER_CFG_INT,      /* unsigned or negative integer */
    METER_CFG_FLOAT,    /* a float, or an integer (encoders that keep integral numbers integral) */
    METER_CFG_BYTES,
    METER_CFG_MAP,
    METER_CFG_ARRAY,
    METER_CFG_BOOL,
} meter_cfg_type_t;

/* The reference keys of shared/meter-protocol.md. */
typedef enum {
    METER_CFG_DEVICE_ID = 1,
    METER_CFG_CONFIG_VERSION,
    METER_CFG_SAMPLE_INTERVAL,
    METER_CFG_UPLOAD_INTERVAL,
    METER_CFG_HISTORY_PATH,
    METER_CFG_METER_KIND,
    METER_CFG_PULSE_FACTOR,
    METER_CFG_UNIT,
    METER_CFG_UTC_OFFSET,
    METER_CFG_FIRMWARE,
    METER_CFG_BLOCK_SZX,
    METER_CFG_ACK_TIMEOUT_MS,
    METER_CFG_POINTS,
    METER_CFG_AUTH_TOKEN,
} meter_cfg_ref_key_t;
#define METER_CFG_N_REF_KEYS 14

/* Keys of the firmware map (key 10) and of a point's map (key 13). */
enum { METER_CFG_FW_VERSION = 1, METER_CFG_FW_PATH, METER_CFG_FW_SIZE, METER_CFG_FW_SHA256 };
enum { METER_CFG_POINT_NAME = 1, METER_CFG_POINT_ID, METER_CFG_POINT_UNIT };

typedef struct {
    guint32 key;
    const char *name;
    meter_cfg_type_t type;
    const char *unit;            /* "" when none */
} meter_cfg_keydef_t;

/* The reference key `key` (1..14), or NULL. */
const meter_cfg_keydef_t *meter_cfg_reference_key(guint64 key);
/* The i-th reference key, i < METER_CFG_N_REF_KEYS, in key order. */
const meter_cfg_keydef_t *meter_cfg_reference_key_at(guint i);

/* ---- the key table ---- */

/* One key as the parser sees it: the reference merged with the table's rows. */
typedef struct {
    meter_cfg_keydef_t def;
    /* Non-NULL: a reference key with its reference type, decoded into its own
     * value (and field); NULL: a key only the table names, or a reference key
     * the table gave another type, read as a generic item. */
    const meter_cfg_keydef_t *reference;
    gboolean renamed;            /* a row gave the reference key another name */
} meter_cfg_key_t;

typedef struct meter_cfg_keys meter_cfg_keys_t;

/* A table of the reference keys; meter_cfg_keys_add() adds rows. */
meter_cfg_keys_t *meter_cfg_keys_new(void);
void meter_cfg_keys_free(meter_cfg_keys_t *keys);
/* A row: a later row for the same key replaces an earlier one. A row with no
 * name is ignored (FALSE). */
gboolean meter_cfg_keys_add(meter_cfg_keys_t *keys, guint32 key, const char *name, meter_cfg_type_t type,
                            const char *unit);
/* The key's entry, or NULL when neither the reference nor a row names it.
 * keys NULL: the reference keys only. */
const meter_cfg_key_t *meter_cfg_keys_lookup(const meter_cfg_keys_t *keys, guint64 key);

/* ---- problems ---- */

typedef enum {
    METER_CFG_PROB_NOT_MAP,         /* the blob is empty or not a CBOR map */
    METER_CFG_PROB_WRONG_TYPE,      /* a value of another CBOR type than its key's */
    METER_CFG_PROB_UNKNOWN_KEY,     /* an unsigned key that neither the reference nor the table names */
    METER_CFG_PROB_BAD_KEY,         /* a map key that is not an unsigned integer */
    METER_CFG_PROB_DUPLICATE_KEY,   /* a key seen before in the same map (the last one is used) */
    METER_CFG_PROB_OUT_OF_RANGE,    /* an integer that does not fit its 32-bit field */
    METER_CFG_PROB_BAD_VALUE,       /* block_szx not 0..6, a SHA-256 not 32 bytes, an auth_token not 12 characters */
    METER_CFG_PROB_INVALID_CBOR,    /* not well-formed: errors wscbor flags on a head, a break where an
                                     * item belongs, errors in content skipped for depth */
    METER_CFG_PROB_TOO_DEEP,        /* a container nested deeper than METER_CFG_MAX_DEPTH: content skipped */
    METER_CFG_PROB_INDEFINITE,      /* an indefinite-length map or array */
    METER_CFG_PROB_TRUNCATED,       /* the data ends inside an item: the parse stopped */
    METER_CFG_PROB_TRAILING,        /* bytes after the blob's item */
    METER_CFG_PROB_COUNT
} meter_cfg_problem_kind_t;

typedef struct {
    meter_cfg_problem_kind_t kind;
    gint offset, length;            /* the bytes concerned */
} meter_cfg_problem_t;

#define METER_CFG_PROB_BIT(kind) (1u << (kind))

/* Short stable name of a problem kind ("wrong_type", ...). */
const char *meter_cfg_problem_name(meter_cfg_problem_kind_t kind);

/* ---- the parse result ---- */

/* Any CBOR item, read generically (the value of an unknown key, of a wrong
 * type, of a key known only from the table, or a blob that is not a map). */
typedef struct meter_cfg_value meter_cfg_value_t;
struct meter_cfg_value {
    wscbor_chunk_t *chunk;          /* head and tags: type, head value, wscbor's errors */
    gint start, end;                /* the whole item, nested content included */
    gboolean complete;              /* read to its end; a scalar that is not has no value */
    guint problems;                 /* METER_CFG_PROB_BIT()s found on this item */
    /* by chunk->type_major */
    guint64 uint;                   /* CBOR_TYPE_UINT */
    gint64 sint;                    /* CBOR_TYPE_NEGINT (clamped by wscbor) */
    const char *text;               /* CBOR_TYPE_STRING, NUL-terminated, UTF-8 not checked */
    const guint8 *bytes;            /* CBOR_TYPE_BYTESTRING */
    gint bytes_len;
    gboolean is_float;              /* major type 7, minor 25/26/27 */
    double number;
    guint32 simple;                 /* other major type 7 items: the simple value (31: a break) */
    /* arrays and maps */
    gboolean indefinite;
    gboolean too_deep;              /* beyond METER_CFG_MAX_DEPTH: content skipped, not in items */
    guint skipped_errors;           /* CBOR errors met in the skipped content */
    wmem_array_t *items;            /* meter_cfg_value_t *: an array's items, a map's keys and values alternating */
};

typedef struct meter_cfg_map meter_cfg_map_t;
typedef struct meter_cfg_points meter_cfg_points_t;

typedef enum {
    METER_CFG_PAIR_KNOWN,           /* a key of the map's own (reference key, firmware or point key) */
    METER_CFG_PAIR_EXTRA,           /* top-level: a key only the key table names, or one it retyped */
    METER_CFG_PAIR_UNKNOWN,         /* an unsigned key nothing names */
    METER_CFG_PAIR_BAD_KEY,         /* the key is not an unsigned integer, or not well-formed */
    METER_CFG_PAIR_BREAK,           /* a break where a definite-length map's key belongs: no value */
} meter_cfg_pair_kind_t;

/* The firmware a firmware map (key 10) announces. */
typedef struct {
    const char *version;            /* key 1; NULL if absent or not text */
    const char *path;               /* key 2, as sent; NULL if absent or not text */
    guint32 size;                   /* key 3, bytes */
    gboolean has_size;
    guint8 sha256[METER_CFG_SHA256_LEN];   /* key 4 */
    gboolean has_sha256;            /* only when the byte string was exactly 32 bytes */
} meter_cfg_firmware_info_t;

typedef struct {
    meter_cfg_pair_kind_t kind;
    guint64 key;                    /* an unsigned key's value */
    const meter_cfg_key_t *def;     /* top-level KNOWN and EXTRA: the key table's entry */
    gint key_start, value_start, end;
    gboolean complete;              /* key and value read to the end */
    guint problems;                 /* METER_CFG_PROB_BIT()s found on this pair */
    gboolean duplicate;             /* the key occurred before in this map */
    /* KNOWN: the value's head; NULL when the data ended before it. EXTRA: the same. */
    wscbor_chunk_t *chunk;
    /* KNOWN with the key's type: the value, decoded */
    gboolean decoded;
    guint64 uint;                   /* uint keys (range checked: METER_CFG_PROB_OUT_OF_RANGE) */
    gint64 sint;                    /* int keys (likewise) */
    double number;                  /* float keys */
    const char *text;               /* text keys */
    const guint8 *bytes;            /* bytes keys */
    gint bytes_len;
    meter_cfg_map_t *map;           /* key 10: the firmware map */
    meter_cfg_firmware_info_t *firmware;   /* key 10: what that map announces */
    meter_cfg_points_t *points;     /* key 13 */
    /* KNOWN of another type, EXTRA, UNKNOWN, BAD_KEY: the value as a generic
     * item; NULL when the data ended before it */
    meter_cfg_value_t *value;
    /* BAD_KEY, BREAK: the key as a generic item */
    meter_cfg_value_t *key_item;
} meter_cfg_pair_t;

struct meter_cfg_map {
    wscbor_chunk_t *chunk;          /* the map's head */
    gint start, end;
    gboolean indefinite;
    gboolean complete;
    guint problems;                 /* METER_CFG_PROB_INDEFINITE */
    wmem_array_t *pairs;            /* meter_cfg_pair_t *, in order */
};

/* One item of the points array (key 13). */
typedef struct {
    guint64 index;
    gint start, end;
    wscbor_chunk_t *chunk;          /* its head */
    meter_cfg_map_t *map;           /* a map: its pairs (keys 1..3) */
    meter_cfg_value_t *value;       /* not a map: the item as a generic value (METER_CFG_PROB_WRONG_TYPE) */
    guint problems;
    gboolean complete;
    const char *name;               /* key 1 (the last one), NULL if none */
    const char *unit;               /* key 3 (the last one), NULL if none */
} meter_cfg_point_t;

struct meter_cfg_points {
    wscbor_chunk_t *chunk;          /* the array's head */
    gint end;                       /* first byte after the array (complete ones) */
    gboolean indefinite;
    gboolean complete;
    guint problems;                 /* METER_CFG_PROB_INDEFINITE */
    wmem_array_t *items;            /* meter_cfg_point_t *, in order */
};

typedef struct {
    gint length;                    /* bytes given */
    gint end;                       /* first byte after the blob's item (complete blobs) */
    gboolean complete;              /* parsed to the end of its item */
    gboolean is_map;
    /* the blob's first head; NULL when empty or cut inside that head */
    wscbor_chunk_t *head;
    meter_cfg_map_t *map;           /* is_map: the top-level pairs */
    meter_cfg_value_t *value;       /* not a map: the item, generically */
    guint problems;                 /* NOT_MAP, TRUNCATED, TRAILING */
    /* Problems in the order found, and how many of each. */
    wmem_array_t *problem_list;     /* meter_cfg_problem_t */
    guint n_problems[METER_CFG_PROB_COUNT];
    /* What the blob said (the last valid occurrence of each key). */
    const char *device_id;          /* key 1, NULL if none */
    gboolean has_config_version;
    guint64 config_version;         /* key 2 (more than 32 bits possible: METER_CFG_PROB_OUT_OF_RANGE) */
    /* The last firmware map (key 10) met, even one cut short; NULL if none. */
    const meter_cfg_firmware_info_t *firmware;
} meter_cfg_t;

/* Parse a config blob: the whole of tvb. Never throws: truncation and
 * malformation become problems. keys NULL means the reference keys only.
 * All memory comes from alloc (pinfo->pool or a test's allocator), and the
 * result refers to tvb's data: both must outlive it. */
meter_cfg_t *meter_cfg_parse(wmem_allocator_t *alloc, tvbuff_t *tvb, const meter_cfg_keys_t *keys);


static inline guint meter_cfg_n_pairs(const meter_cfg_map_t *m)
{
    return m && m->pairs ? wmem_array_get_count(m->pairs) : 0;
}

static inline meter_cfg_pair_t *meter_cfg_pair(const meter_cfg_map_t *m, guint i)
{
    return *(meter_cfg_pair_t **)wmem_array_index(m->pairs, i);
}

static inline guint meter_cfg_n_items(const meter_cfg_value_t *v)
{
    return v && v->items ? wmem_array_get_count(v->items) : 0;
}

static inline meter_cfg_value_t *meter_cfg_item(const meter_cfg_value_t *v, guint i)
{
    return *(meter_cfg_value_t **)wmem_array_index(v->items, i);
}

static inline guint meter_cfg_n_points(const meter_cfg_points_t *p)
{
    return p && p->items ? wmem_array_get_count(p->items) : 0;
}

static inline meter_cfg_point_t *meter_cfg_point(const meter_cfg_points_t *p, guint i)
{
    return *(meter_cfg_point_t **)wmem_array_index(p->items, i);
}

static inline guint meter_cfg_n_problems(const meter_cfg_t *cfg)
{
    return wmem_array_get_count(cfg->problem_list);
}

static inline const meter_cfg_problem_t *meter_cfg_problem(const meter_cfg_t *cfg, guint i)
{
    return (const meter_cfg_problem_t *)wmem_array_index(cfg->problem_list, i);
}

/* The last top-level pair with this unsigned key, or NULL. */
const meter_cfg_pair_t *meter_cfg_find(const meter_cfg_t *cfg, guint64 key);

#endif
