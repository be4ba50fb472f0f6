/* interrupt.c: the signals are taken with g_unix_signal_add(), so the
 * stopping is done in the main thread, out of signal context. The children
 * get SIGTERM, then SIGKILL if they are still there after a grace time or
 * when a second signal comes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <signal.h>
#include <glib-unix.h>
#include "children.h"
#include "interrupt.h"

#define GRACE_SECONDS 2

static const int stopping_signals[] = { SIGINT, SIGTERM, SIGHUP };

static int caught;          /* the first stopping signal */
static void (*soft_stop)(int sig);   /* live mode: the first signal ends the input instead */
static gboolean committed;  /* the report is being written */

static gboolean kill_survivors(gpointer data)
{
    (void)data;
    ms_children_stop(SIGKILL);
    return G_SOURCE_REMOVE;
}

static gboolean on_signal(gpointer data)
{
    int sig = GPOINTER_TO_INT(data);

    if (committed)
        return G_SOURCE_CONTINUE;
    if (soft_stop) {
        void (*first)(int) = soft_stop;
        soft_stop = NULL;
        first(sig);
        return G_SOURCE_CONTINUE;
    }
    if (caught) {
        ms_children_stop(SIGKILL);   /* asked twice: no grace */
        return G_SOURCE_CONTINUE;
    }
    caught = sig;
    ms_children_stop(SIGTERM);
    g_timeout_add_seconds(GRACE_SECONDS, kill_survivors, NULL);
    return G_SOURCE_CONTINUE;
}

/* A handler, not SIG_IGN: an ignored signal stays ignored across exec, and
 * tshark should get the default. */
static void write_error_instead(int sig)
{
    (void)sig;
}

void ms_interrupt_catch(void)
{
    struct sigaction sa = { .sa_handler = write_error_instead };

    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
    for (guint i = 0; i < G_N_ELEMENTS(stopping_signals); i++)
        g_unix_signal_add(stopping_signals[i], on_signal, GINT_TO_POINTER(stopping_signals[i]));
}

void ms_interrupt_soft(void (*first)(int sig))
{
    soft_stop = first;
}

int ms_interrupt_signal(void)
{
    /* A signal that came while the main thread was busy elsewhere (the
     * setup, the analysis) is still pending in the main context. */
    while (g_main_context_iteration(NULL, FALSE))
        ;
    return caught;
}

int ms_interrupt_commit(void)
{
    int sig = ms_interrupt_signal();

    committed = TRUE;
    return sig;
}

const char *ms_interrupt_name(int sig)
{
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    }
    return "a signal";
}
