/* report.h: writes the analysis as a table for people, CSV or JSON
 * (docs/analyser.md gives the columns and the JSON schema).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include "transfer.h"
#include "recommend.h"

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } ms_format_t;

#define MS_REPORT_VERSION 2

typedef struct {
    ms_capture_t       *capture;
    gboolean            has_recommendation;
    ms_recommendation_t recommendation;
} ms_analysis_t;

void ms_report_table(FILE *out, ms_analysis_t *a, guint n);
void ms_report_csv(FILE *out, ms_analysis_t *a, guint n);
void ms_report_json(FILE *out, ms_analysis_t *a, guint n);

#endif
