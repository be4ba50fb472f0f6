/* test_vantage_read.c: the two-vantage reader (analyzer/vantage_read.c,
 * coap_header.c) on tshark field lines the test writes itself: a message's
 * hop copies and MAC retries one round with its first and last air time,
 * its copies acknowledged or not by the ACKs that follow, a retransmission a
 * new round, a datagram whose first fragment never completed a partial,
 * the gateway's datagrams one round each, ISO 8601 stamps as well as
 * seconds, and lines that are not CoAP or not lines of this run ignored.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <string.h>
#include "coap_header.h"
#include "vantage_read.h"

/* CON GET, MID 0x1234, token 0xaabb, Uri-Path "fw" "a.img", Block2 NUM 3 SZX 2. */
#define GET "42011234aabbb2667705612e696d67c132"
#define NODE "2001:db8::1"
#define GW "2001:db8:ff::1"

/* number time src16 dst16 seq ack_to fragments ip.src ip.dst sport dport payload frag.size frag.offset */
static char *line(guint n, const char *t, const char *src16, const char *dst16, const char *seq, const char *ack_to,
                  const char *frags, const char *payload, const char *size, const char *offset)
{
    return g_strdup_printf("%u\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", n, t, src16, dst16, seq, ack_to,
                           frags, *payload ? NODE : "", *payload ? GW : "", *payload ? "5683" : "",
                           *payload ? "5683" : "", payload, size, offset);
}

static void feed(ms_vantage_t *v, char *l)
{
    ms_vantage_feed(v, l);
    g_free(l);
}

static void test_header(void)
{
    static const guint8 get[] = { 0x42, 0x01, 0x12, 0x34, 0xaa, 0xbb, 0xb2, 'f', 'w', 0x05, 'a', '.', 'i', 'm', 'g',
                                  0xc1, 0x32 };
    static const guint8 bad_tkl[] = { 0x49, 0x01, 0x12, 0x34 };
    static const guint8 mle[] = { 0xff, 0x04, 0x00, 0x01 };
    static const guint8 long_opt[] = { 0x40, 0x01, 0x00, 0x01, 0xbd, 0xff };
    ms_coap_header_t h;

    g_assert_true(ms_coap_header_parse(get, sizeof(get), &h));
    g_assert_cmpuint(h.mid, ==, 0x1234);
    g_assert_cmpuint(h.code, ==, 1);
    g_assert_cmpstr(h.token, ==, "aabb");
    g_assert_cmpstr(h.path, ==, "/fw/a.img");
    g_assert_cmpint(h.block, ==, 3);
    g_assert_false(ms_coap_header_parse(bad_tkl, sizeof(bad_tkl), &h));
    g_assert_false(ms_coap_header_parse(mle, sizeof(mle), &h));
    g_assert_false(ms_coap_header_parse(long_opt, sizeof(long_opt), &h));   /* a length beyond the message */
    g_assert_false(ms_coap_header_parse(get, 3, &h));
}

static void test_radio(void)
{
    ms_vantage_t *v = ms_vantage_new("radio", "x");

    /* Round 1: hop 0401>0400 (its MAC retry acked), then hop 0400>0001, unacked. */
    feed(v, line(1, "100.000000000", "0x0401", "0x0400", "7", "", "", GET, "", ""));
    feed(v, line(2, "100.004000000", "0x0401", "0x0400", "7", "", "", GET, "", ""));
    feed(v, line(3, "100.005000000", "", "", "7", "2", "", "", "", ""));
    feed(v, line(4, "100.010000000", "0x0400", "0x0001", "9", "", "", GET, "", ""));
    /* Round 2: the same bytes on the first link again, new sequence number. */
    feed(v, line(5, "102.500000000", "0x0401", "0x0400", "8", "", "", GET, "", ""));
    feed(v, line(6, "102.501000000", "", "", "8", "5", "", "", "", ""));
    /* A FRAG1, acknowledged (frame 8), of a datagram never complete; ISO 8601 stamps. */
    feed(v, line(7, "2026-01-01T00:00:00.250000000Z", "0x0401", "0x0400", "10", "", "", "", "200", ""));
    feed(v, line(8, "2026-01-01T00:00:00.260000000Z", "", "", "10", "7", "", "", "", ""));
    /* Another, the border router's. */
    feed(v, line(9, "200.000000000", "0x0400", "0x0401", "20", "", "", "", "315", ""));
    /* Not CoAP (MLE's first byte), a short line, a bad time. */
    feed(v, line(10, "200.1", "0x0401", "0xffff", "21", "", "", "ff040001", "", ""));
    ms_vantage_feed(v, "11\t200.2");
    feed(v, line(12, "soon", "0x0401", "0x0400", "22", "", "", GET, "", ""));
    ms_vantage_finish(v);

    g_assert_true(v->radio);
    g_assert_cmpuint(v->rounds->len, ==, 2);
    const ms_round_t *r1 = g_ptr_array_index(v->rounds, 0), *r2 = g_ptr_array_index(v->rounds, 1);
    g_assert_cmpuint(r1->n_copies, ==, 2);
    g_assert_cmpuint(r1->mac_retries, ==, 1);
    g_assert_cmpfloat(r1->first_s, ==, 100.0);
    g_assert_cmpfloat(r1->last_s, ==, 100.01);
    g_assert_true(r1->copies[0].acked);        /* its retry got the ACK */
    g_assert_false(r1->copies[1].acked);
    g_assert_cmpuint(r1->mid, ==, 0x1234);
    g_assert_cmpstr(r1->path, ==, "/fw/a.img");
    g_assert_cmpint(r1->block, ==, 3);
    g_assert_cmpstr(r1->src, ==, NODE);
    g_assert_cmpuint(r2->n_copies, ==, 1);
    g_assert_true(r2->copies[0].acked);
    g_assert_cmpstr(r1->key, ==, r2->key);
    g_assert_cmpuint(v->partials->len, ==, 2);
    const ms_partial_t *p = &g_array_index(v->partials, ms_partial_t, 0);
    g_assert_cmpuint(p->size, ==, 200);
    g_assert_cmpfloat(p->time, ==, 1767225600.25);      /* the ISO 8601 stamp */
    g_assert_cmpuint(g_array_index(v->partials, ms_partial_t, 1).frame, ==, 9);
    ms_vantage_free(v);
}

