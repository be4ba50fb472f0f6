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
    char      *format_error;     /* the TSV did not parse: what was wrong (then the rest is not read) */
    /* reader state */
    guint       line;            /* lines fed */
    gint       *cell_t, *cell_p, *cell_c;  /* each schema column's cell in the records (#T, #P, #C); -1: none */
    GHashTable *by_number;       /* transfer number -> ms_transfer_t */
    char       *other_version;   /* the header of another version, seen where ours never came */
} ms_capture_t;

ms_capture_t *ms_capture_new(const char *file);
void          ms_capture_free(ms_capture_t *c);
/* Feeds one line of tshark's standard output (without its newline). Lines
 * before the header (other taps, warnings) are ignored. A record that is
 * not as common/transfer_record.h defines it (a column missing, a value
 * out of its type's range, NaN, a negative duration, a transfer's second
 * T record, a P record before its transfer's) sets format_error. */
void          ms_capture_feed(ms_capture_t *c, const char *line);
/* The same for a whole output in one buffer: line by line, split at each
 * '\n' as tshark's stream is (a line ends at a NUL byte in it). */
void          ms_capture_feed_text(ms_capture_t *c, const char *text, gsize len);
/* Once the output has ended: no header (or another version's), or no C
 * record after it (the output was cut short), is a format error too. */
void          ms_capture_finish(ms_capture_t *c);
/* Drops the transfers of other meters (meter: an IPv6 address). */
void          ms_capture_keep_meter(ms_capture_t *c, const char *meter);

#endif
