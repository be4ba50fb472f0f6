/* recommend.h: predicts a transfer's effective rate for every block size
 * from what one capture measured, and picks the best (docs/recommendation.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RECOMMEND_H
#define RECOMMEND_H

#include "transfer.h"

#define MS_SZX_MAX 6

/* Where the model's turn-around growth with the block size came from. */
typedef enum {
    MS_TURN_MEASURED,            /* several block sizes of the same kind in the capture */
    MS_TURN_BOUNDED,             /* the measured turn-around is less than the assumption allows */
    MS_TURN_ASSUMED,             /* the assumed flash write time (downloads) */
    MS_TURN_NONE,                /* an upload with one block size: the meter writes nothing */
} ms_turn_source_t;

typedef struct {
    /* inputs, measured on the transfer */
    guint32 transfer, block_size;
    gboolean upload;             /* Block1: the requests carry the blocks */
    double  exchange_loss;       /* (retransmissions + re-requests) / requests */
    double  block_frames;        /* frames of a complete copy of the direction carrying the block */
    double  other_frames;        /* frames of a complete copy of the other direction */
    double  frame_room;          /* bytes a frame has for 6LoWPAN (116, or what the FRAGNs show) */
    double  fragn_data;          /* data a FRAGN carries */
    double  block_overhead;      /* bytes a block's datagram adds to it on air, besides MAC and FRAG headers */
    double  frag1_block_bytes;   /* of a fragmented block, the bytes its FRAG1 carries (< 0: none seen) */
    double  request_loss;        /* request datagram copies lost / sent */
    double  first_frame_loss;    /* response copies lost at their first frame / response copies */
    double  later_frame_loss;    /* response copies lost later / frames after the first; < 0 if none */
    double  added_frame_loss;    /* what one more frame in a block's datagram adds */
    const char *added_from;      /* "later_frames", "requests" or "request_frames" */
    double  hops;                /* copies of a request per transmission: each added frame crosses them all */
    /* The loss of a frame after the first by its place p in the train (the
     * first is 0): q(p) = train_loss + train_growth p, on each hop. */
    double  train_loss;          /* q at place 0: the fit's intercept, else the added frame's loss */
    double  train_growth;        /* per place further; 0 where the capture cannot tell */
    double  train_growth_low, train_growth_high;   /* the range the evidence allows */
    gboolean train_growth_measured;   /* fitted on the middle fragments' places, else assumed 0 */
    double  middle_frames, middle_lost;   /* the fit's evidence: middle fragments sent, lost */
    double  last_frame_loss;     /* last fragments lost / sent; < 0 if none */
    double  fatal_share;         /* failed exchanges / lost datagram copies, at most 1 */
    double  train_hops;          /* hops x fatal_share: what a frame's loss on one hop costs the exchange */
    double  air_s, network_s, poll_s, turnaround_s, timeouts_s;   /* per block; timeouts with the unseen */
    double  frame_s;             /* what one more frame adds to an exchange */
    gboolean frame_s_measured;   /* from the clean exchanges' spans, else assumed */
    double  turn_s_per_byte;     /* how the turn-around grows with the block size */
    ms_turn_source_t turn_source;
    guint   turn_sizes;          /* block sizes it was measured on (MS_TURN_MEASURED) */
    double  timeout_s;           /* mean first CoAP timeout that fits the measured waits */
    double  flash_s_per_byte;    /* the assumption, used only where turn_source says so */
    double  size_bytes;          /* the image's size, for durations (< 0: not known) */
    /* outputs */
    double  rate_Bps[MS_SZX_MAX + 1];
    double  rate_low_Bps[MS_SZX_MAX + 1], rate_high_Bps[MS_SZX_MAX + 1];   /* over the growth's range */
    double  duration_s[MS_SZX_MAX + 1];   /* < 0 without a size */
    double  exchange_fail[MS_SZX_MAX + 1];
    guint   best_szx;
    /* Why the predictions could not be computed (an input or a figure of
     * the model that is not a finite number); "" when they were. Then the
     * outputs are zeros and not to be shown. */
    char    not_computed[128];
} ms_recommendation_t;

/* The transfer a capture's recommendation is made from: the complete
 * download (else upload, else any) with the most bytes; NULL if none has
 * a block or frames on the radio yet. */
const ms_transfer_t *ms_recommend_basis(const ms_capture_t *c);
/* The model for transfer x of capture c (whose other transfers of the same
 * meter and kind at other block sizes tell how the turn-around grows). */
gboolean ms_recommend(const ms_capture_t *c, const ms_transfer_t *x, double flash_s_per_byte,
                      ms_recommendation_t *out);
/* 6LoWPAN frames for a datagram carrying a block of block_size bytes, cut
 * as r says: from what the FRAG1s and FRAGNs carried where the capture
 * shows fragmented blocks, else from the frame room and the overhead. */
guint    ms_frames_for_block(guint32 block_size, const ms_recommendation_t *r);
const char *ms_turn_source_name(ms_turn_source_t s);
/* Why the recommended size: its frames, its exchange loss and its rate
 * against the measured size's. */
void     ms_recommend_why(const ms_recommendation_t *r, char *buf, gsize size);
/* Expected time waiting for CoAP timeouts per block when each exchange
 * fails with probability f and the first timeout is timeout seconds
 * (RFC 7252's doubling, MAX_RETRANSMIT 4, then a new exchange). */
double   ms_expected_wait(double f, double timeout);

#endif
