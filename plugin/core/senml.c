/* senml.c: SenML-CBOR packs (RFC 8428 sections 4 and 6) read from a tvb
 * with wscbor, base values applied to records as RFC 8428 section 4.6
 * resolves them. No proto_tree here: see senml.h for the data model and
 * packet-meter-his.c for the display.
 *
 * wscbor 4.0 notes: there is no float helper (minor types 25/26/27 are
 * decoded here from the head value wscbor reads), wscbor_require_tstr()
 * asserts on a zero-length definite text string (its str_value is NULL),
 * and wscbor_skip_next_item() neither returns a value nor stays bounded
 * when prefs are not loaded, so nested items are skipped by this file's
 * own bounded skip_contents().
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "senml.h"
#include "cbor_item.h"
#include "ws_compat.h"

#include <math.h>
#include <string.h>

#include <epan/exceptions.h>
#include <epan/wscbor.h>

typedef struct {
    wmem_allocator_t *alloc;
    tvbuff_t *tvb;
    senml_pack_t *pack;
    gboolean stop;              /* cannot find the next item: parsing ends */
} parse_ctx_t;

static const char *const label_names[SENML_N_LABELS] = {
    "bs", "bv", "bu", "bt", "bn", "bver", "n", "u", "v", "vs", "vb", "s", "t", "ut", "vd",
};

const char *senml_label_name(gint64 label)
{
    if (label < SENML_LABEL_MIN || label > SENML_LABEL_MAX)
        return NULL;
    return label_names[SENML_LABEL_INDEX(label)];
}

static const char *const problem_names[SENML_PROB_COUNT] = {
    [SENML_PROB_NOT_ARRAY] = "not_array",
    [SENML_PROB_EMPTY_PACK] = "empty_pack",
    [SENML_PROB_NOT_MAP] = "not_map",
    [SENML_PROB_MISSING_NAME] = "missing_name",
    [SENML_PROB_INVALID_NAME] = "invalid_name",
    [SENML_PROB_WRONG_TYPE] = "wrong_type",
    [SENML_PROB_UNKNOWN_LABEL] = "unknown_label",
    [SENML_PROB_MUST_UNDERSTAND] = "must_understand",
    [SENML_PROB_DUPLICATE_LABEL] = "duplicate_label",
    [SENML_PROB_NO_VALUE] = "no_value",
    [SENML_PROB_MULTIPLE_VALUES] = "multiple_values",
    [SENML_PROB_VERSION] = "version",
    [SENML_PROB_INVALID_CBOR] = "invalid_cbor",
    [SENML_PROB_TRUNCATED] = "truncated",
    [SENML_PROB_TOO_DEEP] = "too_deep",
    [SENML_PROB_TOO_MANY_RECORDS] = "too_many_records",
    [SENML_PROB_TRAILING_DATA] = "trailing_data",
};

const char *senml_problem_name(senml_problem_kind_t kind)
{
    return (unsigned)kind < SENML_PROB_COUNT ? problem_names[kind] : "unknown";
}

gboolean senml_name_is_valid(const char *name)
{
    if (name == NULL || !g_ascii_isalnum(name[0]))
        return FALSE;
    for (const char *p = name; *p; p++) {
        if (!g_ascii_isalnum(*p) && !strchr("-:./_", *p))
            return FALSE;
    }
    return TRUE;
}

static senml_problem_t *add_problem(parse_ctx_t *ctx, senml_problem_kind_t kind, senml_record_t *rec,
                                    gint offset, gint length, const char *fmt, ...) G_GNUC_PRINTF(6, 7);

static senml_problem_t *add_problem(parse_ctx_t *ctx, senml_problem_kind_t kind, senml_record_t *rec,
                                    gint offset, gint length, const char *fmt, ...)
{
    senml_problem_t p;
    va_list ap;

    p.kind = kind;
    p.record = rec ? (gint)rec->index : -1;
    p.offset = offset;
    p.length = length < 0 ? 0 : length;
    va_start(ap, fmt);
    p.detail = wmem_strdup_vprintf(ctx->alloc, fmt, ap);
    va_end(ap);
    wmem_array_append_one(ctx->pack->problems, p);
    ctx->pack->n_problems_by_kind[kind]++;
    if (rec)
        rec->n_problems++;
    return senml_pack_problem(ctx->pack, senml_pack_n_problems(ctx->pack) - 1);
}

