/* live.c: three strands. A pump thread copies the input into tshark's
 * standard input, whole records at a time (capture_framer.c), following a
 * regular file as it grows; a reader thread reads tshark's output, hands
 * each E record to the main loop and feeds the rest (the final TSV) into
 * the capture; the main loop draws the view, ticks once a second for the
 * wall-clock stalls, and takes the first signal as the end of input.
 * tshark and dumpcap run in process groups of their own, so a Ctrl-C on
 * the terminal reaches meterscope alone, which then lets tshark finish.
 *
 * With --live-restart-after N, once a tshark has read N frames and no
 * transfer is going on (the pump waits at N for tshark's `frames` record
 * of frame N, so the events up to it have been seen; if one is going on,
 * it looks again every 1000 frames, and at 2N restarts whatever), the pump
 * ends that tshark's input; it prints its records (one part of the report) and a new tshark
 * reads on from the capture's header: tshark's memory, which grows with
 * every frame it has read, starts again from nothing.
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
/* Events handed to the main loop and not shown yet: beyond this many the
 * reader waits (a slow terminal or log shipper then slows tshark, which
 * slows the pump), so that a backlog never grows without bound. */
#define MAX_QUEUED 4096

/* One tshark's run: a part of the report. */
typedef struct {
    GSubprocess      *tshark;
    GDataInputStream *out;
    ms_capture_t     *capture;
    ms_event_reader_t events;
    guint32           frame_base;    /* frames of the parts before */
} part_t;

typedef struct {
    int          src;              /* the input */
    gboolean     follow;           /* a regular file: its end is not the end of input */
    int          wake[2];          /* written to stop the pump */
    gboolean     src_failed;
    int          src_errno;
    guint64      restart_after;    /* frames; 0: never */
    /* Under lock, what the threads wait for (changed is broadcast when any of it changes):
     * the pump's sink and the hand-over to a new tshark, how far tshark has read, the backlog. */
    GMutex       lock;
    GCond        changed;
    int          sink;             /* -1 while there is none */
    gboolean     no_more_sinks;
    guint64      reached;          /* the part's frames tshark has read, as its `frames` records tell */
    gboolean     idle_at_reached;  /* and whether no transfer was going on then */
    gboolean     stop_asked;
    guint        queued;           /* events handed to the main loop, not shown yet */
    gint         restarting;       /* the pump ended a part's input to start another (atomic) */
    GMainLoop   *loop;
    ms_live_view_t *view;
    part_t      *part;             /* the one being read */
    GSubprocess *dumpcap;
    gboolean     stopping;
    const char  *source;           /* as the user named it */
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

/* Ends the part's input; waits for the next tshark's. -1: none comes. */
static int next_sink(live_t *lv, int sink)
{
    g_atomic_int_set(&lv->restarting, 1);
    close(sink);
    g_mutex_lock(&lv->lock);
    lv->sink = -1;
    while (lv->sink < 0 && !lv->no_more_sinks)
        g_cond_wait(&lv->changed, &lv->lock);
    sink = lv->sink;
    g_mutex_unlock(&lv->lock);
    return sink;
}

/* Waits until tshark has read the part's first frames (a `frames` record
 * comes every 1000): whether no transfer was going on then. FALSE: it
 * will not come (a stop, tshark gone). */
static gboolean caught_up(live_t *lv, guint64 frames, gboolean *idle)
{
    g_mutex_lock(&lv->lock);
    while (lv->reached < frames && !lv->no_more_sinks && !lv->stop_asked)
        g_cond_wait(&lv->changed, &lv->lock);
    gboolean ok = lv->reached >= frames && !lv->stop_asked;
    *idle = lv->idle_at_reached;
    g_mutex_unlock(&lv->lock);
    return ok;
}

/* Where the next look at a restart is: 1000 frames at a time, as the `frames` records come. */
#define RESTART_STEP 1000

typedef struct {
    ms_framer_t framer;
    GByteArray *pending;
    guint64     part_start, check_at;   /* frames; check_at 0: no restarts */
    int         sink;
} pumping_t;

/* Hands on the whole records pending; at a check point, restarts when it
 * is time. FALSE: no more input can be handed on. */
static gboolean hand_on(live_t *lv, pumping_t *p)
{
    for (;;) {
        gsize whole = ms_framer_whole(&p->framer, p->pending->data, p->pending->len, p->check_at);
        if (whole && !write_all(p->sink, p->pending->data, whole))
            return FALSE;     /* tshark is gone: the reader says why */
        g_byte_array_remove_range(p->pending, 0, (guint)whole);
        if (!p->check_at || p->framer.frames < p->check_at || !p->framer.header)
            return TRUE;
        gboolean idle;
        guint64 in_part = p->check_at - p->part_start;
        if (!caught_up(lv, in_part, &idle))
            return FALSE;
        if (idle || in_part >= 2 * lv->restart_after) {
            if ((p->sink = next_sink(lv, p->sink)) < 0 ||
                !write_all(p->sink, p->framer.header->data, p->framer.header->len))
                return FALSE;
            p->part_start = p->framer.frames;
            p->check_at = p->part_start + lv->restart_after;
        } else {
            p->check_at += RESTART_STEP;
        }
    }
}

static gpointer pump(gpointer data)
{
    live_t *lv = data;
    pumping_t p = { .pending = g_byte_array_new(), .check_at = lv->restart_after };
    guint8 *buf = g_malloc(PUMP_CHUNK);
    gboolean at_end = FALSE;
    g_mutex_lock(&lv->lock);
    p.sink = lv->sink;
    g_mutex_unlock(&lv->lock);

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
        g_byte_array_append(p.pending, buf, (guint)got);
        if (!hand_on(lv, &p))
            break;
    }
    if (p.sink >= 0)
        close(p.sink);   /* tshark's end of input */
    g_free(buf);
    g_byte_array_free(p.pending, TRUE);
    ms_framer_clear(&p.framer);
    return NULL;
}

