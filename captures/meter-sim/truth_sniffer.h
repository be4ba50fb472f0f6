/* truth_sniffer.h: the truth about what the sniffer did not capture, kept
 * apart from what the channel lost: per capture by kind of frame, per
 * transfer with the copies it affected (docs/ground-truth.md, "Frames not
 * captured").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_SNIFFER_H
#define TRUTH_SNIFFER_H
#include <glib.h>
#include <json-glib/json-glib.h>
#include "world.h"
#include "truth_on_air.h"
#include "truth_xfer.h"

typedef struct sniffer_truth sniffer_truth_t;

sniffer_truth_t *sniffer_truth_new(void);
void             sniffer_truth_free(sniffer_truth_t *st);
/* A frame on the air that the sniffer did not capture, ending at capture
 * time end_us: tx for a data frame, Data Request or broadcast; for an ACK,
 * dg (NULL: a Data Request's) and the sender of the frame it acknowledges. */
void sniffer_truth_frame_missed(sniffer_truth_t *st, const mac_tx_t *tx, gint64 end_us);
void sniffer_truth_ack_missed(sniffer_truth_t *st, const datagram_t *dg, const node_t *acked_sender,
                              gint64 end_us);
/* Adds x's "not_captured" member. */
void sniffer_truth_write_xfer(sniffer_truth_t *st, JsonBuilder *b, const truth_xfer_t *x, on_air_t *oa);
/* Adds the capture's "sniffer" member; frames: on the air, records: in
 * the capture (a radio capture's; the gateway's Ethernet has no frames). */
void sniffer_truth_write(sniffer_truth_t *st, JsonBuilder *b, const sim_params_t *p, guint64 frames,
                         guint64 records);
guint64 sniffer_truth_missed(const sniffer_truth_t *st);

#endif
