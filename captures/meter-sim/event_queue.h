/* event_queue.h: the simulator's single timeline. Events run in time order;
 * events at the same microsecond run in the order they were scheduled, which
 * keeps a run deterministic for a given seed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef EVENT_QUEUE_H
#define EVENT_QUEUE_H
#include <glib.h>

typedef void (*event_fn)(gpointer obj, gpointer arg);
typedef struct event_queue event_queue_t;

event_queue_t *event_queue_new(void);
void           event_queue_free(event_queue_t *q);
void           event_queue_at(event_queue_t *q, gint64 t_us, event_fn fn, gpointer obj, gpointer arg);
/* The same for an arg the event owns: its handler frees it when it runs;
 * free_arg does when the queue goes with the event still in it (a run
 * stopped at its time limit). */
void           event_queue_at_owned(event_queue_t *q, gint64 t_us, event_fn fn, gpointer obj, gpointer arg,
                                    GDestroyNotify free_arg);
/* Runs the earliest event; FALSE when none is left or the next is after limit_us. */
gboolean       event_queue_run_next(event_queue_t *q, gint64 limit_us);
gint64         event_queue_now(const event_queue_t *q);

#endif
