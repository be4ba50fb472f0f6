/* capture_writer.c: writes simulated 802.15.4 frames and gateway-side IPv6
 * datagrams to pcap files in the encapsulations real sniffers produce.
 *
 * Follows the tcpdump.org link-type registry (LINKTYPE_IEEE802_15_4_WITHFCS
 * 195, _NOFCS 230, _TAP 283 with the IEEE 802.15.4 TAP TLVs as Wireshark 4.0
 * numbers them), the ZigBee Encapsulation Protocol v2 as Wireshark's
 * packet-zep.c reads it, RFC 791/768 (IPv4, UDP) and RFC 8200 (IPv6 in
 * Ethernet II, ethertype 0x86dd).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
/* libpcap's headers use the BSD u_char/u_int types, hidden by strict -std=c11. */
#define _DEFAULT_SOURCE
#include "capture_writer.h"
#include "inet_checksum.h"

#include <stdio.h>
#include <string.h>
#include <pcap/pcap.h>

#define SNAPLEN        65535
#define LINKTYPE_ETHERNET 1
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ZEP_PORT       17754
#define ZEP_HDR_LEN    32
#define FCS_LEN        2
#define NTP_UNIX_OFFSET G_GINT64_CONSTANT(2208988800)  /* 1900 -> 1970 */

/* IEEE 802.15.4 TAP TLV types (packet-ieee802154.c, ieee802154_info_type_t). */
#define TAP_FCS_TYPE   0
#define TAP_RSS        1
#define TAP_CHANNEL    3
#define TAP_LQI        10
#define TAP_FCS_16BIT  1

/* ZEP's own Ethernet/IPv4 endpoints: sniffer -> collector (RFC 5737). */
static const guint8 zep_src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x5a, 0x01 };
static const guint8 zep_dst_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x5a, 0x02 };
static const guint8 zep_src_ip[4] = { 192, 0, 2, 1 };
static const guint8 zep_dst_ip[4] = { 192, 0, 2, 2 };
/* The gateway kind's link: the cloud gateway and the border router. */
static const guint8 gateway_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const guint8 border_router_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

struct capture_writer {
    pcap_t        *pcap;
    pcap_dumper_t *dumper;
    capture_kind_t kind;
    guint8         channel;
    guint64        count;
    guint32        zep_seq;           /* ZEP sequence number */
    guint16        ip_id;             /* IPv4 identification */
};

static GQuark capture_writer_error_quark(void)
{
    return g_quark_from_static_string("capture-writer-error-quark");
}

static void put_u8(GByteArray *b, guint8 v)
{
    g_byte_array_append(b, &v, 1);
}

static void put_be16(GByteArray *b, guint16 v)
{
    guint8 x[2] = { (guint8)(v >> 8), (guint8)v };

    g_byte_array_append(b, x, 2);
}

static void put_be32(GByteArray *b, guint32 v)
{
    guint8 x[4] = { (guint8)(v >> 24), (guint8)(v >> 16), (guint8)(v >> 8), (guint8)v };

    g_byte_array_append(b, x, 4);
}

static void put_le16(GByteArray *b, guint16 v)
{
    guint8 x[2] = { (guint8)v, (guint8)(v >> 8) };

    g_byte_array_append(b, x, 2);
}

/* One TAP TLV: type, length (both u16 LE), value, zero padding to 4 bytes. */
static void put_tap_tlv(GByteArray *b, guint16 type, const guint8 *val, guint16 len)
{
    static const guint8 pad[3] = { 0, 0, 0 };

    put_le16(b, type);
    put_le16(b, len);
    g_byte_array_append(b, val, len);
    if (len % 4)
        g_byte_array_append(b, pad, 4 - len % 4);
}

capture_writer_t *capture_writer_open(const char *path, capture_kind_t kind, guint8 channel,
                                      GError **err)
{
    capture_writer_t *w;
    int linktype;

    g_return_val_if_fail(path != NULL, NULL);

    switch (kind) {
    case CAPTURE_WPAN_FCS:
    case CAPTURE_WPAN_NOFCS:
    case CAPTURE_WPAN_TAP:
        linktype = (int)kind;
        break;
    case CAPTURE_ZEP:
    case CAPTURE_GATEWAY:
        linktype = LINKTYPE_ETHERNET;
        break;
    default:
        g_set_error(err, capture_writer_error_quark(), 1, "unknown capture kind %d", (int)kind);
        return NULL;
    }

    w = g_new0(capture_writer_t, 1);
    w->kind = kind;
    w->channel = channel;
    /* pcap_open_dead() gives microsecond-resolution pcap files. */
    w->pcap = pcap_open_dead(linktype, SNAPLEN);
    if (w->pcap == NULL) {
        g_set_error(err, capture_writer_error_quark(), 2, "pcap_open_dead(%d) failed", linktype);
        g_free(w);
        return NULL;
    }
    w->dumper = pcap_dump_open(w->pcap, path);
    if (w->dumper == NULL) {
        /* libpcap's message already names the file. */
        g_set_error(err, capture_writer_error_quark(), 3, "%s", pcap_geterr(w->pcap));
        pcap_close(w->pcap);
        g_free(w);
        return NULL;
    }
    return w;
}

