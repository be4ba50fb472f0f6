/* compression.c: the magic numbers of the compressed formats a capture is
 * shipped in. tshark (wiretap's file_wrappers.c) reads gzip on every
 * version, and zstd and lz4 frames when it was built with them (Debian 12's
 * 4.0 is); xz and bzip2 it does not read, but they are told too so that
 * the user learns what the file is.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <glib/gstdio.h>
#include "compression.h"

static const ms_compression_t compressions[] = {
    { "gzip", { 0x1f, 0x8b }, 2 },
    { "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
    { "lz4", { 0x04, 0x22, 0x4d, 0x18 }, 4 },   /* the frame format, what the lz4 tool writes */
    { "xz", { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6 },
    { "bzip2", { 'B', 'Z', 'h' }, 3 },
};

const ms_compression_t *ms_compression_of(const guint8 *head, gsize len)
{
    for (guint i = 0; i < G_N_ELEMENTS(compressions); i++)
        if (len >= compressions[i].magic_len && memcmp(head, compressions[i].magic, compressions[i].magic_len) == 0)
            return &compressions[i];
    return NULL;
}

const ms_compression_t *ms_compression_of_file(const char *file)
{
    guint8 head[MS_COMPRESSION_MAGIC_MAX];
    FILE *f = g_fopen(file, "rb");

    if (!f)
        return NULL;
    gsize got = fread(head, 1, sizeof(head), f);
    fclose(f);
    return ms_compression_of(head, got);
}
