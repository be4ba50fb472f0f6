/* compression.h: tells a compressed capture by its first bytes, so that it
 * goes to tshark (which may read it) instead of being refused as "not a
 * pcap or pcapng capture", and the message names the compression when
 * tshark cannot open it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef COMPRESSION_H
#define COMPRESSION_H

#include <glib.h>

typedef struct {
    const char   *name;     /* "gzip", "zstd", ... (the program that decompresses it too) */
    guint8        magic[6];
    gsize         magic_len;
} ms_compression_t;

#define MS_COMPRESSION_MAGIC_MAX 6

/* The compression that head (the file's first len bytes) starts with, NULL
 * for none known. */
const ms_compression_t *ms_compression_of(const guint8 *head, gsize len);

/* The same for a file; NULL as well when it cannot be read. */
const ms_compression_t *ms_compression_of_file(const char *file);

#endif