/* Text from the data for a problem's detail: control characters as '?'. */
static const char *printable(parse_ctx_t *ctx, const char *text)
{
    char *s = wmem_strdup(ctx->alloc, text ? text : "");

    for (char *p = s; *p; p++) {
        if ((guchar)*p < 0x20 || *p == 0x7f)
            *p = '?';
    }
    return s;
}

/* A head's major type, additional information and value; FALSE for a
 * reserved additional information (28..30). Throws on bounds. */
static gboolean peek_head(tvbuff_t *tvb, gint *offset, guint8 *major, guint8 *minor, guint64 *value)
{
    guint8 first = tvb_get_uint8(tvb, *offset);

    *major = first >> 5;
    *minor = first & 0x1f;
    *offset += 1;
    switch (*minor) {
    case 24: *value = tvb_get_uint8(tvb, *offset); *offset += 1; break;
    case 25: *value = tvb_get_ntohs(tvb, *offset); *offset += 2; break;
    case 26: *value = tvb_get_ntohl(tvb, *offset); *offset += 4; break;
    case 27: *value = tvb_get_ntoh64(tvb, *offset); *offset += 8; break;
    case 28: case 29: case 30: return FALSE;
    default: *value = *minor; break;
    }
    return TRUE;
}

/* wscbor 4.0 adds an indefinite-length string's chunk lengths to a gint
 * offset unchecked (it may wrap): check the chunks against the data first. */
static gboolean precheck_indefinite_string(parse_ctx_t *ctx, senml_record_t *rec, gint offset)
{
    gint start = offset;
    guint8 major, minor, smajor, sminor;
    guint64 value;

    do {
        if (!peek_head(ctx->tvb, &offset, &major, &minor, &value))
            return TRUE;                       /* wscbor flags it */
    } while (major == CBOR_TYPE_TAG);
    if ((major != CBOR_TYPE_STRING && major != CBOR_TYPE_BYTESTRING) || minor != 31)
        return TRUE;
    for (;;) {
        gint chunk = offset;

        if (!peek_head(ctx->tvb, &offset, &smajor, &sminor, &value))
            return TRUE;
        if (smajor == CBOR_TYPE_FLOAT_CTRL && sminor == 31)
            return TRUE;
        if (smajor != major || sminor == 31)
            return TRUE;                       /* wscbor flags the wrong type */
        if (value > (guint64)MAX(tvb_reported_length_remaining(ctx->tvb, offset), 0)) {
            add_problem(ctx, SENML_PROB_TRUNCATED, rec, start, tvb_reported_length_remaining(ctx->tvb, start),
                        "Indefinite-length string chunk at offset %d declares %" G_GUINT64_FORMAT
                        " bytes, only %d present", chunk, value,
                        MAX(tvb_reported_length_remaining(ctx->tvb, offset), 0));
            ctx->stop = TRUE;
            return FALSE;
        }
        offset += (gint)value;
    }
}

/* One item head (with its tags, and a string's data); NULL (and ctx->stop)
 * when it cannot be read safely. Throws on bounds. */
static wscbor_chunk_t *read_chunk(parse_ctx_t *ctx, senml_record_t *rec, gint *offset)
{
    if (!precheck_indefinite_string(ctx, rec, *offset))
        return NULL;
    return wscbor_chunk_read(ctx->alloc, ctx->tvb, offset);
}

/* A CBOR-level error on the chunk (reserved minor type, overflow): the
 * item's extent is unknown, so parsing cannot go on. */
