/* senml.h: SenML packs in their CBOR representation (RFC 8428 section 6),
 * parsed from a tvb and resolved (RFC 8428 section 4.6) without any
 * proto_tree, so that the dissector (packet-meter-his.c) and the unit tests
 * (tests/plugin-unit/test_senml.c) share one parser.
 *
 * Every problem found is kept with the offset and length of the CBOR item
 * it concerns, so the dissector can attach an expert info to exactly that
 * item. Parsing is bounded: no declared length or count is trusted beyond
 * the bytes present, at most max_records records are decoded and nested
 * items (inside an unknown label's value, say) are skipped only down to
 * SENML_MAX_DEPTH levels.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SENML_H
#define SENML_H

#include <glib.h>
#include <epan/tvbuff.h>
#include <wsutil/wmem/wmem.h>

/* RFC 8428 section 6, Table 4: the CBOR labels. */
typedef enum {
    SENML_BS   = -6,   /* base sum */
    SENML_BV   = -5,   /* base value */
    SENML_BU   = -4,   /* base unit */
    SENML_BT   = -3,   /* base time */
    SENML_BN   = -2,   /* base name */
    SENML_BVER = -1,   /* base version */
    SENML_N    = 0,    /* name */
    SENML_U    = 1,    /* unit */
    SENML_V    = 2,    /* value */
    SENML_VS   = 3,    /* string value */
    SENML_VB   = 4,    /* boolean value */
    SENML_S    = 5,    /* sum */
    SENML_T    = 6,    /* time */
    SENML_UT   = 7,    /* update time */
    SENML_VD   = 8,    /* data value */
} senml_label_t;

#define SENML_LABEL_MIN   SENML_BS
#define SENML_LABEL_MAX   SENML_VD
#define SENML_N_LABELS    (SENML_LABEL_MAX - SENML_LABEL_MIN + 1)
#define SENML_LABEL_INDEX(l) ((int)(l) - SENML_LABEL_MIN)

#define SENML_VERSION_DEFAULT   10     /* RFC 8428 section 4.4 */
/* RFC 8428 section 4.5.3: times at or above 2^28 are absolute UNIX times,
 * smaller ones are relative to "now". */
#define SENML_ABSOLUTE_TIME_MIN 268435456.0
#define SENML_MAX_DEPTH         16     /* nesting skipped inside a record */
#define SENML_MAX_RECORDS_DEFAULT 10000

/* "bver", "n", ... (NULL for a label outside Table 4). */
const char *senml_label_name(gint64 label);

typedef enum {
    SENML_PROB_NOT_ARRAY,       /* the pack is not a CBOR array */
    SENML_PROB_EMPTY_PACK,      /* an array with no record */
    SENML_PROB_NOT_MAP,         /* a record is not a CBOR map */
    SENML_PROB_MISSING_NAME,    /* resolved name (bn + n) is empty */
    SENML_PROB_INVALID_NAME,    /* resolved name has characters section 4.5.1 forbids */
    SENML_PROB_WRONG_TYPE,      /* a label's value (or a label itself) has the wrong CBOR type */
    SENML_PROB_UNKNOWN_LABEL,   /* a label outside Table 4: ignored */
    SENML_PROB_MUST_UNDERSTAND, /* an unknown label ending in '_' (section 4.4): record unusable */
    SENML_PROB_DUPLICATE_LABEL, /* the same label twice in one record; the first one is used */
    SENML_PROB_NO_VALUE,        /* a measurement record with neither v, vs, vb, vd nor s */
    SENML_PROB_MULTIPLE_VALUES, /* more than one of v, vs, vb, vd */
    SENML_PROB_VERSION,         /* bver other than 10, or changed within the pack */
    SENML_PROB_INVALID_CBOR,    /* not well-formed CBOR (reserved minor type, stray break, ...) */
    SENML_PROB_TRUNCATED,       /* the data ends inside an item */
    SENML_PROB_TOO_DEEP,        /* nesting beyond SENML_MAX_DEPTH: parsing stopped */
    SENML_PROB_TOO_MANY_RECORDS,/* more records than max_records: the rest not decoded */
    SENML_PROB_TRAILING_DATA,   /* bytes after the pack */
    SENML_PROB_COUNT
} senml_problem_kind_t;

typedef struct {
    senml_problem_kind_t kind;
    gint     record;            /* record index, -1: the pack itself */
    gint     offset, length;    /* the CBOR item concerned */
    const char *detail;         /* human text, allocated with the pack */
} senml_problem_t;