static void dump(capture_writer_t *w, gint64 time_us, const guint8 *data, gsize len)
{
    struct pcap_pkthdr ph;
    gint64 sec = time_us / 1000000, usec = time_us % 1000000;

    if (len > SNAPLEN)
        return;                     /* cannot be represented; never happens here */
    if (usec < 0) {                 /* floor division for times before 1970 */
        usec += 1000000;
        sec -= 1;
    }
    memset(&ph, 0, sizeof ph);
    ph.ts.tv_sec = (time_t)sec;
    ph.ts.tv_usec = (suseconds_t)usec;
    ph.caplen = ph.len = (bpf_u_int32)len;
    pcap_dump((u_char *)w->dumper, &ph, data);
    w->count++;
}

/* The TAP header (version 0) with FCS type, RSS, channel and LQI TLVs. */
static void build_tap(GByteArray *b, guint8 channel, gint8 rssi, guint8 lqi)
{
    guint8 v[4];
    float rss = (float)rssi;
    guint32 bits;

    put_u8(b, 0);                   /* version */
    put_u8(b, 0);                   /* reserved */
    put_le16(b, 0);                 /* header length, patched below */

    v[0] = TAP_FCS_16BIT;
    put_tap_tlv(b, TAP_FCS_TYPE, v, 1);

    /* Channel assignment: u16 channel, u8 page (0 for 2.4 GHz O-QPSK). */
    v[0] = channel;
    v[1] = 0;
    v[2] = 0;
    put_tap_tlv(b, TAP_CHANNEL, v, 3);

    /* RSS: IEEE 754 single, dBm, little-endian like every TAP field. */
    memcpy(&bits, &rss, sizeof bits);
    v[0] = (guint8)bits;
    v[1] = (guint8)(bits >> 8);
    v[2] = (guint8)(bits >> 16);
    v[3] = (guint8)(bits >> 24);
    put_tap_tlv(b, TAP_RSS, v, 4);

    v[0] = lqi;
    put_tap_tlv(b, TAP_LQI, v, 1);

    b->data[2] = (guint8)b->len;
    b->data[3] = (guint8)(b->len >> 8);
}

/* Ethernet/IPv4/UDP 17754/ZEP v2 data header; the PSDU follows. */
static void build_zep(capture_writer_t *w, GByteArray *b, gint64 time_us, gsize psdu_len,
                      guint8 lqi)
{
    gsize ip_off;
    guint16 ip_len = (guint16)(20 + 8 + ZEP_HDR_LEN + psdu_len);
    gint64 sec = time_us / 1000000, usec = time_us % 1000000;
    guint64 frac;
    static const guint8 reserved[10] = { 0 };

    if (usec < 0) {
        usec += 1000000;
        sec -= 1;
    }

    g_byte_array_append(b, zep_dst_mac, 6);
    g_byte_array_append(b, zep_src_mac, 6);
    put_be16(b, ETHERTYPE_IPV4);

    ip_off = b->len;
    put_u8(b, 0x45);                /* IPv4, IHL 5 */
    put_u8(b, 0);
    put_be16(b, ip_len);
    put_be16(b, w->ip_id++);
    put_be16(b, 0x4000);            /* DF */
    put_u8(b, 64);
    put_u8(b, 17);
    put_be16(b, 0);                 /* header checksum, patched below */
    g_byte_array_append(b, zep_src_ip, 4);
    g_byte_array_append(b, zep_dst_ip, 4);

    put_be16(b, ZEP_PORT);
    put_be16(b, ZEP_PORT);
    put_be16(b, (guint16)(8 + ZEP_HDR_LEN + psdu_len));
    put_be16(b, 0);                 /* checksum, computed once the PSDU is in */

    g_byte_array_append(b, (const guint8 *)"EX", 2);
    put_u8(b, 2);                   /* version */
    put_u8(b, 1);                   /* type: data */
    put_u8(b, w->channel);
    put_be16(b, 1);                 /* device id */
    /* Non-zero = "CRC" mode: Wireshark then hands the frame to the plain
     * wpan dissector, which takes the last 2 bytes as the FCS and checks
     * it; 0 would mean TI CC24xx metadata (RSSI/LQI) instead of an FCS. */
    put_u8(b, 1);
    put_u8(b, lqi);
    /* NTP timestamp: seconds since 1900 and a 32-bit binary fraction,
     * rounded up so that a reader truncating to nanoseconds gets the
     * exact microsecond back. */
    frac = (((guint64)usec << 32) + 999999) / 1000000;
    put_be32(b, (guint32)(sec + NTP_UNIX_OFFSET));
    put_be32(b, (guint32)frac);
    put_be32(b, w->zep_seq++);
    g_byte_array_append(b, reserved, sizeof reserved);
    put_u8(b, (guint8)psdu_len);

    /* IPv4 header checksum now; the UDP one needs the PSDU (see caller). */
    {
        guint16 c = inet_csum_finish(inet_csum_add(0, b->data + ip_off, 20));

        b->data[ip_off + 10] = (guint8)(c >> 8);
        b->data[ip_off + 11] = (guint8)c;
    }
}

