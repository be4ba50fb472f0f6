/* output_sink.h: where the analyser's every mode ends: its exit status,
 * its messages on standard error, and the report's file (-o) or standard
 * output.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef OUTPUT_SINK_H
#define OUTPUT_SINK_H
#include <stdio.h>
#include <glib.h>

/* The exit status (docs/analyser.md; 128+N for a signal, interrupt.h). */
enum { MS_EXIT_REPORT = 0, MS_EXIT_USAGE = 1, MS_EXIT_INPUT = 2, MS_EXIT_TSHARK = 3 };

/* One message on standard error, "meterscope: " before it. */
void ms_say(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* The report's stream: the file at path (NULL: standard output). NULL when
 * it cannot be opened, said. Opened only once the report is ready, so that
 * an error or a signal before leaves the file as it was. */
FILE    *ms_output_open(const char *path);
/* Flushes out and closes it unless it is standard output; FALSE when a
 * write failed, said. */
gboolean ms_output_close(FILE *out, const char *path);

#endif
