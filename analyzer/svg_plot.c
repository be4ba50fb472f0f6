/* svg_plot.c: line, bar and 100%-stacked bar charts written as standalone
 * SVG files, so the analyser's reports need no plotting program.
 *
 * Every number goes through g_ascii_formatd(): SVG wants a '.' decimal
 * point whatever LC_NUMERIC says. Every text goes through xml_text().
 * A value is drawn only when plottable(): NaN and infinities have no
 * place on an axis, and magnitudes beyond MAX_ABS are refused too so that
 * the difference of any two drawn values stays finite.
 * The whole document is built in memory and written in one go by
 * g_file_set_contents(), so a failed write leaves no half-written chart.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "svg_plot.h"

#include <math.h>
#include <string.h>

#define SVG_W 800
#define SVG_H 450
#define MAX_ABS 1e300           /* larger magnitudes are skipped: spans stay finite */
#define MAX_DRAWN 2000          /* above this many points a polyline is decimated */
#define MAX_TICKS 50            /* guard against a degenerate axis looping for long */
#define MARK_CELL 3.0           /* px: at most one cross per cell of this size */
#define MARK_HALF 4.0           /* px: half the size of a cross */
#define LEGEND_ROW 18.0         /* px between legend entries */
#define LEGEND_CHARS 19         /* longer legend texts are shortened */
#define MIN_LABEL_PX 40.0       /* px a bar label needs before the next one */
#define MIN_VALUE_PX 22.0       /* bars narrower than this get no value text */
#define MIN_ROW_PX 13.0         /* px a row label needs before the next one */
#define MIN_PCT_PX 40.0         /* stacked parts narrower than this get no percentage */

enum { SVG_PLOT_ERROR_WRITE = 1 };

/* tab10 without its red, which is kept for the marks so they stand out. */
static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define N_COLOURS G_N_ELEMENTS(palette)
#define MARK_COLOUR "#d62728"
#define GRID_COLOUR "#dddddd"
#define AXIS_COLOUR "#333333"
#define NODATA_COLOUR "#888888"

/* The plotting area, in pixels from the top left corner of the image. */
typedef struct {
    double left, top, width, height;
} frame_t;

/* An axis from lo to hi, both multiples of step (1, 2 or 5 x 10^k). */
typedef struct {
    double lo, hi, step;
} axis_t;

/* Smallest and largest plottable value seen so far. */
typedef struct {
    double min, max;
    gboolean any;
} range_t;

typedef enum { SWATCH_LINE, SWATCH_BOX } swatch_t;

static gboolean plottable(double v)
{
    return isfinite(v) && fabs(v) <= MAX_ABS;
}

static void range_add(range_t *r, double v)
{
    if (!plottable(v))
        return;
    if (!r->any || v < r->min)
        r->min = v;
    if (!r->any || v > r->max)
        r->max = v;
    r->any = TRUE;
}

/* ---- Text and numbers -------------------------------------------------- */

/* Escapes text for element content and attribute values alike. Invalid
 * UTF-8 is repaired and the characters XML 1.0 forbids are replaced, so
 * that any name taken from a capture still gives a well-formed file. */
static void xml_text(GString *s, const char *text)
{
    gchar *valid;
    const char *p;

    if (!text)
        return;
    valid = g_utf8_make_valid(text, -1);
    for (p = valid; *p; p = g_utf8_next_char(p)) {
        gunichar c = g_utf8_get_char(p);

        switch (c) {
        case '&': g_string_append(s, "&amp;"); break;
        case '<': g_string_append(s, "&lt;"); break;
        case '>': g_string_append(s, "&gt;"); break;
        case '"': g_string_append(s, "&quot;"); break;
        case '\'': g_string_append(s, "&#39;"); break;
        case '\t': case '\n': case '\r': g_string_append_c(s, ' '); break;
        default:
            if (c < 0x20)
                g_string_append_c(s, ' ');
            else if (c == 0xFFFE || c == 0xFFFF)
                g_string_append_unichar(s, 0xFFFD);
            else
                g_string_append_len(s, p, g_utf8_next_char(p) - p);
        }
    }
    g_free(valid);
}

