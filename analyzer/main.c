/* main.c: `meterscope CAPTURE...`: runs tshark with the meterscope plugin
 * on each capture (several at once), and reports every block-wise transfer,
 * where its time went and which block size to use. The driver: the
 * options (options.c), tshark found, then the one mode they select.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include "capture_run.h"
#include "interrupt.h"
#include "options.h"
#include "output_sink.h"
#include "pair_run.h"
#include "tshark_runner.h"

#ifndef METERSCOPE_VERSION
#define METERSCOPE_VERSION "0.0.0"
#endif

static gboolean pairing_selected(const ms_options_t *o)
{
    return o->vantages != NULL;
}

static int pairing_run(const ms_options_t *o, const ms_tshark_t *t)
{
    return ms_pair_run(t, o->vantages, o->fmt, o->output, o->quiet);
}

static gboolean live_selected(const ms_options_t *o)
{
    return o->live;
}

static gboolean captures_selected(const ms_options_t *o)
{
    (void)o;
    return TRUE;
}

/* The modes, the first one the options select runs (the last one takes
 * whatever is left). */
static const struct {
    const char *name;
    gboolean  (*selected)(const ms_options_t *o);
    int       (*run)(const ms_options_t *o, const ms_tshark_t *t);
} modes[] = {
    { "pairing", pairing_selected, pairing_run },          /* --vantage: two captures, paired */
    { "live", live_selected, ms_live_report_run },         /* --live: one capture as it is written */
    { "captures", captures_selected, ms_captures_run },    /* each capture read whole */
};

/* The run the options ask for; o is parsed here and cleared by the caller. */
static int run(ms_options_t *o, int *argc, char ***argv)
{
    ms_tshark_t tshark = { 0 };
    GError *err = NULL;
    int status = MS_EXIT_USAGE;

    char *bad = ms_options_parse(o, argc, argv);
    if (bad) {
        ms_say("%s", bad);
        g_free(bad);
        return MS_EXIT_USAGE;
    }
    if (o->version) {
        printf("meterscope " METERSCOPE_VERSION "\n");
        return MS_EXIT_REPORT;
    }
    if ((bad = ms_options_check(o))) {
        ms_say("%s", bad);
        g_free(bad);
        return MS_EXIT_USAGE;
    }
    /* From the first tshark on: a signal stops every one, removes the temporaries, writes no report. */
    ms_interrupt_catch();
    if (!ms_tshark_setup(&tshark, o->tshark, o->plugin, o->filter, &err)) {
        ms_say("%s", err->message);
        g_error_free(err);
        ms_tshark_cleanup(&tshark);
        return MS_EXIT_TSHARK;
    }
    ms_options_tshark_prefs(o, &tshark);
    for (guint i = 0; i < G_N_ELEMENTS(modes); i++)
        if (modes[i].selected(o)) {
            status = modes[i].run(o, &tshark);
            break;
        }
    ms_tshark_cleanup(&tshark);
    return status;
}

int main(int argc, char **argv)
{
    ms_options_t o;
    int status;

    ms_options_init(&o);
    status = run(&o, &argc, &argv);
    /* The options live on this stack: freed here, or LeakSanitizer sees them lost. */
    ms_options_clear(&o);
    return status;
}
