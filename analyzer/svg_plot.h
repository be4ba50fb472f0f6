/* svg_plot.h: writes simple SVG charts (no external plotting program).
 *
 * Three kinds of chart, each a standalone 800 x 450 SVG file: a line chart
 * (one polyline per series, optional red crosses for marked points), a
 * vertical bar chart and horizontal 100%-stacked bars. Values that are NaN,
 * infinite or beyond +-1e300 are skipped; a chart with nothing to draw
 * still gets its title, axes and a "no data" text. Numbers are written in
 * the C locale whatever LC_NUMERIC says, texts are XML-escaped.
 * Errors are reported in the domain g_quark_from_static_string("svg-plot").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SVG_PLOT_H
#define SVG_PLOT_H

#include <glib.h>
#include <stdio.h>

typedef struct {
    const char *name;            /* legend text */
    const double *x, *y;         /* n points, x ascending */
    guint n;
    const double *mark_x, *mark_y;  /* n_marks points drawn as red crosses (e.g. retransmissions); may be NULL */
    guint n_marks;
} svg_series_t;

/* Line chart: one polyline per series, shared axes with "nice" ticks (1,2,5 x 10^k), axis titles, title, legend.
 * Returns FALSE and sets *err (g_set_error, domain g_quark_from_static_string("svg-plot")) when the file cannot be written. */
gboolean svg_line_chart(const char *path, const char *title, const char *x_label, const char *y_label,
                        const svg_series_t *series, guint n_series, GError **err);

typedef struct { const char *label; double value; } svg_bar_t;

/* Vertical bar chart, one bar per entry, value printed above each bar. */
gboolean svg_bar_chart(const char *path, const char *title, const char *y_label,
                       const svg_bar_t *bars, guint n_bars, GError **err);

typedef struct { const char *label; const double *parts; } svg_stack_row_t;  /* parts[n_parts] */

/* Horizontal 100%-stacked bars: one row per entry, each split into n_parts coloured parts
 * (fractions of the row's sum), a legend naming the parts, the percentage written inside each part wide enough. */
gboolean svg_stacked_bars(const char *path, const char *title, const char *const *part_names, guint n_parts,
                          const svg_stack_row_t *rows, guint n_rows, GError **err);

#endif /* SVG_PLOT_H */
