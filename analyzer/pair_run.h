/* pair_run.h: meterscope's two-vantage mode (--vantage radio=FILE
 * --vantage gateway=FILE): reads both captures, pairs them and writes the
 * report; the exit status as in the one-capture mode.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PAIR_RUN_H
#define PAIR_RUN_H
#include "report.h"
#include "tshark_runner.h"

/* The --vantage arguments: NULL when they are usable, else why not. */
char *ms_pair_check_args(char **vantages);
/* Runs the mode; output NULL: standard output. Returns the exit status. */
int   ms_pair_run(const ms_tshark_t *t, char **vantages, ms_format_t fmt, const char *output, gboolean quiet);

#endif
