/* utc_text.h: a capture timestamp (UNIX microseconds) as ISO 8601 UTC with
 * microseconds ("2026-03-01T10:00:01.003808Z"), "-" when unknown (< 0).
 * A time GLib's dates cannot hold (after the year 9999) is given as its
 * seconds since 1970 instead, never as a date. Header-only: the plugin's
 * statistics and the analyser's tables share no library but must print the
 * same text. The caller g_free()s the result.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef UTC_TEXT_H
#define UTC_TEXT_H

#include <glib.h>

static inline char *utc_text(gint64 us)
{
    if (us < 0)
        return g_strdup("-");
    GDateTime *dt = g_date_time_new_from_unix_utc(us / 1000000);
    if (!dt)
        return g_strdup_printf("%" G_GINT64_FORMAT ".%06d s after 1970 (beyond 9999)", us / 1000000,
                               (int)(us % 1000000));
    char *day = g_date_time_format(dt, "%Y-%m-%dT%H:%M:%S");
    char *s = g_strdup_printf("%s.%06dZ", day, (int)(us % 1000000));
    g_free(day);
    g_date_time_unref(dt);
    return s;
}

#endif
