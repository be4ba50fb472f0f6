/* progress.c: tshark -q prints nothing until the end, so the position of
 * its read descriptor (/proc/PID/fdinfo, Linux) is the only honest measure
 * of how far it got. Where /proc is missing the bar shows finished captures.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "progress.h"

#define BAR_WIDTH 30

/* The descriptors of pid that have file open (up to max); how many. With
 * -2 tshark opens the file twice: one descriptor reads it through in the
 * first pass, the other seeks to each frame in the second. */
static guint find_fds(int pid, const char *file, int *fds, guint max)
{
    char *dir = g_strdup_printf("/proc/%d/fd", pid), *want = realpath(file, NULL);
    GDir *d = want ? g_dir_open(dir, 0, NULL) : NULL;
    const char *name;
    guint n = 0;

    while (d && n < max && (name = g_dir_read_name(d))) {
        char *path = g_build_filename(dir, name, NULL);
        char *target = g_file_read_link(path, NULL);
        if (target && strcmp(target, want) == 0)
            fds[n++] = atoi(name);
        g_free(target);
        g_free(path);
    }
    if (d)
        g_dir_close(d);
    free(want);
    g_free(dir);
    return n;
}

static gint64 read_position(int pid, int fd)
{
    char *path = g_strdup_printf("/proc/%d/fdinfo/%d", pid, fd), *text = NULL;
    gint64 pos = -1;

    if (g_file_get_contents(path, &text, NULL, NULL) && g_str_has_prefix(text, "pos:"))
        pos = g_ascii_strtoll(text + 4, NULL, 10);
    g_free(text);
    g_free(path);
    return pos;
}

void ms_progress_draw(ms_job_progress_t *jobs, guint n)
{
    gint64 total = 0, done_bytes = 0;
    guint finished = 0;

    for (guint i = 0; i < n; i++) {
        ms_job_progress_t *j = &jobs[i];
        total += j->size;
        if (g_atomic_int_get(&j->done)) {
            done_bytes += j->size;
            finished++;
            continue;
        }
        int pid = g_atomic_int_get(&j->pid);
        if (!pid)
            continue;
        if (j->n_fds < j->passes)
            j->n_fds = find_fds(pid, j->file, j->fds, j->passes);
        /* A descriptor that went away was read to its end: tshark closes the
         * first pass's when it starts the second (both are open from the
         * start, so one found of two means the first pass is over). */
        gint64 read = 0;
        for (guint k = 0; k < j->n_fds; k++) {
            gint64 pos = read_position(pid, j->fds[k]);
            read += pos < 0 ? j->size : MIN(pos, j->size);
        }
        if (j->n_fds > 0)
            read += (gint64)(j->passes - j->n_fds) * j->size;
        done_bytes += read / MAX(j->passes, 1);
    }
    double f = total > 0 ? (double)done_bytes / total : (n ? (double)finished / n : 1);
    int fill = (int)(f * BAR_WIDTH);
    fprintf(stderr, "\rmeterscope: [%.*s%*s] %3d%%  %u/%u captures", fill, "##############################",
            BAR_WIDTH - fill, "", (int)(f * 100), finished, n);
    fflush(stderr);
}

void ms_progress_clear(void)
{
    fprintf(stderr, "\r%*s\r", 70, "");
    fflush(stderr);
}
