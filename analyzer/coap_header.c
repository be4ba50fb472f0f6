/* coap_header.c: CoAP's header, token and the options the pairing uses.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "coap_header.h"

enum { OPT_URI_PATH = 11, OPT_BLOCK2 = 23, OPT_BLOCK1 = 27 };

/* An option's delta or length nibble with its extension bytes. */
static gboolean extended(guint nibble, const guint8 *b, gsize n, gsize *at, guint *out)
{
    if (nibble < 13) {
        *out = nibble;
    } else if (nibble == 13) {
        if (*at + 1 > n)
            return FALSE;
        *out = 13u + b[(*at)++];
    } else if (nibble == 14) {
        if (*at + 2 > n)
            return FALSE;
        *out = 269u + ((guint)b[*at] << 8 | b[*at + 1]);
        *at += 2;
    } else {
        return FALSE;   /* 15 is reserved outside the payload marker */
    }
    return TRUE;
}

gboolean ms_coap_header_parse(const guint8 *b, gsize n, ms_coap_header_t *h)
{
    gsize at = 4;
    guint number = 0;
    gint64 block1 = -1, block2 = -1;
    GString *path = g_string_new(NULL);
    gboolean ok = FALSE;

    memset(h, 0, sizeof(*h));
    h->block = -1;
    if (n < 4 || b[0] >> 6 != 1 || (b[0] & 15) > 8 || 4u + (b[0] & 15) > n)
        goto out;
    h->type = (b[0] >> 4) & 3;
    h->tkl = b[0] & 15;
    h->code = b[1];
    h->mid = (guint16)(b[2] << 8 | b[3]);
    for (guint i = 0; i < h->tkl; i++)
        g_snprintf(h->token + 2 * i, 3, "%02x", b[4 + i]);
    at = 4u + h->tkl;
    while (at < n && b[at] != 0xff) {
        guint delta, len;
        guint8 first = b[at++];
        if (!extended(first >> 4, b, n, &at, &delta) || !extended(first & 15, b, n, &at, &len) || at + len > n)
            goto out;
        number += delta;
        if (number == OPT_URI_PATH) {
            g_string_append_c(path, '/');
            g_string_append_len(path, (const char *)b + at, len);
        } else if ((number == OPT_BLOCK2 || number == OPT_BLOCK1) && len <= 3) {
            guint32 v = 0;
            for (guint i = 0; i < len; i++)
                v = v << 8 | b[at + i];
            *(number == OPT_BLOCK2 ? &block2 : &block1) = v >> 4;
        }
        at += len;
    }
    h->block = block2 >= 0 ? block2 : block1;
    g_strlcpy(h->path, path->str, sizeof(h->path));
    ok = TRUE;
out:
    g_string_free(path, TRUE);
    return ok;
}
