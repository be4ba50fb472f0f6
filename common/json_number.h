/* json_number.h: a double into a json-glib builder so that every json-glib
 * version writes valid JSON. json-glib writes a double with g_ascii_dtostr
 * and appends ".0" when that has no point; 1.6 does it after an exponent
 * too ("1e+17.0", which no parser reads, its own included) where 1.8 and
 * later do not. Such a value goes in as the integer it is, else (a tiny
 * one, 1e-300) one step towards 0, a change of 1 part in 2^52. For the
 * analyser's reports and the generator's truth files alike; header-only,
 * as the two share no library. A value that is not finite (an infinite
 * upper end of a range) goes in as null: JSON has no token for it, and
 * json-glib would write "inf.0".
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef JSON_NUMBER_H
#define JSON_NUMBER_H

#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>

static inline void json_number_add(JsonBuilder *b, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    if (!isfinite(v)) {
        json_builder_add_null_value(b);
        return;
    }
    while (isfinite(v) && strchr(g_ascii_dtostr(buf, sizeof buf, v), 'e') && !strchr(buf, '.')) {
        if (v == floor(v) && fabs(v) < 9e18) {
            json_builder_add_int_value(b, (gint64)v);
            return;
        }
        v = nextafter(v, 0);
    }
    json_builder_add_double_value(b, v);
}

/* A member holding a number, as json_number_add writes it. */
static inline void json_number_member(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    json_number_add(b, v);
}

#endif