static gboolean chunk_ok(parse_ctx_t *ctx, senml_record_t *rec, const wscbor_chunk_t *c, const char *what)
{
    const wscbor_error_t *err;
    gint data_start;

    if (c == NULL)
        return FALSE;
    data_start = c->start + c->head_length;

    /* A definite string longer than the data: wscbor clamps the length to
     * G_MAXINT and does not always throw, and the offset it returns may
     * have wrapped. */
    if ((c->type_major == CBOR_TYPE_STRING || c->type_major == CBOR_TYPE_BYTESTRING) && c->type_minor != 31 &&
        c->head_value > (guint64)MAX(tvb_reported_length_remaining(ctx->tvb, data_start), 0)) {
        add_problem(ctx, SENML_PROB_TRUNCATED, rec, c->start, tvb_reported_length_remaining(ctx->tvb, c->start),
                    "%s: %s of %" G_GUINT64_FORMAT " bytes, only %d present", what, cbor_item_type_phrase(c),
                    c->head_value, MAX(tvb_reported_length_remaining(ctx->tvb, data_start), 0));
        ctx->stop = TRUE;
        return FALSE;
    }
    if (wscbor_has_errors(c) == 0)
        return TRUE;
    err = (const wscbor_error_t *)wmem_list_frame_data(wmem_list_head(c->errors));
    add_problem(ctx, SENML_PROB_INVALID_CBOR, rec, c->start, c->head_length,
                "%s: not well-formed CBOR%s%s", what, err && err->msg ? ": " : "",
                err && err->msg ? err->msg : " (reserved additional information)");
    ctx->stop = TRUE;
    return FALSE;
}

static gboolean chunk_is_indefinite(const wscbor_chunk_t *c)
{
    return (c->type_major == CBOR_TYPE_ARRAY || c->type_major == CBOR_TYPE_MAP) && c->type_minor == 31;
}

/* Skip what follows a container head (array or map), down to
 * SENML_MAX_DEPTH levels. Each item read consumes at least one byte or
 * throws at the end of the data, so no count in the data can make this
 * loop longer than the data. Returns FALSE when parsing must stop. */
static gboolean skip_contents(parse_ctx_t *ctx, senml_record_t *rec, const wscbor_chunk_t *c,
                              gint *offset, guint depth)
{
    guint per_entry;

    if (c->type_major != CBOR_TYPE_ARRAY && c->type_major != CBOR_TYPE_MAP)
        return TRUE;
    if (depth >= SENML_MAX_DEPTH) {
        add_problem(ctx, SENML_PROB_TOO_DEEP, rec, c->start, c->head_length,
                    "Nested more than %u levels deep: the rest of the pack is not decoded",
                    SENML_MAX_DEPTH);
        ctx->stop = TRUE;
        return FALSE;
    }
    per_entry = c->type_major == CBOR_TYPE_MAP ? 2 : 1;
    for (guint64 n = 0; chunk_is_indefinite(c) || n < c->head_value; n++) {
        for (guint k = 0; k < per_entry; k++) {
            wscbor_chunk_t *sub = read_chunk(ctx, rec, offset);

            if (!chunk_ok(ctx, rec, sub, "Nested item"))
                return FALSE;
            if (wscbor_is_indefinite_break(sub)) {
                if (chunk_is_indefinite(c) && k == 0)
                    return TRUE;
                add_problem(ctx, SENML_PROB_INVALID_CBOR, rec, sub->start, sub->head_length,
                            "Break where an item was expected");
                ctx->stop = TRUE;
                return FALSE;
            }
            if (!skip_contents(ctx, rec, sub, offset, depth + 1))
                return FALSE;
        }
    }
    return TRUE;
}

typedef enum { KIND_TEXT, KIND_NUMBER, KIND_UINT, KIND_BOOL, KIND_BYTES } label_kind_t;

static label_kind_t label_kind(senml_label_t l)
{
    switch (l) {
    case SENML_BN: case SENML_BU: case SENML_N: case SENML_U: case SENML_VS:
        return KIND_TEXT;
    case SENML_BVER:
        return KIND_UINT;
    case SENML_VB:
        return KIND_BOOL;
    case SENML_VD:
        return KIND_BYTES;
    default:
        return KIND_NUMBER;
    }
}

static const char *kind_text(label_kind_t k)
{
    switch (k) {
    case KIND_TEXT: return "a text string";
    case KIND_NUMBER: return "a number";
    case KIND_UINT: return "an unsigned integer";
    case KIND_BOOL: return "a boolean";
    case KIND_BYTES: return "a byte string";
    }
    return "?";
}

