/* options.h: meterscope's command line, parsed into one record that the
 * driver hands to the mode it runs (main.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef OPTIONS_H
#define OPTIONS_H
#include <glib.h>
#include "report.h"
#include "tshark_runner.h"

typedef struct {
    char     *format, *output, *plot, *key, *meter, *filter, *tshark, *plugin, *iface;
    char    **prefs, **files, **vantages;
    int       stall;          /* seconds; -1: the plugin's preference */
    int       jobs;           /* captures at once; 0: the number of cores */
    double    restart_after;  /* --live-restart-after's frames; 0: never */
    double    flash_us;       /* per byte, for the block-size model */
    gboolean  live, progress, no_progress, quiet, version;
    ms_format_t fmt;          /* format, once checked */
} ms_options_t;

/* The defaults (before parsing). */
void  ms_options_init(ms_options_t *o);
/* Frees what parsing allocated; o is then as ms_options_init left it. */
void  ms_options_clear(ms_options_t *o);
/* Parses the command line into o: NULL, or the usage error to print. */
char *ms_options_parse(ms_options_t *o, int *argc, char ***argv);
/* Options that cannot work together: NULL (and o->fmt set), or why not. */
char *ms_options_check(ms_options_t *o);
/* The preferences tshark gets for the report (-O, --key, --stall). */
void  ms_options_tshark_prefs(const ms_options_t *o, ms_tshark_t *t);

#endif
