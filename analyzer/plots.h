/* plots.h: the analyser's SVG plots (progress, time split, rate by SZX).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PLOTS_H
#define PLOTS_H

#include "report.h"

/* Writes the plots into dir (created if needed); returns the files written
 * (NULL-terminated, g_strfreev), or NULL with *err set. */
char **ms_plots_write(const char *dir, ms_analysis_t *a, guint n, GError **err);

#endif
