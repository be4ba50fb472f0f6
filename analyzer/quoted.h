/* quoted.h: a text from outside (a command-line argument, a cell of
 * tshark's output, GOption's message naming an argument) made fit for a
 * message on one line (common/escaped_text.h), and cut to a length a
 * message can show: no argument comes back a megabyte long, or breaks the
 * line or the terminal.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef QUOTED_H
#define QUOTED_H

#include "escaped_text.h"

#define MS_QUOTED_MAX 40         /* characters of a value quoted in a message */

/* At most max characters of text, then "..."; the caller g_free()s it. */
static inline char *ms_printable(const char *text, glong max)
{
    GString *out = g_string_new(NULL);

    if (!escaped_text_append(out, text ? text : "", max))
        g_string_append(out, "...");
    return g_string_free(out, FALSE);
}

/* A value quoted in a message: "--stall: '...' is out of range". */
static inline char *ms_quoted(const char *text)
{
    return ms_printable(text, MS_QUOTED_MAX);
}

#endif