/* At most max_chars characters, an ellipsis marking the cut: long names
 * would otherwise run into their neighbours. */
static gchar *shorten(const char *text, glong max_chars)
{
    gchar *valid = g_utf8_make_valid(text ? text : "", -1);
    gchar *cut;

    if (max_chars < 2 || g_utf8_strlen(valid, -1) <= max_chars)
        return valid;
    cut = g_utf8_substring(valid, 0, max_chars - 1);
    g_free(valid);
    valid = g_strconcat(cut, "\xe2\x80\xa6", NULL);
    g_free(cut);
    return valid;
}

/* Drops the trailing zeros (and a bare '.') of a "%.Nf" result. */
static void trim_zeros(char *buf)
{
    char *end;

    if (!strchr(buf, '.') || strchr(buf, 'e'))
        return;
    end = buf + strlen(buf) - 1;
    while (*end == '0')
        *end-- = '\0';
    if (*end == '.')
        *end = '\0';
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
}

/* Appends a pixel coordinate: two decimals are plenty on screen. The clamp
 * only matters for a bug elsewhere; it keeps the text short and finite. */
static void put_num(GString *s, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    if (!isfinite(v))
        v = 0.0;
    v = CLAMP(v, -1e6, 1e6);
    g_ascii_formatd(buf, sizeof buf, "%.2f", v);
    trim_zeros(buf);
    g_string_append(s, buf);
}

/* v with up to `decimals` decimals, trailing zeros dropped. */
static void format_fixed(char *buf, gsize size, double v, int decimals)
{
    char fmt[16];

    g_snprintf(fmt, sizeof fmt, "%%.%df", CLAMP(decimals, 0, 12));
    g_ascii_formatd(buf, size, fmt, v + 0.0);    /* + 0.0: no "-0" */
    trim_zeros(buf);
}

/* A data value as people read it: up to `decimals` decimals for everyday
 * magnitudes, scientific notation beyond. */
static void format_value(char *buf, gsize size, double v, int decimals)
{
    double mag = fabs(v);

    if (mag != 0.0 && (mag >= 1e9 || mag < 1e-4))
        g_ascii_formatd(buf, size, "%.4g", v);
    else
        format_fixed(buf, size, v, decimals);
}

/* ---- Elements ---------------------------------------------------------- */

static void put_line(GString *s, double x1, double y1, double x2, double y2, const char *stroke)
{
    g_string_append(s, "<line x1=\"");
    put_num(s, x1);
    g_string_append(s, "\" y1=\"");
    put_num(s, y1);
    g_string_append(s, "\" x2=\"");
    put_num(s, x2);
    g_string_append(s, "\" y2=\"");
    put_num(s, y2);
    g_string_append_printf(s, "\" stroke=\"%s\"/>\n", stroke);
}

static void put_rect(GString *s, double x, double y, double w, double h, const char *attrs)
{
    g_string_append(s, "<rect x=\"");
    put_num(s, x);
    g_string_append(s, "\" y=\"");
    put_num(s, y);
    g_string_append(s, "\" width=\"");
    put_num(s, MAX(w, 0.0));
    g_string_append(s, "\" height=\"");
    put_num(s, MAX(h, 0.0));
    g_string_append_printf(s, "\" %s/>\n", attrs);
}

/* A text element; attrs is trusted markup, text is escaped. */
static void put_text(GString *s, double x, double y, const char *anchor, const char *attrs,
                     const char *text)
{
    g_string_append(s, "<text x=\"");
    put_num(s, x);
    g_string_append(s, "\" y=\"");
    put_num(s, y);
    g_string_append_printf(s, "\" text-anchor=\"%s\" %s>", anchor, attrs);
    xml_text(s, text);
    g_string_append(s, "</text>\n");
}