typedef struct {
    live_t *lv;
    meter_event_record_t e;
} event_msg_t;

static gboolean show_event(gpointer data)
{
    event_msg_t *m = data;

    if (strcmp(m->e.event, "frames") == 0) {
        /* Every event before it has been shown: the view knows whether a transfer is going on. */
        g_mutex_lock(&m->lv->lock);
        m->lv->reached = m->e.frame;
        m->lv->idle_at_reached = ms_live_view_idle(m->lv->view);
        g_cond_broadcast(&m->lv->changed);
        g_mutex_unlock(&m->lv->lock);
    } else {
        ms_live_view_event(m->lv->view, &m->e);
    }
    g_mutex_lock(&m->lv->lock);
    if (m->lv->queued-- == MAX_QUEUED)
        g_cond_broadcast(&m->lv->changed);
    g_mutex_unlock(&m->lv->lock);
    meter_record_clear(&meter_event_schema, &m->e);
    g_free(m);
    return G_SOURCE_REMOVE;
}

static gboolean output_ended(gpointer data)
{
    live_t *lv = data;

    g_main_loop_quit(lv->loop);
    return G_SOURCE_REMOVE;
}

/* tshark has loaded its plugins and begins to read: the events header came. */
static gboolean say_ready(gpointer data)
{
    live_t *lv = data;
    char *text = g_strdup_printf("tshark reads %s%s", lv->source, lv->part->frame_base ? " on (a new part)" : "");

    ms_live_view_say(lv->view, "ready", text);
    g_free(text);
    return G_SOURCE_REMOVE;
}

