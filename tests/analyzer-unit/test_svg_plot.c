/* test_svg_plot.c: the SVG chart writer on ordinary and hostile inputs.
 * Every chart is written to a temporary directory, read back and parsed as
 * XML with GMarkup (any parse error fails the test); the checks then look
 * at what a reader would see: texts, polyline points, percentages, and
 * that every number uses '.' as decimal point even in a German locale.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "svg_plot.h"

static gchar *tmpdir;

/* What the parser collected from one file. */
typedef struct {
    GHashTable *texts;          /* class attribute -> GPtrArray of text contents */
    GPtrArray *polylines;       /* GArray of double (x, y, x, y, ...) per polyline */
    GPtrArray *rows;            /* per <g class="row">: GArray of percentages */
    guint n_lines, n_rects, n_circles;
    guint n_mark_moves;         /* 'M' commands in marks paths: two per cross */
    guint bad_numbers;          /* numeric attributes that are not C-locale numbers */
    gboolean in_row;
    GString *text;              /* content of the open <text>, NULL outside one */
    gchar *text_class;
} svg_doc_t;

static gchar *chart_path(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

static gboolean is_c_number(const char *s)
{
    char *end;

    if (!*s || strchr(s, ','))
        return FALSE;
    g_ascii_strtod(s, &end);
    return *end == '\0';
}

/* points="x,y x,y ...": exactly one comma per pair, the separator. */
static void parse_points(svg_doc_t *doc, const char *value)
{
    gchar **pairs = g_strsplit(value, " ", -1);
    GArray *pts = g_array_new(FALSE, FALSE, sizeof(double));
    guint i;

    for (i = 0; pairs[i]; i++) {
        gchar **xy = g_strsplit(pairs[i], ",", -1);

        if (g_strv_length(xy) != 2 || !is_c_number(xy[0]) || !is_c_number(xy[1])) {
            doc->bad_numbers++;
        } else {
            double x = g_ascii_strtod(xy[0], NULL), y = g_ascii_strtod(xy[1], NULL);

            g_array_append_val(pts, x);
            g_array_append_val(pts, y);
        }
        g_strfreev(xy);
    }
    g_strfreev(pairs);
    g_ptr_array_add(doc->polylines, pts);
}

/* Path data and transforms: no comma at all, every token a number. */
static void check_number_list(svg_doc_t *doc, const char *value, const char *skip_chars)
{
    gchar *copy = g_strdup(value);
    gchar **tokens;
    guint i;

    if (strchr(value, ','))
        doc->bad_numbers++;
    g_strdelimit(copy, skip_chars, ' ');
    tokens = g_strsplit(copy, " ", -1);
    for (i = 0; tokens[i]; i++)
        if (*tokens[i] && !is_c_number(tokens[i]))
            doc->bad_numbers++;
    g_strfreev(tokens);
    g_free(copy);
}

static void on_start(GMarkupParseContext *ctx, const gchar *element, const gchar **names,
                     const gchar **values, gpointer user_data, GError **err)
{
    static const char *const numeric[] = {
        "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height",
        "stroke-width", "font-size", NULL,
    };
    svg_doc_t *doc = user_data;
    const char *cls = NULL;
    guint i;

    (void)ctx;
    (void)err;
    for (i = 0; names[i]; i++) {
        if (g_strv_contains(numeric, names[i]) && !is_c_number(values[i]))
            doc->bad_numbers++;
        if (strcmp(names[i], "class") == 0)
            cls = values[i];
        if (strcmp(names[i], "points") == 0)
            parse_points(doc, values[i]);
        if (strcmp(names[i], "d") == 0) {
            check_number_list(doc, values[i], "ML");
            for (const char *p = values[i]; *p; p++)
                doc->n_mark_moves += *p == 'M';
        }
        if (strcmp(names[i], "transform") == 0)
            check_number_list(doc, values[i], "()translaeo");
    }
    if (strcmp(element, "line") == 0)
        doc->n_lines++;
    if (strcmp(element, "rect") == 0)
        doc->n_rects++;
    if (strcmp(element, "circle") == 0)
        doc->n_circles++;
    if (strcmp(element, "g") == 0 && g_strcmp0(cls, "row") == 0) {
        doc->in_row = TRUE;
        g_ptr_array_add(doc->rows, g_array_new(FALSE, FALSE, sizeof(double)));
    }
    if (strcmp(element, "text") == 0) {
        doc->text = g_string_new(NULL);
        doc->text_class = g_strdup(cls ? cls : "");
    }
}

static void on_end(GMarkupParseContext *ctx, const gchar *element, gpointer user_data, GError **err)
{
    svg_doc_t *doc = user_data;

    (void)ctx;
    (void)err;
    if (strcmp(element, "g") == 0)
        doc->in_row = FALSE;
    if (strcmp(element, "text") == 0 && doc->text) {
        GPtrArray *list = g_hash_table_lookup(doc->texts, doc->text_class);

        if (!list) {
            list = g_ptr_array_new_with_free_func(g_free);
            g_hash_table_insert(doc->texts, g_strdup(doc->text_class), list);
        }
        if (doc->in_row && strcmp(doc->text_class, "pct") == 0) {
            GArray *row = g_ptr_array_index(doc->rows, doc->rows->len - 1);
            double pct = g_ascii_strtod(doc->text->str, NULL);

            g_array_append_val(row, pct);
        }
        g_ptr_array_add(list, g_string_free(doc->text, FALSE));
        doc->text = NULL;
        g_clear_pointer(&doc->text_class, g_free);
    }
}

static void on_text(GMarkupParseContext *ctx, const gchar *text, gsize len, gpointer user_data,
                    GError **err)
{
    svg_doc_t *doc = user_data;

    (void)ctx;
    (void)err;
    if (doc->text)
        g_string_append_len(doc->text, text, (gssize)len);
}

/* Reads and parses a chart; any XML error fails the test. */
static void parse_svg(const char *path, svg_doc_t *doc, gchar **raw)
{
    static const GMarkupParser parser = { on_start, on_end, on_text, NULL, NULL };
    GMarkupParseContext *ctx;
    GError *err = NULL;
    gchar *content;
    gsize len;

    memset(doc, 0, sizeof *doc);
    doc->texts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify)g_ptr_array_unref);
    doc->polylines = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    doc->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_assert_true(g_file_get_contents(path, &content, &len, &err));
    g_assert_no_error(err);
    g_assert_true(g_str_has_prefix(content, "<?xml"));
    ctx = g_markup_parse_context_new(&parser, 0, doc, NULL);
    g_markup_parse_context_parse(ctx, content, (gssize)len, &err);
    g_assert_no_error(err);
    g_markup_parse_context_end_parse(ctx, &err);
    g_assert_no_error(err);
    g_markup_parse_context_free(ctx);
    g_assert_cmpuint(doc->bad_numbers, ==, 0);
    if (raw)
        *raw = content;
    else
        g_free(content);
}