/* Read a known label's value into f (already marked present). */
static void read_field(parse_ctx_t *ctx, senml_record_t *rec, senml_label_t l, senml_field_t *f, wscbor_chunk_t *c)
{
    label_kind_t k = label_kind(l);
    gboolean ok = FALSE;

    switch (k) {
    case KIND_TEXT:
        f->str = cbor_item_text(ctx->alloc, c);
        ok = f->str != NULL;
        break;
    case KIND_NUMBER:
        ok = cbor_item_number(c, &f->num, &f->num_is_int, &f->ival);
        break;
    case KIND_UINT:
        ok = c->type_major == CBOR_TYPE_UINT;
        if (ok) {
            f->num_is_int = TRUE;
            f->ival = c->head_value > (guint64)G_MAXINT64 ? G_MAXINT64 : (gint64)c->head_value;
            f->num = (double)c->head_value;
        }
        break;
    case KIND_BOOL:
        ok = c->type_major == CBOR_TYPE_FLOAT_CTRL &&
             (c->type_minor == CBOR_CTRL_TRUE || c->type_minor == CBOR_CTRL_FALSE);
        if (ok)
            f->boolean = c->type_minor == CBOR_CTRL_TRUE;
        break;
    case KIND_BYTES:
        f->data = cbor_item_bytes(ctx->alloc, c, &f->data_len);
        ok = f->data != NULL;
        break;
    }
    f->valid = ok;
    if (!ok) {
        add_problem(ctx, SENML_PROB_WRONG_TYPE, rec, f->offset, f->length,
                    "%s (%d) must be %s, not %s", senml_label_name(l), (int)l, kind_text(k),
                    cbor_item_type_phrase(c));
    }
}

/* Base values carried from record to record. */
typedef struct {
    const char *bn, *bu;
    gboolean has_bt, has_bv, has_bs;
    double bt, bv, bs;
    gboolean has_version;
    guint64 version;
} base_state_t;

static const senml_label_t measurement_labels[] = {
    SENML_N, SENML_U, SENML_V, SENML_VS, SENML_VB, SENML_S, SENML_T, SENML_UT, SENML_VD,
};
static const senml_label_t base_labels[] = {
    SENML_BVER, SENML_BN, SENML_BT, SENML_BU, SENML_BV, SENML_BS,
};
static const senml_label_t value_labels[] = { SENML_V, SENML_VS, SENML_VB, SENML_VD };

#define FIELD(rec, l) (&(rec)->field[SENML_LABEL_INDEX(l)])
#define VALID(rec, l) (FIELD(rec, l)->present && FIELD(rec, l)->valid)

/* Apply the record's base fields to the state, then resolve the record
 * (RFC 8428 section 4.6). */
