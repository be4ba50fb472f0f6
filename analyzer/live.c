/* live.c: three strands. A pump thread copies the input into tshark's
 * standard input, whole records at a time (capture_framer.c), following a
 * regular file as it grows; a reader thread reads tshark's output, hands
 * each E record to the main loop and feeds the rest (the final TSV) into
 * the capture; the main loop draws the view, ticks once a second for the
 * wall-clock stalls, and takes the first signal as the end of input.
 * tshark and dumpcap run in process groups of their own, so a Ctrl-C on
 * the terminal reaches meterscope alone, which then lets tshark finish.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include "capture_framer.h"
#include "children.h"
#include "event.h"
#include "interrupt.h"
#include "live.h"

#define FOLLOW_POLL_MS 200    /* a growing file is looked at again this often once its end is reached */
#define PUMP_CHUNK 65536

typedef struct {
    int          src, sink;        /* the input; tshark's standard input */
    gboolean     follow;           /* a regular file: its end is not the end of input */
    int          wake[2];          /* written to stop the pump */
    gboolean     src_failed;
    int          src_errno;
    GMainLoop   *loop;
    ms_live_view_t *view;
    ms_capture_t *capture;
    ms_event_reader_t events;
    GDataInputStream *tshark_out;
    GSubprocess *dumpcap;
    gboolean     stopping;
} live_t;

static live_t *the_live;          /* for the signal's callback */

static void stop_pump(live_t *lv)
{
    if (write(lv->wake[1], "x", 1) < 0) {
        /* The pipe is full: a stop is pending already. */
    }
}

static gboolean write_all(int fd, const guint8 *p, gsize n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return FALSE;
        p += w;
        n -= (gsize)w;
    }
    return TRUE;
}

static gpointer pump(gpointer data)
{
    live_t *lv = data;
    ms_framer_t framer = { 0 };
    GByteArray *pending = g_byte_array_new();
    guint8 *buf = g_malloc(PUMP_CHUNK);
    gboolean at_end = FALSE;

    for (;;) {
        struct pollfd fds[2] = { { lv->wake[0], POLLIN, 0 }, { lv->src, POLLIN, 0 } };
        /* At a growing file's end only the stop is waited for, then the file is read again. */
        int n = poll(fds, at_end ? 1 : 2, at_end ? FOLLOW_POLL_MS : -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || fds[0].revents)
            break;
        if (at_end && !n) {
            at_end = FALSE;
            continue;
        }
        ssize_t got = read(lv->src, buf, PUMP_CHUNK);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0) {
            lv->src_failed = TRUE;
            lv->src_errno = errno;
            break;
        }
        if (got == 0) {
            if (!lv->follow)
                break;
            at_end = TRUE;
            continue;
        }
        g_byte_array_append(pending, buf, (guint)got);
        gsize whole = ms_framer_whole(&framer, pending->data, pending->len);
        if (whole && !write_all(lv->sink, pending->data, whole))
            break;     /* tshark is gone: the reader says why */
        g_byte_array_remove_range(pending, 0, (guint)whole);
    }
    close(lv->sink);   /* tshark's end of input */
    g_free(buf);
    g_byte_array_free(pending, TRUE);
    return NULL;
}

typedef struct {
    live_t *lv;
    meter_event_record_t e;
} event_msg_t;

static gboolean show_event(gpointer data)
{
    event_msg_t *m = data;

    ms_live_view_event(m->lv->view, &m->e);
    meter_record_clear(&meter_event_schema, &m->e);
    g_free(m);
    return G_SOURCE_REMOVE;
}

static gboolean output_ended(gpointer data)
{
    live_t *lv = data;

    stop_pump(lv);
    g_main_loop_quit(lv->loop);
    return G_SOURCE_REMOVE;
}

static gpointer reader(gpointer data)
{
    live_t *lv = data;
    char *line;

    while ((line = g_data_input_stream_read_line(lv->tshark_out, NULL, NULL, NULL))) {
        event_msg_t *m = g_new0(event_msg_t, 1);
        if (ms_event_feed(&lv->events, line, &m->e)) {
            m->lv = lv;
            g_main_context_invoke(NULL, show_event, m);
        } else {
            g_free(m);
            ms_capture_feed(lv->capture, line);
        }
        g_free(line);
    }
    g_main_context_invoke(NULL, output_ended, lv);
    return NULL;
}

