/* capture_run.c: the transfer report's modes (capture_run.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "capture_run.h"
#include "interrupt.h"
#include "live.h"
#include "output_sink.h"
#include "plots.h"
#include "progress.h"
#include "report.h"

/* The report's writers by format. */
static void (*const writers[])(FILE *out, ms_analysis_t *a, guint n) = {
    [FMT_TABLE] = ms_report_table,
    [FMT_CSV] = ms_report_csv,
    [FMT_JSON] = ms_report_json,
};

/* One capture's run, on a thread of the pool (or a part of a live run). */
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

static int bigger_first(const void *a, const void *b)
{
    const job_t *x = *(job_t *const *)a, *y = *(job_t *const *)b;
    return (x->progress->size < y->progress->size) - (x->progress->size > y->progress->size);
}

static void run_all(const ms_options_t *o, job_t *jobs, ms_job_progress_t *progress, guint n, gboolean show_progress)
{
    /* No more threads than captures: an exclusive pool starts them all at once. */
    guint threads = MIN(o->jobs ? (guint)o->jobs : g_get_num_processors(), n);
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
     * told only after thousands of frames (core/ota_track_entry.c, "one read"). */
    if (c->timestamps && strcmp(c->timestamps, "start") == 0 && c->timestamp_early_messages > 0)
        ms_say("%s: note: the stamps mark frame starts, which the capture told only after %u messages had been "
              "timed as if they marked their ends; for exact times give -O meter.ota.timestamps:start", file,
              c->timestamp_early_messages);
}

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
static const char *key_hint(const ms_options_t *o, const ms_counts_t *c)
{
    if (!(c->undecrypted_key_id_modes & (1u << 1)))
        return "not Thread's MAC security (key id mode 1), so --key cannot decrypt it: give its key in "
               "Wireshark's 802.15.4 key table (-O uat:ieee802154_keys:...)";
    return o->key ? "is --key the network key of this capture?" : "give the Thread network key with --key";
}

/* Reports what went wrong with each capture; returns the exit status. */
static int check_results(const ms_options_t *o, job_t *jobs, guint n)
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
        if (j->status == RUN_OK && !o->quiet)
            note_timestamps(j->capture->file, c);
        if (j->status == RUN_OK && !o->quiet && no_answer_matched(j->capture))
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
                  c->undecrypted_frames, c->secured_frames, suites, key_hint(o, c));
            g_free(suites);
            status = MAX(status, MS_EXIT_INPUT);
        } else if (!j->capture->transfers->len) {
            if (!o->quiet)
                ms_say("%s: no block-wise transfer found%s", j->capture->file,
                      o->meter || o->filter ? " that --meter and --display-filter keep" : "");
        } else if (c->undecrypted_frames && !o->quiet) {
            ms_say("%s: note: %u of %u secured frames could not be decrypted; transfers in them are missing",
                  j->capture->file, c->undecrypted_frames, c->secured_frames);
        }
    }
    return status;
}

static gboolean write_report(const ms_options_t *o, ms_analysis_t *a, guint n)
{
    FILE *out = ms_output_open(o->output);

    if (!out)
        return FALSE;
    writers[o->fmt](out, a, n);
    return ms_output_close(out, o->output);
}

static void write_plots(const ms_options_t *o, ms_analysis_t *a, guint n, int *status)
{
    GError *err = NULL;
    char **files = ms_plots_write(o->plot, a, n, &err);

    if (!files) {
        ms_say("plots: %s", err->message);
        g_error_free(err);
        *status = MAX(*status, MS_EXIT_INPUT);
        return;
    }
    if (!o->quiet)
        ms_say("plots written to %s: %u files", o->plot, g_strv_length(files));
    g_strfreev(files);
}

/* Once the jobs ran: their messages, the report of every capture that gave
 * records (partial ones too), the plots; frees the jobs. The exit status. */
