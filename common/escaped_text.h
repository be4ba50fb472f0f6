/* escaped_text.h: a text as one printable line of valid UTF-8: bytes that
 * are not UTF-8 as U+FFFD, control characters as C escapes (\n, \t, \r,
 * else \ooo), everything else as it is (g_strescape would escape every
 * byte beyond ASCII too). Header-only: the plugin's record writer (a URI
 * path holding a tab must stay one cell) and the analyser's messages (an
 * argument holding a line break must not break the line) share no library.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ESCAPED_TEXT_H
#define ESCAPED_TEXT_H

#include <glib.h>

/* Appends at most max characters of text to out, escaped; FALSE when
 * text had more. */
static inline gboolean escaped_text_append(GString *out, const char *text, glong max)
{
    char *valid = g_utf8_validate(text, -1, NULL) ? NULL : g_utf8_make_valid(text, -1);
    const char *p = valid ? valid : text;

    for (glong n = 0; *p && n < max; p = g_utf8_next_char(p), n++) {
        guchar ch = (guchar)*p;
        if (ch >= 0x20 && ch != 0x7f)
            g_string_append_len(out, p, g_utf8_next_char(p) - p);
        else if (ch == '\n')
            g_string_append(out, "\\n");
        else if (ch == '\t')
            g_string_append(out, "\\t");
        else if (ch == '\r')
            g_string_append(out, "\\r");
        else
            g_string_append_printf(out, "\\%03o", ch);
    }
    gboolean whole = *p == '\0';
    g_free(valid);
    return whole;
}

#endif
