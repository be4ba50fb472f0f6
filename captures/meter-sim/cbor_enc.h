/* cbor_enc.h: a minimal CBOR (RFC 8949) encoder for the generator.
 *
 * Written by hand on purpose: the generator must also emit deliberately
 * malformed items (wrong types, indefinite lengths, absurd declared lengths)
 * for the decoders' negative tests, which an encoding library will not do.
 * Decoding is never done here; the plugin uses epan's wscbor.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CBOR_ENC_H
#define CBOR_ENC_H
#include <glib.h>

void cbor_put_uint(GByteArray *out, guint64 v);
void cbor_put_int(GByteArray *out, gint64 v);          /* major 0 or 1 */
void cbor_put_bytes(GByteArray *out, const guint8 *p, gsize n);
void cbor_put_text(GByteArray *out, const char *s);
void cbor_put_array(GByteArray *out, guint64 n);      /* header only */
void cbor_put_map(GByteArray *out, guint64 n);        /* header only, n pairs */
void cbor_put_bool(GByteArray *out, gboolean b);
void cbor_put_double(GByteArray *out, double v);      /* major 7, minor 27 */
void cbor_put_float(GByteArray *out, float v);        /* major 7, minor 26 */
/* Raw head: major type (0..7) and argument in the shortest form. */
void cbor_put_head(GByteArray *out, guint8 major, guint64 arg);

#endif
