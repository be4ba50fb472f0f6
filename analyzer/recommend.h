/* recommend.h: predicts a transfer's effective rate for every block size
 * from what one capture measured, and picks the best (docs/recommendation.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RECOMMEND_H
#define RECOMMEND_H

#include "transfer.h"

#define MS_SZX_MAX 6

typedef struct {
    /* inputs, measured on the transfer */
    guint32 transfer, block_size;
    double  exchange_loss;       /* (retransmissions + re-requests) / requests */
    double  response_frames;     /* frames of a complete response datagram */
    double  block_overhead;      /* bytes a response adds to its block on air, besides MAC and FRAG headers */
    double  request_loss;        /* request datagram copies lost / sent (a download's: single frames) */
    double  first_frame_loss;    /* response copies lost at their first frame / response copies */
    double  later_frame_loss;    /* response copies lost later / frames after the first; < 0 if none */
    double  added_frame_loss;    /* what one more frame in a response adds: later_frame_loss or request_loss */
    gboolean added_from_later;   /* it is later_frame_loss (responses of 3 frames or more, one lost later) */
    double  hops;                /* copies of a request per transmission: each added frame crosses them all */
    double  air_s, network_s, turnaround_s, timeouts_s;   /* per block */
    double  timeout_s;           /* mean first CoAP timeout that fits the measured waits */
    double  flash_s_per_byte;    /* assumed */
    /* outputs */
    double  rate_Bps[MS_SZX_MAX + 1];
    double  exchange_fail[MS_SZX_MAX + 1];
    guint   best_szx;
} ms_recommendation_t;

/* The transfer a capture's recommendation is made from: the complete
 * download (else upload, else any) with the most bytes; NULL if none has
 * a block yet. */
const ms_transfer_t *ms_recommend_basis(const ms_capture_t *c);
gboolean ms_recommend(const ms_transfer_t *x, double flash_s_per_byte, ms_recommendation_t *out);
/* 6LoWPAN frames for a response carrying a block of block_size bytes with
 * overhead bytes of compressed headers and CoAP besides it. */
guint    ms_frames_for_block(guint32 block_size, double overhead);

#endif
