/* progress.h: a progress bar on standard error while tshark reads the
 * captures, from how far each tshark has read its file.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <glib.h>

typedef struct {
    const char    *file;
    gint64         size;
    guint          passes;       /* 2 when tshark reads it twice (-2): two descriptors */
    volatile gint  pid;          /* the tshark reading it, 0 when none */
    volatile gint  done;
    int            fds[2];       /* tshark's descriptors for the file, once found */
    guint          n_fds;
} ms_job_progress_t;

void ms_progress_draw(ms_job_progress_t *jobs, guint n);
void ms_progress_clear(void);

#endif
