/* children.h: the child processes meterscope has running (the tshark runs),
 * kept in one place so that a signal to meterscope can stop every one.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CHILDREN_H
#define CHILDREN_H

#include <gio/gio.h>

/* Spawns argv with l and keeps the child until ms_children_forget(). Once
 * ms_children_stop() was called it spawns nothing: NULL, with
 * G_IO_ERROR_CANCELLED. */
GSubprocess *ms_children_spawn(GSubprocessLauncher *l, const char *const *argv, GError **err);

/* The child has been waited for: no longer one to stop. */
void ms_children_forget(GSubprocess *child);

/* Sends sig to every child still running, and refuses new ones from now on. */
void ms_children_stop(int sig);

#endif
