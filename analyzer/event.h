/* event.h: reads the "meterscope-events 1" records that `tshark -z
 * meter,ota,events` streams (common/event_record.h), line by line.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef EVENT_H
#define EVENT_H

#include <glib.h>
#include "event_record.h"

typedef struct {
    gboolean header_seen;
    char    *other_version;   /* the header of another version, seen where ours never came */
    gint    *cell;            /* each schema column's cell in the E records; -1: none */
    char    *format_error;    /* set once: the rest is not read */
    guint    line;
} ms_event_reader_t;

void ms_event_reader_clear(ms_event_reader_t *r);
/* One line of tshark's output: TRUE and *e filled (free with
 * meter_record_clear) when it is an E record. Other lines (the TSV, which
 * comes after) are not events: FALSE. A bad E record sets format_error. */
gboolean ms_event_feed(ms_event_reader_t *r, const char *line, meter_event_record_t *e);

#endif
