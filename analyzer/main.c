/* main.c: `meterscope CAPTURE...`: runs tshark with the meterscope plugin
 * on each capture (several at once), and reports every block-wise transfer,
 * where its time went and which block size to use.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "interrupt.h"
#include "live.h"
#include "number_option.h"
#include "output_sink.h"
#include "pair_run.h"
#include "plots.h"
#include "progress.h"
#include "quoted.h"
#include "report.h"
#include "tshark_runner.h"

#ifndef METERSCOPE_VERSION
#define METERSCOPE_VERSION "0.0.0"
#endif

static char *opt_format = NULL, *opt_output = NULL, *opt_plot = NULL, *opt_key = NULL, *opt_meter = NULL;
static char *opt_filter = NULL, *opt_tshark = NULL, *opt_plugin = NULL, *opt_iface = NULL;
static char **opt_prefs = NULL, **opt_files = NULL, **opt_vantages = NULL;
static int opt_stall = -1, opt_jobs = 0;   /* -1: the plugin's preference */
static double opt_restart_after = 0;
static double opt_flash_us = 150;
static gboolean opt_live = FALSE;
static gboolean opt_progress = FALSE, opt_no_progress = FALSE, opt_quiet = FALSE, opt_version = FALSE;

/* The numeric options and the ranges they accept (docs/analyser.md): a
 * whole one goes into an int, a real one into a double. */
static const struct {
    ms_number_option_t range;
    const char        *short_name;   /* "-j", or NULL */
    int               *whole;
    double            *real;
} number_options[] = {
    { { "--stall", 1, 86400, TRUE, "seconds" }, NULL, &opt_stall, NULL },
    { { "--jobs", 1, 1024, TRUE, "captures at once" }, "-j", &opt_jobs, NULL },
    { { "--flash-us-per-byte", 0, 10000, FALSE, "microseconds per byte" }, NULL, NULL, &opt_flash_us },
    { { "--live-restart-after", 1000, 1e12, TRUE, "frames" }, NULL, NULL, &opt_restart_after },
};

/* GOption's callback for each of them (name: "--stall" or "-j"). */
static gboolean set_number_option(const char *name, const char *text, gpointer data, GError **err)
{
    (void)data;
    for (guint i = 0; i < G_N_ELEMENTS(number_options); i++) {
        double v;
        if (strcmp(name, number_options[i].range.name) != 0 && g_strcmp0(name, number_options[i].short_name) != 0)
            continue;
        if (!ms_number_option_parse(&number_options[i].range, text, &v, err))
            return FALSE;
        if (number_options[i].whole)
            *number_options[i].whole = (int)v;
        else
            *number_options[i].real = v;
        return TRUE;
    }
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "%s is not a numeric option", name);
    return FALSE;
}

