/* report_advice.h: the verdicts and the "what to change" section in each
 * report format (report_table.c, report_data.c call these).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef REPORT_ADVICE_H
#define REPORT_ADVICE_H

#include <stdio.h>
#include <json-glib/json-glib.h>
#include "report.h"

/* The table: a verdict per transfer, then what to change for the transfer
 * the block-size recommendation is made from. */
void ms_report_table_advice(FILE *out, const ms_analysis_t *a);
/* The JSON transfer object's "verdict" and "what_to_change" members. */
void ms_report_json_advice(JsonBuilder *b, const ms_advice_t *advice);
/* The CSV's last columns: their names, and a transfer's cells. */
extern const char *const ms_report_csv_advice_columns[];
extern const guint ms_report_csv_advice_n;
char *ms_report_csv_advice_cell(const ms_advice_t *advice, guint column);

#endif
