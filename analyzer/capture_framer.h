/* capture_framer.h: where the records of a pcap or pcapng stream end, so
 * that what the live analyser hands tshark always ends on a whole record:
 * stopped at any moment (Ctrl-C), tshark reads a capture that is complete,
 * not one cut in the middle of a frame.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CAPTURE_FRAMER_H
#define CAPTURE_FRAMER_H

#include <glib.h>

typedef enum { FRAMER_UNKNOWN, FRAMER_PCAP, FRAMER_PCAPNG, FRAMER_OPAQUE } ms_framer_kind_t;

typedef struct {
    ms_framer_kind_t kind;
    gboolean swapped;        /* the other byte order than this machine's */
    gboolean header_done;    /* pcap: its file header went by */
    guint64  frames;         /* pcap records or pcapng packet blocks seen whole */
    GByteArray *header;      /* what a new reader needs before the next record: the pcap file
                                header, or the section's blocks that are not packets (SHB, IDBs...) */
} ms_framer_t;

void  ms_framer_clear(ms_framer_t *f);

/* Of the len bytes at data (the stream not yet handed on, from a record's
 * start), how many make whole records, up to the frame that makes frames
 * stop_at (0: no limit). A stream that is neither pcap nor pcapng
 * (compressed, say) is passed on as it comes (FRAMER_OPAQUE: all of it). */
gsize ms_framer_whole(ms_framer_t *f, const guint8 *data, gsize len, guint64 stop_at);

#endif