static void resolve_record(parse_ctx_t *ctx, base_state_t *b, senml_record_t *rec)
{
    senml_pack_t *pack = ctx->pack;
    const senml_field_t *f;
    gboolean any_base = FALSE, any_meas = FALSE;
    guint n_values = 0;

    if (!rec->is_map)
        return;

    if (VALID(rec, SENML_BVER)) {
        f = FIELD(rec, SENML_BVER);
        if (b->has_version && f->num != (double)b->version)
            add_problem(ctx, SENML_PROB_VERSION, rec, f->offset, f->length,
                        "bver changes from %" G_GUINT64_FORMAT " to %" G_GINT64_FORMAT " within the pack",
                        b->version, f->ival);
        else if (f->ival != SENML_VERSION_DEFAULT)
            add_problem(ctx, SENML_PROB_VERSION, rec, f->offset, f->length,
                        "bver %" G_GINT64_FORMAT ": %s", f->ival,
                        f->ival > SENML_VERSION_DEFAULT ? "newer than RFC 8428 (10), may use features not decoded here"
                                                        : "older than RFC 8428 (10)");
        b->has_version = TRUE;
        b->version = (guint64)f->ival;
    }
    if (VALID(rec, SENML_BN))
        b->bn = FIELD(rec, SENML_BN)->str;
    if (VALID(rec, SENML_BU))
        b->bu = FIELD(rec, SENML_BU)->str;
    if (VALID(rec, SENML_BT)) {
        b->has_bt = TRUE;
        b->bt = FIELD(rec, SENML_BT)->num;
    }
    if (VALID(rec, SENML_BV)) {
        b->has_bv = TRUE;
        b->bv = FIELD(rec, SENML_BV)->num;
    }
    if (VALID(rec, SENML_BS)) {
        b->has_bs = TRUE;
        b->bs = FIELD(rec, SENML_BS)->num;
    }

    rec->base_name = b->bn;
    rec->base_unit = b->bu;
    rec->has_base_time = b->has_bt;
    rec->base_time = b->bt;
    rec->has_base_value = b->has_bv;
    rec->base_value = b->bv;
    rec->has_base_sum = b->has_bs;
    rec->base_sum = b->bs;
    rec->version = b->has_version ? b->version : SENML_VERSION_DEFAULT;

    for (guint i = 0; i < G_N_ELEMENTS(base_labels); i++)
        any_base |= FIELD(rec, base_labels[i])->present;
    for (guint i = 0; i < G_N_ELEMENTS(measurement_labels); i++)
        any_meas |= FIELD(rec, measurement_labels[i])->present;
    rec->base_only = any_base && !any_meas;

    /* Name: bn + n. */
    rec->name = wmem_strdup_printf(ctx->alloc, "%s%s", b->bn ? b->bn : "",
                                   VALID(rec, SENML_N) ? FIELD(rec, SENML_N)->str : "");

    /* Time: bt + t; section 4.5.3 absolute from 2^28 on. */
    rec->time_given = b->has_bt || VALID(rec, SENML_T);
    rec->time = (b->has_bt ? b->bt : 0.0) + (VALID(rec, SENML_T) ? FIELD(rec, SENML_T)->num : 0.0);
    rec->time_absolute = rec->time >= SENML_ABSOLUTE_TIME_MIN;

    rec->unit = VALID(rec, SENML_U) ? FIELD(rec, SENML_U)->str : b->bu;

    if (VALID(rec, SENML_V)) {
        rec->value_kind = SENML_VALUE_NUMBER;
        rec->value = (b->has_bv ? b->bv : 0.0) + FIELD(rec, SENML_V)->num;
    } else if (VALID(rec, SENML_VS)) {
        rec->value_kind = SENML_VALUE_STRING;
        rec->string = FIELD(rec, SENML_VS)->str;
    } else if (VALID(rec, SENML_VB)) {
        rec->value_kind = SENML_VALUE_BOOL;
        rec->boolean = FIELD(rec, SENML_VB)->boolean;
    } else if (VALID(rec, SENML_VD)) {
        rec->value_kind = SENML_VALUE_DATA;
        rec->data = FIELD(rec, SENML_VD)->data;
        rec->data_len = FIELD(rec, SENML_VD)->data_len;
    }
    if (VALID(rec, SENML_S)) {
        rec->has_sum = TRUE;
        rec->sum = (b->has_bs ? b->bs : 0.0) + FIELD(rec, SENML_S)->num;
    }
    if (VALID(rec, SENML_UT)) {
        rec->has_update_time = TRUE;
        rec->update_time = FIELD(rec, SENML_UT)->num;
    }

    if (rec->base_only || !rec->complete)
        return;

    for (guint i = 0; i < G_N_ELEMENTS(value_labels); i++)
        n_values += FIELD(rec, value_labels[i])->present;
    if (n_values > 1)
        add_problem(ctx, SENML_PROB_MULTIPLE_VALUES, rec, rec->offset, rec->length,
                    "Record %u has %u of v, vs, vb, vd (at most one is allowed)", rec->index, n_values);
    if (n_values == 0 && !FIELD(rec, SENML_S)->present)
        add_problem(ctx, SENML_PROB_NO_VALUE, rec, rec->offset, rec->length,
                    "Record %u has no value (v, vs, vb, vd) and no sum (s)", rec->index);
    if (rec->name[0] == '\0')
        add_problem(ctx, SENML_PROB_MISSING_NAME, rec, rec->offset, rec->length,
                    "Record %u has no name (neither bn nor n)", rec->index);
    else if (!senml_name_is_valid(rec->name))
        add_problem(ctx, SENML_PROB_INVALID_NAME, rec,
                    FIELD(rec, SENML_N)->present ? FIELD(rec, SENML_N)->offset : rec->offset,
                    FIELD(rec, SENML_N)->present ? FIELD(rec, SENML_N)->length : rec->length,
                    "Name \"%s\" has characters other than A-Z a-z 0-9 - : . / _ or does not start "
                    "with a letter or digit", printable(ctx, rec->name));

    if (rec->time_absolute) {
        if (pack->n_absolute == 0 || rec->time < pack->time_min)
            pack->time_min = rec->time;
        if (pack->n_absolute == 0 || rec->time > pack->time_max)
            pack->time_max = rec->time;
        pack->n_absolute++;
    }
}