static const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &opt_format, "Report format: table (default), csv or json; with --live also jsonl (the events as JSON lines, the report as JSON)", "FORMAT" },
    { "live", 0, 0, G_OPTION_ARG_NONE, &opt_live, "Follow one capture as it is written (- for standard input, a FIFO, a growing file, or -i): a line per transfer on a terminal, else a JSON line per event; the report at the end of input or at Ctrl-C", NULL },
    { "live-restart-after", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "With --live: a new tshark takes over after this many frames, once no transfer is going on (at twice as many whatever), so that its memory starts again; the report then has a part per tshark (1000 to 1e12)", "FRAMES" },
    { "interface", 'i', 0, G_OPTION_ARG_STRING, &opt_iface, "With --live: capture on this interface (through dumpcap, with its permissions)", "IFACE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output, "Write the report to FILE (default: standard output)", "FILE" },
    { "plot", 0, 0, G_OPTION_ARG_FILENAME, &opt_plot, "Write SVG plots into DIR", "DIR" },
    { "key", 'k', 0, G_OPTION_ARG_STRING, &opt_key, "Thread network key (32 hex digits), for secured captures", "KEY" },
    { "meter", 'm', 0, G_OPTION_ARG_STRING, &opt_meter, "Only the transfers of this meter (IPv6 address)", "ADDR" },
    { "display-filter", 'Y', 0, G_OPTION_ARG_STRING, &opt_filter, "Only transfers with a frame matching this Wireshark display filter (tshark then reads each capture twice, -2, so that fields set by later frames match too)", "FILTER" },
    { "stall", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "A silence longer than this is a stall (1 to 86400, default 10)", "SECONDS" },
    { "jobs", 'j', 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "Captures analysed at once (1 to 1024, default: the number of cores)", "N" },
    { "pref", 'O', 0, G_OPTION_ARG_STRING_ARRAY, &opt_prefs, "A Wireshark preference for tshark -o, e.g. 6lowpan.context0:fd00::/64 (repeatable)", "NAME:VALUE" },
    { "flash-us-per-byte", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "The meter's flash write time per byte, for the block-size model (0 to 10000, default 150)", "US" },
    { "vantage", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_vantages, "Two captures of the same network, paired message by message: radio=FILE (the sniffer's) and gateway=FILE (the gateway's Ethernet); both given", "NAME=FILE" },
    { "tshark", 0, 0, G_OPTION_ARG_FILENAME, &opt_tshark, "The tshark to run (default: $TSHARK, else tshark in PATH)", "PATH" },
    { "plugin", 0, 0, G_OPTION_ARG_FILENAME, &opt_plugin, "The meterscope.so to load (default: $METERSCOPE_PLUGIN, the build tree, the installed one)", "PATH" },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &opt_progress, "Show a progress bar on standard error (default on a terminal)", NULL },
    { "no-progress", 0, 0, G_OPTION_ARG_NONE, &opt_no_progress, "Never show the progress bar", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Print errors only (no progress, no notes)", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version, "Show the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_files, NULL, "CAPTURE..." },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
};

typedef struct {
    const ms_tshark_t  *tshark;
    ms_job_progress_t  *progress;
    ms_capture_t       *capture;
    ms_run_status_t     status;
    gboolean            skipped;  /* the file was not a capture */
    char               *message;
} job_t;

/* The main thread waits for the jobs in a main loop: there it draws the
 * progress and handles a signal (interrupt.c). */
typedef struct {
    GMainLoop         *loop;
    guint              running;   /* jobs not finished yet */
    ms_job_progress_t *progress;
    guint              n;
} waiting_t;

static gboolean job_finished(gpointer data)
{
    waiting_t *w = data;

    if (--w->running == 0)
        g_main_loop_quit(w->loop);
    return G_SOURCE_REMOVE;
}

static gboolean draw_progress(gpointer data)
{
    waiting_t *w = data;

    ms_progress_draw(w->progress, w->n);
    return G_SOURCE_CONTINUE;
}

static void run_job(gpointer data, gpointer user_data)
{
    job_t *j = data;

    /* One read whatever the stamps: the plugin times the frames it read
     * before they told what they mark as soon as they do (core/ota_track.h). */
    j->status = ms_tshark_run(j->tshark, j->capture->file, j->capture, &j->progress->pid, &j->message);
    g_atomic_int_set(&j->progress->done, 1);
    g_idle_add(job_finished, user_data);
}

static gboolean valid_key(const char *key)
{
    if (strlen(key) != 32)
        return FALSE;
    for (const char *p = key; *p; p++)
        if (!g_ascii_isxdigit(*p))
            return FALSE;
    return TRUE;
}

/* fmt's "%s" filled with text fit for a message (quoted.h). */
static char *quoting(const char *fmt, const char *text)
{
    char *quoted = ms_quoted(text);
    char *message = g_strdup_printf(fmt, quoted);

    g_free(quoted);
    return message;
}

