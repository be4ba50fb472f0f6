/* cbor_item.c: item values for the plugin's CBOR readers (cbor_item.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "cbor_item.h"

double cbor_half_to_double(guint16 half)
{
    int exponent = (half >> 10) & 0x1f;
    int mantissa = half & 0x3ff;
    double val;

    if (exponent == 0)
        val = ldexp(mantissa, -24);
    else if (exponent != 31)
        val = ldexp(mantissa + 1024, exponent - 25);
    else
        val = mantissa == 0 ? INFINITY : NAN;
    return (half & 0x8000) ? -val : val;
}

gboolean cbor_item_float(const wscbor_chunk_t *c, double *out)
{
    if (c->type_major != CBOR_TYPE_FLOAT_CTRL)
        return FALSE;
    switch (c->type_minor) {
    case 25:
        *out = cbor_half_to_double((guint16)c->head_value);
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
        memcpy(out, &bits, sizeof *out);
        return TRUE;
    }
    default:
        return FALSE;
    }
}

gboolean cbor_item_number(const wscbor_chunk_t *c, double *d, gboolean *is_int, gint64 *iv)
{
    switch (c->type_major) {
    case CBOR_TYPE_UINT:
        *d = (double)c->head_value;
        *iv = c->head_value > (guint64)G_MAXINT64 ? G_MAXINT64 : (gint64)c->head_value;
        *is_int = TRUE;
        return TRUE;
    case CBOR_TYPE_NEGINT:
        *d = -1.0 - (double)c->head_value;
        *iv = c->head_value > (guint64)G_MAXINT64 ? G_MININT64 : -1 - (gint64)c->head_value;
        *is_int = TRUE;
        return TRUE;
    default:
        *is_int = FALSE;
        *iv = 0;
        return cbor_item_float(c, d);
    }
}

char *cbor_item_text(wmem_allocator_t *alloc, wscbor_chunk_t *c)
{
    if (c->type_major != CBOR_TYPE_STRING)
        return NULL;
    if (c->type_minor != 31 && c->head_value == 0)
        return wmem_strdup(alloc, "");
    return wscbor_require_tstr(alloc, c);
}

const guint8 *cbor_item_bytes(wmem_allocator_t *alloc, wscbor_chunk_t *c, guint *len)
{
    tvbuff_t *t;

    *len = 0;
    if (c->type_major != CBOR_TYPE_BYTESTRING)
        return NULL;
    if (c->type_minor != 31 && c->head_value == 0)
        return (const guint8 *)wmem_strdup(alloc, "");
    t = wscbor_require_bstr(alloc, c);
    if (t == NULL)
        return (const guint8 *)wmem_strdup(alloc, "");
    *len = tvb_reported_length(t);
    return (const guint8 *)tvb_memdup(alloc, t, 0, *len);
}

/* What an item is: its noun, and the noun as a message puts it. */
static const struct {
    const char *noun, *phrase;
} item_types[] = {
    { "unsigned integer", "an unsigned integer" }, { "negative integer", "a negative integer" },
    { "byte string", "a byte string" }, { "text string", "a text string" }, { "array", "an array" },
    { "map", "a map" }, { "tag", "a tag" }, { "boolean", "a boolean" }, { "null", "null" },
    { "undefined", "undefined" }, { "float", "a float" }, { "break", "a break" },
    { "simple value", "a simple value" }, { "item", "an unknown item" },
};
enum { T_UINT, T_NEGINT, T_BSTR, T_TSTR, T_ARRAY, T_MAP, T_TAG, T_BOOL, T_NULL, T_UNDEF, T_FLOAT, T_BREAK,
       T_SIMPLE, T_ITEM };

static guint item_type(const wscbor_chunk_t *c)
{
    switch (c->type_major) {
    case CBOR_TYPE_UINT: return T_UINT;
    case CBOR_TYPE_NEGINT: return T_NEGINT;
    case CBOR_TYPE_BYTESTRING: return T_BSTR;
    case CBOR_TYPE_STRING: return T_TSTR;
    case CBOR_TYPE_ARRAY: return T_ARRAY;
    case CBOR_TYPE_MAP: return T_MAP;
    case CBOR_TYPE_TAG: return T_TAG;
    case CBOR_TYPE_FLOAT_CTRL:
        switch (c->type_minor) {
        case CBOR_CTRL_FALSE:
        case CBOR_CTRL_TRUE: return T_BOOL;
        case CBOR_CTRL_NULL: return T_NULL;
        case CBOR_CTRL_UNDEF: return T_UNDEF;
        case 25: case 26: case 27: return T_FLOAT;
        case 31: return T_BREAK;
        default: return T_SIMPLE;
        }
    }
    return T_ITEM;
}

const char *cbor_item_type_name(const wscbor_chunk_t *c)
{
    return item_types[item_type(c)].noun;
}

const char *cbor_item_type_phrase(const wscbor_chunk_t *c)
{
    return item_types[item_type(c)].phrase;
}

const char *cbor_article(const char *noun)
{
    return strchr("aeiou", noun[0]) ? "an" : "a";
}
