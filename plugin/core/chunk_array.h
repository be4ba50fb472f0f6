/* chunk_array.h: an append-only array of fixed-size elements kept in chunks
 * of a fixed count, for the tracker's logs that grow with a long capture to
 * millions of elements. A doubling array leaves up to half of itself unused
 * and needs the old and the new copy at once while it grows; chunks waste
 * at most one chunk, and an element never moves.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CHUNK_ARRAY_H
#define CHUNK_ARRAY_H

#include <epan/wmem_scopes.h>

typedef struct chunk_array chunk_array_t;

chunk_array_t *chunk_array_new(wmem_allocator_t *scope, gsize elem_size);
/* A new element at the end, zeroed. */
void          *chunk_array_append(chunk_array_t *a);
guint32        chunk_array_count(const chunk_array_t *a);
/* Element i; NULL past the end. */
void          *chunk_array_index(const chunk_array_t *a, guint32 i);

#endif