static void doc_clear(svg_doc_t *doc)
{
    g_hash_table_unref(doc->texts);
    g_ptr_array_unref(doc->polylines);
    g_ptr_array_unref(doc->rows);
}

static gboolean has_text(const svg_doc_t *doc, const char *cls, const char *text)
{
    GPtrArray *list = g_hash_table_lookup(doc->texts, cls);
    guint i;

    for (i = 0; list && i < list->len; i++)
        if (strcmp(g_ptr_array_index(list, i), text) == 0)
            return TRUE;
    return FALSE;
}

static guint n_points(const svg_doc_t *doc, guint polyline)
{
    g_assert_cmpuint(polyline, <, doc->polylines->len);
    return ((GArray *)g_ptr_array_index(doc->polylines, polyline))->len / 2;
}

/* Smallest and largest y pixel of a polyline. */
static void y_extremes(const svg_doc_t *doc, guint polyline, double *min, double *max)
{
    GArray *pts = g_ptr_array_index(doc->polylines, polyline);
    guint i;

    *min = G_MAXDOUBLE;
    *max = -G_MAXDOUBLE;
    for (i = 1; i < pts->len; i += 2) {
        *min = MIN(*min, g_array_index(pts, double, i));
        *max = MAX(*max, g_array_index(pts, double, i));
    }
}

