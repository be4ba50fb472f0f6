/* utc_text.h: a capture timestamp (UNIX microseconds) as ISO 8601 UTC with
 * microseconds ("2026-03-01T10:00:01.003808Z"), "-" when unknown (< 0).
 * A time GLib's dates cannot hold (after the year 9999) is given as its
 * seconds since 1970 instead, never as a date. Header-only: the plugin's
 * statistics and the analyser's tables share no library but must print the
 * same text. Also a SenML time as a short label (utc_label). The caller
 * g_free()s the results.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef UTC_TEXT_H
#define UTC_TEXT_H

#include <math.h>
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

/* Seconds since 1970 (a SenML time) as a short UTC label for a tree or a
 * column: "2026-03-01 04:00", or "04:00" without the date, with ":SS" when
 * asked; NULL when out of range (negative, not finite, after 9999). */
static inline char *utc_label(double t, gboolean date, gboolean seconds)
{
    if (!isfinite(t) || t < 0 || t > 253402300799.0)
        return NULL;
    GDateTime *dt = g_date_time_new_from_unix_utc((gint64)floor(t));
    if (!dt)
        return NULL;
    char *s = g_date_time_format(dt, date ? (seconds ? "%Y-%m-%d %H:%M:%S" : "%Y-%m-%d %H:%M")
                                          : (seconds ? "%H:%M:%S" : "%H:%M"));
    g_date_time_unref(dt);
    return s;
}

#endif