/* Vertical text reading bottom to top, for the value axis title. */
static void put_vertical_text(GString *s, double x, double y, const char *text)
{
    g_string_append(s, "<text class=\"axis-title\" text-anchor=\"middle\" transform=\"translate(");
    put_num(s, x);
    g_string_append_c(s, ' ');
    put_num(s, y);
    g_string_append(s, ") rotate(-90)\">");
    xml_text(s, text);
    g_string_append(s, "</text>\n");
}

/* ---- Document ---------------------------------------------------------- */

/* Opens the document: white background (viewers differ otherwise) and
 * the title, both as a tooltip-friendly <title> and as visible text. */
static GString *svg_begin(const char *title)
{
    GString *s = g_string_sized_new(16384);

    g_string_append_printf(s,
                           "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                           " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
                           SVG_W, SVG_H, SVG_W, SVG_H);
    g_string_append(s, "<title>");
    xml_text(s, title);
    g_string_append(s, "</title>\n");
    g_string_append_printf(s, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", SVG_W, SVG_H);
    put_text(s, SVG_W / 2.0, 26, "middle", "class=\"title\" font-size=\"16\" font-weight=\"bold\"",
             title);
    return s;
}

/* Closes the document, writes it and frees it. */
static gboolean svg_finish(GString *s, const char *path, GError **err)
{
    GError *e = NULL;
    gboolean ok = FALSE;

    g_string_append(s, "</svg>\n");
    if (!path) {
        g_set_error(err, g_quark_from_static_string("svg-plot"), SVG_PLOT_ERROR_WRITE,
                    "no file name given for the chart");
    } else if (!g_file_set_contents(path, s->str, (gssize)s->len, &e)) {
        gchar *shown = g_filename_display_name(path);

        g_set_error(err, g_quark_from_static_string("svg-plot"), SVG_PLOT_ERROR_WRITE,
                    "cannot write chart %s: %s", shown, e->message);
        g_free(shown);
        g_error_free(e);
    } else {
        ok = TRUE;
    }
    g_string_free(s, TRUE);
    return ok;
}

/* ---- Axes -------------------------------------------------------------- */

/* 1, 2 or 5 x 10^k, the smallest giving at most `target` intervals. */
static double nice_step(double span, int target)
{
    double raw = span / target;
    double mag = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;

    if (norm <= 1.0)
        return mag;
    if (norm <= 2.0)
        return 2.0 * mag;
    if (norm <= 5.0)
        return 5.0 * mag;
    return 10.0 * mag;
}

/* An axis enclosing [min, max]. A span too small to divide (all values
 * equal, or equal up to rounding) is first widened around its middle. */
static axis_t nice_axis(double min, double max)
{
    double mag = MAX(fabs(min), fabs(max));
    axis_t a;

    if (!(max - min > mag * 1e-12)) {
        double pad = mag > 1e-200 ? mag * 0.1 : 1.0;
        double mid = min / 2.0 + max / 2.0;

        min = mid - pad;
        max = mid + pad;
    }
    a.step = nice_step(max - min, 5);
    a.lo = floor(min / a.step) * a.step;
    a.hi = ceil(max / a.step) * a.step;
    if (!(a.hi > a.lo))
        a.hi = a.lo + a.step;
    return a;
}

/* The value axis of a bar chart starts at zero: bars are read by length. */
static axis_t zero_based_axis(const range_t *r)
{
    double lo = r->any ? MIN(r->min, 0.0) : 0.0;
    double hi = r->any ? MAX(r->max, 0.0) : 1.0;

    if (lo == 0.0 && hi == 0.0)
        hi = 1.0;
    return nice_axis(lo, hi);
}

static int tick_count(const axis_t *a)
{
    double n = floor((a->hi - a->lo) / a->step + 0.5) + 1.0;

    return n > MAX_TICKS ? MAX_TICKS : (int)n;
}

/* Tick i as k x step rather than lo + i x step: no accumulated error. */
static double tick_value(const axis_t *a, int i)
{
    return (floor(a->lo / a->step + 0.5) + i) * a->step + 0.0;
}

/* A tick label with just enough digits to tell neighbouring ticks apart:
 * plain decimals up to magnitudes like Unix times in microseconds,
 * scientific notation beyond or for tiny steps. */
static void format_tick(char *buf, gsize size, double v, const axis_t *a)
{
    double mag = MAX(fabs(a->lo), fabs(a->hi));
    int step_digit = (int)floor(log10(a->step) + 1e-9);
    char fmt[16];

    if (mag < 1e16 && a->step >= 1e-4) {
        format_fixed(buf, size, v, MAX(0, -step_digit));
        return;
    }
    g_snprintf(fmt, sizeof fmt, "%%.%dg", CLAMP((int)floor(log10(mag)) - step_digit + 1, 1, 17));
    g_ascii_formatd(buf, size, fmt, v);
}

static double map_x(const frame_t *f, const axis_t *a, double v)
{
    return f->left + (v - a->lo) / (a->hi - a->lo) * f->width;
}

static double map_y(const frame_t *f, const axis_t *a, double v)
{
    return f->top + f->height - (v - a->lo) / (a->hi - a->lo) * f->height;
}

/* Grid lines and labels of a horizontal (x) axis. */
static void draw_x_ticks(GString *s, const frame_t *f, const axis_t *a)
{
    int i, n = tick_count(a);
    char buf[64];

    for (i = 0; i < n; i++) {
        double v = tick_value(a, i);
        double x = map_x(f, a, v);

        put_line(s, x, f->top, x, f->top + f->height, GRID_COLOUR);
        format_tick(buf, sizeof buf, v, a);
        put_text(s, x, f->top + f->height + 16, "middle", "class=\"tick\"", buf);
    }
}

/* Grid lines and labels of a vertical (y) axis. */
static void draw_y_ticks(GString *s, const frame_t *f, const axis_t *a)
{
    int i, n = tick_count(a);
    char buf[64];

    for (i = 0; i < n; i++) {
        double v = tick_value(a, i);
        double y = map_y(f, a, v);

        put_line(s, f->left, y, f->left + f->width, y, GRID_COLOUR);
        format_tick(buf, sizeof buf, v, a);
        put_text(s, f->left - 6, y + 4, "end", "class=\"tick\"", buf);
    }
}

/* The left and bottom axis lines, drawn after the grid to stay on top. */
static void draw_axes(GString *s, const frame_t *f)
{
    double bottom = f->top + f->height;

    put_line(s, f->left, f->top, f->left, bottom, AXIS_COLOUR);
    put_line(s, f->left, bottom, f->left + f->width, bottom, AXIS_COLOUR);
}

static void draw_no_data(GString *s, const frame_t *f)
{
    put_text(s, f->left + f->width / 2, f->top + f->height / 2, "middle",
             "class=\"nodata\" font-size=\"16\" fill=\"" NODATA_COLOUR "\"", "no data");
}

/* A legend column; entries that do not fit above the bottom edge are
 * summed up in a last "+N more" line. NULL names become fallback + number. */
static void draw_legend(GString *s, double x, double y, const char *const *names,
                        const char *fallback, guint n, swatch_t kind)
{
    guint fit = (guint)MAX(1.0, (SVG_H - 10 - y) / LEGEND_ROW);
    guint i, shown = n <= fit ? n : fit - 1;

    for (i = 0; i < shown; i++) {
        const char *colour = palette[i % N_COLOURS];
        double row = y + i * LEGEND_ROW;
        gchar *own = names && names[i] ? NULL : g_strdup_printf("%s %u", fallback, i + 1);
        gchar *text = shorten(own ? own : names[i], LEGEND_CHARS);

        if (kind == SWATCH_LINE) {
            g_string_append(s, "<line stroke-width=\"2\"");
            g_string_append_printf(s, " stroke=\"%s\" x1=\"", colour);
            put_num(s, x);
            g_string_append(s, "\" y1=\"");
            put_num(s, row - 4);
            g_string_append(s, "\" x2=\"");
            put_num(s, x + 18);
            g_string_append(s, "\" y2=\"");
            put_num(s, row - 4);
            g_string_append(s, "\"/>\n");
        } else {
            gchar *fill = g_strdup_printf("fill=\"%s\"", colour);

            put_rect(s, x + 4, row - 10, 12, 12, fill);
            g_free(fill);
        }
        put_text(s, x + 24, row, "start", "class=\"legend\"", text);
        g_free(text);
        g_free(own);
    }
    if (shown < n) {
        gchar *more = g_strdup_printf("+%u more", n - shown);

        put_text(s, x + 24, y + shown * LEGEND_ROW, "start", "class=\"legend\"", more);
        g_free(more);
    }
}

/* Every how many slots a label is written so that labels do not overlap. */
static guint label_stride(double slot_px, double min_px)
{
    double stride = ceil(min_px / MAX(slot_px, 1e-3));

    return stride > G_MAXUINT / 2 ? G_MAXUINT / 2 : MAX(1u, (guint)stride);
}

/* ---- Line chart -------------------------------------------------------- */

static gboolean point_ok(const svg_series_t *se, guint i)
{
    return plottable(se->x[i]) && plottable(se->y[i]);
}

static gboolean has_points(const svg_series_t *se)
{
    return se->x && se->y && se->n > 0;
}

static gboolean has_marks(const svg_series_t *se)
{
    return se->mark_x && se->mark_y && se->n_marks > 0;
}

/* The ranges covering every plottable point and mark of every series;
 * FALSE when there is none at all. */
static gboolean line_ranges(const svg_series_t *series, guint n_series, range_t *rx, range_t *ry)
{
    guint k, i;

    for (k = 0; k < n_series; k++) {
        const svg_series_t *se = &series[k];

        for (i = 0; has_points(se) && i < se->n; i++) {
            if (point_ok(se, i)) {
                range_add(rx, se->x[i]);
                range_add(ry, se->y[i]);
            }
        }
        for (i = 0; has_marks(se) && i < se->n_marks; i++) {
            if (plottable(se->mark_x[i]) && plottable(se->mark_y[i])) {
                range_add(rx, se->mark_x[i]);
                range_add(ry, se->mark_y[i]);
            }
        }
    }
    return rx->any && ry->any;
}

static void put_point(GString *s, double px, double py, gboolean *first)
{
    if (!*first)
        g_string_append_c(s, ' ');
    *first = FALSE;
    put_num(s, px);
    g_string_append_c(s, ',');
    put_num(s, py);
}

/* Keeps, per pixel column, the lowest and the highest point in their
 * original order: the line then covers the same pixels as the full one,
 * spikes included, with at most two points per column. Relies on x being
 * ascending; otherwise columns repeat and less is saved, nothing is lost. */
static void put_decimated(GString *s, const frame_t *f, const axis_t *ax, const axis_t *ay,
                          const svg_series_t *se)
{
    long col = -1;
    guint i, lo = 0, hi = 0;
    gboolean first = TRUE;

    for (i = 0; i <= se->n; i++) {
        long c = -2;

        if (i < se->n) {
            if (!point_ok(se, i))
                continue;
            c = (long)CLAMP(floor(map_x(f, ax, se->x[i]) - f->left), 0.0, f->width);
            if (c == col) {
                if (se->y[i] < se->y[lo])
                    lo = i;
                if (se->y[i] > se->y[hi])
                    hi = i;
                continue;
            }
        }
        if (col >= 0) {
            guint a = MIN(lo, hi), b = MAX(lo, hi);

            put_point(s, map_x(f, ax, se->x[a]), map_y(f, ay, se->y[a]), &first);
            if (b != a)
                put_point(s, map_x(f, ax, se->x[b]), map_y(f, ay, se->y[b]), &first);
        }
        col = c;
        lo = hi = i;
    }
}

/* One polyline through the series' plottable points (NaN and the like are
 * left out, the line joins their neighbours), decimated when too long. A
 * lone point gets a dot, since a one-point polyline shows nothing. */
static void draw_series(GString *s, const frame_t *f, const axis_t *ax, const axis_t *ay,
                        const svg_series_t *se, const char *colour)
{
    guint i, valid = 0, last = 0;
    gboolean first = TRUE;

    for (i = 0; has_points(se) && i < se->n; i++) {
        if (point_ok(se, i)) {
            valid++;
            last = i;
        }
    }
    if (valid == 0)
        return;
    g_string_append_printf(s, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\""
                           " stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"", colour);
    if (valid > MAX_DRAWN) {
        put_decimated(s, f, ax, ay, se);
    } else {
        for (i = 0; i < se->n; i++)
            if (point_ok(se, i))
                put_point(s, map_x(f, ax, se->x[i]), map_y(f, ay, se->y[i]), &first);
    }
    g_string_append(s, "\"/>\n");
    if (valid == 1) {
        g_string_append(s, "<circle r=\"3\" cx=\"");
        put_num(s, map_x(f, ax, se->x[last]));
        g_string_append(s, "\" cy=\"");
        put_num(s, map_y(f, ay, se->y[last]));
        g_string_append_printf(s, "\" fill=\"%s\"/>\n", colour);
    }
}

/* Red crosses at the marked points, at most one per MARK_CELL square:
 * thousands of retransmissions at one place add bytes, not information. */
static void draw_marks(GString *s, const frame_t *f, const axis_t *ax, const axis_t *ay,
                       const svg_series_t *se)
{
    guint cols = (guint)(f->width / MARK_CELL) + 1, rows = (guint)(f->height / MARK_CELL) + 1;
    guint8 *seen;
    gboolean any = FALSE;
    guint i;

    if (!has_marks(se))
        return;
    seen = g_new0(guint8, (gsize)cols * rows);
    for (i = 0; i < se->n_marks; i++) {
        double px, py;
        guint cx, cy;

        if (!plottable(se->mark_x[i]) || !plottable(se->mark_y[i]))
            continue;
        px = map_x(f, ax, se->mark_x[i]);
        py = map_y(f, ay, se->mark_y[i]);
        cx = (guint)CLAMP((px - f->left) / MARK_CELL, 0.0, cols - 1.0);
        cy = (guint)CLAMP((py - f->top) / MARK_CELL, 0.0, rows - 1.0);
        if (seen[(gsize)cy * cols + cx])
            continue;
        seen[(gsize)cy * cols + cx] = 1;
        if (!any)
            g_string_append(s, "<path class=\"marks\" fill=\"none\" stroke=\"" MARK_COLOUR
                            "\" stroke-width=\"1.5\" d=\"");
        any = TRUE;
        g_string_append_c(s, 'M');
        put_num(s, px - MARK_HALF);
        g_string_append_c(s, ' ');
        put_num(s, py - MARK_HALF);
        g_string_append(s, "L");
        put_num(s, px + MARK_HALF);
        g_string_append_c(s, ' ');
        put_num(s, py + MARK_HALF);
        g_string_append(s, "M");
        put_num(s, px - MARK_HALF);
        g_string_append_c(s, ' ');
        put_num(s, py + MARK_HALF);
        g_string_append(s, "L");
        put_num(s, px + MARK_HALF);
        g_string_append_c(s, ' ');
        put_num(s, py - MARK_HALF);
    }
    if (any)
        g_string_append(s, "\"/>\n");
    g_free(seen);
}

gboolean svg_line_chart(const char *path, const char *title, const char *x_label, const char *y_label,
                        const svg_series_t *series, guint n_series, GError **err)
{
    /* The right margin holds the legend. */
    const frame_t f = { 70, 45, SVG_W - 70 - 180, SVG_H - 45 - 60 };
    range_t rx = { 0 }, ry = { 0 };
    GString *s = svg_begin(title);
    gboolean any;
    axis_t ax, ay;
    guint k;

    if (!series)
        n_series = 0;
    any = line_ranges(series, n_series, &rx, &ry);
    ax = any ? nice_axis(rx.min, rx.max) : nice_axis(0.0, 1.0);
    ay = any ? nice_axis(ry.min, ry.max) : nice_axis(0.0, 1.0);
    draw_x_ticks(s, &f, &ax);
    draw_y_ticks(s, &f, &ay);
    draw_axes(s, &f);
    put_text(s, f.left + f.width / 2, SVG_H - 14, "middle", "class=\"axis-title\"", x_label);
    put_vertical_text(s, 18, f.top + f.height / 2, y_label);
    if (!any)
        draw_no_data(s, &f);
    for (k = 0; any && k < n_series; k++)
        draw_series(s, &f, &ax, &ay, &series[k], palette[k % N_COLOURS]);
    for (k = 0; any && k < n_series; k++)   /* after all lines: crosses stay visible */
        draw_marks(s, &f, &ax, &ay, &series[k]);
    if (n_series > 0) {
        const char **names = g_new0(const char *, n_series);

        for (k = 0; k < n_series; k++)
            names[k] = series[k].name;
        draw_legend(s, f.left + f.width + 16, f.top + 10, names, "series", n_series, SWATCH_LINE);
        g_free(names);
    }
    return svg_finish(s, path, err);
}

/* ---- Bar chart --------------------------------------------------------- */

/* One bar per entry from zero to its value, value above (below for a
 * negative one); a value that cannot be drawn gets "n/a" and no bar. */
static void draw_bars(GString *s, const frame_t *f, const axis_t *ay, const svg_bar_t *bars, guint n_bars)
{
    double slot = f->width / n_bars;
    double bar_w = MIN(slot * 0.7, 80.0);
    double zero = map_y(f, ay, 0.0);
    guint stride = label_stride(slot, MIN_LABEL_PX);
    guint i;

    for (i = 0; i < n_bars; i++) {
        double cx = f->left + slot * (i + 0.5);
        double v = bars[i].value;
        char buf[64];

        if (i % stride == 0) {
            gchar *label = shorten(bars[i].label, (glong)(slot * stride / 7.0));

            put_text(s, cx, f->top + f->height + 16, "middle", "class=\"label\"", label);
            g_free(label);
        }
        if (plottable(v)) {
            double top = map_y(f, ay, v);

            put_rect(s, cx - bar_w / 2, MIN(top, zero), bar_w, fabs(top - zero),
                     "class=\"bar\" fill=\"#1f77b4\"");
            format_value(buf, sizeof buf, v, 3);
            if (slot >= MIN_VALUE_PX)
                put_text(s, cx, v >= 0 ? top - 4 : top + 13, "middle", "class=\"value\"", buf);
        } else if (slot >= MIN_VALUE_PX) {
            put_text(s, cx, zero - 4, "middle", "class=\"value\"", "n/a");
        }
    }
}

gboolean svg_bar_chart(const char *path, const char *title, const char *y_label,
                       const svg_bar_t *bars, guint n_bars, GError **err)
{
    /* The bottom margin holds the bar labels. */
    const frame_t f = { 70, 45, SVG_W - 70 - 30, SVG_H - 45 - 55 };
    range_t r = { 0 };
    GString *s = svg_begin(title);
    axis_t ay;
    guint i;

    if (!bars)
        n_bars = 0;
    for (i = 0; i < n_bars; i++)
        range_add(&r, bars[i].value);
    ay = zero_based_axis(&r);
    draw_y_ticks(s, &f, &ay);
    draw_axes(s, &f);
    if (ay.lo < 0.0)
        put_line(s, f.left, map_y(&f, &ay, 0.0), f.left + f.width, map_y(&f, &ay, 0.0), AXIS_COLOUR);
    put_vertical_text(s, 18, f.top + f.height / 2, y_label);
    if (n_bars > 0)
        draw_bars(s, &f, &ay, bars, n_bars);
    if (!r.any)
        draw_no_data(s, &f);
    return svg_finish(s, path, err);
}

/* ---- 100%-stacked bars ------------------------------------------------- */

/* A part counts when plottable and positive: a share of a whole cannot be
 * negative, and a missing value is better shown as missing than as 0. */
static double part_value(const svg_stack_row_t *row, guint j)
{
    double v = row->parts ? row->parts[j] : 0.0;

    return plottable(v) && v > 0.0 ? v : 0.0;
}

/* The 0..100 % axis along the bottom. */
static void draw_percent_axis(GString *s, const frame_t *f)
{
    int pct;

    for (pct = 0; pct <= 100; pct += 20) {
        double x = f->left + f->width * pct / 100.0;
        char buf[16];

        put_line(s, x, f->top, x, f->top + f->height, GRID_COLOUR);
        g_snprintf(buf, sizeof buf, "%d%%", pct);
        put_text(s, x, f->top + f->height + 16, "middle", "class=\"tick\"", buf);
    }
}

/* One row: its parts side by side over the full width, each with its
 * percentage when there is room, or an empty outline and "no data". */
static void draw_stack_row(GString *s, const frame_t *f, double y, double h,
                           const svg_stack_row_t *row, guint n_parts)
{
    double sum = 0.0, done = 0.0;
    guint j;

    for (j = 0; j < n_parts; j++)
        sum += part_value(row, j);
    g_string_append(s, "<g class=\"row\">\n");
    if (sum <= 0.0) {
        put_rect(s, f->left, y, f->width, h,
                 "fill=\"none\" stroke=\"" NODATA_COLOUR "\" stroke-dasharray=\"4 3\"");
        put_text(s, f->left + f->width / 2, y + h / 2 + 4, "middle",
                 "class=\"nodata\" fill=\"" NODATA_COLOUR "\"", "no data");
    }
    for (j = 0; sum > 0.0 && j < n_parts; j++) {
        double v = part_value(row, j);
        double x = f->left + done / sum * f->width;
        double w = v / sum * f->width;
        gchar *fill;

        if (v <= 0.0)
            continue;
        fill = g_strdup_printf("class=\"part\" fill=\"%s\"", palette[j % N_COLOURS]);
        put_rect(s, x, y, w, h, fill);
        g_free(fill);
        if (w >= MIN_PCT_PX && h >= 12.0) {
            char buf[G_ASCII_DTOSTR_BUF_SIZE + 1];

            g_ascii_formatd(buf, sizeof buf - 1, "%.1f", 100.0 * v / sum);
            strcat(buf, "%");
            put_text(s, x + w / 2, y + h / 2 + 4, "middle",
                     "class=\"pct\" fill=\"white\" font-size=\"11\"", buf);
        }
        done += v;
    }
    g_string_append(s, "</g>\n");
}

gboolean svg_stacked_bars(const char *path, const char *title, const char *const *part_names, guint n_parts,
                          const svg_stack_row_t *rows, guint n_rows, GError **err)
{
    /* The left margin holds the row labels, the right one the legend. */
    const frame_t f = { 140, 45, SVG_W - 140 - 180, SVG_H - 45 - 45 };
    GString *s = svg_begin(title);
    double slot;
    guint i, stride;

    if (!rows)
        n_rows = 0;
    draw_percent_axis(s, &f);
    draw_axes(s, &f);
    if (n_rows == 0)
        draw_no_data(s, &f);
    slot = n_rows > 0 ? f.height / n_rows : f.height;
    stride = label_stride(slot, MIN_ROW_PX);
    for (i = 0; i < n_rows; i++) {
        double y = f.top + slot * i;
        double h = MIN(slot * 0.65, 40.0);

        if (i % stride == 0) {
            gchar *label = shorten(rows[i].label, 20);

            put_text(s, f.left - 8, y + slot / 2 + 4, "end", "class=\"label\"", label);
            g_free(label);
        }
        draw_stack_row(s, &f, y + (slot - h) / 2, h, &rows[i], n_parts);
    }
    if (n_parts > 0)
        draw_legend(s, f.left + f.width + 16, f.top + 10, part_names, "part", n_parts, SWATCH_BOX);
    return svg_finish(s, path, err);
}