static gboolean is_table4_name(const char *text)
{
    for (guint i = 0; i < G_N_ELEMENTS(label_names); i++) {
        if (strcmp(text, label_names[i]) == 0)
            return TRUE;
    }
    return FALSE;
}

/* One label/value pair of a record. Returns FALSE at an indefinite map's
 * break (or when parsing must stop, with ctx->stop set). */
static gboolean parse_pair(parse_ctx_t *ctx, senml_record_t *rec, gboolean indefinite, gint *offset)
{
    wscbor_chunk_t *key, *val;
    gint key_off = *offset, val_off;
    gboolean int_label = FALSE, text_label = FALSE;
    gint64 label = 0;
    const char *text = NULL;

    key = read_chunk(ctx, rec, offset);
    if (!chunk_ok(ctx, rec, key, "Label"))
        return FALSE;
    if (wscbor_is_indefinite_break(key)) {
        if (indefinite)
            return FALSE;
        add_problem(ctx, SENML_PROB_INVALID_CBOR, rec, key->start, key->head_length,
                    "Break inside a definite-length map");
        ctx->stop = TRUE;
        return FALSE;
    }
    if (key->type_major == CBOR_TYPE_UINT || key->type_major == CBOR_TYPE_NEGINT) {
        double d;
        gboolean is_int;
        int_label = cbor_item_number(key, &d, &is_int, &label);
    } else if (key->type_major == CBOR_TYPE_STRING) {
        text = cbor_item_text(ctx->alloc, key);
        text_label = TRUE;
    }
    if (!skip_contents(ctx, rec, key, offset, 1))
        return FALSE;

    val_off = *offset;
    val = read_chunk(ctx, rec, offset);
    if (!chunk_ok(ctx, rec, val, "Value"))
        return FALSE;
    if (wscbor_is_indefinite_break(val)) {
        add_problem(ctx, SENML_PROB_INVALID_CBOR, rec, val->start, val->head_length,
                    "Break where a value was expected");
        ctx->stop = TRUE;
        return FALSE;
    }
    if (!skip_contents(ctx, rec, val, offset, 1))
        return FALSE;
    rec->n_pairs++;

    if (int_label && senml_label_name(label) != NULL) {
        senml_field_t *f = FIELD(rec, label);

        if (f->present) {
            add_problem(ctx, SENML_PROB_DUPLICATE_LABEL, rec, key_off, *offset - key_off,
                        "%s (%d) occurs again in record %u; the first one is used",
                        senml_label_name(label), (int)label, rec->index);
            return TRUE;
        }
        f->present = TRUE;
        f->key_offset = key_off;
        f->offset = val_off;
        f->length = *offset - val_off;
        read_field(ctx, rec, (senml_label_t)label, f, val);
        return TRUE;
    }

    rec->n_unknown++;
    if (int_label) {
        add_problem(ctx, SENML_PROB_UNKNOWN_LABEL, rec, key_off, *offset - key_off,
                    "Unknown label %" G_GINT64_FORMAT " (ignored)", label);
    } else if (text_label && text) {
        gsize len = strlen(text);

        if (len > 0 && text[len - 1] == '_')
            add_problem(ctx, SENML_PROB_MUST_UNDERSTAND, rec, key_off, *offset - key_off,
                        "Unknown must-understand label \"%s\": record %u must not be used",
                        printable(ctx, text), rec->index);
        else
            add_problem(ctx, SENML_PROB_UNKNOWN_LABEL, rec, key_off, *offset - key_off,
                        "Unknown label \"%s\" (ignored)%s", printable(ctx, text),
                        is_table4_name(text) ? ": in CBOR the RFC 8428 labels are integers" : "");
    } else {
        add_problem(ctx, SENML_PROB_WRONG_TYPE, rec, key_off, val_off - key_off,
                    "A label must be an integer or a text string, not %s", cbor_item_type_phrase(key));
    }
    return TRUE;
}