/* Options that cannot work: a message, else NULL. */
static char *check_options(ms_format_t *fmt)
{
    if (!opt_format || strcmp(opt_format, "table") == 0)
        *fmt = FMT_TABLE;
    else if (strcmp(opt_format, "csv") == 0)
        *fmt = FMT_CSV;
    else if (strcmp(opt_format, "json") == 0 || (opt_live && strcmp(opt_format, "jsonl") == 0))
        *fmt = FMT_JSON;
    else
        return quoting(opt_live ? "unknown format '%s' (table, csv, json or jsonl)"
                                : "unknown format '%s' (table, csv or json; jsonl with --live)", opt_format);
    guint n_files = opt_files ? g_strv_length(opt_files) : 0;
    if (opt_vantages) {
        if (n_files)
            return g_strdup("with --vantage, give every capture as --vantage NAME=FILE, none on its own");
        if (opt_plot || opt_filter || opt_meter)
            return g_strdup("--plot, --display-filter and --meter are not for --vantage (the pairing report)");
        if (opt_live || opt_iface || opt_restart_after)
            return g_strdup("--live, -i and --live-restart-after are not for --vantage (the pairing report)");
        return ms_pair_check_args(opt_vantages);
    }
    if (opt_iface && !opt_live)
        return g_strdup("-i wants --live");
    if (opt_live && (n_files + (opt_iface != NULL) != 1))
        return g_strdup("--live follows one capture: - (standard input), a file or FIFO, or -i IFACE");
    if (opt_restart_after && !opt_live)
        return g_strdup("--live-restart-after wants --live");
    if (opt_live && opt_filter)
        return g_strdup("--live cannot take --display-filter: it needs a second pass over the capture");
    if (!n_files && !opt_live)
        return g_strdup("no capture file given (try --help)");
    if (opt_key && !valid_key(opt_key))
        return g_strdup("--key wants the Thread network key as 32 hex digits");
    if (opt_meter && !g_hostname_is_ip_address(opt_meter))
        return quoting("--meter wants the meter's IPv6 address, not '%s'", opt_meter);
    return NULL;
}

static void add_prefs(ms_tshark_t *t)
{
    /* The report needs the statistics, not CoAP's display, and unless a
     * display filter makes tshark read the capture twice, no frame records
     * for a later pass (first, so that a -O of the user's comes later and
     * wins). */
    g_ptr_array_add(t->prefs, g_strdup("meter.coap_decode:FALSE"));
    if (!opt_filter)
        g_ptr_array_add(t->prefs, g_strdup("meter.frame_records:FALSE"));
    for (guint i = 0; opt_prefs && opt_prefs[i]; i++)
        g_ptr_array_add(t->prefs, g_strdup(opt_prefs[i]));
    if (opt_key)
        g_ptr_array_add(t->prefs, g_strdup_printf("uat:ieee802154_keys:\"%s\",\"1\",\"Thread hash\"", opt_key));
    if (opt_stall > 0)
        g_ptr_array_add(t->prefs, g_strdup_printf("meter.ota.stall_seconds:%d", opt_stall));
}

static int bigger_first(const void *a, const void *b)
{
    const job_t *x = *(job_t *const *)a, *y = *(job_t *const *)b;
    return (x->progress->size < y->progress->size) - (x->progress->size > y->progress->size);
}

static void run_all(job_t *jobs, ms_job_progress_t *progress, guint n, gboolean show_progress)
{
    /* No more threads than captures: an exclusive pool starts them all at once. */
    guint threads = MIN(opt_jobs ? (guint)opt_jobs : g_get_num_processors(), n);
    waiting_t w = { g_main_loop_new(NULL, FALSE), 0, progress, n };
    GThreadPool *pool = g_thread_pool_new(run_job, &w, (gint)MAX(threads, 1), TRUE, NULL);
    guint drawing = 0;

    /* Biggest capture first: the longest job starts at once, the small ones
     * fill the other threads (the report keeps the command line's order). */
    job_t **order = g_new(job_t *, n);
    for (guint i = 0; i < n; i++)
        order[i] = &jobs[i];
    qsort(order, n, sizeof(job_t *), bigger_first);
    for (guint i = 0; i < n; i++)
        if (!order[i]->skipped) {
            w.running++;
            g_thread_pool_push(pool, order[i], NULL);
        }
    g_free(order);
    if (show_progress) {
        ms_progress_draw(progress, n);
        drawing = g_timeout_add(200, draw_progress, &w);
    }
    if (w.running)
        g_main_loop_run(w.loop);
    if (show_progress) {
        g_source_remove(drawing);
        ms_progress_clear();
    }
    g_thread_pool_free(pool, FALSE, TRUE);
    g_main_loop_unref(w.loop);
}

/* Requests and not one answer in the whole capture: the sign of addresses
 * decompressed differently one way and the other (an unknown context). */
