/* cbor_item.h: what the plugin's CBOR readers share on top of wscbor (the
 * SenML history, senml.c; the config blob, meter_cfg.c, and its display):
 * an item's value as a float, a number, a text or a byte string, and the
 * name of its type for messages. wscbor reads the items; this reads their
 * values the way both need, around what 4.0's wscbor lacks (floats) or gets
 * wrong (an empty definite text string has no value tvb, and asking for it
 * asserts).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CBOR_ITEM_H
#define CBOR_ITEM_H

#include <glib.h>
#include <epan/wscbor.h>

/* IEEE 754 binary16 to double (RFC 8949 appendix D). */
double        cbor_half_to_double(guint16 half);
/* A float item's value (major type 7, additional information 25, 26, 27);
 * FALSE for any other item. */
gboolean      cbor_item_float(const wscbor_chunk_t *c, double *out);
/* An integer's or a float's value as a double; for an integer, whole it is
 * (*is_int, clamped to 64 bits in *iv). FALSE for any other item. */
gboolean      cbor_item_number(const wscbor_chunk_t *c, double *d, gboolean *is_int, gint64 *iv);
/* A text string's text (a definite empty one: ""); NULL for any other item. */
char         *cbor_item_text(wmem_allocator_t *alloc, wscbor_chunk_t *c);
/* A byte string's bytes, copied, *len of them (an empty one: "", 0); NULL
 * for any other item. */
const guint8 *cbor_item_bytes(wmem_allocator_t *alloc, wscbor_chunk_t *c, guint *len);
/* What the item is, as a noun: "unsigned integer", "text string", "float",
 * "boolean", "null", ... ("item" for what no major type names); and as a
 * message puts it: "an unsigned integer", "null", "an unknown item". */
const char   *cbor_item_type_name(const wscbor_chunk_t *c);
const char   *cbor_item_type_phrase(const wscbor_chunk_t *c);
/* The indefinite article a noun takes: "an" before a vowel, else "a". */
const char   *cbor_article(const char *noun);

#endif
