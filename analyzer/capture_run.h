/* capture_run.h: meterscope's transfer report, from captures read whole
 * (several at once) or from one followed live (--live): the runs, what
 * went wrong with each, the report and the plots.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CAPTURE_RUN_H
#define CAPTURE_RUN_H
#include "options.h"
#include "tshark_runner.h"

/* `meterscope CAPTURE...`: returns the exit status (output_sink.h). */
int ms_captures_run(const ms_options_t *o, const ms_tshark_t *t);
/* `meterscope --live SOURCE`: the same report, of its parts. */
int ms_live_report_run(const ms_options_t *o, const ms_tshark_t *t);

#endif