/* The windows are the plugin's (common/radio_timing.h): a MAC retry comes
 * within one retry cycle of the transmission before it (48 ms); a round's
 * next hop within 5 s of its previous copy, however long the round. */
static void test_windows(void)
{
    ms_vantage_t *v = ms_vantage_new("radio", "x");

    /* The same sequence number on the same link 0.3 s later: not a retry
     * but the message sent again, a new round. */
    feed(v, line(1, "10.000000000", "0x0401", "0x0400", "7", "", "", GET, "", ""));
    feed(v, line(2, "10.040000000", "0x0401", "0x0400", "7", "", "", GET, "", ""));
    feed(v, line(3, "10.340000000", "0x0401", "0x0400", "7", "", "", GET, "", ""));
    /* Its hops 4 s apart each: one round that spans 8 s. */
    feed(v, line(4, "14.340000000", "0x0400", "0x0402", "30", "", "", GET, "", ""));
    feed(v, line(5, "18.340000000", "0x0402", "0x0001", "40", "", "", GET, "", ""));
    /* A copy on a new link 6 s after the round's last: a round of its own. */
    feed(v, line(6, "24.340000000", "0x0403", "0x0001", "50", "", "", GET, "", ""));
    ms_vantage_finish(v);

    g_assert_cmpuint(v->rounds->len, ==, 3);
    const ms_round_t *r1 = g_ptr_array_index(v->rounds, 0), *r2 = g_ptr_array_index(v->rounds, 1);
    g_assert_cmpuint(r1->n_copies, ==, 1);
    g_assert_cmpuint(r1->mac_retries, ==, 1);       /* frame 2, 40 ms after frame 1 */
    g_assert_cmpuint(r2->n_copies, ==, 3);
    g_assert_cmpuint(r2->mac_retries, ==, 0);
    g_assert_cmpfloat(r2->first_s, ==, 10.34);
    g_assert_cmpfloat(r2->last_s, ==, 18.34);
    g_assert_cmpuint(((const ms_round_t *)g_ptr_array_index(v->rounds, 2))->first_frame, ==, 6);
    ms_vantage_free(v);
}

static void test_gateway(void)
{
    ms_vantage_t *v = ms_vantage_new("gateway", "y");

    feed(v, line(1, "5.0", "", "", "", "", "", GET, "", ""));
    feed(v, line(2, "5.1", "", "", "", "", "", GET, "", ""));
    ms_vantage_finish(v);
    g_assert_false(v->radio);
    g_assert_cmpuint(v->rounds->len, ==, 2);    /* every datagram a round, even the same bytes soon after */
    g_assert_cmpuint(v->frames, ==, 2);
    ms_vantage_free(v);
    ms_vantage_free(NULL);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vantage_read/coap_header", test_header);
    g_test_add_func("/vantage_read/radio", test_radio);
    g_test_add_func("/vantage_read/windows", test_windows);
    g_test_add_func("/vantage_read/gateway", test_gateway);
    return g_test_run();
}