/* Every point of every polyline inside the 800 x 450 image. */
static void assert_points_inside(const svg_doc_t *doc)
{
    guint k, i;

    for (k = 0; k < doc->polylines->len; k++) {
        GArray *pts = g_ptr_array_index(doc->polylines, k);

        for (i = 0; i < pts->len; i += 2) {
            g_assert_cmpfloat(g_array_index(pts, double, i), >=, 0.0);
            g_assert_cmpfloat(g_array_index(pts, double, i), <=, 800.0);
            g_assert_cmpfloat(g_array_index(pts, double, i + 1), >=, 0.0);
            g_assert_cmpfloat(g_array_index(pts, double, i + 1), <=, 450.0);
        }
    }
}

static void write_line(const char *name, const char *title, const svg_series_t *series, guint n,
                       svg_doc_t *doc, gchar **raw)
{
    gchar *path = chart_path(name);
    GError *err = NULL;

    g_assert_true(svg_line_chart(path, title, "time (s)", "bytes", series, n, &err));
    g_assert_no_error(err);
    parse_svg(path, doc, raw);
    g_free(path);
}

#define TRICKY_TITLE "Tom & Jerry <\"quoted\"> 'single'"
#define TRICKY_ESCAPED "Tom &amp; Jerry &lt;&quot;quoted&quot;&gt; &#39;single&#39;"

static void test_line_small(void)
{
    static const double x1[] = { 0, 1, 2, 3, 4 };
    static const double y1[] = { 10, 20, 15, 30, 25 };
    static const double x2[] = { 0, 1, 2, INFINITY, 4, 5 };
    static const double y2[] = { 5, NAN, 7, 8, 9, -3 };
    static const double mx[] = { 1, 3, 3 };
    static const double my[] = { 20, 30, 30 };          /* the third cross duplicates the second */
    const svg_series_t series[] = {
        { "a<b", x1, y1, 5, mx, my, 3 },
        { NULL, x2, y2, 6, NULL, NULL, 0 },
    };
    svg_doc_t doc;
    gchar *raw;

    write_line("small.svg", TRICKY_TITLE, series, 2, &doc, &raw);
    g_assert_nonnull(strstr(raw, TRICKY_ESCAPED));
    g_assert_true(has_text(&doc, "title", TRICKY_TITLE));
    g_assert_true(has_text(&doc, "axis-title", "time (s)"));
    g_assert_true(has_text(&doc, "axis-title", "bytes"));
    g_assert_true(has_text(&doc, "legend", "a<b"));
    g_assert_true(has_text(&doc, "legend", "series 2"));
    g_assert_false(has_text(&doc, "nodata", "no data"));
    g_assert_cmpuint(doc.polylines->len, ==, 2);
    g_assert_cmpuint(n_points(&doc, 0), ==, 5);
    g_assert_cmpuint(n_points(&doc, 1), ==, 4);         /* NaN y and infinite x skipped */
    g_assert_cmpuint(doc.n_mark_moves, ==, 2 * 2);      /* two distinct crosses */
    assert_points_inside(&doc);
    g_assert_true(has_text(&doc, "tick", "-10"));       /* -3 needs a tick below zero */
    g_free(raw);
    doc_clear(&doc);
}