static gboolean no_answer_matched(const ms_capture_t *c)
{
    for (guint i = 0; i < c->transfers->len; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        if (x->rec.blocks || x->rec.rtt_first_median_s >= 0)
            return FALSE;
    }
    return c->transfers->len > 0;
}

/* What the plugin could not take of the capture's timestamps (its C record). */
static void note_timestamps(const char *file, const ms_counts_t *c)
{
    if (c->timestamps_zero)
        ms_say("%s: note: %u of %u frames are stamped 0 (1970-01-01): the capture may carry no times; "
              "durations and rates from them are 0", file, c->timestamps_zero, c->frames);
    if (c->timestamps_earlier)
        ms_say("%s: note: %u frames are stamped earlier than an earlier frame (a clock set back, or captures "
              "appended out of order): they were timed at the latest time before them, so durations across them "
              "are short (meter.time.earlier)", file, c->timestamps_earlier);
    if (c->timestamps_out_of_range)
        ms_say("%s: note: %u frames are stamped before 1970 or after 9999: their times were not used "
              "(meter.time.out_of_range)", file, c->timestamps_out_of_range);
    /* The plugin retimes what it read before the stamps told, unless they
     * told only after thousands of frames (core/ota_track.c, "one read"). */
    if (c->timestamps && strcmp(c->timestamps, "start") == 0 && c->timestamp_early_messages > 0)
        ms_say("%s: note: the stamps mark frame starts, which the capture told only after %u messages had been "
              "timed as if they marked their ends; for exact times give -O meter.ota.timestamps:start", file,
              c->timestamp_early_messages);
}

/* Reports what went wrong with each capture; returns the exit status. */
/* The security suites of the frames that stayed encrypted, from the C
 * record's bit sets: "ENC-MIC-32, key id mode 1". */
static char *suites_seen(const ms_counts_t *c)
{
    static const char *const levels[8] = { "no security", "MIC-32", "MIC-64", "MIC-128", "ENC",
                                           "ENC-MIC-32", "ENC-MIC-64", "ENC-MIC-128" };
    GString *s = g_string_new("802.15.4 security ");

    for (guint i = 0, n = 0; i < 8; i++)
        if (c->undecrypted_levels & (1u << i))
            g_string_append_printf(s, "%s%s", n++ ? "/" : "", levels[i]);
    g_string_append(s, ", key id mode ");
    for (guint i = 0, n = 0; i < 4; i++)
        if (c->undecrypted_key_id_modes & (1u << i))
            g_string_append_printf(s, "%s%u", n++ ? "/" : "", i);
    return g_string_free(s, FALSE);
}

/* A capture with frames that stayed encrypted and no transfer: what to do.
 * Only Thread's MAC security (key id mode 1) takes --key. */
static const char *key_hint(const ms_counts_t *c)
{
    if (!(c->undecrypted_key_id_modes & (1u << 1)))
        return "not Thread's MAC security (key id mode 1), so --key cannot decrypt it: give its key in "
               "Wireshark's 802.15.4 key table (-O uat:ieee802154_keys:...)";
    return opt_key ? "is --key the network key of this capture?" : "give the Thread network key with --key";
}

