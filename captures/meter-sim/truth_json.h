/* truth_json.h: the truth file's members, added to a JsonBuilder in the
 * forms docs/ground-truth.md gives them: counts as integers, times in UNIX
 * microseconds (and as ISO 8601), durations and rates to the microsecond,
 * parameters as given, byte strings in hex. A NULL key adds an array element.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_JSON_H
#define TRUTH_JSON_H
#include <glib.h>
#include <json-glib/json-glib.h>

void tj_int(JsonBuilder *b, const char *key, gint64 v);
void tj_bool(JsonBuilder *b, const char *key, gboolean v);
void tj_null(JsonBuilder *b, const char *key);
/* A string; NULL writes null. */
void tj_str(JsonBuilder *b, const char *key, const char *v);
/* An integer, or null when not present. */
void tj_int_or_null(JsonBuilder *b, const char *key, gint64 v, gboolean present);
/* A duration, rate or delay rounded to 6 decimals: the double nearest that
 * decimal (the value the file's "%.6f" had before json-glib wrote it). */
void tj_fixed6(JsonBuilder *b, const char *key, double v);
/* A parameter or a sample value as it is: an integral one as an integer
 * (as its "%.17g" had no point), else the double. */
void tj_exact(JsonBuilder *b, const char *key, double v);
/* "KEY_us": us and "KEY": its ISO 8601 UTC text to the microsecond; both
 * null when us < 0. */
void tj_time(JsonBuilder *b, const char *key, gint64 us);
/* n bytes as lowercase hex; NULL writes null. */
void tj_hex(JsonBuilder *b, const char *key, const guint8 *bytes, gsize n);
/* An IPv6 address in its RFC 5952 text. */
void tj_ip6(JsonBuilder *b, const char *key, const guint8 addr[16]);

/* The document as pretty-printed JSON (json-glib's two-space layout), with a
 * final newline. */
char *tj_to_text(JsonBuilder *b, gsize *len);

#endif
