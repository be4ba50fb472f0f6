/* event_queue.c: a binary min-heap of timed callbacks, ordered by (time,
 * scheduling order).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "event_queue.h"

typedef struct {
    gint64   t;
    guint64  order;
    event_fn fn;
    gpointer obj, arg;
    GDestroyNotify free_arg;   /* an arg the event owns (NULL: none) */
} event_t;

struct event_queue {
    GArray  *heap;
    guint64  next_order;
    gint64   now;
};

event_queue_t *event_queue_new(void)
{
    event_queue_t *q = g_new0(event_queue_t, 1);
    q->heap = g_array_new(FALSE, FALSE, sizeof(event_t));
    return q;
}

void event_queue_free(event_queue_t *q)
{
    if (!q)
        return;
    for (guint i = 0; i < q->heap->len; i++) {
        event_t *e = &g_array_index(q->heap, event_t, i);
        if (e->free_arg)
            e->free_arg(e->arg);
    }
    g_array_free(q->heap, TRUE);
    g_free(q);
}

static gboolean before(const event_t *a, const event_t *b)
{
    return a->t < b->t || (a->t == b->t && a->order < b->order);
}

void event_queue_at(event_queue_t *q, gint64 t_us, event_fn fn, gpointer obj, gpointer arg)
{
    event_queue_at_owned(q, t_us, fn, obj, arg, NULL);
}

void event_queue_at_owned(event_queue_t *q, gint64 t_us, event_fn fn, gpointer obj, gpointer arg,
                          GDestroyNotify free_arg)
{
    /* The past cannot be scheduled: a late event runs now. */
    event_t e = { MAX(t_us, q->now), q->next_order++, fn, obj, arg, free_arg };
    guint i = q->heap->len;

    g_array_append_val(q->heap, e);
    event_t *h = (event_t *)q->heap->data;
    while (i > 0) {
        guint parent = (i - 1) / 2;
        if (!before(&h[i], &h[parent]))
            break;
        event_t tmp = h[i];
        h[i] = h[parent];
        h[parent] = tmp;
        i = parent;
    }
}

gboolean event_queue_run_next(event_queue_t *q, gint64 limit_us)
{
    if (q->heap->len == 0)
        return FALSE;
    event_t *h = (event_t *)q->heap->data;
    if (h[0].t > limit_us)
        return FALSE;
    event_t e = h[0];
    guint n = q->heap->len - 1;
    h[0] = h[n];
    g_array_set_size(q->heap, n);
    h = (event_t *)q->heap->data;
    for (guint i = 0;;) {
        guint l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(&h[l], &h[m]))
            m = l;
        if (r < n && before(&h[r], &h[m]))
            m = r;
        if (m == i)
            break;
        event_t tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
    q->now = e.t;
    e.fn(e.obj, e.arg);
    return TRUE;
}

gint64 event_queue_now(const event_queue_t *q)
{
    return q->now;
}