static int check_results(job_t *jobs, guint n)
{
    int status = MS_EXIT_REPORT;

    for (guint i = 0; i < n; i++) {
        job_t *j = &jobs[i];
        const ms_counts_t *c = &j->capture->counts;
        if (j->message)
            ms_say("%s", j->message);
        if (j->skipped || j->status == RUN_INPUT_ERROR)
            status = MAX(status, MS_EXIT_INPUT);
        else if (j->status == RUN_USAGE_ERROR)
            status = MAX(status, MS_EXIT_USAGE);
        else if (j->status == RUN_TSHARK_ERROR)
            status = MS_EXIT_TSHARK;
        if (j->status == RUN_OK && !opt_quiet)
            note_timestamps(j->capture->file, c);
        if (j->status == RUN_OK && !opt_quiet && no_answer_matched(j->capture))
            ms_say("%s: note: no response matched any request; if the meters' addresses are compressed "
                  "with a 6LoWPAN context, give its prefix with -O 6lowpan.contextN:PREFIX/64",
                  j->capture->file);
        if (j->status != RUN_OK)
            continue;
        /* No transfer is a finding; frames that stayed encrypted may have
         * hidden them (a wrong key gives payloads that do not read as
         * 6LoWPAN, so they count as not decrypted), which is an input error. */
        if (!j->capture->transfers->len && c->undecrypted_frames) {
            char *suites = suites_seen(c);
            ms_say("%s: %u of %u secured frames not decrypted (%s) and no transfer found: %s", j->capture->file,
                  c->undecrypted_frames, c->secured_frames, suites, key_hint(c));
            g_free(suites);
            status = MAX(status, MS_EXIT_INPUT);
        } else if (!j->capture->transfers->len) {
            if (!opt_quiet)
                ms_say("%s: no block-wise transfer found%s", j->capture->file,
                      opt_meter || opt_filter ? " that --meter and --display-filter keep" : "");
        } else if (c->undecrypted_frames && !opt_quiet) {
            ms_say("%s: note: %u of %u secured frames could not be decrypted; transfers in them are missing",
                  j->capture->file, c->undecrypted_frames, c->secured_frames);
        }
    }
    return status;
}

static gboolean write_report(ms_format_t fmt, ms_analysis_t *a, guint n)
{
    FILE *out = ms_output_open(opt_output);

    if (!out)
        return FALSE;
    if (fmt == FMT_CSV)
        ms_report_csv(out, a, n);
    else if (fmt == FMT_JSON)
        ms_report_json(out, a, n);
    else
        ms_report_table(out, a, n);
    return ms_output_close(out, opt_output);
}

static void write_plots(ms_analysis_t *a, guint n, int *status)
{
    GError *err = NULL;
    char **files = ms_plots_write(opt_plot, a, n, &err);

    if (!files) {
        ms_say("plots: %s", err->message);
        g_error_free(err);
        *status = MAX(*status, MS_EXIT_INPUT);
        return;
    }
    if (!opt_quiet)
        ms_say("plots written to %s: %u files", opt_plot, g_strv_length(files));
    g_strfreev(files);
}

