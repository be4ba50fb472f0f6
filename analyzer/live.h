/* live.h: `meterscope --live`: one tshark reads the capture as it is
 * written (standard input, a FIFO, a file that is still growing, or an
 * interface through dumpcap), prints the plugin's events as each frame
 * comes (-z meter,ota,events) and at the end of input the same records an
 * offline run reads (-z meter,ota,tsv), so the final report is the
 * offline one (docs/analyser.md, "Live monitoring").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef LIVE_H
#define LIVE_H

#include "live_view.h"
#include "tshark_runner.h"

typedef struct {
    const char      *source;      /* "-", a FIFO or a file (followed as it grows); NULL with iface */
    const char      *iface;       /* captured with dumpcap -i */
    ms_live_output_t output;
    double           stall_s;
    guint64          restart_after;  /* frames a tshark reads before a new one takes over (0: never) */
} ms_live_options_t;

/* Runs until the input ends or the first SIGINT/SIGTERM/SIGHUP (which ends
 * the input at a whole record). parts gets an ms_capture_t per tshark run,
 * in order: one, unless restart_after made more. The status and *message
 * (an error or a warning, as ms_tshark_run's) are the last run's. */
ms_run_status_t ms_live_run(const ms_tshark_t *t, const ms_live_options_t *o, GPtrArray *parts, char **message);

#endif
