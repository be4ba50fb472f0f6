/* duration_text.h: a duration in seconds as people read it, in the three
 * precisions meterscope shows: a forecast to the minute (the statistics
 * table's ETA), the live view's spelled-out units, and the report table's
 * seconds. One formatter, so that one rule (how hours, minutes and seconds
 * are cut) holds everywhere. Header-only, as utc_text.h: the plugin and the
 * analyser share no library. The caller g_free()s the result.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef DURATION_TEXT_H
#define DURATION_TEXT_H

#include <math.h>
#include <glib.h>

typedef enum {
    DURATION_FORECAST,   /* "1h12m", "5m", "42s": an estimate, no finer than its minute */
    DURATION_SPELLED,    /* "42 s", "5 min 03 s", "1 h 02 min": a line a person watches */
    DURATION_MEASURED,   /* "1h02m03s", "4m05s", "6.7s": a measured time in a table */
    DURATION_FINE,       /* as measured, but under 10 s to the millisecond ("0.054s"): predictions of short transfers */
} duration_style_t;

static inline char *duration_text(double s, duration_style_t style)
{
    switch (style) {
    case DURATION_FORECAST:
        if (s >= 3600)
            return g_strdup_printf("%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
        if (s >= 60)
            return g_strdup_printf("%dm", (int)(s / 60 + 0.5));
        return g_strdup_printf("%.0fs", s);
    case DURATION_SPELLED:
        if (s < 60)
            return g_strdup_printf("%.0f s", s);
        if (s < 3600)
            return g_strdup_printf("%.0f min %02.0f s", floor(s / 60), fmod(s, 60));
        return g_strdup_printf("%.0f h %02.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
    case DURATION_FINE:
        if (s < 10)
            return g_strdup_printf("%.3fs", s);
        /* fall through */
    case DURATION_MEASURED:
    default:
        /* Hours as a double: a duration read from a capture may be 1e18 s,
         * beyond an int's hours. */
        if (s >= 3600)
            return g_strdup_printf("%.0fh%02dm%02ds", floor(s / 3600), (int)fmod(s / 60, 60), (int)fmod(s, 60));
        if (s >= 60)
            return g_strdup_printf("%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
        return g_strdup_printf("%.1fs", s);
    }
}

#endif
