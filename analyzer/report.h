/* report.h: writes the analysis as a table for people, CSV or JSON
 * (docs/analyser.md gives the columns and the JSON schema).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include "transfer.h"
#include "recommend.h"
#include "advice.h"

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } ms_format_t;

#define MS_REPORT_VERSION 2

typedef struct {
    ms_capture_t       *capture;
    gboolean            has_recommendation;
    ms_recommendation_t recommendation;
    ms_advice_t        *advice;           /* one per transfer, in the capture's order */
} ms_analysis_t;

/* Each transfer's advice (advice.h), and its freeing. */
void ms_analysis_advise(ms_analysis_t *a, double flash_s_per_byte);
void ms_analysis_clear_advice(ms_analysis_t *a);

void ms_report_table(FILE *out, ms_analysis_t *a, guint n);
void ms_report_csv(FILE *out, ms_analysis_t *a, guint n);
void ms_report_json(FILE *out, ms_analysis_t *a, guint n);

#endif
