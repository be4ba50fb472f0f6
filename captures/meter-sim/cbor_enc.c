/* cbor_enc.c: a minimal CBOR encoder (definite lengths, shortest-form heads).
 *
 * Follows RFC 8949 section 3 (major types, argument encoding) and 3.3
 * (floating point).  Every head uses the preferred, shortest encoding; the
 * raw cbor_put_head() lets callers build deliberately odd items on top.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "cbor_enc.h"

#include <string.h>

/* Appends the big-endian low n bytes of v. */
static void put_be(GByteArray *out, guint64 v, guint n)
{
    guint8 b[8];

    for (guint i = 0; i < n; i++)
        b[i] = (guint8)(v >> (8 * (n - 1 - i)));
    g_byte_array_append(out, b, n);
}

void cbor_put_head(GByteArray *out, guint8 major, guint64 arg)
{
    guint8 ib;

    g_return_if_fail(out != NULL);
    g_return_if_fail(major <= 7);

    /* RFC 8949 3: argument < 24 in the initial byte, else 1/2/4/8 bytes. */
    if (arg < 24) {
        ib = (guint8)((major << 5) | arg);
        g_byte_array_append(out, &ib, 1);
    } else if (arg <= G_MAXUINT8) {
        ib = (guint8)((major << 5) | 24);
        g_byte_array_append(out, &ib, 1);
        put_be(out, arg, 1);
    } else if (arg <= G_MAXUINT16) {
        ib = (guint8)((major << 5) | 25);
        g_byte_array_append(out, &ib, 1);
        put_be(out, arg, 2);
    } else if (arg <= G_MAXUINT32) {
        ib = (guint8)((major << 5) | 26);
        g_byte_array_append(out, &ib, 1);
        put_be(out, arg, 4);
    } else {
        ib = (guint8)((major << 5) | 27);
        g_byte_array_append(out, &ib, 1);
        put_be(out, arg, 8);
    }
}

void cbor_put_uint(GByteArray *out, guint64 v)
{
    cbor_put_head(out, 0, v);
}

void cbor_put_int(GByteArray *out, gint64 v)
{
    if (v >= 0)
        cbor_put_head(out, 0, (guint64)v);
    else
        /* Major 1 carries -1 - v; written this way it cannot overflow,
         * even for G_MININT64. */
        cbor_put_head(out, 1, (guint64)(-(v + 1)));
}

void cbor_put_bytes(GByteArray *out, const guint8 *p, gsize n)
{
    g_return_if_fail(p != NULL || n == 0);

    cbor_put_head(out, 2, n);
    if (n > 0)
        g_byte_array_append(out, p, (guint)n);
}

void cbor_put_text(GByteArray *out, const char *s)
{
    gsize n;

    g_return_if_fail(s != NULL);

    /* The caller supplies UTF-8; no validation, so tests can emit bad text. */
    n = strlen(s);
    cbor_put_head(out, 3, n);
    if (n > 0)
        g_byte_array_append(out, (const guint8 *)s, (guint)n);
}

void cbor_put_array(GByteArray *out, guint64 n)
{
    cbor_put_head(out, 4, n);
}

void cbor_put_map(GByteArray *out, guint64 n)
{
    cbor_put_head(out, 5, n);
}

void cbor_put_bool(GByteArray *out, gboolean b)
{
    /* Simple values 20 (false) and 21 (true). */
    cbor_put_head(out, 7, b ? 21 : 20);
}

void cbor_put_double(GByteArray *out, double v)
{
    guint64 bits;
    guint8 ib = (7 << 5) | 27;

    G_STATIC_ASSERT(sizeof bits == sizeof v);
    /* Fixed 8-byte form on purpose (no shortening to half/single), so the
     * decoders see the exact IEEE 754 binary64 value. */
    memcpy(&bits, &v, sizeof bits);
    g_return_if_fail(out != NULL);
    g_byte_array_append(out, &ib, 1);
    put_be(out, bits, 8);
}

void cbor_put_float(GByteArray *out, float v)
{
    guint32 bits;
    guint8 ib = (7 << 5) | 26;

    G_STATIC_ASSERT(sizeof bits == sizeof v);
    memcpy(&bits, &v, sizeof bits);
    g_return_if_fail(out != NULL);
    g_byte_array_append(out, &ib, 1);
    put_be(out, bits, 4);
}
