/* whatif.h: what each knob a field engineer can turn would do to the whole
 * image: the block size, the sleepy meter's poll period, ACK_TIMEOUT, a
 * gap between blocks, the path's hops. Each change gets the time the image
 * would take (with the range the capture's evidence allows) and what it
 * costs the meter's battery (its frames on the air, its radio-on time),
 * from the per-block model of one transfer (recommend.h). The formulas:
 * docs/recommendation.md, "What if".
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef WHATIF_H
#define WHATIF_H

#include "recommend.h"

typedef enum {
    MS_KNOB_BLOCK_SIZE,
    MS_KNOB_POLL_PERIOD,
    MS_KNOB_ACK_TIMEOUT,
    MS_KNOB_PACING,
    MS_KNOB_HOPS,
} ms_knob_t;

/* The whole image at one setting. */
typedef struct {
    double duration_s, low_s, high_s;   /* the time it takes, and its range (high_s < 0: it may never end) */
    double meter_frames;                /* the meter's frames on the air, sent and received (ACKs and polls too) */
    double radio_on_s;                  /* the meter's radio on, sending or receiving */
    double spurious;                    /* retransmissions sent for nothing */
} ms_image_cost_t;

typedef struct {
    ms_knob_t knob;
    double    value;                    /* SZX, poll period (s), ACK_TIMEOUT (s), gap (s) or hops */
    char      setting[48];              /* "SZX 4 (256-byte blocks)", "poll every 100 ms", ... */
    ms_image_cost_t cost;
    double    saved_s;                  /* the measured setting's duration less this one's (< 0: slower) */
    char      note[200];                /* what the prediction rests on, in words */
} ms_whatif_t;

typedef struct {
    guint32 transfer;
    double  image_bytes;                /* what the predictions are for: the image, else the bytes moved */
    gboolean sleepy;                    /* the meter polled: radio off between its frames */
    double  ack_timeout_s;              /* the meter's ACK_TIMEOUT, measured or RFC 7252's 2 s */
    gboolean ack_timeout_measured;
    ms_image_cost_t now;                /* at the measured settings */
    GArray *changes;                    /* ms_whatif_t, the most time saved first */
} ms_whatifs_t;

/* The what-ifs of transfer t from its model r; FALSE (and nothing to
 * clear) when r has no predictions. */
gboolean ms_whatifs(const ms_transfer_t *t, const ms_recommendation_t *r, ms_whatifs_t *out);
void     ms_whatifs_clear(ms_whatifs_t *w);
const char *ms_knob_name(ms_knob_t k);

#endif
