/* report_pair.h: the two-vantage report (meterscope --vantage radio=FILE
 * --vantage gateway=FILE) as a table, CSV (one row per message) or JSON
 * (docs/analyser.md, "Two vantage points").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef REPORT_PAIR_H
#define REPORT_PAIR_H
#include <stdio.h>
#include "report.h"
#include "vantage_pair.h"

#define MS_PAIR_REPORT_VERSION 1

void ms_report_pair(FILE *out, ms_format_t fmt, const ms_vantage_t *radio, const ms_vantage_t *gateway,
                    const ms_pair_t *p);

#endif