static gpointer reader(gpointer data)
{
    live_t *lv = data;
    part_t *part = lv->part;
    char *line;

    while ((line = g_data_input_stream_read_line(part->out, NULL, NULL, NULL))) {
        event_msg_t *m = g_new0(event_msg_t, 1);
        gboolean header_before = part->events.header_seen;
        gboolean is_event = ms_event_feed(&part->events, line, &m->e);
        if (!header_before && part->events.header_seen)
            g_main_context_invoke(NULL, say_ready, lv);
        if (is_event) {
            m->lv = lv;
            if (strcmp(m->e.event, "frames") != 0)
                m->e.frame += part->frame_base;
            g_mutex_lock(&lv->lock);
            while (lv->queued >= MAX_QUEUED)
                g_cond_wait(&lv->changed, &lv->lock);
            lv->queued++;
            g_mutex_unlock(&lv->lock);
            g_main_context_invoke(NULL, show_event, m);
        } else {
            g_free(m);
            ms_capture_feed(part->capture, line);
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
    g_mutex_lock(&lv->lock);
    lv->stop_asked = TRUE;
    g_cond_broadcast(&lv->changed);
    g_mutex_unlock(&lv->lock);
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
    /* Its first paragraph says what is wrong; the rest is how to set up permissions. */
    char *end = text ? strstr(g_strstrip(text), "\n\n") : NULL;
    if (end)
        *end = '\0';
    char *oneline = text ? g_strdelimit(text, "\n", ' ') : NULL;
    char *message = g_strdup_printf("dumpcap could not capture on %s: %s%s", iface,
                                    oneline && *oneline ? oneline : "(no message)",
                                    end ? " (its message goes on with how to get the permissions)" : "");
    g_free(text);
    return message;
}

/* A tshark for the next part, reading its standard input; its descriptor for the pump. */
static gboolean start_part(live_t *lv, const ms_tshark_t *t, const GPtrArray *argv, const char *errpath,
                           part_t *part, GError **err)
{
    GSubprocessLauncher *l = launcher(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, errpath);

    part->tshark = ms_tshark_spawn(t, l, argv, err);
    g_object_unref(l);
    if (!part->tshark)
        return FALSE;
    /* The pump writes and closes the descriptor itself. */
    GOutputStream *in = g_subprocess_get_stdin_pipe(part->tshark);
    g_unix_output_stream_set_close_fd(G_UNIX_OUTPUT_STREAM(in), FALSE);
    part->out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(part->tshark));
    lv->part = part;
    g_mutex_lock(&lv->lock);
    lv->sink = g_unix_output_stream_get_fd(G_UNIX_OUTPUT_STREAM(in));
    g_cond_broadcast(&lv->changed);
    g_mutex_unlock(&lv->lock);
    return TRUE;
}

static void no_more_parts(live_t *lv)
{
    g_mutex_lock(&lv->lock);
    lv->no_more_sinks = TRUE;
    g_cond_broadcast(&lv->changed);
    g_mutex_unlock(&lv->lock);
}

/* "SOURCE (part 2: frames 1001-2000)" once there are several. */
static void name_parts(GPtrArray *parts, const char *source)
{
    for (guint i = 0, first = 1; parts->len > 1 && i < parts->len; i++) {
        ms_capture_t *c = g_ptr_array_index(parts, i);
        g_free(c->file);
        c->file = g_strdup_printf("%s (part %u: frames %u-%u)", source, i + 1, first, first + c->counts.frames - 1);
        first += c->counts.frames;
    }
}

ms_run_status_t ms_live_run(const ms_tshark_t *t, const ms_live_options_t *o, GPtrArray *parts, char **message)
{
    static const char *const taps[] = { "meter,ota,events", NULL };
    const char *source = o->iface ? o->iface : o->source;
    /* Restarts are looked at where `frames` records come: a multiple of 1000. */
    live_t lv = { .src = -1, .sink = -1, .wake = { -1, -1 },
                  .restart_after = (o->restart_after + RESTART_STEP - 1) / RESTART_STEP * RESTART_STEP };
    char *errpath = NULL, *dumpcap_err = NULL;
    GError *err = NULL;
    ms_run_status_t status = RUN_TSHARK_ERROR;
    GPtrArray *argv = ms_tshark_argv(t, "-", taps);
    GThread *pumping = NULL;
    part_t part = { 0 };

    *message = NULL;
    g_mutex_init(&lv.lock);
    g_cond_init(&lv.changed);
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
    lv.loop = g_main_loop_new(NULL, FALSE);
    lv.view = ms_live_view_new(o->output, stdout, o->stall_s);
    the_live = &lv;
    lv.source = source;
    ms_interrupt_soft(end_of_input);
    guint ticking = g_timeout_add_seconds(1, tick, &lv);
    guint32 frame_base = 0;
    for (;;) {
        part = (part_t){ .capture = ms_capture_new(source), .frame_base = frame_base };
        g_atomic_int_set(&lv.restarting, 0);
        g_mutex_lock(&lv.lock);
        lv.reached = 0;
        g_mutex_unlock(&lv.lock);
        if (!start_part(&lv, t, argv, errpath, &part, &err)) {
            ms_capture_free(part.capture);
            break;
        }
        if (!pumping)
            pumping = g_thread_new("meterscope-pump", pump, &lv);
        GThread *reading = g_thread_new("meterscope-reader", reader, &lv);
        g_main_loop_run(lv.loop);
        g_thread_join(reading);
        /* Events still queued for the main loop. */
        while (g_main_context_iteration(NULL, FALSE))
            ;
        char *tshark_says = NULL;
        status = ms_tshark_wait(t, source, part.tshark, errpath, part.capture, &tshark_says);
        if (part.events.format_error && status == RUN_OK) {
            tshark_says = g_strdup_printf("unexpected output from the plugin: %s", part.events.format_error);
            status = RUN_TSHARK_ERROR;
        }
        g_ptr_array_add(parts, part.capture);
        g_object_unref(part.out);
        g_object_unref(part.tshark);
        ms_event_reader_clear(&part.events);
        gboolean again = g_atomic_int_get(&lv.restarting) && status == RUN_OK && !lv.stopping;
        if (!again) {
            *message = tshark_says;
            break;
        }
        g_free(tshark_says);
        frame_base += part.capture->counts.frames;
        ms_live_view_new_part(lv.view, parts->len + 1);
    }
    /* The pump may wait for a part that will not come, or read on. */
    no_more_parts(&lv);
    stop_pump(&lv);
    if (pumping)
        g_thread_join(pumping);
    g_source_remove(ticking);
    the_live = NULL;
    if (lv.dumpcap) {
        if (!lv.stopping)
            g_subprocess_send_signal(lv.dumpcap, SIGTERM);
        char *why = dumpcap_failed(&lv, o->iface, dumpcap_err);
        if (why) {
            g_free(*message);
            *message = why;
            status = RUN_INPUT_ERROR;
        }
    }
    if (lv.src_failed && !*message) {
        *message = g_strdup_printf("%s: %s (partial results)", source, g_strerror(lv.src_errno));
        status = RUN_INPUT_ERROR;
    }
    name_parts(parts, source);
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
    if (lv.loop)
        g_main_loop_unref(lv.loop);
    ms_live_view_free(lv.view);
    if (errpath)
        g_unlink(errpath);
    if (dumpcap_err)
        g_unlink(dumpcap_err);
    g_free(errpath);
    g_free(dumpcap_err);
    g_ptr_array_free(argv, TRUE);
    g_mutex_clear(&lv.lock);
    g_cond_clear(&lv.changed);
    return status;
}
