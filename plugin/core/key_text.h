/* key_text.h: exact text keys for the plugin's lookup tables, built without
 * printf (this runs for every CoAP message): a|b|n1|n2|n3 in hex.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef KEY_TEXT_H
#define KEY_TEXT_H

#include <glib.h>
#include <string.h>

#define KEY_TEXT_MAX 512

/* Writes a|b followed by |n for each of the n_nums numbers into buf (at
 * least KEY_TEXT_MAX bytes); a and b longer than that are cut (the keys
 * then still differ by the numbers). */
static inline const char *key_text(char *buf, const char *a, const char *b, const guint32 *nums, guint n_nums)
{
    static const char hex[] = "0123456789abcdef";
    gsize la = MIN(strlen(a), KEY_TEXT_MAX / 2 - 32), lb = MIN(strlen(b), KEY_TEXT_MAX / 2 - 32);
    char *p = buf;

    memcpy(p, a, la);
    p += la;
    *p++ = '|';
    memcpy(p, b, lb);
    p += lb;
    for (guint i = 0; i < n_nums && i < 4; i++) {
        *p++ = '|';
        for (gint shift = 28; shift >= 0; shift -= 4)
            if ((nums[i] >> shift) || !shift)
                *p++ = hex[(nums[i] >> shift) & 15];
    }
    *p = '\0';
    return buf;
}

#endif
