/* truth_json.c: the truth file's member forms (truth_json.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <arpa/inet.h>
#include <math.h>
#include <string.h>
#include "json_number.h"
#include "truth_json.h"

static void key(JsonBuilder *b, const char *k)
{
    if (k)
        json_builder_set_member_name(b, k);
}

void tj_int(JsonBuilder *b, const char *k, gint64 v)
{
    key(b, k);
    json_builder_add_int_value(b, v);
}

void tj_bool(JsonBuilder *b, const char *k, gboolean v)
{
    key(b, k);
    json_builder_add_boolean_value(b, v);
}

void tj_null(JsonBuilder *b, const char *k)
{
    key(b, k);
    json_builder_add_null_value(b);
}

void tj_str(JsonBuilder *b, const char *k, const char *v)
{
    key(b, k);
    if (v)
        json_builder_add_string_value(b, v);
    else
        json_builder_add_null_value(b);
}

void tj_int_or_null(JsonBuilder *b, const char *k, gint64 v, gboolean present)
{
    if (present)
        tj_int(b, k, v);
    else
        tj_null(b, k);
}

void tj_fixed6(JsonBuilder *b, const char *k, double v)
{
    char buf[512];   /* "%.6f" of the largest double: 309 digits and 7 more */

    key(b, k);
    json_number_add(b, g_ascii_strtod(g_ascii_formatd(buf, sizeof buf, "%.6f", v), NULL));
}

void tj_exact(JsonBuilder *b, const char *k, double v)
{
    key(b, k);
    if (v == floor(v) && fabs(v) < 1e17)
        json_builder_add_int_value(b, (gint64)v);
    else
        json_number_add(b, v);
}

void tj_time(JsonBuilder *b, const char *k, gint64 us)
{
    char *us_key = g_strconcat(k, "_us", NULL);

    if (us < 0) {
        tj_null(b, us_key);
        tj_null(b, k);
    } else {
        GDateTime *dt = g_date_time_new_from_unix_utc(us / 1000000);
        char *day = g_date_time_format(dt, "%Y-%m-%dT%H:%M:%S");
        char *iso = g_strdup_printf("%s.%06dZ", day, (int)(us % 1000000));
        tj_int(b, us_key, us);
        tj_str(b, k, iso);
        g_free(iso);
        g_free(day);
        g_date_time_unref(dt);
    }
    g_free(us_key);
}

void tj_hex(JsonBuilder *b, const char *k, const guint8 *bytes, gsize n)
{
    GString *s;

    if (!bytes) {
        tj_null(b, k);
        return;
    }
    s = g_string_sized_new(2 * n);
    for (gsize i = 0; i < n; i++)
        g_string_append_printf(s, "%02x", bytes[i]);
    tj_str(b, k, s->str);
    g_string_free(s, TRUE);
}

void tj_ip6(JsonBuilder *b, const char *k, const guint8 addr[16])
{
    char txt[INET6_ADDRSTRLEN];

    tj_str(b, k, inet_ntop(AF_INET6, addr, txt, sizeof(txt)) ? txt : "?");
}

char *tj_to_text(JsonBuilder *b, gsize *len)
{
    JsonGenerator *gen = json_generator_new();
    JsonNode *root = json_builder_get_root(b);
    char *body, *text;

    json_generator_set_root(gen, root);
    json_generator_set_pretty(gen, TRUE);
    json_generator_set_indent(gen, 2);
    body = json_generator_to_data(gen, NULL);
    text = g_strconcat(body, "\n", NULL);
    *len = strlen(text);
    g_free(body);
    json_node_unref(root);
    g_object_unref(gen);
    return text;
}
