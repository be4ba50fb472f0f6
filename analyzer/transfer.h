/* transfer.h: the records the plugin prints with `tshark -z meter,ota,tsv`
 * (common/transfer_record.h, docs/plugin.md), read line by line as tshark
 * streams them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRANSFER_H
#define TRANSFER_H

#include <glib.h>
#include "transfer_record.h"

typedef enum { PT_BLOCK, PT_RETRANSMISSION, PT_REREQUEST } ms_point_kind_t;

typedef struct {
    gint64          ts_us;
    guint32         bytes;
    ms_point_kind_t kind;
} ms_point_t;

/* A T record (its columns: common/transfer_record.h) and its P records. */
typedef struct {
    meter_transfer_record_t rec;
    GArray  *points;             /* ms_point_t, in time order */
} ms_transfer_t;

/* The C record. */
typedef meter_counts_record_t ms_counts_t;

/* What one capture gave. */
typedef struct {
    char      *file;
    GPtrArray *transfers;        /* ms_transfer_t* in transfer order */
    ms_counts_t counts;
    gboolean   header_seen, counts_seen;
    char      *format_error;     /* the TSV did not parse: what was wrong */
    /* reader state */
    GPtrArray *names_t, *names_p, *names_c;
} ms_capture_t;

ms_capture_t *ms_capture_new(const char *file);
void          ms_capture_free(ms_capture_t *c);
/* Feeds one line of tshark's standard output (without its newline). Lines
 * before the header (other taps, warnings) are ignored. */
void          ms_capture_feed(ms_capture_t *c, const char *line);
/* Drops the transfers of other meters (meter: an IPv6 address). */
void          ms_capture_keep_meter(ms_capture_t *c, const char *meter);

#endif
