/* seq_gaps.h: frames a sender sent that the capture lacks, told by the
 * numbers it gave them. IEEE 802.15.4 (7.5.6.1) has every device number
 * its frames from one counter, one after another; a retry keeps its
 * number. A number skipped between two of a sender's frames is a frame the
 * sniffer missed, unless a broadcast captured then carried it (a node's
 * broadcasts come from its extended address, so they are not tied to its
 * short one).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SEQ_GAPS_H
#define SEQ_GAPS_H

#include <glib.h>
#include <epan/wmem_scopes.h>

typedef struct seq_gaps seq_gaps_t;

seq_gaps_t *seq_gaps_new(wmem_allocator_t *scope);
/* A frame that nobody acknowledges (a broadcast) with number seq at ts_us. */
void        seq_gaps_broadcast(seq_gaps_t *g, guint8 seq, gint64 ts_us);
/* Numbers a sender skipped: from, from + 1, ... (n of them), after its
 * frame at since_us; bit i of carried: a broadcast captured since then
 * had number from + i (a frame of the sender's, if nobody acknowledged it). */
typedef struct {
    gint64  since_us;
    guint64 carried;
    guint8  from;
    guint8  n;
} seq_gap_t;

/* A new frame of src (not a retry) with number seq at ts_us: whether src
 * skipped numbers since its latest frame (then *gap says which). A number
 * behind the latest (a parent sending a sleepy child's frame again on its
 * next poll) skips nothing; a jump too long to be misses (a restart, or a
 * long silence) starts again. */
gboolean    seq_gaps_frame(seq_gaps_t *g, guint64 src, guint8 seq, gint64 ts_us, seq_gap_t *gap);

#endif