/* Points increase left to right and values bottom to top. */
static void test_line_orientation(void)
{
    static const double x[] = { 1, 2, 3 };
    static const double y[] = { 1, 2, 3 };
    const svg_series_t series = { "up", x, y, 3, NULL, NULL, 0 };
    svg_doc_t doc;
    GArray *pts;

    write_line("orientation.svg", "up", &series, 1, &doc, NULL);
    pts = g_ptr_array_index(doc.polylines, 0);
    g_assert_cmpfloat(g_array_index(pts, double, 0), <, g_array_index(pts, double, 2));
    g_assert_cmpfloat(g_array_index(pts, double, 2), <, g_array_index(pts, double, 4));
    g_assert_cmpfloat(g_array_index(pts, double, 1), >, g_array_index(pts, double, 3));
    g_assert_cmpfloat(g_array_index(pts, double, 3), >, g_array_index(pts, double, 5));
    doc_clear(&doc);
}

#define BIG_N 100000
#define SPIKE_LOW 31337
#define SPIKE_HIGH 77777

static void test_line_decimation(void)
{
    double *x = g_new(double, BIG_N), *y = g_new(double, BIG_N);
    double *mx = g_new(double, BIG_N / 10), *my = g_new(double, BIG_N / 10);
    double ref_x[4], ref_y[4], min_dec, max_dec, min_ref, max_ref;
    svg_series_t big = { "big", x, y, BIG_N, mx, my, BIG_N / 10 };
    svg_series_t ref = { "ref", ref_x, ref_y, 4, NULL, NULL, 0 };
    svg_doc_t doc;
    gchar *path = chart_path("big.svg");
    GStatBuf st;
    guint i;

    for (i = 0; i < BIG_N; i++) {
        x[i] = i * 0.01;
        y[i] = 10.0 * sin(i * 0.001) + (i % 7) * 0.5;
    }
    y[SPIKE_LOW] = -250.0;
    y[SPIKE_HIGH] = 400.0;
    for (i = 0; i < BIG_N / 10; i++) {
        mx[i] = x[i * 10];
        my[i] = y[i * 10];
    }
    write_line("big.svg", "100k points", &big, 1, &doc, NULL);
    g_assert_cmpint(g_stat(path, &st), ==, 0);
    g_assert_cmpint(st.st_size, <, 200 * 1024);
    g_assert_cmpuint(n_points(&doc, 0), <=, 2000);
    g_assert_cmpuint(n_points(&doc, 0), >, 100);
    g_assert_cmpuint(doc.n_mark_moves, <, BIG_N / 10);  /* overlapping crosses merged */
    g_assert_cmpuint(doc.n_mark_moves, >, 0);
    y_extremes(&doc, 0, &min_dec, &max_dec);
    doc_clear(&doc);

    /* The same axes (same x and y ranges) with only the extremes: their
     * pixels must be the decimated line's extremes. */
    ref_x[0] = x[0];
    ref_y[0] = y[0];
    ref_x[1] = x[SPIKE_LOW];
    ref_y[1] = y[SPIKE_LOW];
    ref_x[2] = x[SPIKE_HIGH];
    ref_y[2] = y[SPIKE_HIGH];
    ref_x[3] = x[BIG_N - 1];
    ref_y[3] = y[BIG_N - 1];
    write_line("big-ref.svg", "reference", &ref, 1, &doc, NULL);
    y_extremes(&doc, 0, &min_ref, &max_ref);
    doc_clear(&doc);
    g_assert_cmpfloat_with_epsilon(min_dec, min_ref, 1e-9);     /* 400 at the top */
    g_assert_cmpfloat_with_epsilon(max_dec, max_ref, 1e-9);     /* -250 at the bottom */
    g_assert_cmpfloat(max_ref - min_ref, >, 100.0);

    g_free(path);
    g_free(x);
    g_free(y);
    g_free(mx);
    g_free(my);
}