/* The record's extent so far, kept inside the data whatever the offset. */
static void set_record_length(parse_ctx_t *ctx, senml_record_t *rec, gint offset)
{
    gint avail = MAX(tvb_reported_length_remaining(ctx->tvb, rec->offset), 0);

    rec->length = offset - rec->offset;
    if (rec->length < 0 || rec->length > avail)
        rec->length = avail;
}

static void parse_record(parse_ctx_t *ctx, senml_record_t *rec, gint *offset)
{
    wscbor_chunk_t *c = read_chunk(ctx, rec, offset);

    set_record_length(ctx, rec, *offset);
    if (!chunk_ok(ctx, rec, c, "Record"))
        return;
    if (wscbor_is_indefinite_break(c)) {
        add_problem(ctx, SENML_PROB_INVALID_CBOR, rec, c->start, c->head_length,
                    "Break inside a definite-length array");
        ctx->stop = TRUE;
        return;
    }
    if (c->type_major != CBOR_TYPE_MAP) {
        add_problem(ctx, SENML_PROB_NOT_MAP, rec, c->start, c->head_length,
                    "Record %u is %s, not a map", rec->index, cbor_item_type_phrase(c));
        skip_contents(ctx, rec, c, offset, 1);
        set_record_length(ctx, rec, *offset);
        rec->complete = !ctx->stop;
        return;
    }
    rec->is_map = TRUE;
    if (chunk_is_indefinite(c)) {
        while (parse_pair(ctx, rec, TRUE, offset))
            set_record_length(ctx, rec, *offset);
    } else {
        /* each pair reads at least two bytes: the data bounds the loop */
        for (guint64 i = 0; i < c->head_value && !ctx->stop; i++) {
            if (!parse_pair(ctx, rec, FALSE, offset))
                break;
            set_record_length(ctx, rec, *offset);
        }
    }
    set_record_length(ctx, rec, *offset);
    rec->complete = !ctx->stop;
}

/* parse_record() with bounds errors caught: FALSE when the data ended
 * inside the record. (Its own function: no locals of the loop around it
 * live across the setjmp.) */
static gboolean parse_record_guarded(parse_ctx_t *ctx, senml_record_t *rec, gint *offset)
{
    volatile gboolean ok = TRUE;

    TRY {
        parse_record(ctx, rec, offset);
    }
    CATCH_BOUNDS_ERRORS {
        ok = FALSE;
    }
    ENDTRY;
    return ok;
}

static wscbor_chunk_t *read_pack_head(parse_ctx_t *ctx, gint *offset)
{
    wscbor_chunk_t *volatile head = NULL;

    TRY {
        head = read_chunk(ctx, NULL, offset);
    }
    CATCH_BOUNDS_ERRORS {
        head = NULL;
    }
    ENDTRY;
    return head;
}