/* UDP over IPv4 checksum with the pseudo-header (RFC 768). */
static void finish_zep_udp(GByteArray *b)
{
    const gsize ip_off = 14, udp_off = 14 + 20;
    gsize udp_len = b->len - udp_off;
    guint8 ph[12];
    guint32 sum = 0;
    guint16 c;
    const guint8 *p;

    memcpy(ph, b->data + ip_off + 12, 8);           /* src, dst */
    ph[8] = 0;
    ph[9] = 17;
    ph[10] = (guint8)(udp_len >> 8);
    ph[11] = (guint8)udp_len;
    sum = inet_csum_add(sum, ph, sizeof ph);
    p = b->data + udp_off;
    c = inet_csum_finish(inet_csum_add(sum, p, udp_len));
    if (c == 0)
        c = 0xFFFF;
    b->data[udp_off + 6] = (guint8)(c >> 8);
    b->data[udp_off + 7] = (guint8)c;
}

void capture_writer_psdu(capture_writer_t *w, gint64 time_us, const guint8 *psdu, gsize len,
                         gint8 rssi, guint8 lqi)
{
    GByteArray *b;

    g_return_if_fail(w != NULL);
    g_return_if_fail(psdu != NULL || len == 0);
    if (w->kind == CAPTURE_GATEWAY)
        return;
    /* A PSDU is at most 127 bytes and always carries its FCS. */
    if (len < FCS_LEN || len > 127)
        return;

    switch (w->kind) {
    case CAPTURE_WPAN_FCS:
        dump(w, time_us, psdu, len);
        break;
    case CAPTURE_WPAN_NOFCS:
        dump(w, time_us, psdu, len - FCS_LEN);
        break;
    case CAPTURE_WPAN_TAP:
        b = g_byte_array_sized_new(64 + (guint)len);
        build_tap(b, w->channel, rssi, lqi);
        g_byte_array_append(b, psdu, (guint)len);
        dump(w, time_us, b->data, b->len);
        g_byte_array_unref(b);
        break;
    case CAPTURE_ZEP:
        b = g_byte_array_sized_new(14 + 20 + 8 + ZEP_HDR_LEN + (guint)len);
        build_zep(w, b, time_us, len, lqi);
        g_byte_array_append(b, psdu, (guint)len);
        finish_zep_udp(b);
        dump(w, time_us, b->data, b->len);
        g_byte_array_unref(b);
        break;
    default:
        break;
    }
}

void capture_writer_ipv6(capture_writer_t *w, gint64 time_us, const guint8 *ipv6, gsize len,
                         gboolean to_gateway)
{
    GByteArray *b;

    g_return_if_fail(w != NULL);
    g_return_if_fail(ipv6 != NULL || len == 0);
    if (w->kind != CAPTURE_GATEWAY || len > SNAPLEN - 14)
        return;

    b = g_byte_array_sized_new(14 + (guint)len);
    g_byte_array_append(b, to_gateway ? gateway_mac : border_router_mac, 6);
    g_byte_array_append(b, to_gateway ? border_router_mac : gateway_mac, 6);
    put_be16(b, ETHERTYPE_IPV6);
    g_byte_array_append(b, ipv6, (guint)len);
    dump(w, time_us, b->data, b->len);
    g_byte_array_unref(b);
}

guint64 capture_writer_count(const capture_writer_t *w)
{
    g_return_val_if_fail(w != NULL, 0);
    return w->count;
}

gboolean capture_writer_close(capture_writer_t *w, GError **err)
{
    gboolean ok = TRUE;

    if (w == NULL)
        return TRUE;
    /* pcap_dump() cannot report errors; the stream's state tells of a
     * full disk or similar. */
    if (pcap_dump_flush(w->dumper) != 0 || ferror(pcap_dump_file(w->dumper))) {
        g_set_error(err, capture_writer_error_quark(), 4, "writing the capture failed");
        ok = FALSE;
    }
    pcap_dump_close(w->dumper);
    pcap_close(w->pcap);
    g_free(w);
    return ok;
}
