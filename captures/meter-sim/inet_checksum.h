/* inet_checksum.h: the Internet checksum (RFC 1071) shared by the UDP/IPv6
 * packets of lowpan.c and the IPv4/UDP wrapping of ZEP in capture_writer.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef INET_CHECKSUM_H
#define INET_CHECKSUM_H
#include <glib.h>

/* Adds 16-bit big-endian words to sum (an odd last byte padded with zero). */
guint32 inet_csum_add(guint32 sum, const guint8 *p, gsize len);
/* Folds the carries and complements: the value for the checksum field. */
guint16 inet_csum_finish(guint32 sum);

#endif