static int report_jobs(const ms_options_t *o, job_t *jobs, ms_job_progress_t *progress, guint n)
{
    /* Stopped by a signal, the runs' messages would only tell of their stopping. */
    int stop = ms_interrupt_signal();
    int status = stop ? MS_EXIT_REPORT : check_results(o, jobs, n);

    ms_analysis_t *a = g_new0(ms_analysis_t, n);
    guint na = 0;
    for (guint i = 0; i < n && !stop; i++) {
        ms_capture_t *c = jobs[i].capture;
        if (jobs[i].skipped || !c->header_seen || jobs[i].status == RUN_TSHARK_ERROR ||
            jobs[i].status == RUN_USAGE_ERROR)
            continue;
        if (o->meter)
            ms_capture_keep_meter(c, o->meter);
        a[na].capture = c;
        a[na].has_recommendation = ms_recommend(c, ms_recommend_basis(c), o->flash_us * 1e-6, &a[na].recommendation);
        ms_analysis_advise(&a[na], o->flash_us * 1e-6);
        na++;
    }
    /* The -o file is opened only here: a signal before leaves it as it was. */
    if (na && status != MS_EXIT_USAGE && status != MS_EXIT_TSHARK && !(stop = ms_interrupt_commit())) {
        if (!write_report(o, a, na))
            status = MAX(status, MS_EXIT_INPUT);
        else if (o->plot)
            write_plots(o, a, na, &status);
    }
    if (stop) {
        ms_say("stopped by %s: the tshark runs were ended, no report written", ms_interrupt_name(stop));
        status = 128 + stop;
    }

    /* The advice first: clearing it reads its capture's transfers. */
    for (guint i = 0; i < na; i++)
        ms_analysis_clear_advice(&a[i]);
    for (guint i = 0; i < n; i++) {
        ms_capture_free(jobs[i].capture);
        g_free(jobs[i].message);
    }
    g_free(a);
    g_free(jobs);
    g_free(progress);
    return status;
}

int ms_captures_run(const ms_options_t *o, const ms_tshark_t *t)
{
    guint n = g_strv_length(o->files);
    job_t *jobs = g_new0(job_t, n);
    ms_job_progress_t *progress = g_new0(ms_job_progress_t, n);

    for (guint i = 0; i < n; i++) {
        GStatBuf st;
        jobs[i] = (job_t){ t, &progress[i], ms_capture_new(o->files[i]), RUN_OK, FALSE, NULL };
        progress[i] = (ms_job_progress_t){ .file = o->files[i], .size = g_stat(o->files[i], &st) == 0 ? st.st_size : 0,
                                           .passes = t->two_pass ? 2 : 1 };
        if (!ms_capture_file_ok(o->files[i], &jobs[i].message)) {
            jobs[i].skipped = TRUE;
            progress[i].done = 1;
        }
    }
    gboolean show = !o->quiet && !o->no_progress && (o->progress || isatty(STDERR_FILENO));
    run_all(o, jobs, progress, n, show);
    return report_jobs(o, jobs, progress, n);
}

int ms_live_report_run(const ms_options_t *o, const ms_tshark_t *t)
{
    ms_live_options_t live = { o->iface ? NULL : o->files[0], o->iface,
                               isatty(STDOUT_FILENO) && strcmp(o->format ? o->format : "", "jsonl") != 0
                                   ? MS_LIVE_TERMINAL : MS_LIVE_JSONL,
                               o->stall > 0 ? o->stall : 10, (guint64)o->restart_after };
    GPtrArray *parts = g_ptr_array_new();
    char *message = NULL;
    ms_run_status_t live_status = ms_live_run(t, &live, parts, &message);
    if (!parts->len)
        g_ptr_array_add(parts, ms_capture_new(o->iface ? o->iface : o->files[0]));
    /* A job per part: the report's captures; the last run's status and message are the last part's. */
    guint n = parts->len;
    job_t *jobs = g_new0(job_t, n);
    ms_job_progress_t *progress = g_new0(ms_job_progress_t, n);
    for (guint i = 0; i < n; i++)
        jobs[i] = (job_t){ t, &progress[i], g_ptr_array_index(parts, i), RUN_OK, FALSE, NULL };
    jobs[n - 1].status = live_status;
    jobs[n - 1].message = message;
    g_ptr_array_free(parts, TRUE);
    return report_jobs(o, jobs, progress, n);
}