/* One label/value pair as found in a record. */
typedef struct {
    gboolean present;           /* the label occurs in this record */
    gboolean valid;             /* its value has the right type (and was read) */
    gint     key_offset;        /* the label item */
    gint     offset, length;    /* the value item (tags included) */
    /* the value, by the label's type */
    double   num;               /* numbers (int, negative int, half/single/double float) */
    gboolean num_is_int;
    gint64   ival;              /* when num_is_int (clamped) */
    const char *str;            /* text (UTF-8, NUL-terminated) */
    gboolean boolean;
    const guint8 *data;         /* byte string */
    guint    data_len;
} senml_field_t;

typedef enum {
    SENML_VALUE_NONE = 0,
    SENML_VALUE_NUMBER,         /* v */
    SENML_VALUE_STRING,         /* vs */
    SENML_VALUE_BOOL,           /* vb */
    SENML_VALUE_DATA,           /* vd */
} senml_value_kind_t;

typedef struct {
    guint    index;
    gint     offset, length;    /* the whole record item */
    gboolean is_map;
    gboolean complete;          /* read to its end (not cut short by truncation or bad CBOR) */
    guint    n_pairs;           /* label/value pairs read */
    senml_field_t field[SENML_N_LABELS];   /* by SENML_LABEL_INDEX(label) */
    guint    n_unknown;         /* labels outside Table 4 */
    guint    n_problems;

    /* Base values in effect for this record (its own base fields included). */
    const char *base_name;      /* NULL: none */
    gboolean has_base_time;   double base_time;
    const char *base_unit;      /* NULL: none */
    gboolean has_base_value;  double base_value;
    gboolean has_base_sum;    double base_sum;
    guint64  version;           /* bver in effect, 10 by default */

    /* Resolved (RFC 8428 section 4.6). */
    gboolean base_only;         /* only base fields: carries no measurement */
    const char *name;           /* bn + n, "" if neither */
    gboolean time_given;        /* bt or t present (otherwise time 0 = "now") */
    double   time;              /* bt + t */
    gboolean time_absolute;     /* time >= 2^28: UNIX time; else relative to now */
    const char *unit;           /* u, else bu, else NULL */
    senml_value_kind_t value_kind;
    double   value;             /* bv + v (NUMBER) */
    const char *string;         /* vs */
    gboolean boolean;           /* vb */
    const guint8 *data;         /* vd */
    guint    data_len;
    gboolean has_sum;
    double   sum;               /* bs + s (when s is present) */
    gboolean has_update_time;
    double   update_time;       /* ut */
} senml_record_t;

typedef struct {
    gint     offset;            /* where the pack starts in the tvb */
    gint     head_length;       /* the array head */
    gint     end;               /* first byte after what was parsed */
    gboolean is_array;
    gboolean indefinite;        /* indefinite-length array */
    guint64  declared;          /* definite array: the count in its head */
    gboolean complete;          /* parsed to the end of the array without stopping */
    wmem_array_t *records;      /* senml_record_t */
    wmem_array_t *problems;     /* senml_problem_t, in order found */
    guint    n_problems_by_kind[SENML_PROB_COUNT];
    /* Summary of the resolved records (for an Info column). */
    guint    n_absolute;        /* records with an absolute time */
    double   time_min, time_max;/* of those */
} senml_pack_t;

/* Parse the pack starting at offset (normally 0) up to the end of tvb.
 * Never throws: truncation and malformation become problems. All memory
 * comes from alloc (pinfo->pool, wmem_file_scope() or a test allocator).
 * max_records 0 means SENML_MAX_RECORDS_DEFAULT. */
senml_pack_t *senml_parse(wmem_allocator_t *alloc, tvbuff_t *tvb, gint offset, guint max_records);

static inline guint senml_pack_n_records(const senml_pack_t *p)
{
    return p->records ? wmem_array_get_count(p->records) : 0;
}

static inline senml_record_t *senml_pack_record(const senml_pack_t *p, guint i)
{
    return (senml_record_t *)wmem_array_index(p->records, i);
}

static inline guint senml_pack_n_problems(const senml_pack_t *p)
{
    return p->problems ? wmem_array_get_count(p->problems) : 0;
}

static inline senml_problem_t *senml_pack_problem(const senml_pack_t *p, guint i)
{
    return (senml_problem_t *)wmem_array_index(p->problems, i);
}

static inline const senml_field_t *senml_record_field(const senml_record_t *r, senml_label_t l)
{
    return &r->field[SENML_LABEL_INDEX(l)];
}

/* Short stable name of a problem kind ("missing_name", ...). */
const char *senml_problem_name(senml_problem_kind_t kind);

/* RFC 8428 section 4.5.1: a name of only A-Z a-z 0-9 - : . / _ that starts
 * with a letter or digit. */
gboolean senml_name_is_valid(const char *name);

#endif
