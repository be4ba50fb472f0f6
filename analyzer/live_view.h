/* live_view.h: what `meterscope --live` shows while the capture comes in:
 * on a terminal one line per transfer that is going on (progress bar,
 * bytes, current rate, repeats, time since its last block, the ETA and its
 * range) with alerts printed above them as they happen; elsewhere one JSON
 * line per event and per alert (docs/analyser.md, "Live monitoring").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef LIVE_VIEW_H
#define LIVE_VIEW_H

#include <stdio.h>
#include "event_record.h"

typedef enum { MS_LIVE_TERMINAL, MS_LIVE_JSONL } ms_live_output_t;

/* A block asked this many times in a row (retransmissions and re-requests) is an alert. */
#define MS_LIVE_REPEAT_ALERT 3

typedef struct ms_live_view ms_live_view_t;

ms_live_view_t *ms_live_view_new(ms_live_output_t output, FILE *out, double stall_s);
/* An event as the plugin wrote it, arrived now. */
void            ms_live_view_event(ms_live_view_t *v, const meter_event_record_t *e);
/* Once a second: a transfer that got no frame for longer than the stall
 * time on the wall clock is an alert (the capture's clock cannot say so
 * while no frame comes); the terminal lines are drawn again. */
void            ms_live_view_tick(ms_live_view_t *v);
/* No transfer is going on (every one seen has completed or was abandoned). */
gboolean        ms_live_view_idle(const ms_live_view_t *v);
/* A new tshark reads on (--live-restart-after): its transfer numbers start
 * over, as part `part` (1-based) of the report; the transfers not finished
 * are dropped from the lines. */
void            ms_live_view_new_part(ms_live_view_t *v, guint part);
/* A line of its own (a note of the analyser's), above the transfer lines. */
void            ms_live_view_say(ms_live_view_t *v, const char *kind, const char *text);
/* The input ended: the terminal lines stay as they are, drawn no more. */
void            ms_live_view_free(ms_live_view_t *v);

#endif
