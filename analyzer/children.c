/* children.c: a list of the running children under a lock. The lock also
 * covers the spawn, so a child cannot start between the moment a signal
 * asked for a stop and the moment the stop reaches the children.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "children.h"

static GMutex lock;
static GPtrArray *running;   /* of GSubprocess, references held */
static gboolean stopping;

GSubprocess *ms_children_spawn(GSubprocessLauncher *l, const char *const *argv, GError **err)
{
    GSubprocess *child = NULL;

    g_mutex_lock(&lock);
    if (stopping)
        g_set_error_literal(err, G_IO_ERROR, G_IO_ERROR_CANCELLED, "meterscope is stopping");
    else if ((child = g_subprocess_launcher_spawnv(l, argv, err))) {
        if (!running)
            running = g_ptr_array_new_with_free_func(g_object_unref);
        g_ptr_array_add(running, g_object_ref(child));
    }
    g_mutex_unlock(&lock);
    return child;
}

void ms_children_forget(GSubprocess *child)
{
    g_mutex_lock(&lock);
    if (running)
        g_ptr_array_remove_fast(running, child);
    g_mutex_unlock(&lock);
}

void ms_children_stop(int sig)
{
    g_mutex_lock(&lock);
    stopping = TRUE;
    /* g_subprocess_send_signal() does nothing to a child already reaped,
     * so a reused process id is never hit. */
    for (guint i = 0; running && i < running->len; i++)
        g_subprocess_send_signal(g_ptr_array_index(running, i), sig);
    g_mutex_unlock(&lock);
}
