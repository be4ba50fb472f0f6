/* pair_run.c: the two-vantage mode (pair_run.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include "interrupt.h"
#include "output_sink.h"
#include "pair_run.h"
#include "report_pair.h"
#include "vantage_pair.h"

/* The near vantage point: a sniffer's (radio) or an IP capture on the
 * meter's side (meter); the far one: the gateway's. */
static const char *const names[3] = { "radio", "gateway", "meter" };

static const char *file_of(char **vantages, const char *name)
{
    gsize n = strlen(name);

    for (guint i = 0; vantages[i]; i++)
        if (strncmp(vantages[i], name, n) == 0 && vantages[i][n] == '=')
            return vantages[i] + n + 1;
    return NULL;
}

char *ms_pair_check_args(char **vantages)
{
    guint seen[3] = { 0, 0, 0 };

    for (guint i = 0; vantages[i]; i++) {
        const char *eq = strchr(vantages[i], '=');
        int k = -1;
        for (int j = 0; j < 3 && eq; j++)
            if ((gsize)(eq - vantages[i]) == strlen(names[j]) && strncmp(vantages[i], names[j], eq - vantages[i]) == 0)
                k = j;
        if (k < 0 || !eq[1])
            return g_strdup_printf("--vantage wants radio=FILE, meter=FILE or gateway=FILE, not '%s'", vantages[i]);
        seen[k]++;
    }
    if (seen[0] + seen[2] != 1 || seen[1] != 1)
        return g_strdup_printf("--vantage: give one radio=FILE (the sniffer's capture) or meter=FILE (an IP capture "
                               "on the meter's side) and one gateway=FILE (the gateway's), got %u, %u and %u",
                               seen[0], seen[2], seen[1]);
    return NULL;
}

static gboolean write_out(const char *output, ms_format_t fmt, const ms_vantage_t *r, const ms_vantage_t *g,
                          const ms_pair_t *p)
{
    FILE *out = ms_output_open(output);

    if (!out)
        return FALSE;
    ms_report_pair(out, fmt, r, g, p);
    return ms_output_close(out, output);
}

int ms_pair_run(const ms_tshark_t *t, char **vantages, ms_format_t fmt, const char *output, gboolean quiet)
{
    ms_vantage_t *v[2] = { NULL, NULL };
    int status = MS_EXIT_REPORT, stop;

    for (int k = 0; k < 2 && status == MS_EXIT_REPORT; k++) {
        const char *name = k == 0 && !file_of(vantages, names[0]) ? names[2] : names[k];
        const char *file = file_of(vantages, name);
        char *message = NULL;
        if (!ms_capture_file_ok(file, &message)) {
            ms_say("--vantage %s: %s", name, message);
            g_free(message);
            status = MS_EXIT_INPUT;
            break;
        }
        v[k] = ms_vantage_new(name, file);
        ms_run_status_t run = ms_vantage_read(t, v[k], &message);
        if (message && !ms_interrupt_signal())
            ms_say("--vantage %s: %s", name, message);
        g_free(message);
        if (run != RUN_OK)
            status = run == RUN_INPUT_ERROR ? MS_EXIT_INPUT : run == RUN_USAGE_ERROR ? MS_EXIT_USAGE : MS_EXIT_TSHARK;
    }
    if ((stop = ms_interrupt_signal()))
        goto stopped;
    if (status == MS_EXIT_REPORT) {
        ms_pair_t p;
        char *why = NULL;
        if (!ms_pair_build(v[0], v[1], &p, &why)) {
            ms_say("%s", why);
            status = MS_EXIT_INPUT;
        } else {
            if (!quiet && p.clock.bound_s > 0.5)
                ms_say("note: the clocks are aligned to within +-%.0f ms only: legs shorter than that are not measured",
                    p.clock.bound_s * 1e3);
            if ((stop = ms_interrupt_commit()) == 0 && !write_out(output, fmt, v[0], v[1], &p))
                status = MS_EXIT_INPUT;
        }
        g_free(why);
        ms_pair_clear(&p);
    }
stopped:
    if (stop) {
        ms_say("stopped by %s: the tshark runs were ended, no report written", ms_interrupt_name(stop));
        status = 128 + stop;
    }
    ms_vantage_free(v[0]);
    ms_vantage_free(v[1]);
    return status;
}
