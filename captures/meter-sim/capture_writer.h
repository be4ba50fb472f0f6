/* capture_writer.h: writes the simulated traffic with libpcap in the link
 * types a field engineer's sniffer produces:
 *   195 IEEE 802.15.4 with FCS, 230 without FCS, 283 IEEE 802.15.4 TAP
 *   (FCS type, channel, RSSI, LQI TLVs), ZEP v2 in Ethernet/IPv4/UDP 17754,
 *   and the gateway's view: Ethernet/IPv6/UDP (link type 1).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CAPTURE_WRITER_H
#define CAPTURE_WRITER_H
#include <glib.h>

typedef enum {
    CAPTURE_WPAN_FCS = 195,
    CAPTURE_WPAN_NOFCS = 230,
    CAPTURE_WPAN_TAP = 283,
    CAPTURE_ZEP = 17754,             /* Ethernet (link type 1) carrying ZEP v2 */
    CAPTURE_GATEWAY = 1              /* Ethernet carrying the IPv6 datagrams */
} capture_kind_t;

typedef struct capture_writer capture_writer_t;

/* Opens FILE for writing (pcap, microsecond timestamps). NULL + *err on failure. */
capture_writer_t *capture_writer_open(const char *path, capture_kind_t kind, guint8 channel,
                                      GError **err);

/* An on-air frame: the full PSDU including its 2-byte FCS. time_us is the
 * absolute time (UNIX epoch, microseconds) at the end of reception as a
 * sniffer stamps it. rssi in dBm, lqi 0..255. Ignored by the gateway kind. */
void capture_writer_psdu(capture_writer_t *w, gint64 time_us, const guint8 *psdu, gsize len,
                         gint8 rssi, guint8 lqi);

/* A datagram on the gateway's Ethernet (gateway kind only; ignored by the
 * others): a complete IPv6 packet. to_gateway tells the MAC direction. */
void capture_writer_ipv6(capture_writer_t *w, gint64 time_us, const guint8 *ipv6, gsize len,
                         gboolean to_gateway);

guint64 capture_writer_count(const capture_writer_t *w);   /* records written */
gboolean capture_writer_close(capture_writer_t *w, GError **err);

#endif