static gboolean tick(gpointer data)
{
    ms_live_view_tick(((live_t *)data)->view);
    return G_SOURCE_CONTINUE;
}

/* The first signal: no more input (dumpcap is asked to stop and the pump
 * drains what it wrote), tshark finishes and prints the final records. */
static void end_of_input(int sig)
{
    live_t *lv = the_live;

    (void)sig;
    if (!lv || lv->stopping)
        return;
    lv->stopping = TRUE;
    ms_live_view_say(lv->view, "note", "stopping: the report follows once tshark has read what came (again to abort)");
    if (lv->dumpcap)
        g_subprocess_send_signal(lv->dumpcap, SIGTERM);
    else
        stop_pump(lv);
}

static void own_process_group(gpointer data)
{
    (void)data;
    setpgid(0, 0);
}

static GSubprocessLauncher *launcher(GSubprocessFlags flags, const char *errpath)
{
    GSubprocessLauncher *l = g_subprocess_launcher_new(flags);

    g_subprocess_launcher_set_stderr_file_path(l, errpath);
    g_subprocess_launcher_set_child_setup(l, own_process_group, NULL, NULL);
    return l;
}

/* The input's descriptor: -1 and *message on failure. */
static int open_source(live_t *lv, const ms_live_options_t *o, const ms_tshark_t *t, const char *errpath,
                       char **message)
{
    if (o->iface) {
        char *dir = g_path_get_dirname(t->tshark);
        char *beside = g_build_filename(dir, "dumpcap", NULL);
        char *dumpcap = g_file_test(beside, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup(beside)
                                                                       : g_find_program_in_path("dumpcap");
        const char *argv[] = { dumpcap, "-q", "-i", o->iface, "-w", "-", NULL };
        GError *err = NULL;
        g_free(dir);
        g_free(beside);
        if (!dumpcap) {
            *message = g_strdup("dumpcap not found (it captures for tshark: apt-get install tshark)");
            return -1;
        }
        GSubprocessLauncher *l = launcher(G_SUBPROCESS_FLAGS_STDOUT_PIPE, errpath);
        lv->dumpcap = ms_children_spawn(l, argv, &err);
        g_object_unref(l);
        g_free(dumpcap);
        if (!lv->dumpcap) {
            *message = g_strdup_printf("cannot run dumpcap: %s", err->message);
            g_error_free(err);
            return -1;
        }
        return g_unix_input_stream_get_fd(G_UNIX_INPUT_STREAM(g_subprocess_get_stdout_pipe(lv->dumpcap)));
    }
    if (strcmp(o->source, "-") == 0)
        return STDIN_FILENO;
    int fd = g_open(o->source, O_RDONLY, 0);
    GStatBuf st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *message = g_strdup_printf("%s: %s", o->source, g_strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        *message = g_strdup_printf("%s: a directory, not a capture", o->source);
        close(fd);
        return -1;
    }
    lv->follow = S_ISREG(st.st_mode);
    return fd;
}

/* dumpcap's own words when it could not capture (permissions, no such interface). */
static char *dumpcap_failed(live_t *lv, const char *iface, const char *errpath)
{
    char *text = NULL;

    g_subprocess_wait(lv->dumpcap, NULL, NULL);
    ms_children_forget(lv->dumpcap);
    if (!g_subprocess_get_if_exited(lv->dumpcap) || g_subprocess_get_exit_status(lv->dumpcap) == 0 || lv->stopping)
        return NULL;
    g_file_get_contents(errpath, &text, NULL, NULL);
    char *message = g_strdup_printf("dumpcap could not capture on %s: %s", iface,
                                    text && *g_strstrip(text) ? text : "(no message)");
    g_free(text);
    return message;
}

ms_run_status_t ms_live_run(const ms_tshark_t *t, const ms_live_options_t *o, ms_capture_t *out, char **message)
{
    static const char *const taps[] = { "meter,ota,events", NULL };
    live_t lv = { .src = -1, .sink = -1, .wake = { -1, -1 }, .capture = out };
    char *errpath = NULL, *dumpcap_err = NULL;
    GError *err = NULL;
    ms_run_status_t status = RUN_TSHARK_ERROR;
    GSubprocess *p = NULL;
    GPtrArray *argv = ms_tshark_argv(t, "-", taps);

    *message = NULL;
    int errfd = g_file_open_tmp("meterscope-tshark-XXXXXX.err", &errpath, &err);
    int dfd = errfd >= 0 ? g_file_open_tmp("meterscope-tshark-XXXXXX.err", &dumpcap_err, &err) : -1;
    if (errfd >= 0)
        close(errfd);
    if (dfd >= 0)
        close(dfd);
    if (dfd < 0 || !g_unix_open_pipe(lv.wake, FD_CLOEXEC, &err))
        goto out;
    if ((lv.src = open_source(&lv, o, t, dumpcap_err, message)) < 0) {
        status = RUN_INPUT_ERROR;
        goto out;
    }
    GSubprocessLauncher *l = launcher(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, errpath);
    if (t->plugin_env_dir)
        g_subprocess_launcher_setenv(l, "WIRESHARK_PLUGIN_DIR", t->plugin_env_dir, TRUE);
    p = ms_children_spawn(l, (const char *const *)argv->pdata, &err);
    g_object_unref(l);
    if (!p)
        goto out;
    /* The pump writes and closes the descriptor itself. */
    GOutputStream *in = g_subprocess_get_stdin_pipe(p);
    g_unix_output_stream_set_close_fd(G_UNIX_OUTPUT_STREAM(in), FALSE);
    lv.sink = g_unix_output_stream_get_fd(G_UNIX_OUTPUT_STREAM(in));
    lv.loop = g_main_loop_new(NULL, FALSE);
    lv.view = ms_live_view_new(o->output, stdout, o->stall_s);
    lv.tshark_out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(p));
    the_live = &lv;
    ms_interrupt_soft(end_of_input);
    GThread *pumping = g_thread_new("meterscope-pump", pump, &lv);
    GThread *reading = g_thread_new("meterscope-reader", reader, &lv);
    guint ticking = g_timeout_add_seconds(1, tick, &lv);
    g_main_loop_run(lv.loop);
    g_source_remove(ticking);
    g_thread_join(reading);
    g_thread_join(pumping);
    /* Events still queued for the main loop. */
    while (g_main_context_iteration(NULL, FALSE))
        ;
    the_live = NULL;
    if (lv.dumpcap) {
        if (!lv.stopping)
            g_subprocess_send_signal(lv.dumpcap, SIGTERM);
        char *why = dumpcap_failed(&lv, o->iface, dumpcap_err);
        if (why)
            *message = why;
    }
    char *tshark_says = NULL;
    status = ms_tshark_wait(t, o->iface ? o->iface : o->source, p, errpath, out, &tshark_says);
    if (!*message)
        *message = tshark_says;
    else
        g_free(tshark_says);
    if (lv.src_failed && !*message) {
        *message = g_strdup_printf("%s: %s (partial results)", o->source, g_strerror(lv.src_errno));
        status = RUN_INPUT_ERROR;
    }
    if (lv.events.format_error && status == RUN_OK) {
        *message = g_strdup_printf("unexpected output from the plugin: %s", lv.events.format_error);
        status = RUN_TSHARK_ERROR;
    }
out:
    if (err && !*message)
        *message = g_strdup_printf("cannot run %s: %s", t->tshark, err->message);
    g_clear_error(&err);
    if (lv.src > STDIN_FILENO && !lv.dumpcap)
        close(lv.src);
    if (lv.dumpcap) {
        g_subprocess_send_signal(lv.dumpcap, SIGKILL);
        g_subprocess_wait(lv.dumpcap, NULL, NULL);
        ms_children_forget(lv.dumpcap);
        g_object_unref(lv.dumpcap);
    }
    if (lv.wake[0] >= 0) {
        close(lv.wake[0]);
        close(lv.wake[1]);
    }
    if (lv.tshark_out)
        g_object_unref(lv.tshark_out);
    if (p)
        g_object_unref(p);
    if (lv.loop)
        g_main_loop_unref(lv.loop);
    ms_live_view_free(lv.view);
    ms_event_reader_clear(&lv.events);
    if (errpath)
        g_unlink(errpath);
    if (dumpcap_err)
        g_unlink(dumpcap_err);
    g_free(errpath);
    g_free(dumpcap_err);
    g_ptr_array_free(argv, TRUE);
    return status;
}
