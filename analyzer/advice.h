/* advice.h: a transfer's verdict and what to change: the dominant cause of
 * its lost time with its evidence (common/verdict.h), the what-ifs of every
 * knob (whatif.h), and the one sentence that joins them, naming the change
 * the what-ifs show to pay (docs/recommendation.md, "The verdict").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ADVICE_H
#define ADVICE_H

#include "verdict.h"
#include "whatif.h"

typedef struct {
    meter_verdict_t     verdict;
    gboolean            has_model;        /* the what-ifs could be computed */
    ms_recommendation_t model;
    ms_whatifs_t        whatifs;
    const ms_whatif_t  *action;           /* the change the sentence names, in whatifs.changes; NULL: none pays */
    char               *sentence;         /* the verdict, evidence and action: one sentence */
} ms_advice_t;

/* The advice on transfer t of capture c (whose other transfers tell how the
 * turn-around grows with the block size: recommend.h). */
void ms_advise(const ms_capture_t *c, const ms_transfer_t *t, double flash_s_per_byte, ms_advice_t *out);
void ms_advice_clear(ms_advice_t *a);
/* The whole image's time and its range, "4m05s (3m10s-5m40s)" ("never"
 * where the range reaches a size that may never get through). */
char *ms_image_cost_text(const ms_image_cost_t *c);

#endif