int main(int argc, char **argv)
{
    GOptionContext *ctx = g_option_context_new("- block-wise transfer reports from sniffer captures");
    GError *err = NULL;
    ms_format_t fmt = FMT_TABLE;
    ms_tshark_t tshark = { 0 };
    int status;

    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx,
        "Runs tshark with the meterscope plugin on each capture (pcap or pcapng, or compressed as the installed\n"
        "tshark reads it: gzip, zstd, lz4; the link-layer numbers\n"
        "need link type 195, 230, 283 or ZEP v2) and reports every CoAP block-wise transfer: blocks, bytes, rate, repeats, fragment loss,\n"
        "where the time went, and the block size to use (docs/field-guide.md).\n\n"
        "Exit status: 0 report written, 1 usage error, 2 input error (missing, unreadable, truncated\n"
        "or non-capture file; partial results are still printed), 3 tshark or plugin problem,\n"
        "128+N stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP: every tshark stopped, no report).\n"
        "With --live the first signal ends the input and the report is written; a second one stops as above.");
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        /* GOption's message names the argument as given: one line, cut. */
        char *message = ms_printable(err->message, 200);
        ms_say("%s (try --help)", message);
        g_free(message);
        g_error_free(err);
        g_option_context_free(ctx);
        return MS_EXIT_USAGE;
    }
    g_option_context_free(ctx);
    if (opt_version) {
        printf("meterscope " METERSCOPE_VERSION "\n");
        return MS_EXIT_REPORT;
    }
    char *bad = check_options(&fmt);
    if (bad) {
        ms_say("%s", bad);
        g_free(bad);
        return MS_EXIT_USAGE;
    }
    /* From the first tshark on: a signal stops every one, removes the temporaries, writes no report. */
    ms_interrupt_catch();
    if (!ms_tshark_setup(&tshark, opt_tshark, opt_plugin, opt_filter, &err)) {
        ms_say("%s", err->message);
        g_error_free(err);
        ms_tshark_cleanup(&tshark);
        return MS_EXIT_TSHARK;
    }
    add_prefs(&tshark);
    if (opt_vantages) {
        status = ms_pair_run(&tshark, opt_vantages, fmt, opt_output, opt_quiet);
        ms_tshark_cleanup(&tshark);
        return status;
    }
    guint n = opt_live ? 1 : g_strv_length(opt_files);
    job_t *jobs = g_new0(job_t, n);
    ms_job_progress_t *progress = g_new0(ms_job_progress_t, n);
    for (guint i = 0; i < n && !opt_live; i++) {
        GStatBuf st;
        jobs[i] = (job_t){ &tshark, &progress[i], ms_capture_new(opt_files[i]), RUN_OK, FALSE, NULL };
        progress[i] = (ms_job_progress_t){ .file = opt_files[i], .size = g_stat(opt_files[i], &st) == 0 ? st.st_size : 0,
                                           .passes = tshark.two_pass ? 2 : 1 };
        if (!ms_capture_file_ok(opt_files[i], &jobs[i].message)) {
            jobs[i].skipped = TRUE;
            progress[i].done = 1;
        }
    }
    if (opt_live) {
        ms_live_options_t live = { opt_iface ? NULL : opt_files[0], opt_iface,
                                   isatty(STDOUT_FILENO) && strcmp(opt_format ? opt_format : "", "jsonl") != 0
                                       ? MS_LIVE_TERMINAL : MS_LIVE_JSONL,
                                   opt_stall > 0 ? opt_stall : 10, (guint64)opt_restart_after };
        GPtrArray *parts = g_ptr_array_new();
        char *message = NULL;
        ms_run_status_t live_status = ms_live_run(&tshark, &live, parts, &message);
        if (!parts->len)
            g_ptr_array_add(parts, ms_capture_new(opt_iface ? opt_iface : opt_files[0]));
        /* A job per part: the report's captures; the last run's status and message are the last part's. */
        g_free(jobs);
        g_free(progress);
        n = parts->len;
        jobs = g_new0(job_t, n);
        progress = g_new0(ms_job_progress_t, n);
        for (guint i = 0; i < n; i++)
            jobs[i] = (job_t){ &tshark, &progress[i], g_ptr_array_index(parts, i), RUN_OK, FALSE, NULL };
        jobs[n - 1].status = live_status;
        jobs[n - 1].message = message;
        g_ptr_array_free(parts, TRUE);
    } else {
        gboolean show = !opt_quiet && !opt_no_progress && (opt_progress || isatty(STDERR_FILENO));
        run_all(jobs, progress, n, show);
    }
    /* Stopped by a signal, the runs' messages would only tell of their stopping. */
    int stop = ms_interrupt_signal();
    status = stop ? MS_EXIT_REPORT : check_results(jobs, n);

    /* The report covers every capture that gave records (partial ones too). */
    ms_analysis_t *a = g_new0(ms_analysis_t, n);
    guint na = 0;
    for (guint i = 0; i < n && !stop; i++) {
        ms_capture_t *c = jobs[i].capture;
        if (jobs[i].skipped || !c->header_seen || jobs[i].status == RUN_TSHARK_ERROR ||
            jobs[i].status == RUN_USAGE_ERROR)
            continue;
        if (opt_meter)
            ms_capture_keep_meter(c, opt_meter);
        a[na].capture = c;
        a[na].has_recommendation = ms_recommend(c, ms_recommend_basis(c), opt_flash_us * 1e-6, &a[na].recommendation);
        na++;
    }
    /* The -o file is opened only here: a signal before leaves it as it was. */
    if (na && status != MS_EXIT_USAGE && status != MS_EXIT_TSHARK && !(stop = ms_interrupt_commit())) {
        if (!write_report(fmt, a, na))
            status = MAX(status, MS_EXIT_INPUT);
        else if (opt_plot)
            write_plots(a, na, &status);
    }
    if (stop) {
        ms_say("stopped by %s: the tshark runs were ended, no report written", ms_interrupt_name(stop));
        status = 128 + stop;
    }

    for (guint i = 0; i < n; i++) {
        ms_capture_free(jobs[i].capture);
        g_free(jobs[i].message);
    }
    g_free(a);
    g_free(jobs);
    g_free(progress);
    ms_tshark_cleanup(&tshark);
    return status;
}
