/* inet_checksum.c: RFC 1071 one's-complement sum.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "inet_checksum.h"

guint32 inet_csum_add(guint32 sum, const guint8 *p, gsize len)
{
    while (len > 1) {
        sum += (guint32)((p[0] << 8) | p[1]);
        p += 2;
        len -= 2;
    }
    if (len)
        sum += (guint32)(p[0] << 8);
    return sum;
}

guint16 inet_csum_finish(guint32 sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (guint16)(~sum & 0xFFFF);
}
