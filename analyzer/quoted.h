/* quoted.h: a text from outside (a command-line argument, a cell of
 * tshark's output) made fit to quote in a message: control characters,
 * quotes and bytes beyond ASCII escaped as C writes them (g_strescape), so
 * that no byte of it can break the message or the terminal, and cut to a
 * length a message can show.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef QUOTED_H
#define QUOTED_H

#include <string.h>
#include <glib.h>

#define MS_QUOTED_MAX 40

/* The caller g_free()s the result. */
static inline char *ms_quoted(const char *text)
{
    char *escaped = g_strescape(text ? text : "", NULL);
    gsize len = strlen(escaped), at = 0;

    if (len <= MS_QUOTED_MAX)
        return escaped;
    /* Cut between escapes, never inside one (\n is 2 characters, \ooo 4). */
    while (at < len) {
        gsize unit = escaped[at] != '\\' ? 1 : g_ascii_isdigit(escaped[at + 1]) ? 4 : 2;
        if (at + unit > MS_QUOTED_MAX)
            break;
        at += unit;
    }
    char *cut = g_strdup_printf("%.*s...", (int)at, escaped);
    g_free(escaped);
    return cut;
}

#endif
