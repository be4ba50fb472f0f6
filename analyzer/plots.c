/* plots.c: per capture, each transfer's progress over time (bytes, with its
 * retransmissions and re-requests marked) and where its time went; across
 * captures, the effective rate of every transfer by SZX.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>
#include "plots.h"
#include "svg_plot.h"

static char *plot_name(const char *dir, const char *capture, const char *what)
{
    char *base = g_path_get_basename(capture);
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    char *file = g_strdup_printf("%s-%s.svg", base, what);
    char *path = g_build_filename(dir, file, NULL);
    g_free(base);
    g_free(file);
    return path;
}

static gboolean progress_plot(const char *path, const ms_capture_t *c, GError **err)
{
    guint n = c->transfers->len;
    svg_series_t *series = g_new0(svg_series_t, n);
    GPtrArray *owned = g_ptr_array_new_with_free_func(g_free);

    for (guint i = 0; i < n; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        double *px = g_new(double, x->points->len + 1), *py = g_new(double, x->points->len + 1);
        double *mx = g_new(double, x->points->len), *my = g_new(double, x->points->len);
        guint np = 0, nm = 0;
        /* The transfer starts at 0 bytes. */
        px[np] = 0;
        py[np++] = 0;
        for (guint k = 0; k < x->points->len; k++) {
            const ms_point_t *p = &g_array_index(x->points, ms_point_t, k);
            /* In doubles: the difference of two 64-bit times may not fit one. */
            double t = ((double)p->ts_us - (double)x->rec.first_request_us) / 1e6, kib = p->bytes / 1024.0;
            if (p->kind == PT_BLOCK) {
                px[np] = t;
                py[np++] = kib;
            } else {
                mx[nm] = t;
                my[nm++] = kib;
            }
        }
        const char *path = x->rec.path[0] == '/' ? x->rec.path + 1 : x->rec.path;
        char *name = g_strdup_printf("#%u %s /%s (%u B blocks)", x->rec.transfer, x->rec.meter, path,
                                     x->rec.block_size);
        series[i] = (svg_series_t){ name, px, py, np, mx, my, nm };
        g_ptr_array_add(owned, name);
        g_ptr_array_add(owned, px);
        g_ptr_array_add(owned, py);
        g_ptr_array_add(owned, mx);
        g_ptr_array_add(owned, my);
    }
    char *title = g_strdup_printf("Progress: %s (x: retransmission or re-request)", c->file);
    gboolean ok = svg_line_chart(path, title, "seconds since the transfer's first request", "KiB received",
                                 series, n, err);
    g_free(title);
    g_free(series);
    g_ptr_array_free(owned, TRUE);
    return ok;
}

static gboolean split_plot(const char *path, const ms_capture_t *c, GError **err)
{
    const char *parts[METER_SPLIT_PARTS];
    enum { N_PARTS = METER_SPLIT_PARTS };
    guint n = c->transfers->len;
    svg_stack_row_t *rows = g_new0(svg_stack_row_t, n);
    double *values = g_new(double, N_PARTS * (gsize)MAX(n, 1));
    GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);

    for (guint k = 0; k < N_PARTS; k++)
        parts[k] = meter_split_parts[k].label;
    for (guint i = 0; i < n; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        double *v = values + N_PARTS * i;
        for (guint k = 0; k < N_PARTS; k++)
            v[k] = meter_split_value(&x->rec, k);
        char *label = g_strdup_printf("#%u %u B", x->rec.transfer, x->rec.block_size);
        g_ptr_array_add(labels, label);
        rows[i] = (svg_stack_row_t){ label, v };
    }
    char *title = g_strdup_printf("Where the time went: %s", c->file);
    gboolean ok = svg_stacked_bars(path, title, parts, N_PARTS, rows, n, err);
    g_free(title);
    g_free(rows);
    g_free(values);
    g_ptr_array_free(labels, TRUE);
    return ok;
}

static int by_szx(const void *a, const void *b)
{
    const meter_transfer_record_t *x = &(*(ms_transfer_t *const *)a)->rec, *y = &(*(ms_transfer_t *const *)b)->rec;
    return x->szx != y->szx ? (x->szx < y->szx ? -1 : 1) : (x->rate_Bps < y->rate_Bps) - (x->rate_Bps > y->rate_Bps);
}

static gboolean rate_plot(const char *path, ms_analysis_t *a, guint n, GError **err)
{
    GPtrArray *all = g_ptr_array_new();
    GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);

    for (guint i = 0; i < n; i++)
        for (guint k = 0; k < a[i].capture->transfers->len; k++)
            g_ptr_array_add(all, g_ptr_array_index(a[i].capture->transfers, k));
    g_ptr_array_sort(all, by_szx);
    svg_bar_t *bars = g_new0(svg_bar_t, MAX(all->len, 1));
    for (guint i = 0; i < all->len; i++) {
        const meter_transfer_record_t *x = &((const ms_transfer_t *)g_ptr_array_index(all, i))->rec;
        char *label = g_strdup_printf("SZX %u (%u B)%s", x->szx, x->block_size, x->complete ? "" : " incomplete");
        g_ptr_array_add(labels, label);
        bars[i] = (svg_bar_t){ label, x->rate_Bps };
    }
    gboolean ok = svg_bar_chart(path, "Effective rate by block size", "bytes per second", bars, all->len, err);
    g_free(bars);
    g_ptr_array_free(labels, TRUE);
    g_ptr_array_free(all, TRUE);
    return ok;
}

char **ms_plots_write(const char *dir, ms_analysis_t *a, guint n, GError **err)
{
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    gboolean ok = TRUE;

    if (g_mkdir_with_parents(dir, 0777) != 0) {
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot create %s: %s", dir,
                    g_strerror(errno));
        ok = FALSE;
    }
    for (guint i = 0; ok && i < n; i++) {
        char *p = plot_name(dir, a[i].capture->file, "progress"), *s = plot_name(dir, a[i].capture->file, "time-split");
        ok = progress_plot(p, a[i].capture, err) && split_plot(s, a[i].capture, err);
        g_ptr_array_add(files, p);
        g_ptr_array_add(files, s);
    }
    if (ok) {
        char *r = g_build_filename(dir, "rate-by-szx.svg", NULL);
        ok = rate_plot(r, a, n, err);
        g_ptr_array_add(files, r);
    }
    g_ptr_array_add(files, NULL);
    char **out = (char **)g_ptr_array_free(files, FALSE);
    if (!ok) {
        g_strfreev(out);
        return NULL;
    }
    return out;
}
