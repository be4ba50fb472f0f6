/* chunk_array.c: the tracker's append-only logs (chunk_array.h). wmem has
 * arrays that double and lists with a node per element; neither suits a
 * log of 16-byte elements that grows to millions.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "chunk_array.h"

#define CHUNK_SHIFT 14u                  /* 16384 elements a chunk */
#define CHUNK_COUNT (1u << CHUNK_SHIFT)

struct chunk_array {
    wmem_allocator_t *scope;
    gsize    elem_size;
    guint8 **chunks;
    guint32  n_chunks, cap_chunks;
    guint32  count;
};

chunk_array_t *chunk_array_new(wmem_allocator_t *scope, gsize elem_size)
{
    chunk_array_t *a = wmem_new0(scope, chunk_array_t);

    a->scope = scope;
    a->elem_size = elem_size;
    return a;
}

void *chunk_array_append(chunk_array_t *a)
{
    guint32 at = a->count & (CHUNK_COUNT - 1);

    if (at == 0) {
        if (a->n_chunks == a->cap_chunks) {
            a->cap_chunks = a->cap_chunks ? 2 * a->cap_chunks : 16;
            a->chunks = (guint8 **)wmem_realloc(a->scope, a->chunks, a->cap_chunks * sizeof *a->chunks);
        }
        a->chunks[a->n_chunks++] = (guint8 *)wmem_alloc(a->scope, CHUNK_COUNT * a->elem_size);
    }
    void *e = a->chunks[a->count >> CHUNK_SHIFT] + at * a->elem_size;
    memset(e, 0, a->elem_size);
    a->count++;
    return e;
}

guint32 chunk_array_count(const chunk_array_t *a)
{
    return a->count;
}

void *chunk_array_index(const chunk_array_t *a, guint32 i)
{
    if (i >= a->count)
        return NULL;
    return a->chunks[i >> CHUNK_SHIFT] + (i & (CHUNK_COUNT - 1)) * a->elem_size;
}