static void test_line_degenerate(void)
{
    static const double x[] = { 3, 3, 3, 3 };
    static const double y[] = { 5, 5, 5, 5 };
    static const double nan4[] = { NAN, NAN, INFINITY, -INFINITY };
    static const double one_x[] = { 1e301, 2.5 };       /* beyond 1e300: skipped */
    static const double one_y[] = { 1, -7 };
    static const double huge_x[] = { -1e300, 1e300 };
    static const double huge_y[] = { 1e300, -1e300 };
    const svg_series_t equal = { "flat", x, y, 4, NULL, NULL, 0 };
    const svg_series_t empty = { "empty", x, y, 0, NULL, NULL, 0 };
    const svg_series_t all_nan = { "nan", nan4, nan4, 4, nan4, nan4, 4 };
    const svg_series_t single = { "single", one_x, one_y, 2, NULL, NULL, 0 };
    const svg_series_t huge = { "huge", huge_x, huge_y, 2, NULL, NULL, 0 };
    const svg_series_t null_arrays = { "null", NULL, NULL, 10, NULL, y, 4 };
    svg_doc_t doc;

    write_line("none.svg", "nothing", NULL, 0, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    g_assert_true(has_text(&doc, "title", "nothing"));
    g_assert_cmpuint(doc.n_lines, >=, 2);                /* the axes */
    g_assert_cmpuint(doc.polylines->len, ==, 0);
    doc_clear(&doc);

    write_line("empty.svg", NULL, &empty, 1, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    g_assert_true(has_text(&doc, "legend", "empty"));
    doc_clear(&doc);

    write_line("nan.svg", "all NaN", &all_nan, 1, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    g_assert_cmpuint(doc.polylines->len, ==, 0);
    g_assert_cmpuint(doc.n_mark_moves, ==, 0);
    doc_clear(&doc);

    write_line("null.svg", "NULL arrays", &null_arrays, 1, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    doc_clear(&doc);

    write_line("equal.svg", "all equal", &equal, 1, &doc, NULL);
    g_assert_false(has_text(&doc, "nodata", "no data"));
    g_assert_cmpuint(n_points(&doc, 0), ==, 4);
    assert_points_inside(&doc);
    doc_clear(&doc);

    write_line("single.svg", "one point", &single, 1, &doc, NULL);
    g_assert_cmpuint(n_points(&doc, 0), ==, 1);
    g_assert_cmpuint(doc.n_circles, ==, 1);
    assert_points_inside(&doc);
    doc_clear(&doc);

    write_line("huge.svg", "huge values", &huge, 1, &doc, NULL);
    g_assert_cmpuint(n_points(&doc, 0), ==, 2);
    assert_points_inside(&doc);
    doc_clear(&doc);
}

/* No two tick labels alike, whatever the magnitude of the values. */
static void assert_ticks_distinct(const svg_doc_t *doc)
{
    GPtrArray *ticks = g_hash_table_lookup(doc->texts, "tick");
    guint i, j;

    g_assert_nonnull(ticks);
    g_assert_cmpuint(ticks->len, >=, 4);
    for (i = 0; i < ticks->len; i++)
        for (j = i + 1; j < ticks->len; j++)
            g_assert_cmpstr(g_ptr_array_index(ticks, i), !=, g_ptr_array_index(ticks, j));
}

static void test_line_ticks(void)
{
    static const double unix_x[] = { 1.7e9, 1.7e9 + 30, 1.7e9 + 100 };
    static const double small_y[] = { 1e-7, 3e-7, 2e-7 };
    static const double big_x[] = { -1e300, 0, 1e300 };
    static const double big_y[] = { 1e12, 1e12 + 1, 1e12 + 3 };
    const svg_series_t unix_times = { "t", unix_x, small_y, 3, NULL, NULL, 0 };
    const svg_series_t big = { "big", big_x, big_y, 3, NULL, NULL, 0 };
    svg_doc_t doc;

    write_line("unix.svg", "Unix times", &unix_times, 1, &doc, NULL);
    assert_ticks_distinct(&doc);
    g_assert_true(has_text(&doc, "tick", "1700000020"));
    doc_clear(&doc);

    write_line("bigticks.svg", "big", &big, 1, &doc, NULL);
    assert_ticks_distinct(&doc);
    g_assert_true(has_text(&doc, "tick", "1000000000001"));    /* a span of 3 at 1e12 is kept */
    g_assert_cmpuint(n_points(&doc, 0), ==, 3);
    doc_clear(&doc);
}

static void test_bar_chart(void)
{
    static const svg_bar_t bars[] = {
        { "alpha", 3 }, { "b&d", 12.5 }, { "neg", -4 }, { "nan", NAN }, { NULL, 0 },
    };
    gchar *path = chart_path("bars.svg");
    GError *err = NULL;
    svg_doc_t doc;
    gchar *raw;

    g_assert_true(svg_bar_chart(path, "Bars <1>", "count", bars, G_N_ELEMENTS(bars), &err));
    g_assert_no_error(err);
    parse_svg(path, &doc, &raw);
    g_assert_nonnull(strstr(raw, "b&amp;d"));
    g_assert_nonnull(strstr(raw, "Bars &lt;1&gt;"));
    g_assert_true(has_text(&doc, "label", "alpha"));
    g_assert_true(has_text(&doc, "label", "b&d"));
    g_assert_true(has_text(&doc, "label", "neg"));
    g_assert_true(has_text(&doc, "value", "3"));
    g_assert_true(has_text(&doc, "value", "12.5"));
    g_assert_true(has_text(&doc, "value", "-4"));
    g_assert_true(has_text(&doc, "value", "0"));
    g_assert_true(has_text(&doc, "value", "n/a"));
    g_assert_true(has_text(&doc, "axis-title", "count"));
    g_assert_false(has_text(&doc, "nodata", "no data"));
    g_free(raw);
    doc_clear(&doc);
    g_free(path);
}

static void test_bar_degenerate(void)
{
    static const svg_bar_t zeros[] = { { "z1", 0 }, { "z2", 0 } };
    static const svg_bar_t nans[] = { { "x", NAN } };
    svg_bar_t *many = g_new(svg_bar_t, 5000);
    gchar *path = chart_path("bars-empty.svg");
    svg_doc_t doc;
    guint i;

    g_assert_true(svg_bar_chart(path, "no bars", "count", NULL, 0, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    g_assert_cmpuint(doc.n_lines, >=, 2);
    doc_clear(&doc);

    g_assert_true(svg_bar_chart(path, "zeros", "count", zeros, 2, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "value", "0"));
    g_assert_false(has_text(&doc, "nodata", "no data"));
    doc_clear(&doc);

    g_assert_true(svg_bar_chart(path, "NaN", "count", nans, 1, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    doc_clear(&doc);

    for (i = 0; i < 5000; i++) {
        many[i].label = "a rather long label";
        many[i].value = i;
    }
    g_assert_true(svg_bar_chart(path, "many", "count", many, 5000, NULL));
    parse_svg(path, &doc, NULL);
    doc_clear(&doc);
    g_free(many);
    g_free(path);
}

static void test_stacked(void)
{
    static const char *const names[] = { "ok", "retx & co", "lost" };
    static const double p1[] = { 1, 1, 2 };
    static const double p2[] = { 1, 2, 0 };
    static const double p3[] = { 0, 0, 0 };
    static const double p4[] = { NAN, 1, 1 };
    static const double p5[] = { -5, 3, 1 };
    const svg_stack_row_t rows[] = {
        { "r1", p1 }, { "r2", p2 }, { "zero", p3 }, { "nan", p4 }, { "neg", p5 }, { "null", NULL },
    };
    static const guint n_pct[] = { 3, 2, 0, 2, 2, 0 };
    gchar *path = chart_path("stacked.svg");
    GError *err = NULL;
    svg_doc_t doc;
    gchar *raw;
    guint i, j;

    g_assert_true(svg_stacked_bars(path, "Shares", names, 3, rows, G_N_ELEMENTS(rows), &err));
    g_assert_no_error(err);
    parse_svg(path, &doc, &raw);
    g_assert_nonnull(strstr(raw, "retx &amp; co"));
    g_assert_true(has_text(&doc, "legend", "ok"));
    g_assert_true(has_text(&doc, "legend", "retx & co"));
    g_assert_true(has_text(&doc, "legend", "lost"));
    g_assert_true(has_text(&doc, "label", "r1"));
    g_assert_true(has_text(&doc, "pct", "25.0%"));
    g_assert_true(has_text(&doc, "pct", "50.0%"));
    g_assert_true(has_text(&doc, "pct", "33.3%"));
    g_assert_true(has_text(&doc, "pct", "66.7%"));
    g_assert_true(has_text(&doc, "pct", "75.0%"));
    g_assert_true(has_text(&doc, "nodata", "no data"));  /* the zero and NULL rows */
    g_assert_cmpuint(doc.rows->len, ==, G_N_ELEMENTS(rows));
    for (i = 0; i < doc.rows->len; i++) {
        GArray *row = g_ptr_array_index(doc.rows, i);
        double sum = 0;

        g_assert_cmpuint(row->len, ==, n_pct[i]);
        for (j = 0; j < row->len; j++)
            sum += g_array_index(row, double, j);
        if (row->len > 0)
            g_assert_cmpfloat_with_epsilon(sum, 100.0, 0.15);
    }
    g_free(raw);
    doc_clear(&doc);
    g_free(path);
}

static void test_stacked_degenerate(void)
{
    static const double p[] = { 1, 2 };
    const svg_stack_row_t rows[] = { { "a", p } };
    gchar *path = chart_path("stacked-empty.svg");
    svg_doc_t doc;

    g_assert_true(svg_stacked_bars(path, "none", NULL, 0, NULL, 0, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    g_assert_cmpuint(doc.n_lines, >=, 2);
    doc_clear(&doc);

    g_assert_true(svg_stacked_bars(path, "no parts", NULL, 0, rows, 1, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "nodata", "no data"));
    doc_clear(&doc);

    /* No names: the legend numbers the parts. */
    g_assert_true(svg_stacked_bars(path, "unnamed", NULL, 2, rows, 1, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "legend", "part 1"));
    g_assert_true(has_text(&doc, "legend", "part 2"));
    doc_clear(&doc);
    g_free(path);
}

static void assert_write_error(GError *err)
{
    g_assert_nonnull(err);
    g_assert_true(err->domain == g_quark_from_static_string("svg-plot"));
    g_assert_cmpstr(err->message, !=, "");
}

static void test_write_error(void)
{
    static const double x[] = { 1, 2 };
    const svg_series_t series = { "s", x, x, 2, NULL, NULL, 0 };
    const svg_bar_t bar = { "b", 1 };
    const svg_stack_row_t row = { "r", x };
    gchar *path = g_build_filename(tmpdir, "missing", "dir", "chart.svg", NULL);
    GError *err = NULL;

    g_assert_false(svg_line_chart(path, "t", "x", "y", &series, 1, &err));
    assert_write_error(err);
    g_clear_error(&err);
    g_assert_false(svg_bar_chart(path, "t", "y", &bar, 1, &err));
    assert_write_error(err);
    g_clear_error(&err);
    g_assert_false(svg_stacked_bars(path, "t", NULL, 2, &row, 1, &err));
    assert_write_error(err);
    g_clear_error(&err);
    g_assert_false(svg_line_chart(NULL, "t", "x", "y", &series, 1, &err));
    assert_write_error(err);
    g_clear_error(&err);
    g_assert_false(svg_bar_chart(path, "t", "y", &bar, 1, NULL));    /* err may be NULL */
    g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
    g_free(path);
}

/* A locale whose decimal point is a comma, or NULL when none is installed. */
static const char *comma_locale(void)
{
    static const char *const candidates[] = { "de_DE.UTF-8", "de_DE.utf8", "de_DE", NULL };
    guint i;

    for (i = 0; candidates[i]; i++) {
        struct lconv *lc;

        if (!setlocale(LC_NUMERIC, candidates[i]))
            continue;
        lc = localeconv();
        if (strcmp(lc->decimal_point, ",") == 0)
            return candidates[i];
        setlocale(LC_NUMERIC, "C");
    }
    return NULL;
}

/* parse_svg() refuses any numeric attribute or point pair with a stray
 * comma; the texts are checked for '.' decimals here. */
static void test_locale(void)
{
    static const double x[] = { 0.25, 1.5, 2.75 };
    static const double y[] = { 0.125, 0.5, 0.375 };
    static const double p[] = { 1, 2 };
    const svg_series_t series = { "s", x, y, 3, x, y, 3 };
    const svg_bar_t bars[] = { { "half", 0.5 }, { "quarter", 1.25 } };
    const svg_stack_row_t row = { "r", p };
    gchar *path = chart_path("locale.svg");
    const char *loc = comma_locale();
    svg_doc_t doc;
    gchar *raw;

    /* A skip would pass unseen: scripts/install-deps.sh --tests makes the locale. */
    if (!loc) {
        g_test_fail_printf("no locale with a decimal comma (de_DE.UTF-8): scripts/install-deps.sh --tests "
                           "generates it");
        g_free(path);
        return;
    }
    g_test_message("LC_NUMERIC=%s", loc);

    g_assert_true(svg_line_chart(path, "t", "x", "y", &series, 1, NULL));
    parse_svg(path, &doc, &raw);
    g_assert_cmpuint(n_points(&doc, 0), ==, 3);
    g_assert_true(has_text(&doc, "tick", "0.5"));
    g_free(raw);
    doc_clear(&doc);

    g_assert_true(svg_bar_chart(path, "t", "y", bars, 2, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "value", "0.5"));
    g_assert_true(has_text(&doc, "value", "1.25"));
    doc_clear(&doc);

    g_assert_true(svg_stacked_bars(path, "t", NULL, 2, &row, 1, NULL));
    parse_svg(path, &doc, NULL);
    g_assert_true(has_text(&doc, "pct", "33.3%"));
    doc_clear(&doc);

    setlocale(LC_NUMERIC, "C");
    g_free(path);
}

/* Removes the charts and the temporary directory. */
static void remove_tmpdir(void)
{
    GDir *dir = g_dir_open(tmpdir, 0, NULL);
    const char *name;

    while (dir && (name = g_dir_read_name(dir))) {
        gchar *path = chart_path(name);

        g_remove(path);
        g_free(path);
    }
    if (dir)
        g_dir_close(dir);
    g_rmdir(tmpdir);
}

int main(int argc, char **argv)
{
    GError *err = NULL;
    int rc;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("svg_plot-XXXXXX", &err);
    g_assert_no_error(err);
    g_test_add_func("/svg_plot/line/small", test_line_small);
    g_test_add_func("/svg_plot/line/orientation", test_line_orientation);
    g_test_add_func("/svg_plot/line/decimation", test_line_decimation);
    g_test_add_func("/svg_plot/line/degenerate", test_line_degenerate);
    g_test_add_func("/svg_plot/line/ticks", test_line_ticks);
    g_test_add_func("/svg_plot/bar/values", test_bar_chart);
    g_test_add_func("/svg_plot/bar/degenerate", test_bar_degenerate);
    g_test_add_func("/svg_plot/stacked/percentages", test_stacked);
    g_test_add_func("/svg_plot/stacked/degenerate", test_stacked_degenerate);
    g_test_add_func("/svg_plot/write_error", test_write_error);
    g_test_add_func("/svg_plot/locale", test_locale);
    rc = g_test_run();
    remove_tmpdir();
    g_free(tmpdir);
    return rc;
}