senml_pack_t *senml_parse(wmem_allocator_t *alloc, tvbuff_t *tvb, gint offset, guint max_records)
{
    parse_ctx_t ctx;
    senml_pack_t *pack = wmem_new0(alloc, senml_pack_t);
    base_state_t base;
    wscbor_chunk_t *head = NULL;
    gint off = offset;
    guint64 n;

    if (max_records == 0)
        max_records = SENML_MAX_RECORDS_DEFAULT;
    memset(&ctx, 0, sizeof ctx);
    memset(&base, 0, sizeof base);
    ctx.alloc = alloc;
    ctx.tvb = tvb;
    ctx.pack = pack;
    pack->offset = offset;
    pack->end = offset;
    pack->records = wmem_array_new(alloc, sizeof(senml_record_t));
    pack->problems = wmem_array_new(alloc, sizeof(senml_problem_t));

    if (tvb_reported_length_remaining(tvb, offset) <= 0) {
        add_problem(&ctx, SENML_PROB_NOT_ARRAY, NULL, offset, 0, "No data: a SenML pack is a CBOR array");
        return pack;
    }

    head = read_pack_head(&ctx, &off);
    if (head == NULL && !ctx.stop) {
        add_problem(&ctx, SENML_PROB_TRUNCATED, NULL, offset, tvb_reported_length_remaining(tvb, offset),
                    "The data ends inside the pack's first item");
        return pack;
    }
    pack->head_length = off - offset;
    pack->end = off;
    if (!chunk_ok(&ctx, NULL, head, "Pack"))
        return pack;
    if (head->type_major != CBOR_TYPE_ARRAY) {
        add_problem(&ctx, SENML_PROB_NOT_ARRAY, NULL, head->start, head->head_length,
                    "The pack is %s, not an array of records", cbor_item_type_phrase(head));
        return pack;
    }
    pack->is_array = TRUE;
    pack->indefinite = chunk_is_indefinite(head);
    pack->declared = pack->indefinite ? 0 : head->head_value;

    for (n = 0; !ctx.stop; n++) {
        senml_record_t *rec;
        gint rec_off = off;

        if (!pack->indefinite && n >= pack->declared) {
            pack->complete = TRUE;
            break;
        }
        if (pack->indefinite) {
            /* peek for the break */
            if (tvb_reported_length_remaining(tvb, off) <= 0) {
                add_problem(&ctx, SENML_PROB_TRUNCATED, NULL, off, 0,
                            "The data ends before the break of the indefinite-length pack");
                break;
            }
            if (tvb_captured_length_remaining(tvb, off) > 0 && tvb_get_uint8(tvb, off) == 0xff) {
                off++;
                pack->complete = TRUE;
                break;
            }
        } else if (tvb_reported_length_remaining(tvb, off) <= 0) {
            add_problem(&ctx, SENML_PROB_TRUNCATED, NULL, off, 0,
                        "The data ends after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " records",
                        n, pack->declared);
            break;
        }
        if (n >= max_records) {
            add_problem(&ctx, SENML_PROB_TOO_MANY_RECORDS, NULL, off, tvb_reported_length_remaining(tvb, off),
                        "More than %u records: the rest is not decoded", max_records);
            break;
        }

        rec = wmem_new0(alloc, senml_record_t);
        rec->index = (guint)n;
        rec->offset = rec_off;
        if (!parse_record_guarded(&ctx, rec, &off)) {
            rec->length = tvb_reported_length_remaining(tvb, rec_off);
            add_problem(&ctx, SENML_PROB_TRUNCATED, rec, rec_off, rec->length,
                        "The data ends inside record %u", rec->index);
            ctx.stop = TRUE;
        }
        resolve_record(&ctx, &base, rec);
        wmem_array_append(pack->records, rec, 1);
        wmem_free(alloc, rec);
        pack->end = off;
    }
    if (off < offset || off > offset + MAX(tvb_reported_length_remaining(tvb, offset), 0))
        off = offset + MAX(tvb_reported_length_remaining(tvb, offset), 0);
    pack->end = off;

    if (pack->complete && senml_pack_n_records(pack) == 0)
        add_problem(&ctx, SENML_PROB_EMPTY_PACK, NULL, offset, off - offset, "The pack has no record");
    if (pack->complete && tvb_reported_length_remaining(tvb, off) > 0)
        add_problem(&ctx, SENML_PROB_TRAILING_DATA, NULL, off, tvb_reported_length_remaining(tvb, off),
                    "%d bytes after the pack", tvb_reported_length_remaining(tvb, off));
    return pack;
}
