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
} ms_live_options_t;

/* Runs until the input ends or the first SIGINT/SIGTERM/SIGHUP (which ends
 * the input at a whole record); out gets the final records. As
 * ms_tshark_run, *message is an error or a warning. */
ms_run_status_t ms_live_run(const ms_tshark_t *t, const ms_live_options_t *o, ms_capture_t *out, char **message);

#endif
