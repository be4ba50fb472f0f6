/* test_ota_track.c: the OTA session tracker (docs/ota-sessions.md) fed
 * synthetic frame sequences, as packet-meter.c feeds it on the first pass:
 * per frame ota_track_frame, then ota_track_lowpan, then ota_track_message
 * for a CoAP message complete in that frame; ACK frames follow.
 *
 * The network: meter M, router R, gateway radio G. Requests go M->R->G,
 * responses G->R->M, each hop HOP_US after the previous one; every data frame
 * asks for an ACK, which (unless a test says otherwise) follows 800 us later.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <glib.h>
#include <epan/address.h>
#include <epan/tvbuff.h>
#include <wsutil/wmem/wmem.h>
/* The tracker's working records (ota_track_state.h): these tests check
 * them frame by frame, beyond what the display's views show. */
#include "ota_track_state.h"

#define M_LINK G_GUINT64_CONSTANT(0xffff0001)
#define R_LINK G_GUINT64_CONSTANT(0xffff0002)
#define G_LINK G_GUINT64_CONSTANT(0xffff0003)
#define M_IP   "fd00::1"
#define G_IP   "fd00::3"
#define HOP_US 20000
#define MS     1000
#define SEC    G_GINT64_CONSTANT(1000000)

#define CON 0
#define ACK 2
#define GET 1
#define POST 2
#define C_CONTENT  69      /* 2.05 */
#define C_CHANGED  68      /* 2.04 */
#define C_CONTINUE 95      /* 2.31 */
#define C_NOTFOUND 132     /* 4.04 */

static const guint8 meter_ip[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const guint8 gw_ip[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };
static guint8 zeros[2048];

typedef struct {
    wmem_allocator_t *scope;
    ota_track_t *t;
    address meter, gw;
    guint32 frame;          /* last frame number used */
    guint8 seq[4];          /* next 802.15.4 sequence number of each link (by its low bits): a
                               sender numbers its own frames */
    GPtrArray *tvbs;
} fx_t;

static void fx_init(fx_t *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->seq[M_LINK & 3] = 0x10;
    fx->seq[R_LINK & 3] = 0x50;
    fx->seq[G_LINK & 3] = 0x90;
    fx->scope = wmem_allocator_new(WMEM_ALLOCATOR_SIMPLE);
    fx->t = ota_track_new(fx->scope);
    set_address(&fx->meter, AT_IPv6, 16, meter_ip);
    set_address(&fx->gw, AT_IPv6, 16, gw_ip);
    fx->tvbs = g_ptr_array_new_with_free_func((GDestroyNotify)tvb_free);
}

static void fx_done(fx_t *fx)
{
    g_ptr_array_free(fx->tvbs, TRUE);
    wmem_destroy_allocator(fx->scope);
}

/* ---- link layer ---- */

#define DATA_AIR_US ((127 + 6) * 32)   /* a full frame */
#define ACK_AIR_US  ((5 + 6) * 32)

static ota_frame_t *data_frame(fx_t *fx, gint64 us, ota_addr_t src, ota_addr_t dst, guint8 seq)
{
    ota_link_in_t in = { ++fx->frame, us, TRUE, 1, seq, TRUE, src, dst, DATA_AIR_US, FALSE, FALSE, FALSE, FALSE, FALSE, 0, 0 };
    return ota_track_frame(fx->t, &in);
}

static ota_frame_t *ack_frame(fx_t *fx, gint64 us, guint8 seq)
{
    ota_link_in_t in = { ++fx->frame, us, TRUE, 2, seq, FALSE, 0, 0, ACK_AIR_US, FALSE, FALSE, FALSE, FALSE, FALSE, 0, 0 };
    return ota_track_frame(fx->t, &in);
}

/* ---- 6LoWPAN views ---- */

static lowpan_view_t lv_whole(const meter_coap_t *m)
{
    lowpan_view_t lv = { 0 };
    lv.has_coap = TRUE;
    lv.coap_type = m->type;
    lv.coap_code = m->code;
    lv.coap_mid = m->mid;
    return lv;
}

/* span: the uncompressed bytes FRAG1 carries (0: unknown) */
static lowpan_view_t lv_frag1(guint16 tag, guint16 size, gint len, guint16 span, const meter_coap_t *m)
{
    lowpan_view_t lv = { 0 };
    lv.is_frag = lv.first = TRUE;
    lv.tag = tag;
    lv.size = size;
    lv.data_offset = 4;
    lv.data_len = len;
    lv.frag1_span = span;
    if (m) {
        lv.has_coap = TRUE;
        lv.coap_type = m->type;
        lv.coap_code = m->code;
        lv.coap_mid = m->mid;
    }
    return lv;
}

static lowpan_view_t lv_fragn(guint16 tag, guint16 size, guint16 offset, gint len)
{
    lowpan_view_t lv = { 0 };
    lv.is_frag = TRUE;
    lv.tag = tag;
    lv.size = size;
    lv.offset = offset;
    lv.data_offset = 5;
    lv.data_len = len;
    return lv;
}

/* ---- CoAP messages ---- */

static meter_coap_t coap(fx_t *fx, guint8 type, guint8 code, guint16 mid, guint payload_len)
{
    meter_coap_t m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.code = code;
    m.mid = mid;
    m.path = "firmware/img";
    m.content_format = -1;
    m.size1 = m.size2 = -1;
    if (payload_len) {
        m.payload = tvb_new_real_data(zeros, payload_len, payload_len);
        g_ptr_array_add(fx->tvbs, m.payload);
    }
    return m;
}

static meter_coap_t req_b2(fx_t *fx, guint16 mid, guint32 num, guint8 szx)
{
    meter_coap_t m = coap(fx, CON, GET, mid, 0);
    m.block2 = (meter_block_t){ TRUE, FALSE, num, FALSE, szx };
    return m;
}

static meter_coap_t resp_b2(fx_t *fx, guint16 mid, guint32 num, gboolean more, guint8 szx, guint len)
{
    meter_coap_t m = coap(fx, ACK, C_CONTENT, mid, len);
    m.block2 = (meter_block_t){ TRUE, FALSE, num, more, szx };
    return m;
}

static meter_coap_t req_b1(fx_t *fx, guint16 mid, guint32 num, gboolean more, guint8 szx, guint len)
{
    meter_coap_t m = coap(fx, CON, POST, mid, len);
    m.block1 = (meter_block_t){ TRUE, FALSE, num, more, szx };
    return m;
}

/* m from ip_src to ip_dst at us, as the hook feeds it: the exchange first
 * (the tracker matches requests and responses and numbers transfers), then
 * the message. The IPv6 strings are the endpoint keys. */
static ota_copy_result_t *message(fx_t *fx, ota_frame_t *f, gint64 us, const char *ip_src,
                                  const char *ip_dst, const meter_coap_t *m)
{
    guint8 src_ip[16], dst_ip[16];
    address src, dst;
    guint32 frame = f ? f->frame : ++fx->frame;

    g_assert_cmpint(inet_pton(AF_INET6, ip_src, src_ip), ==, 1);
    g_assert_cmpint(inet_pton(AF_INET6, ip_dst, dst_ip), ==, 1);
    set_address(&src, AT_IPv6, 16, src_ip);
    set_address(&dst, AT_IPv6, 16, dst_ip);
    coap_exchange_t *ex = ota_track_exchange(fx->t, m, ip_src, ip_dst, &src, &dst, frame, us, fx->scope);
    ota_image_hints_t hints = { TRUE, -1 };
    return ota_track_message(fx->t, f, frame, us, ip_src, ex, m, &hints);
}

/* One unfragmented copy of m on the link src->dst; returns the tracker's
 * result, *frame_out the frame number. */
static ota_copy_result_t *hop(fx_t *fx, gint64 us, ota_addr_t src, ota_addr_t dst, const meter_coap_t *m, gboolean acked, guint32 *frame_out)
{
    guint8 seq = fx->seq[src & 3]++;
    ota_frame_t *f = data_frame(fx, us, src, dst, seq);
    lowpan_view_t lv = lv_whole(m);
    gboolean up = meter_coap_is_request(m);
    ota_copy_result_t *r;

    ota_track_lowpan(fx->t, f, &lv);
    r = message(fx, f, us, up ? M_IP : G_IP, up ? G_IP : M_IP, m);
    if (acked)
        ack_frame(fx, us + 800, seq);
    if (frame_out)
        *frame_out = f->frame;
    return r;
}

typedef struct {
    ota_copy_result_t *r[2];
    guint32 frame[2];
} path_t;

/* A request M->R at us, R->G at us + HOP_US, both acknowledged. */
static path_t up(fx_t *fx, gint64 us, const meter_coap_t *m)
{
    path_t p;
    p.r[0] = hop(fx, us, M_LINK, R_LINK, m, TRUE, &p.frame[0]);
    p.r[1] = hop(fx, us + HOP_US, R_LINK, G_LINK, m, TRUE, &p.frame[1]);
    return p;
}

/* A response G->R at us, R->M at us + HOP_US (the copy into the meter). */
static path_t down(fx_t *fx, gint64 us, const meter_coap_t *m)
{
    path_t p;
    p.r[0] = hop(fx, us, G_LINK, R_LINK, m, TRUE, &p.frame[0]);
    p.r[1] = hop(fx, us + HOP_US, R_LINK, M_LINK, m, TRUE, &p.frame[1]);
    return p;
}

static const meter_transfer_record_t *finalize(fx_t *fx, guint32 xfer)
{
    const meter_transfer_record_t *s;

    ota_track_finalize(fx->t, 60.0);
    s = ota_track_record(fx->t, xfer);
    g_assert_nonnull(s);
    return s;
}

#define assert_s(a, b) g_assert_cmpfloat_with_epsilon((a), (b), 1e-9)

/* ================= link layer ================= */

/* A MAC retry is the same source and sequence number as that source's previous
 * frame, more than 500 us later; within 500 us it is the same transmission
 * captured twice. */
/* A caller that lets go of every record the tracker does not keep (the
 * plugin does, for polls and ACKs) loses nothing: retries and ACKs are
 * still matched to the frames the tracker holds, and the records of a long
 * run of polls are reused, not piled up. */
static void test_records_let_go(void)
{
    fx_t fx;
    GHashTable *distinct = g_hash_table_new(g_direct_hash, g_direct_equal);
    gint64 us = SEC;

    fx_init(&fx);
    for (guint i = 0; i < 3000; i++, us += 100 * MS) {
        ota_addr_t child = 0xffff0010 + i % 3;
        guint8 seq = (guint8)(i / 3);
        ota_frame_t *poll = data_frame(&fx, us, child, R_LINK, seq);
        guint32 poll_frame = poll->frame;
        g_hash_table_add(distinct, poll);
        g_assert_cmpuint(ota_track_frame_done(fx.t, poll), ==, 0);
        if (i % 10 == 0) {
            /* Its MAC retry: the first transmission is still known. */
            ota_frame_t *retry = data_frame(&fx, us + 2 * MS, child, R_LINK, seq);
            g_assert_true(retry->mac_retry);
            g_assert_cmpuint(retry->first_tx_frame, ==, poll_frame);
            g_hash_table_add(distinct, retry);
            g_assert_cmpuint(ota_track_frame_done(fx.t, retry), ==, 0);
        }
        ota_frame_t *ack = ack_frame(&fx, us + 3 * MS, seq);
        g_assert_cmpuint(ack->acked_frame, ==, i % 10 == 0 ? poll_frame + 1 : poll_frame);
        g_hash_table_add(distinct, ack);
        g_assert_cmpuint(ota_track_frame_done(fx.t, ack), ==, 0);
    }
    /* Held at most: one last frame per sender, the ACK waits, the frame being read. */
    g_assert_cmpuint(g_hash_table_size(distinct), <=, 3 + 256 + 2);
    g_hash_table_destroy(distinct);

    /* A frame of a datagram copy leaves a note with what the display reads,
     * its retry one that points back to it, their ACK updates the retry's;
     * all of it stays true once the records are reused. */
    meter_coap_t m = req_b2(&fx, 7, 0, 2);
    ota_frame_t *f = data_frame(&fx, us, M_LINK, R_LINK, 200);
    lowpan_view_t lv = lv_whole(&m);
    ota_track_lowpan(fx.t, f, &lv);
    guint32 frame = f->frame;
    const ota_copy_t *copy = f->copy;
    ota_link_note_t note = ota_track_frame_done(fx.t, f);
    g_assert_cmpuint(note, !=, 0);
    ota_frame_t *again = data_frame(&fx, us + 2 * MS, M_LINK, R_LINK, 200);
    ota_track_lowpan(fx.t, again, &lv);
    guint32 retry_frame = again->frame;
    ota_link_note_t retry_note = ota_track_frame_done(fx.t, again);
    ota_frame_t *ack = ack_frame(&fx, us + 3 * MS, 200);
    g_assert_cmpuint(ota_track_frame_acked(ack), ==, retry_frame);
    retry_note = ota_link_note_acked(retry_note, retry_frame, ack->frame);
    guint32 ack_num = ack->frame;
    ota_track_frame_done(fx.t, ack);
    for (guint i = 0; i < 600; i++)
        g_assert_cmpuint(ota_track_frame_done(fx.t, ack_frame(&fx, us + (i + 1) * SEC, (guint8)i)), ==, 0);
    ota_link_view_t v;
    ota_track_note_view(fx.t, frame, note, &v);
    g_assert_cmpuint(v.copy, ==, copy->id);
    g_assert_false(v.mac_retry || v.sniffer_dup);
    g_assert_cmpuint(v.ack_frame, ==, 0);
    ota_track_note_view(fx.t, retry_frame, retry_note, &v);
    g_assert_cmpuint(v.copy, ==, copy->id);
    g_assert_true(v.mac_retry);
    g_assert_cmpuint(v.first_tx_frame, ==, frame);
    g_assert_cmpuint(v.ack_frame, ==, ack_num);
    g_assert_cmpuint(v.frag_index, ==, 0);
    fx_done(&fx);
}

static void test_retry_vs_duplicate(void)
{
    fx_t fx;
    fx_init(&fx);
    ota_frame_t *f1 = data_frame(&fx, 1000000, M_LINK, R_LINK, 10);
    g_assert_false(f1->mac_retry || f1->sniffer_dup);
    g_assert_cmpuint(f1->first_tx_frame, ==, 0);

    ota_frame_t *f2 = data_frame(&fx, 1000300, M_LINK, R_LINK, 10);
    g_assert_true(f2->sniffer_dup);
    g_assert_false(f2->mac_retry);
    g_assert_cmpuint(f2->first_tx_frame, ==, f1->frame);

    ota_frame_t *f3 = data_frame(&fx, 1000799, M_LINK, R_LINK, 10);   /* 499 us after f2 */
    g_assert_true(f3->sniffer_dup);
    g_assert_cmpuint(f3->first_tx_frame, ==, f1->frame);

    ota_frame_t *f4 = data_frame(&fx, 1001299, M_LINK, R_LINK, 10);   /* exactly 500 us: "within" */
    g_assert_true(f4->sniffer_dup);
    g_assert_false(f4->mac_retry);

    /* The ACK after a duplicate answers the transmission, recorded on the first copy. */
    ota_frame_t *k = ack_frame(&fx, 1001400, 10);
    g_assert_cmpuint(k->acked_frame, ==, f1->frame);
    g_assert_cmpuint(f1->ack_frame, ==, k->frame);

    ota_frame_t *f5 = data_frame(&fx, 1001800, M_LINK, R_LINK, 10);   /* 501 us */
    g_assert_true(f5->mac_retry);
    g_assert_false(f5->sniffer_dup);
    g_assert_cmpuint(f5->first_tx_frame, ==, f1->frame);

    ota_frame_t *f6 = data_frame(&fx, 1005000, M_LINK, R_LINK, 10);   /* a second retry */
    g_assert_true(f6->mac_retry);
    g_assert_cmpuint(f6->first_tx_frame, ==, f1->frame);

    /* A new sequence number: a new frame; another source with the same
     * number is not a retry of it; ACK frames in between change nothing. */
    ota_frame_t *f7 = data_frame(&fx, 1010000, M_LINK, R_LINK, 11);
    g_assert_false(f7->mac_retry || f7->sniffer_dup);
    ota_frame_t *f8 = data_frame(&fx, 1010100, R_LINK, G_LINK, 11);
    g_assert_false(f8->mac_retry || f8->sniffer_dup);
    ack_frame(&fx, 1010900, 11);
    ota_frame_t *f9 = data_frame(&fx, 1020000, M_LINK, R_LINK, 11);
    g_assert_true(f9->mac_retry);
    g_assert_cmpuint(f9->first_tx_frame, ==, f7->frame);
    ota_frame_t *f10 = data_frame(&fx, 1020200, R_LINK, G_LINK, 11);   /* 10.1 ms after f8 */
    g_assert_true(f10->mac_retry);
    g_assert_cmpuint(f10->first_tx_frame, ==, f8->frame);

    /* A frame without an 802.15.4 header is never classified. */
    ota_link_in_t eth = { ++fx.frame, 1020300, FALSE, 0, 11, FALSE, M_LINK, 0, 0, FALSE, FALSE, FALSE, FALSE, FALSE, 0, 0 };
    ota_frame_t *fe = ota_track_frame(fx.t, &eth);
    g_assert_false(fe->mac_retry || fe->sniffer_dup);

    /* Retries and duplicates carry no message of their own. */
    meter_coap_t m = req_b2(&fx, 1, 0, 6);
    g_assert_null(message(&fx, f2, f2->ts_us, M_IP, G_IP, &m));
    g_assert_null(message(&fx, f5, f5->ts_us, M_IP, G_IP, &m));
    g_assert_nonnull(message(&fx, f1, f1->ts_us, M_IP, G_IP, &m));
    /* Not part of a transfer (no Block option): nothing. */
    meter_coap_t plain = coap(&fx, CON, GET, 2, 0);
    g_assert_null(message(&fx, f7, f7->ts_us, M_IP, G_IP, &plain));
    fx_done(&fx);
}

/* An ACK with the frame's sequence number acknowledges it when it comes no
 * later than the standard allows after the frame's start (its air time,
 * macAckWaitDuration 864 us, the ACK's own air time) plus a host's 5 ms. */
#define ACK_LIMIT_US (DATA_AIR_US + 864 + ACK_AIR_US + 5000)
static void test_ack_matching(void)
{
    fx_t fx;
    fx_init(&fx);

    ota_frame_t *a = data_frame(&fx, 0, M_LINK, R_LINK, 5);
    ota_frame_t *k1 = ack_frame(&fx, 500, 6);                  /* wrong sequence number */
    g_assert_cmpuint(k1->acked_frame, ==, 0);
    g_assert_cmpuint(a->ack_frame, ==, 0);
    ota_frame_t *k2 = ack_frame(&fx, 1000, 5);
    g_assert_cmpuint(k2->acked_frame, ==, a->frame);
    g_assert_cmpuint(a->ack_frame, ==, k2->frame);
    ota_frame_t *k3 = ack_frame(&fx, 1200, 5);                 /* a second ACK: already taken */
    g_assert_cmpuint(k3->acked_frame, ==, 0);
    g_assert_cmpuint(a->ack_frame, ==, k2->frame);

    ota_frame_t *b = data_frame(&fx, 10000, M_LINK, R_LINK, 7);
    ota_frame_t *k4 = ack_frame(&fx, 10000 + ACK_LIMIT_US + 1, 7);   /* too late */
    g_assert_cmpuint(k4->acked_frame, ==, 0);
    g_assert_cmpuint(b->ack_frame, ==, 0);

    ota_frame_t *c = data_frame(&fx, 20000, M_LINK, R_LINK, 8);
    ota_frame_t *k5 = ack_frame(&fx, 20000 + ACK_LIMIT_US, 8);       /* just in time */
    g_assert_cmpuint(k5->acked_frame, ==, c->frame);

    ota_frame_t *k6 = ack_frame(&fx, 30000, 9);                /* before its frame */
    ota_frame_t *d = data_frame(&fx, 30100, M_LINK, R_LINK, 9);
    g_assert_cmpuint(k6->acked_frame, ==, 0);
    g_assert_cmpuint(d->ack_frame, ==, 0);

    /* Two senders in flight: each ACK goes to its own sequence number. */
    ota_frame_t *e = data_frame(&fx, 40000, M_LINK, R_LINK, 20);
    ota_frame_t *g = data_frame(&fx, 40300, G_LINK, R_LINK, 21);
    ota_frame_t *k7 = ack_frame(&fx, 40600, 21);
    ota_frame_t *k8 = ack_frame(&fx, 40900, 20);
    g_assert_cmpuint(k7->acked_frame, ==, g->frame);
    g_assert_cmpuint(k8->acked_frame, ==, e->frame);

    /* Merged captures: an ACK stamped before the frame it would answer. */
    ota_frame_t *late_f = data_frame(&fx, 60000, M_LINK, R_LINK, 40);
    ota_frame_t *k10 = ack_frame(&fx, 59000, 40);
    g_assert_cmpuint(k10->acked_frame, ==, 0);
    g_assert_cmpuint(late_f->ack_frame, ==, 0);

    /* Only the retry got its ACK. */
    ota_frame_t *h = data_frame(&fx, 70000, M_LINK, R_LINK, 30);
    ota_frame_t *h2 = data_frame(&fx, 75000, M_LINK, R_LINK, 30);
    ota_frame_t *k9 = ack_frame(&fx, 76000, 30);
    g_assert_true(h2->mac_retry);
    g_assert_cmpuint(k9->acked_frame, ==, h2->frame);
    g_assert_cmpuint(h->ack_frame, ==, 0);
    fx_done(&fx);
}

/* What the stamps mark, from the frame-ACK gaps (IEEE 802.15.4: the ACK
 * starts aTurnaroundTime, 192 us, after its frame ends). */
static void test_time_base(void)
{
    fx_t fx;

    /* Stamped at each frame's end: the ACK ends a turnaround and its own air time later. */
    fx_init(&fx);
    data_frame(&fx, 10000, M_LINK, R_LINK, 1);
    ota_frame_t *k = ack_frame(&fx, 10000 + 192 + ACK_AIR_US, 1);
    g_assert_cmpint(ota_track_time_base(fx.t)->kind, ==, OTA_STAMP_END);
    g_assert_cmpuint(ota_track_time_base(fx.t)->decided_frame, ==, k->frame);
    ota_frame_t *f = data_frame(&fx, 20000, M_LINK, R_LINK, 2);
    g_assert_cmpint(f->ts_us, ==, 20000);
    fx_done(&fx);

    /* At each frame's start: the ACK starts the frame's air time and a turnaround later.
     * From then on every frame's time is its end. */
    fx_init(&fx);
    ota_frame_t *early = data_frame(&fx, 10000, M_LINK, R_LINK, 1);
    k = ack_frame(&fx, 10000 + DATA_AIR_US + 192, 1);
    g_assert_cmpint(ota_track_time_base(fx.t)->kind, ==, OTA_STAMP_START);
    g_assert_cmpuint(k->acked_frame, ==, early->frame);
    g_assert_cmpint(early->ts_us, ==, 10000);        /* timed before it was known */
    g_assert_cmpint(k->ts_us, ==, 10000 + DATA_AIR_US + 192 + ACK_AIR_US);
    f = data_frame(&fx, 20000, M_LINK, R_LINK, 2);
    g_assert_cmpint(f->ts_us, ==, 20000 + DATA_AIR_US);
    g_assert_true(f->moved_to_end);                  /* its stamp as captured: ts_us - air_us */
    g_assert_cmpint(f->ts_us - f->air_us, ==, 20000);
    /* A full frame's ACK 4.4 ms after its stamp is its ACK: nothing unacknowledged. */
    g_assert_cmpuint(ack_frame(&fx, 20000 + DATA_AIR_US + 192, 2)->acked_frame, ==, f->frame);
    fx_done(&fx);

    /* At the host: gaps that fit neither, most of at least four pairs. */
    fx_init(&fx);
    static const int late_us[] = { 1700, 3100, 900, 2600 };
    for (guint i = 0; i < G_N_ELEMENTS(late_us); i++) {
        f = data_frame(&fx, 10000 * (i + 1), M_LINK, R_LINK, (guint8)i);
        k = ack_frame(&fx, 10000 * (i + 1) + late_us[i], (guint8)i);
        g_assert_cmpuint(k->acked_frame, ==, f->frame);
    }
    g_assert_cmpint(ota_track_time_base(fx.t)->kind, ==, OTA_STAMP_HOST);
    g_assert_cmpuint(ota_track_time_base(fx.t)->pairs, ==, 4);
    fx_done(&fx);

    /* Short frames cannot tell: an ACK-sized frame's gap fits both. */
    fx_init(&fx);
    ota_link_in_t poll = { ++fx.frame, 10000, TRUE, 3, 9, TRUE, M_LINK, R_LINK, ACK_AIR_US + 7 * 32, FALSE, FALSE, TRUE, FALSE, FALSE, 0, 0 };
    ota_track_frame(fx.t, &poll);
    ack_frame(&fx, 10000 + 192 + ACK_AIR_US, 9);
    g_assert_cmpint(ota_track_time_base(fx.t)->kind, ==, OTA_STAMP_UNKNOWN);
    g_assert_cmpuint(ota_track_time_base(fx.t)->pairs, ==, 0);
    fx_done(&fx);

    /* Given by the user: start, from the first frame; the gaps are still counted. */
    fx_init(&fx);
    ota_track_fix_time_base(fx.t, OTA_STAMP_START);
    f = data_frame(&fx, 10000, M_LINK, R_LINK, 1);
    g_assert_cmpint(f->ts_us, ==, 10000 + DATA_AIR_US);
    ack_frame(&fx, 10000 + 192 + ACK_AIR_US, 1);     /* fits end: still start */
    g_assert_cmpint(ota_track_time_base(fx.t)->kind, ==, OTA_STAMP_START);
    g_assert_cmpuint(ota_track_time_base(fx.t)->fit_end, ==, 1);
    fx_done(&fx);
}

/* ================= one read: what the stamps mark, told within the pass ================= */

/* gap_us after a frame's stamp its ACK: DATA_AIR_US + 192 fits stamps at
 * each frame's start, and nothing else here. Every frame is done with, as
 * the plugin does. */
static void told_hop(fx_t *fx, gint64 us, ota_addr_t src, ota_addr_t dst, const meter_coap_t *m, gint64 gap_us)
{
    guint8 seq = fx->seq[src & 3]++;
    ota_frame_t *f = data_frame(fx, us, src, dst, seq);
    lowpan_view_t lv = lv_whole(m);
    gboolean up = meter_coap_is_request(m);

    ota_track_lowpan(fx->t, f, &lv);
    message(fx, f, us, up ? M_IP : G_IP, up ? G_IP : M_IP, m);
    ota_track_frame_done(fx->t, f);
    ota_track_frame_done(fx->t, ack_frame(fx, us + gap_us, seq));
}

/* A download of n blocks, its ACKs gap_us after their frames, the first
 * one's gap first_gap_us. */
static void told_download(fx_t *fx, guint n, gint64 first_gap_us, gint64 gap_us)
{
    gint64 us = SEC;

    for (guint b = 0; b < n; b++, us += 300 * MS) {
        meter_coap_t rq = req_b2(fx, (guint16)(100 + b), b, 4);
        told_hop(fx, us, M_LINK, G_LINK, &rq, b ? gap_us : first_gap_us);
        meter_coap_t rs = resp_b2(fx, (guint16)(100 + b), b, b + 1 < n, 4, 256);
        told_hop(fx, us + 40 * MS, G_LINK, M_LINK, &rs, gap_us);
    }
}

/* The transfer's T record as -z meter,ota,tsv prints it. */
static char *told_record(fx_t *fx)
{
    GString *out = g_string_new(NULL);

    meter_record_write(out, &meter_transfer_schema, finalize(fx, 1));
    return g_string_free(out, FALSE);
}

#define START_GAP_US (DATA_AIR_US + 192)

/* Stamps at each frame's start, told only by the ACK after the first
 * request: the record is the one of a tracker told start from the first
 * frame, byte for byte, whether the gaps told it firmly (many pairs) or
 * only by the end of the capture (two pairs). */
static void test_one_read_start(void)
{
    static const guint blocks[] = { 6, 1 };

    for (guint i = 0; i < G_N_ELEMENTS(blocks); i++) {
        fx_t told, fixed;
        fx_init(&told);
        fx_init(&fixed);
        ota_track_fix_time_base(fixed.t, OTA_STAMP_START);
        told_download(&told, blocks[i], START_GAP_US, START_GAP_US);
        told_download(&fixed, blocks[i], START_GAP_US, START_GAP_US);
        char *a = told_record(&told), *b = told_record(&fixed);
        g_assert_cmpstr(a, ==, b);
        g_assert_cmpint(ota_track_time_base(told.t)->kind, ==, OTA_STAMP_START);
        g_assert_cmpuint(ota_track_time_base(told.t)->early_messages, ==, 0);
        /* The first request was timed at its end, not at its stamp. */
        g_assert_cmpint(ota_track_transfer(told.t, 1)->first_us, ==, SEC + DATA_AIR_US);
        g_free(a);
        g_free(b);
        fx_done(&told);
        fx_done(&fixed);
    }
}

/* The records a caller kept of the frames before the start copy took over
 * name the tracker's old exchanges and results: each has a counterpart in
 * the tracker that took over, with the times a start-told pass gives. */
static void test_one_read_rebind(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t rq = req_b2(&fx, 100, 0, 4);
    ota_frame_t *f = data_frame(&fx, SEC, M_LINK, G_LINK, 1);
    lowpan_view_t lv = lv_whole(&rq);
    ota_track_lowpan(fx.t, f, &lv);
    ota_copy_result_t *mine = message(&fx, f, SEC, M_IP, G_IP, &rq);
    guint32 first = f->frame;
    g_assert_cmpuint(ota_track_frame_done(fx.t, f), !=, 0);
    g_assert_false(ota_track_rebound(fx.t));
    /* Eight pairs that fit start: firm. */
    gboolean rebound = FALSE;
    for (guint i = 0; i < 8 && !rebound; i++) {
        ota_frame_t *k = ack_frame(&fx, SEC + i * 100 * MS + START_GAP_US, (guint8)(1 + i));
        ota_track_frame_done(fx.t, k);
        rebound = ota_track_rebound(fx.t);
        if (!rebound)
            ota_track_frame_done(fx.t, data_frame(&fx, SEC + (i + 1) * 100 * MS, M_LINK, G_LINK, (guint8)(2 + i)));
    }
    g_assert_true(rebound);
    const ota_copy_result_t *theirs = ota_track_counterpart(fx.t, mine);
    g_assert_true(theirs != mine);
    g_assert_cmpint(theirs->msg->rounds.at[0].first_us, ==, SEC + DATA_AIR_US);
    g_assert_cmpint(mine->msg->rounds.at[0].first_us, ==, SEC);
    g_assert_true(ota_track_counterpart(fx.t, &fx) == (gconstpointer)&fx);   /* not the tracker's: itself */
    g_assert_cmpuint(ota_track_counterpart_note(fx.t, first), !=, 0);
    ota_track_rebind_done(fx.t);
    g_assert_false(ota_track_rebound(fx.t));
    fx_done(&fx);
}

/* A host's stamps whose first gap happens to fit start: most later ones
 * fit nothing, the gaps tell host, and the first request keeps its stamp
 * (the start copy went, it did not take over). */
static void test_one_read_host_by_chance(void)
{
    fx_t fx;
    fx_init(&fx);
    told_download(&fx, 4, START_GAP_US, 2600);
    g_assert_cmpint(ota_track_time_base(fx.t)->kind, ==, OTA_STAMP_HOST);
    g_assert_cmpint(finalize(&fx, 1)->first_frame, ==, 1);
    g_assert_cmpint(ota_track_transfer(fx.t, 1)->first_us, ==, SEC);
    fx_done(&fx);
}

/* ================= datagram copies ================= */

/* FRAG1 + FRAGNs in any order complete a copy; duplicates and retries of a
 * fragment do not count it twice. Size 300: FRAG1 (90 bytes, 96 uncompressed),
 * 96+96, 192+108. */
static void test_fragments_any_order(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t m = resp_b2(&fx, 7, 0, TRUE, 6, 250);
    lowpan_view_t v1 = lv_frag1(0x77, 300, 90, 96, &m), v2 = lv_fragn(0x77, 300, 96, 96),
                  v3 = lv_fragn(0x77, 300, 192, 108);

    ota_frame_t *f3 = data_frame(&fx, 0, G_LINK, R_LINK, 1);
    ota_track_lowpan(fx.t, f3, &v3);
    ota_copy_t *c = f3->copy;
    g_assert_nonnull(c);
    g_assert_false(c->complete);
    g_assert_cmpuint(c->size, ==, 300);
    g_assert_cmpuint(c->tag, ==, 0x77);
    g_assert_cmphex(c->src, ==, G_LINK);
    g_assert_cmphex(c->dst, ==, R_LINK);
    g_assert_cmpuint(f3->frag_offset, ==, 192);
    g_assert_cmpuint(f3->frag_len, ==, 108);

    ota_frame_t *f1 = data_frame(&fx, 5000, G_LINK, R_LINK, 2);
    ota_track_lowpan(fx.t, f1, &v1);
    g_assert_true(f1->copy == c);
    g_assert_false(c->complete);
    g_assert_true(c->has_coap);
    g_assert_cmpuint(c->coap_mid, ==, 7);
    g_assert_cmpuint(f1->frag_offset, ==, 0);
    g_assert_cmpuint(f1->frag_len, ==, 96);
    g_assert_cmpuint(c->covered, ==, 96 + 108);

    ota_frame_t *d1 = data_frame(&fx, 5100, G_LINK, R_LINK, 2);          /* captured twice */
    g_assert_true(d1->sniffer_dup);
    ota_track_lowpan(fx.t, d1, &v1);
    g_assert_true(d1->copy == c);
    g_assert_cmpuint(d1->frag_len, ==, 96);
    g_assert_cmpuint(c->n_frags, ==, 2);
    g_assert_cmpuint(c->frags[f1->frag_index].transmissions, ==, 1);

    ota_frame_t *f2 = data_frame(&fx, 10000, G_LINK, R_LINK, 3);
    ota_track_lowpan(fx.t, f2, &v2);
    g_assert_true(f2->copy == c);
    g_assert_true(c->complete);
    g_assert_cmpuint(c->complete_frame, ==, f2->frame);
    g_assert_cmpuint(c->covered, ==, 300);
    g_assert_cmpuint(c->n_frags, ==, 3);

    ota_frame_t *r2 = data_frame(&fx, 15000, G_LINK, R_LINK, 3);         /* MAC retry */
    g_assert_true(r2->mac_retry);
    ota_track_lowpan(fx.t, r2, &v2);
    g_assert_true(r2->copy == c);
    g_assert_cmpuint(r2->frag_index, ==, f2->frag_index);
    g_assert_cmpuint(r2->frag_offset, ==, 96);
    g_assert_cmpuint(r2->frag_len, ==, 96);
    g_assert_cmpuint(c->n_frags, ==, 3);
    g_assert_cmpuint(c->frags[f2->frag_index].transmissions, ==, 2);
    g_assert_true(c->complete);
    g_assert_cmpuint(c->complete_frame, ==, f2->frame);
    ota_frame_t *k = ack_frame(&fx, 15500, 3);
    g_assert_cmpuint(k->acked_frame, ==, r2->frame);
    g_assert_true(c->frags[f2->frag_index].acked);
    g_assert_false(c->frags[f1->frag_index].acked);

    /* The same tag on the next hop: another copy. */
    ota_frame_t *h1 = data_frame(&fx, 30000, R_LINK, M_LINK, 4);
    ota_track_lowpan(fx.t, h1, &v1);
    g_assert_true(h1->copy != c);
    g_assert_false(h1->copy->complete);
    /* Another size with the same tag on the same link: another datagram. */
    lowpan_view_t other = lv_fragn(0x77, 400, 96, 96);
    ota_frame_t *o1 = data_frame(&fx, 31000, G_LINK, R_LINK, 5);
    ota_track_lowpan(fx.t, o1, &other);
    g_assert_true(o1->copy != c && o1->copy != h1->copy);
    /* A FRAG1 with the tag again after the copy completed: the tag wrapped. */
    ota_frame_t *n1 = data_frame(&fx, 40000, G_LINK, R_LINK, 6);
    ota_track_lowpan(fx.t, n1, &v1);
    g_assert_true(n1->copy != c);
    g_assert_false(n1->copy->complete);
    g_assert_cmpuint(n1->copy->id, >, c->id);
    /* ... and a FRAGN of that one after a long silence: yet another. */
    ota_frame_t *n2 = data_frame(&fx, 40000 + 61 * SEC, G_LINK, R_LINK, 7);
    ota_track_lowpan(fx.t, n2, &v2);
    g_assert_true(n2->copy != n1->copy);

    /* Behind mesh headers: the same link, tag and size from two originators
     * are two datagrams. */
    lowpan_view_t ma = lv_fragn(0x99, 300, 96, 96), mb = ma;
    ma.has_mesh = mb.has_mesh = TRUE;
    ma.mesh_orig = G_GUINT64_CONSTANT(0xffff00aa);
    mb.mesh_orig = G_GUINT64_CONSTANT(0xffff00bb);
    ota_frame_t *m1 = data_frame(&fx, 100 * SEC, R_LINK, G_LINK, 9);
    ota_track_lowpan(fx.t, m1, &ma);
    ota_frame_t *m2 = data_frame(&fx, 100 * SEC + 5000, R_LINK, G_LINK, 10);
    ota_track_lowpan(fx.t, m2, &mb);
    g_assert_true(m1->copy != m2->copy);
    ota_frame_t *m3 = data_frame(&fx, 100 * SEC + 10000, R_LINK, G_LINK, 11);
    ota_track_lowpan(fx.t, m3, &ma);
    g_assert_true(m3->copy == m1->copy);
    g_assert_cmpuint(m1->copy->frags[0].transmissions, ==, 2);

    /* An unfragmented datagram: a complete copy of its own, size 0. */
    ota_frame_t *u = data_frame(&fx, 200 * SEC, M_LINK, R_LINK, 8);
    lowpan_view_t w = lv_whole(&m);
    ota_track_lowpan(fx.t, u, &w);
    g_assert_nonnull(u->copy);
    g_assert_cmpuint(u->copy->size, ==, 0);
    g_assert_true(u->copy->complete);
    fx_done(&fx);
}

/* Copies that never complete. */
static void test_fragments_incomplete(void)
{
    fx_t fx;
    fx_init(&fx);
    lowpan_view_t v1 = lv_frag1(9, 300, 90, 96, NULL), v2 = lv_fragn(9, 300, 96, 96),
                  v3 = lv_fragn(9, 300, 192, 108);

    /* FRAG1 and the middle one: the end is missing. */
    ota_frame_t *a = data_frame(&fx, 0, G_LINK, R_LINK, 1);
    ota_track_lowpan(fx.t, a, &v1);
    ota_frame_t *b = data_frame(&fx, 5000, G_LINK, R_LINK, 2);
    ota_track_lowpan(fx.t, b, &v2);
    g_assert_true(a->copy == b->copy);
    g_assert_false(a->copy->complete);

    /* FRAGNs only: no FRAG1. */
    ota_frame_t *c = data_frame(&fx, 10000, R_LINK, M_LINK, 3);
    ota_track_lowpan(fx.t, c, &v2);
    ota_frame_t *d = data_frame(&fx, 15000, R_LINK, M_LINK, 4);
    ota_track_lowpan(fx.t, d, &v3);
    g_assert_true(c->copy == d->copy);
    g_assert_false(c->copy->complete);
    g_assert_cmpuint(c->copy->n_frags, ==, 2);

    /* A FRAG1 alone. */
    ota_frame_t *e = data_frame(&fx, 20000, M_LINK, R_LINK, 5);
    ota_track_lowpan(fx.t, e, &v1);
    g_assert_false(e->copy->complete);
    fx_done(&fx);
}

/* FRAG1 and the last fragment, the one in between missing: bytes 96..191
 * were never on the air, so no dissector could reassemble the datagram. */
static void test_fragment_gap_after_frag1(void)
{
    fx_t fx;
    fx_init(&fx);
    lowpan_view_t v1 = lv_frag1(9, 300, 90, 96, NULL), v2 = lv_fragn(9, 300, 96, 96),
                  v3 = lv_fragn(9, 300, 192, 108);

    ota_frame_t *a = data_frame(&fx, 0, G_LINK, R_LINK, 1);
    ota_track_lowpan(fx.t, a, &v1);
    ota_frame_t *b = data_frame(&fx, 5000, G_LINK, R_LINK, 2);
    ota_track_lowpan(fx.t, b, &v3);
    g_assert_true(a->copy == b->copy);
    g_assert_false(a->copy->complete);
    g_assert_cmpuint(a->copy->covered, ==, 96 + 108);
    ota_frame_t *c = data_frame(&fx, 10000, G_LINK, R_LINK, 3);
    ota_track_lowpan(fx.t, c, &v2);
    g_assert_true(a->copy->complete);
    g_assert_cmpuint(a->copy->complete_frame, ==, c->frame);

    /* 4 bytes short of the size: not complete. */
    lowpan_view_t s1 = lv_frag1(11, 300, 90, 96, NULL), s2 = lv_fragn(11, 300, 96, 96),
                  s3 = lv_fragn(11, 300, 192, 104);
    ota_frame_t *sa = data_frame(&fx, 12000, G_LINK, R_LINK, 7);
    ota_track_lowpan(fx.t, sa, &s1);
    ota_frame_t *sb = data_frame(&fx, 13000, G_LINK, R_LINK, 8);
    ota_track_lowpan(fx.t, sb, &s2);
    ota_frame_t *sc = data_frame(&fx, 14000, G_LINK, R_LINK, 9);
    ota_track_lowpan(fx.t, sc, &s3);
    g_assert_true(sa->copy == sc->copy);
    g_assert_false(sa->copy->complete);
    /* Enough bytes in total, but a hole at 192..199: not complete. */
    lowpan_view_t h1 = lv_frag1(12, 300, 90, 96, NULL), h2 = lv_fragn(12, 300, 96, 96),
                  h3 = lv_fragn(12, 300, 200, 108);
    ota_frame_t *ha = data_frame(&fx, 15000, G_LINK, R_LINK, 10);
    ota_track_lowpan(fx.t, ha, &h1);
    ota_frame_t *hb = data_frame(&fx, 16000, G_LINK, R_LINK, 11);
    ota_track_lowpan(fx.t, hb, &h3);
    ota_frame_t *hc = data_frame(&fx, 17000, G_LINK, R_LINK, 12);
    ota_track_lowpan(fx.t, hc, &h2);
    g_assert_true(ha->copy == hc->copy);
    g_assert_cmpuint(ha->copy->covered, >=, 300);
    g_assert_false(ha->copy->complete);

    /* A FRAG1 whose span is unknown (headers not read) is taken to reach the
     * first FRAGN: contiguous FRAGNs complete the copy. */
    lowpan_view_t u1 = lv_frag1(10, 300, 90, 0, NULL), u2 = lv_fragn(10, 300, 96, 96),
                  u3 = lv_fragn(10, 300, 192, 108);
    ota_frame_t *d = data_frame(&fx, 20000, G_LINK, R_LINK, 20);
    ota_track_lowpan(fx.t, d, &u1);
    g_assert_cmpuint(d->frag_len, ==, 0);
    ota_frame_t *e = data_frame(&fx, 25000, G_LINK, R_LINK, 21);
    ota_track_lowpan(fx.t, e, &u3);
    ota_frame_t *g = data_frame(&fx, 30000, G_LINK, R_LINK, 22);
    ota_track_lowpan(fx.t, g, &u2);
    g_assert_true(d->copy == g->copy);
    g_assert_true(d->copy->complete);
    g_assert_cmpuint(d->copy->covered, ==, 300);
    fx_done(&fx);
}

/* ================= messages, rounds, transfers ================= */

/* A download of 4 blocks (3 x 256 + 100 bytes) over two hops with known
 * round-trip and turn-around times; nearest-rank median and 95th percentile. */
static void test_download_rtt_turnaround(void)
{
    static const gint64 answer[4] = { 80 * MS, 380 * MS, 180 * MS, 280 * MS };  /* RTT - HOP_US */
    static const gint64 think[3] = { 10 * MS, 30 * MS, 20 * MS };
    fx_t fx;
    fx_init(&fx);
    gint64 t = 1 * SEC, last = 0;

    for (guint k = 0; k < 4; k++) {
        meter_coap_t q = req_b2(&fx, (guint16)(100 + k), k, 4);
        meter_coap_t a = resp_b2(&fx, (guint16)(100 + k), k, k < 3, 4, k < 3 ? 256 : 100);
        path_t u = up(&fx, t, &q);

        g_assert_cmpuint(u.r[0]->round, ==, 1);
        g_assert_false(u.r[0]->hop_copy || u.r[0]->retransmission || u.r[0]->rerequest);
        g_assert_true(u.r[1]->hop_copy);
        g_assert_cmpuint(u.r[1]->round, ==, 1);
        g_assert_false(u.r[1]->retransmission);
        g_assert_true(u.r[0]->msg == u.r[1]->msg);
        g_assert_true(u.r[0]->msg->is_request);
        g_assert_cmpuint(u.r[0]->msg->offset, ==, k * 256);
        g_assert_cmpint(u.r[0]->elapsed_us, ==, t - 1 * SEC);
        g_assert_cmpint(u.r[1]->turnaround_us, ==, -1);
        if (k == 0)
            g_assert_cmpint(u.r[0]->turnaround_us, ==, -1);
        else
            g_assert_cmpint(u.r[0]->turnaround_us, ==, think[k - 1]);

        path_t d = down(&fx, t + answer[k], &a);
        g_assert_false(d.r[0]->hop_copy || d.r[0]->duplicate_response);
        g_assert_true(d.r[1]->hop_copy);
        g_assert_false(d.r[1]->duplicate_response);
        g_assert_true(d.r[0]->msg->request == u.r[0]->msg);
        g_assert_cmpint(d.r[0]->rtt_first_us, ==, answer[k]);
        g_assert_cmpint(d.r[1]->rtt_first_us, ==, answer[k] + HOP_US);
        g_assert_cmpint(d.r[1]->rtt_last_us, ==, answer[k] + HOP_US);
        g_assert_cmpuint(d.r[1]->bytes_so_far, ==, k < 3 ? 256 * (k + 1) : 868);
        last = t + answer[k] + HOP_US;
        if (k < 3)
            t = last + think[k];
    }
    g_assert_cmpuint(ota_track_n_transfers(fx.t), ==, 1);
    ota_transfer_t *x = ota_track_transfer_at(fx.t, 0);
    g_assert_true(x == ota_track_transfer(fx.t, 1));
    g_assert_null(ota_track_transfer(fx.t, 2));
    g_assert_false(x->upload);
    g_assert_false(x->renegotiated);
    g_assert_cmphex(x->meter_link, ==, M_LINK);
    g_assert_nonnull(x->meter);
    g_assert_cmpstr(x->path, ==, "firmware/img");

    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_true(s->complete);
    g_assert_cmpuint(s->blocks, ==, 4);
    g_assert_cmpuint(s->bytes, ==, 868);
    g_assert_cmpint(s->first_request_us, ==, 1 * SEC);
    g_assert_cmpint(s->last_response_us, ==, last);
    g_assert_cmpint(s->last_response_us, ==, 2060 * MS);
    g_assert_cmpint(s->last_activity_us, ==, last);
    assert_s(s->duration_s, 1.06);
    assert_s(s->rate_Bps, 868 / 1.06);
    g_assert_cmpuint(s->requests, ==, 4);
    g_assert_cmpuint(s->retransmissions, ==, 0);
    g_assert_cmpuint(s->rerequests, ==, 0);
    g_assert_cmpuint(s->duplicate_responses, ==, 0);
    g_assert_cmpuint(s->error_responses, ==, 0);
    g_assert_cmpuint(s->mac_retries, ==, 0);
    g_assert_cmpuint(s->datagrams_fragmented, ==, 0);
    g_assert_cmpuint(s->datagrams_incomplete, ==, 0);
    g_assert_cmpuint(s->fragments_lost, ==, 0);
    /* RTTs 100, 400, 200, 300 ms: the median of an even count is the lower middle. */
    assert_s(s->rtt_first_median_s, 0.2);
    assert_s(s->rtt_first_p95_s, 0.4);
    assert_s(s->rtt_last_median_s, 0.2);
    assert_s(s->rtt_last_p95_s, 0.4);
    /* Turn-arounds 10, 30, 20 ms. */
    assert_s(s->turnaround_median_s, 0.02);
    assert_s(s->turnaround_p95_s, 0.03);
    /* Where the time went. Each block: 4 frames and 4 ACKs on the air; the
     * first request's frame ends at the start, the last ACK after the end.
     * In each turn-around: the response's last ACK and the next request. */
    gint64 air = 4 * (4 * DATA_AIR_US + 4 * ACK_AIR_US) - DATA_AIR_US - ACK_AIR_US;
    gint64 turn = (10 + 30 + 20) * MS - 3 * (ACK_AIR_US + DATA_AIR_US);
    assert_s(s->time_air_s, air / 1e6);
    assert_s(s->time_turnaround_s, turn / 1e6);
    assert_s(s->time_timeouts_s, 0);
    assert_s(s->time_network_s, (1060 * MS - air - turn) / 1e6);
    g_assert_cmpuint(s->stalls, ==, 0);
    fx_done(&fx);
}

/* 20 blocks: the 95th percentile is rank 19 of 20, not the maximum. */
static void test_percentiles_nearest_rank(void)
{
    fx_t fx;
    fx_init(&fx);
    gint64 t = 0;

    for (guint k = 0; k < 20; k++) {
        gint64 rtt = (gint64)((k * 7) % 20 + 1) * 10 * MS;       /* 10..200 ms, shuffled */
        meter_coap_t q = req_b2(&fx, (guint16)(500 + k), k, 4);
        meter_coap_t a = resp_b2(&fx, (guint16)(500 + k), k, k < 19, 4, 256);
        guint32 qf;
        hop(&fx, t, M_LINK, G_LINK, &q, TRUE, &qf);
        hop(&fx, t + rtt, G_LINK, M_LINK, &a, TRUE, NULL);
        t += rtt + (gint64)((k * 3) % 19 + 1) * MS;            /* turn-around 1..19 ms, shuffled */
    }
    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_true(s->complete);
    g_assert_cmpuint(s->blocks, ==, 20);
    assert_s(s->rtt_first_median_s, 0.100);    /* rank ceil(0.5 * 20) = 10 */
    assert_s(s->rtt_first_p95_s, 0.190);       /* rank ceil(0.95 * 20) = 19 */
    assert_s(s->turnaround_median_s, 0.010);   /* rank ceil(0.5 * 19) = 10 */
    assert_s(s->turnaround_p95_s, 0.019);      /* rank ceil(0.95 * 19) = 19 */
    fx_done(&fx);
}

/* Copies of one transmission hop by hop are one round; the same message on a
 * link the round already used, or after the window, is a new round. */
static void test_hop_copies_vs_retransmission(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q = req_b2(&fx, 100, 0, 4);
    meter_coap_t a = resp_b2(&fx, 100, 0, FALSE, 4, 100);

    path_t u = up(&fx, 0, &q);
    g_assert_false(u.r[0]->hop_copy);
    g_assert_true(u.r[1]->hop_copy);
    /* The gateway's Ethernet copy (no link layer): one more hop of the round. */
    ota_copy_result_t *eth = message(&fx, NULL, 25 * MS, M_IP, G_IP, &q);
    g_assert_true(eth->hop_copy);
    g_assert_cmpuint(eth->round, ==, 1);

    /* The meter sends it again: the link M->R again, a new round. */
    path_t u2 = up(&fx, 3 * SEC, &q);
    g_assert_true(u2.r[0]->retransmission);
    g_assert_false(u2.r[0]->hop_copy || u2.r[0]->rerequest);
    g_assert_cmpuint(u2.r[0]->round, ==, 2);
    g_assert_cmpuint(u2.r[0]->prev_tx_frame, ==, u.frame[0]);
    g_assert_cmpint(u2.r[0]->cause, ==, OTA_CAUSE_NOTHING_VISIBLE);
    g_assert_true(u2.r[1]->hop_copy);
    g_assert_false(u2.r[1]->retransmission);
    g_assert_cmpuint(u2.r[1]->round, ==, 2);
    ota_copy_result_t *eth2 = message(&fx, NULL, 3 * SEC + 25 * MS, M_IP, G_IP, &q);
    g_assert_true(eth2->hop_copy);
    g_assert_cmpuint(eth2->round, ==, 2);
    g_assert_true(u2.r[0]->msg == u.r[0]->msg);

    /* The meter again, much later. */
    ota_copy_result_t *r3 = hop(&fx, 9 * SEC, M_LINK, R_LINK, &q, TRUE, NULL);
    g_assert_false(r3->hop_copy);
    g_assert_true(r3->retransmission);
    g_assert_cmpuint(r3->round, ==, 3);
    g_assert_cmpuint(r3->prev_tx_frame, ==, u2.frame[0]);

    path_t d = down(&fx, 9 * SEC + 100 * MS, &a);
    g_assert_cmpint(d.r[1]->rtt_first_us, ==, 9 * SEC + 120 * MS);
    g_assert_cmpint(d.r[1]->rtt_last_us, ==, 120 * MS);
    /* On the next link 4.999 s after the round's last copy: still that round;
     * 5.001 s after: a new one. */
    meter_coap_t q2 = req_b2(&fx, 200, 0, 4), a2 = resp_b2(&fx, 200, 0, FALSE, 4, 100);
    guint32 f2;
    hop(&fx, 100 * SEC, M_LINK, G_LINK, &q2, TRUE, &f2);
    ota_copy_result_t *w1 = hop(&fx, 100 * SEC + 100 * MS, G_LINK, R_LINK, &a2, TRUE, NULL);
    ota_copy_result_t *w2 = hop(&fx, 105 * SEC + 99 * MS, R_LINK, M_LINK, &a2, TRUE, NULL);
    g_assert_true(w2->hop_copy);
    g_assert_cmpuint(w2->round, ==, 1);
    g_assert_true(w2->msg == w1->msg);
    ota_copy_result_t *w3 = hop(&fx, 110 * SEC + 100 * MS, G_LINK, R_LINK, &a2, TRUE, NULL);
    ota_copy_result_t *w4 = hop(&fx, 115 * SEC + 101 * MS, R_LINK, M_LINK, &a2, TRUE, NULL);
    g_assert_cmpuint(w3->round, ==, 2);
    g_assert_false(w4->hop_copy);
    g_assert_cmpuint(w4->round, ==, 3);

    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_cmpuint(s->requests, ==, 3);
    g_assert_cmpuint(s->retransmissions, ==, 2);
    g_assert_cmpuint(s->rerequests, ==, 0);
    g_assert_true(s->complete);
    assert_s(s->rtt_first_median_s, 9.12);
    assert_s(s->rtt_last_median_s, 0.12);
    g_assert_cmpint(s->last_response_us, ==, 9 * SEC + 120 * MS);
    assert_s(s->duration_s, 9.12);
    fx_done(&fx);
}

/* A request with a new MID for a block already requested; the turn-around is
 * the meter's own time to its first request for the block. */
static void test_rerequest(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q0 = req_b2(&fx, 1, 0, 4), a0 = resp_b2(&fx, 1, 0, TRUE, 4, 256);
    meter_coap_t qa = req_b2(&fx, 2, 1, 4);
    meter_coap_t qb = req_b2(&fx, 3, 1, 4), ab = resp_b2(&fx, 3, 1, FALSE, 4, 100);

    up(&fx, 0, &q0);
    down(&fx, 100 * MS, &a0);          /* into the meter at 120 ms */
    /* Block 1, first try: the meter's frame is never acknowledged. */
    guint32 fa;
    ota_copy_result_t *ra = hop(&fx, 150 * MS, M_LINK, R_LINK, &qa, FALSE, &fa);
    g_assert_cmpint(ra->turnaround_us, ==, 30 * MS);
    g_assert_false(ra->rerequest);

    path_t ub = up(&fx, 5 * SEC, &qb);
    g_assert_true(ub.r[0]->rerequest);
    g_assert_false(ub.r[0]->retransmission);
    g_assert_cmpuint(ub.r[0]->round, ==, 1);
    g_assert_cmpuint(ub.r[0]->prev_tx_frame, ==, fa);
    g_assert_cmpint(ub.r[0]->cause, ==, OTA_CAUSE_REQUEST_LOST);
    g_assert_cmpint(ub.r[0]->turnaround_us, ==, -1);
    g_assert_false(ub.r[1]->rerequest);            /* a hop copy */
    g_assert_true(ub.r[0]->msg != ra->msg);
    path_t db = down(&fx, 5 * SEC + 100 * MS, &ab);
    g_assert_cmpuint(db.r[1]->bytes_so_far, ==, 356);

    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_cmpuint(s->requests, ==, 3);
    g_assert_cmpuint(s->retransmissions, ==, 0);
    g_assert_cmpuint(s->rerequests, ==, 1);
    g_assert_cmpuint(s->blocks, ==, 2);
    g_assert_cmpuint(s->bytes, ==, 356);
    g_assert_true(s->complete);
    g_assert_cmpint(s->last_response_us, ==, 5 * SEC + 120 * MS);
    /* RTTs: block 0 and the re-request, 120 ms each; the first try has none. */
    assert_s(s->rtt_first_median_s, 0.12);
    assert_s(s->rtt_first_p95_s, 0.12);
    /* One turn-around: 120 ms -> 150 ms (not to the re-request at 5 s). */
    assert_s(s->turnaround_median_s, 0.03);
    assert_s(s->turnaround_p95_s, 0.03);
    fx_done(&fx);
}

/* The accepted response round is the first not followed by a retransmission
 * of the request. */
static void test_accepted_response_round(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q = req_b2(&fx, 10, 0, 4), a = resp_b2(&fx, 10, 0, FALSE, 4, 100);

    up(&fx, 0, &q);
    /* Round 1 of the response: the meter never acknowledges it. */
    ota_copy_result_t *a1 = hop(&fx, 100 * MS, G_LINK, R_LINK, &a, TRUE, NULL);
    ota_copy_result_t *a1m = hop(&fx, 120 * MS, R_LINK, M_LINK, &a, FALSE, NULL);
    g_assert_false(a1->duplicate_response);
    g_assert_true(a1m->hop_copy);
    g_assert_cmpint(a1m->rtt_first_us, ==, 120 * MS);
    /* The meter retransmits; the gateway answers again. */
    path_t u2 = up(&fx, 2 * SEC, &q);
    g_assert_true(u2.r[0]->retransmission);
    g_assert_cmpint(u2.r[0]->cause, ==, OTA_CAUSE_RESPONSE_LOST);
    path_t d2 = down(&fx, 2 * SEC + 100 * MS, &a);
    g_assert_true(d2.r[0]->duplicate_response);
    g_assert_false(d2.r[0]->retransmission);        /* a duplicate response, as the statistics count it */
    g_assert_cmpuint(d2.r[0]->round, ==, 2);
    g_assert_false(d2.r[1]->duplicate_response);   /* a hop copy of that round */
    g_assert_cmpint(d2.r[1]->rtt_first_us, ==, 2 * SEC + 120 * MS);
    g_assert_cmpint(d2.r[1]->rtt_last_us, ==, 120 * MS);

    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_cmpuint(s->requests, ==, 2);
    g_assert_cmpuint(s->retransmissions, ==, 1);
    g_assert_cmpuint(s->duplicate_responses, ==, 1);
    g_assert_true(s->complete);
    g_assert_cmpint(s->last_response_us, ==, 2 * SEC + 120 * MS);   /* round 2 */
    assert_s(s->rtt_first_median_s, 2.12);
    assert_s(s->rtt_last_median_s, 0.12);
    g_assert_cmpuint(s->blocks, ==, 1);
    g_assert_cmpuint(s->bytes, ==, 100);
    g_assert_cmpuint(s->fragments_lost, ==, 0);     /* the unacknowledged copy is not fragmented */
    fx_done(&fx);

    /* The retransmission leaves while round 1 is still on its way: round 1
     * reaches the meter after it, so it is the accepted one. */
    fx_init(&fx);
    q = req_b2(&fx, 11, 0, 4);
    a = resp_b2(&fx, 11, 0, FALSE, 4, 100);
    up(&fx, 0, &q);
    hop(&fx, 100 * MS, G_LINK, R_LINK, &a, TRUE, NULL);
    hop(&fx, 110 * MS, M_LINK, R_LINK, &q, TRUE, NULL);         /* request round 2 */
    hop(&fx, 120 * MS, R_LINK, M_LINK, &a, TRUE, NULL);
    down(&fx, 300 * MS, &a);                            /* answers round 2 */
    s = finalize(&fx, 1);
    g_assert_cmpint(s->last_response_us, ==, 120 * MS);
    g_assert_cmpint(s->last_activity_us, ==, 320 * MS);
    assert_s(s->duration_s, 0.12);                  /* to last_response, not last_activity */
    assert_s(s->rtt_first_median_s, 0.12);
    assert_s(s->rtt_last_median_s, 0.01);
    g_assert_cmpuint(s->duplicate_responses, ==, 1);
    fx_done(&fx);
}

/* Block2 renegotiation (the server answers with a smaller SZX), contiguity,
 * error responses, request order flags, several transfers. */
static void test_blocks_and_renegotiation(void)
{
    fx_t fx;
    fx_init(&fx);
    /* Transfer 1: asks for 1024-byte blocks, gets 256. */
    meter_coap_t q0 = req_b2(&fx, 1, 0, 6), a0 = resp_b2(&fx, 1, 0, TRUE, 4, 256);
    meter_coap_t q1 = req_b2(&fx, 2, 1, 4), a1 = resp_b2(&fx, 2, 1, TRUE, 4, 256);
    meter_coap_t q2 = req_b2(&fx, 3, 2, 4), a2 = resp_b2(&fx, 3, 2, FALSE, 4, 100);
    a0.size2 = 612;
    path_t u = up(&fx, 0, &q0);
    path_t d = down(&fx, 100 * MS, &a0);
    g_assert_true(d.r[0]->renegotiation);
    g_assert_cmpuint(d.r[1]->bytes_so_far, ==, 256);
    g_assert_cmpint(d.r[1]->size_hint, ==, 612);
    u = up(&fx, 200 * MS, &q1);
    g_assert_false(u.r[0]->gap || u.r[0]->out_of_order);
    g_assert_cmpuint(u.r[0]->msg->offset, ==, 256);
    d = down(&fx, 300 * MS, &a1);
    g_assert_false(d.r[0]->renegotiation);
    g_assert_cmpuint(d.r[1]->bytes_so_far, ==, 512);
    u = up(&fx, 400 * MS, &q2);
    d = down(&fx, 500 * MS, &a2);
    g_assert_cmpuint(d.r[1]->bytes_so_far, ==, 612);
    ota_transfer_t *x = ota_track_transfer(fx.t, 1);
    g_assert_true(x->renegotiated);
    g_assert_cmpuint(x->szx_first, ==, 6);
    g_assert_cmpuint(x->szx, ==, 4);
    g_assert_cmpint(x->size_hint, ==, 612);

    /* Transfer 2: block 1 answered 4.04, block 2 (the last) answered: one gap. */
    meter_coap_t p0 = req_b2(&fx, 11, 0, 4), b0 = resp_b2(&fx, 11, 0, TRUE, 4, 256);
    meter_coap_t p1 = req_b2(&fx, 12, 1, 4), b1 = coap(&fx, ACK, C_NOTFOUND, 12, 0);
    meter_coap_t p2 = req_b2(&fx, 13, 2, 4), b2 = resp_b2(&fx, 13, 2, FALSE, 4, 50);
    u = up(&fx, 10 * SEC, &p0);
    down(&fx, 10 * SEC + 100 * MS, &b0);
    u = up(&fx, 10 * SEC + 200 * MS, &p1);
    d = down(&fx, 10 * SEC + 300 * MS, &b1);
    g_assert_cmpuint(d.r[1]->bytes_so_far, ==, 256);
    u = up(&fx, 10 * SEC + 400 * MS, &p2);
    d = down(&fx, 10 * SEC + 500 * MS, &b2);
    g_assert_cmpuint(d.r[1]->bytes_so_far, ==, 256);

    /* Transfer 3: requests skip ahead, then go back. */
    meter_coap_t g0 = req_b2(&fx, 21, 0, 4), g3 = req_b2(&fx, 22, 3, 4), g1 = req_b2(&fx, 23, 1, 4);
    g_assert_false(up(&fx, 20 * SEC, &g0).r[0]->gap);
    path_t ug = up(&fx, 21 * SEC, &g3);
    g_assert_true(ug.r[0]->gap);
    g_assert_false(ug.r[0]->out_of_order);
    ug = up(&fx, 22 * SEC, &g1);
    g_assert_true(ug.r[0]->out_of_order);

    g_assert_cmpuint(ota_track_n_transfers(fx.t), ==, 3);
    g_assert_cmpuint(ota_track_transfer_at(fx.t, 0)->id, ==, 1);
    g_assert_cmpuint(ota_track_transfer_at(fx.t, 2)->id, ==, 3);

    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_cmpuint(s->blocks, ==, 3);
    g_assert_cmpuint(s->bytes, ==, 612);
    g_assert_true(s->complete);
    g_assert_cmpint(s->last_response_us, ==, 520 * MS);
    assert_s(s->rate_Bps, 612 / 0.52);
    s = finalize(&fx, 2);
    g_assert_cmpuint(s->blocks, ==, 2);
    g_assert_cmpuint(s->bytes, ==, 256);        /* contiguous from 0 only */
    g_assert_cmpuint(s->error_responses, ==, 1);
    g_assert_cmpuint(s->requests, ==, 3);
    g_assert_true(s->complete);
    s = finalize(&fx, 3);
    g_assert_false(s->complete);
    g_assert_cmpuint(s->blocks, ==, 0);
    g_assert_cmpuint(s->bytes, ==, 0);
    g_assert_cmpint(s->last_response_us, ==, -1);
    g_assert_cmpint(s->last_activity_us, ==, 22 * SEC + HOP_US);
    assert_s(s->duration_s, 2.02);              /* an incomplete transfer: to its last activity */
    assert_s(s->rate_Bps, 0);
    g_assert_cmpfloat(s->rtt_first_median_s, <, 0);
    g_assert_cmpfloat(s->turnaround_median_s, <, 0);
    fx_done(&fx);
}

/* A Block1 upload: 64 + 64 + 20 bytes, each block answered 2.31, the last
 * one 2.04 without a Block1 option. */
static void test_block1_upload(void)
{
    fx_t fx;
    fx_init(&fx);
    static const guint lens[3] = { 64, 64, 20 };
    gint64 t = 0;
    guint32 done = 0;

    for (guint k = 0; k < 3; k++) {
        meter_coap_t q = req_b1(&fx, (guint16)(40 + k), k, k < 2, 2, lens[k]);
        meter_coap_t a = coap(&fx, ACK, k < 2 ? C_CONTINUE : C_CHANGED, (guint16)(40 + k), 0);
        if (k < 2)
            a.block1 = (meter_block_t){ TRUE, FALSE, k, TRUE, 2 };
        path_t u = up(&fx, t, &q);
        g_assert_cmpuint(u.r[0]->msg->offset, ==, k * 64);
        g_assert_cmpuint(u.r[0]->msg->len, ==, lens[k]);
        path_t d = down(&fx, t + 100 * MS, &a);
        done += lens[k];
        g_assert_cmpuint(d.r[1]->bytes_so_far, ==, done);
        t += 200 * MS;
    }
    ota_transfer_t *x = ota_track_transfer(fx.t, 1);
    g_assert_true(x->upload);
    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_true(s->complete);
    g_assert_cmpuint(s->blocks, ==, 3);
    g_assert_cmpuint(s->bytes, ==, 148);
    g_assert_cmpint(s->last_response_us, ==, 520 * MS);
    g_assert_cmpuint(s->requests, ==, 3);
    assert_s(s->rtt_first_median_s, 0.12);
    assert_s(s->turnaround_median_s, 0.08);
    fx_done(&fx);

    /* Without the final 2.04 the upload is not complete. */
    fx_init(&fx);
    meter_coap_t q0 = req_b1(&fx, 50, 0, TRUE, 2, 64), q1 = req_b1(&fx, 51, 1, FALSE, 2, 20);
    meter_coap_t a0 = coap(&fx, ACK, C_CONTINUE, 50, 0);
    a0.block1 = (meter_block_t){ TRUE, FALSE, 0, TRUE, 2 };
    up(&fx, 0, &q0);
    down(&fx, 100 * MS, &a0);
    up(&fx, 200 * MS, &q1);
    s = finalize(&fx, 1);
    g_assert_false(s->complete);
    g_assert_cmpuint(s->blocks, ==, 1);
    g_assert_cmpuint(s->bytes, ==, 64);
    fx_done(&fx);
}

/* A fragmented response: its first copy never completes (its FRAG1 is sent
 * three times, never acknowledged); the meter retransmits; the second copy
 * completes but its FRAGN is never acknowledged. */
static void fragmented_scenario(fx_t *fx, ota_copy_t **copy1, ota_copy_t **copy2)
{
    meter_coap_t q = req_b2(fx, 7, 0, 6), a = resp_b2(fx, 7, 0, FALSE, 6, 150);
    lowpan_view_t c1f1 = lv_frag1(0x11, 200, 90, 96, &a);
    lowpan_view_t c2f1 = lv_frag1(0x12, 200, 90, 96, &a), c2f2 = lv_fragn(0x12, 200, 96, 104);
    guint32 qf;

    ota_copy_result_t *r = hop(fx, 0, M_LINK, G_LINK, &q, TRUE, &qf);
    g_assert_nonnull(r);

    ota_frame_t *f = data_frame(fx, 100 * MS, G_LINK, M_LINK, 200);
    ota_track_lowpan(fx->t, f, &c1f1);
    *copy1 = f->copy;
    f = data_frame(fx, 105 * MS, G_LINK, M_LINK, 200);
    g_assert_true(f->mac_retry);
    ota_track_lowpan(fx->t, f, &c1f1);
    f = data_frame(fx, 105 * MS + 200, G_LINK, M_LINK, 200);
    g_assert_true(f->sniffer_dup);
    ota_track_lowpan(fx->t, f, &c1f1);
    f = data_frame(fx, 110 * MS, G_LINK, M_LINK, 200);
    g_assert_true(f->mac_retry);
    ota_track_lowpan(fx->t, f, &c1f1);
    g_assert_cmpuint((*copy1)->n_frags, ==, 1);
    g_assert_cmpuint((*copy1)->frags[0].transmissions, ==, 3);
    g_assert_false((*copy1)->complete);
    g_assert_null((*copy1)->msg);

    r = hop(fx, 2 * SEC, M_LINK, G_LINK, &q, TRUE, NULL);
    g_assert_true(r->retransmission);
    g_assert_cmpint(r->cause, ==, OTA_CAUSE_RESPONSE_LOST);

    f = data_frame(fx, 2100 * MS, G_LINK, M_LINK, 201);
    ota_track_lowpan(fx->t, f, &c2f1);
    *copy2 = f->copy;
    ack_frame(fx, 2100 * MS + 800, 201);
    f = data_frame(fx, 2105 * MS, G_LINK, M_LINK, 202);
    ota_track_lowpan(fx->t, f, &c2f2);
    g_assert_true(f->copy == *copy2);
    g_assert_true((*copy2)->complete);
    r = message(fx, f, 2105 * MS, G_IP, M_IP, &a);     /* reassembled here */
    g_assert_nonnull(r);
    g_assert_cmpint(r->rtt_first_us, ==, 2105 * MS);
    g_assert_cmpint(r->rtt_last_us, ==, 105 * MS);
    f = data_frame(fx, 2110 * MS, G_LINK, M_LINK, 202);
    g_assert_true(f->mac_retry);
    ota_track_lowpan(fx->t, f, &c2f2);
    g_assert_null(message(fx, f, 2110 * MS, G_IP, M_IP, &a));
    g_assert_true((*copy2)->frags[0].acked);
    g_assert_false((*copy2)->frags[1].acked);
    g_assert_cmpuint((*copy2)->frags[1].transmissions, ==, 2);
}

static void test_fragment_accounting(void)
{
    fx_t fx;
    ota_copy_t *c1, *c2;

    fx_init(&fx);
    fragmented_scenario(&fx, &c1, &c2);
    g_assert_nonnull(c2->msg);
    g_assert_true(c1->msg == c2->msg);       /* the incomplete copy, tied by its MID */
    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_cmpuint(s->datagrams_fragmented, ==, 2);
    g_assert_cmpuint(s->datagrams_incomplete, ==, 1);
    g_assert_cmpuint(s->fragments_lost, ==, 2);     /* copy 1's FRAG1, copy 2's FRAGN */
    g_assert_cmpuint(s->mac_retries, ==, 3);        /* 2 of copy 1's FRAG1, 1 of copy 2's FRAGN */
    g_assert_cmpuint(s->requests, ==, 2);
    g_assert_cmpuint(s->retransmissions, ==, 1);
    g_assert_true(s->complete);
    g_assert_cmpuint(s->bytes, ==, 150);
    g_assert_cmpint(s->last_response_us, ==, 2105 * MS);
    assert_s(s->rtt_first_median_s, 2.105);
    assert_s(s->rtt_last_median_s, 0.105);
    fx_done(&fx);
}

static void snap(fx_t *fx, guint32 xfer, meter_transfer_record_t *out)
{
    memcpy(out, finalize(fx, xfer), sizeof *out);
}

static void assert_same_stats(const meter_transfer_record_t *a, const meter_transfer_record_t *b)
{
    g_assert_cmpuint(a->blocks, ==, b->blocks);
    g_assert_cmpuint(a->bytes, ==, b->bytes);
    g_assert_cmpint(a->complete, ==, b->complete);
    g_assert_cmpint(a->last_response_us, ==, b->last_response_us);
    g_assert_cmpuint(a->requests, ==, b->requests);
    g_assert_cmpuint(a->mac_retries, ==, b->mac_retries);
    g_assert_cmpuint(a->fragments_lost, ==, b->fragments_lost);
    g_assert_cmpfloat(a->rtt_first_median_s, ==, b->rtt_first_median_s);
    g_assert_cmpfloat(a->turnaround_p95_s, ==, b->turnaround_p95_s);
    for (guint i = 0; i < meter_transfer_schema.n_columns; i++)
        if (!meter_record_column_equal(&meter_transfer_schema.columns[i], a, b))
            g_error("column %s differs", meter_transfer_schema.columns[i].name);
}

/* Finalize twice gives the same numbers, also when it really recomputes;
 * new frames after a finalize are taken in by the next one. */
static void test_finalize_idempotent(void)
{
    fx_t fx;
    ota_copy_t *c1, *c2;
    meter_transfer_record_t once, twice;

    fx_init(&fx);
    fragmented_scenario(&fx, &c1, &c2);
    snap(&fx, 1, &once);
    snap(&fx, 1, &twice);
    assert_same_stats(&once, &twice);

    /* A frame that adds nothing still makes the next call recompute. */
    ota_link_in_t nothing = { ++fx.frame, 3 * SEC, FALSE, 0, 0, FALSE, 0, 0, 0, FALSE, FALSE, FALSE, FALSE, FALSE, 0, 0 };
    ota_track_frame(fx.t, &nothing);
    snap(&fx, 1, &twice);
    assert_same_stats(&once, &twice);
    snap(&fx, 1, &twice);
    assert_same_stats(&once, &twice);
    fx_done(&fx);

    /* Block by block: each finalize sees what was added since. */
    fx_init(&fx);
    meter_coap_t q0 = req_b2(&fx, 1, 0, 4), a0 = resp_b2(&fx, 1, 0, TRUE, 4, 256);
    meter_coap_t q1 = req_b2(&fx, 2, 1, 4), a1 = resp_b2(&fx, 2, 1, FALSE, 4, 10);
    up(&fx, 0, &q0);
    down(&fx, 100 * MS, &a0);
    snap(&fx, 1, &once);
    g_assert_cmpuint(once.blocks, ==, 1);
    g_assert_false(once.complete);
    g_assert_cmpfloat(once.turnaround_median_s, <, 0);
    up(&fx, 200 * MS, &q1);
    down(&fx, 300 * MS, &a1);
    snap(&fx, 1, &twice);
    g_assert_cmpuint(twice.blocks, ==, 2);
    g_assert_cmpuint(twice.bytes, ==, 266);
    g_assert_true(twice.complete);
    assert_s(twice.turnaround_median_s, 0.08);
    snap(&fx, 1, &once);
    assert_same_stats(&once, &twice);
    fx_done(&fx);
}

/* Finalizing part-way (as a live capture would) and again at the end gives
 * the numbers of a single finalize at the end. */
static void test_finalize_part_way(void)
{
    fx_t whole, parts;
    ota_copy_t *c1, *c2;
    meter_transfer_record_t a, b;

    fx_init(&whole);
    fragmented_scenario(&whole, &c1, &c2);
    snap(&whole, 1, &a);

    fx_init(&parts);
    meter_coap_t q = req_b2(&parts, 7, 0, 6), r = resp_b2(&parts, 7, 0, FALSE, 6, 150);
    lowpan_view_t c1f1 = lv_frag1(0x11, 200, 90, 96, &r);
    guint32 qf;
    hop(&parts, 0, M_LINK, G_LINK, &q, TRUE, &qf);
    ota_track_finalize(parts.t, 60.0);
    ota_frame_t *f = data_frame(&parts, 100 * MS, G_LINK, M_LINK, 200);
    ota_track_lowpan(parts.t, f, &c1f1);
    ota_track_finalize(parts.t, 60.0);           /* the incomplete copy, alone so far */
    f = data_frame(&parts, 105 * MS, G_LINK, M_LINK, 200);
    ota_track_lowpan(parts.t, f, &c1f1);
    f = data_frame(&parts, 105 * MS + 200, G_LINK, M_LINK, 200);
    ota_track_lowpan(parts.t, f, &c1f1);
    f = data_frame(&parts, 110 * MS, G_LINK, M_LINK, 200);
    ota_track_lowpan(parts.t, f, &c1f1);
    ota_track_finalize(parts.t, 60.0);
    hop(&parts, 2 * SEC, M_LINK, G_LINK, &q, TRUE, NULL);
    ota_track_finalize(parts.t, 60.0);
    lowpan_view_t c2f1 = lv_frag1(0x12, 200, 90, 96, &r), c2f2 = lv_fragn(0x12, 200, 96, 104);
    f = data_frame(&parts, 2100 * MS, G_LINK, M_LINK, 201);
    ota_track_lowpan(parts.t, f, &c2f1);
    ack_frame(&parts, 2100 * MS + 800, 201);
    f = data_frame(&parts, 2105 * MS, G_LINK, M_LINK, 202);
    ota_track_lowpan(parts.t, f, &c2f2);
    message(&parts, f, 2105 * MS, G_IP, M_IP, &r);
    ota_track_finalize(parts.t, 60.0);
    f = data_frame(&parts, 2110 * MS, G_LINK, M_LINK, 202);
    ota_track_lowpan(parts.t, f, &c2f2);
    snap(&parts, 1, &b);

    assert_same_stats(&a, &b);
    fx_done(&parts);
    fx_done(&whole);
}

/* Turn-around: only for requests of a new block, and only from the request
 * just before (if it has an accepted response round); the final response
 * is the first one. */
static void test_turnaround_rules(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q0 = req_b2(&fx, 1, 0, 4), a0 = resp_b2(&fx, 1, 0, TRUE, 4, 256);
    meter_coap_t qa = req_b2(&fx, 2, 1, 4), aa = resp_b2(&fx, 2, 1, TRUE, 4, 256);
    meter_coap_t qb = req_b2(&fx, 3, 1, 4), ab = resp_b2(&fx, 3, 1, TRUE, 4, 256);
    meter_coap_t qc = req_b2(&fx, 4, 2, 4);
    meter_coap_t qd = req_b2(&fx, 5, 3, 4), ad = resp_b2(&fx, 5, 3, FALSE, 4, 50);
    meter_coap_t qe = req_b2(&fx, 6, 3, 4), ae = resp_b2(&fx, 6, 3, FALSE, 4, 50);

    up(&fx, 0, &q0);
    down(&fx, 100 * MS, &a0);                      /* accepted, last copy 120 ms */
    up(&fx, 150 * MS, &qa);                                 /* turn-around 30 ms */
    hop(&fx, 250 * MS, G_LINK, R_LINK, &aa, TRUE, NULL);   /* never reaches the meter */
    path_t ub = up(&fx, 2 * SEC, &qb);                          /* re-request: no turn-around */
    g_assert_true(ub.r[0]->rerequest);
    g_assert_cmpint(ub.r[0]->cause, ==, OTA_CAUSE_NOT_ACCEPTED);
    down(&fx, 2 * SEC + 100 * MS, &ab);           /* last copy 2.12 s */
    up(&fx, 2200 * MS, &qc);                                    /* turn-around 80 ms; never answered */
    up(&fx, 6 * SEC, &qd);                                  /* after an unanswered one: none */
    down(&fx, 6 * SEC + 100 * MS, &ad);            /* final, 6.12 s */
    up(&fx, 6500 * MS, &qe);                                /* the last block again */
    down(&fx, 6600 * MS, &ae);                     /* final again, 6.62 s */

    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_cmpuint(s->requests, ==, 6);
    g_assert_cmpuint(s->rerequests, ==, 2);
    g_assert_cmpuint(s->retransmissions, ==, 0);
    assert_s(s->turnaround_median_s, 0.03);
    assert_s(s->turnaround_p95_s, 0.08);
    g_assert_true(s->complete);
    g_assert_cmpint(s->last_response_us, ==, 6120 * MS);
    g_assert_cmpint(s->last_activity_us, ==, 6620 * MS);
    /* Blocks at 0, 256 (answered twice) and 768; contiguous 0..511. */
    g_assert_cmpuint(s->blocks, ==, 3);
    g_assert_cmpuint(s->bytes, ==, 512);
    /* RTTs 120, 100 (to the copy that got furthest), 120, 120, 120 ms. */
    assert_s(s->rtt_first_median_s, 0.12);
    assert_s(s->rtt_first_p95_s, 0.12);
    fx_done(&fx);
}

/* A capture without ACK frames: nothing can be called unacknowledged. An
 * incomplete response copy that never became a message belongs to the
 * request with its MID. */
static void test_no_acks_in_capture(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q = req_b2(&fx, 1, 0, 6), a = resp_b2(&fx, 1, 0, FALSE, 6, 150);
    lowpan_view_t f1 = lv_frag1(0x21, 200, 90, 96, &a);
    guint32 qf;

    hop(&fx, 0, M_LINK, G_LINK, &q, FALSE, &qf);
    ota_frame_t *f = data_frame(&fx, 100 * MS, G_LINK, M_LINK, 50);
    ota_track_lowpan(fx.t, f, &f1);
    ota_copy_result_t *r = hop(&fx, 2 * SEC, M_LINK, G_LINK, &q, FALSE, NULL);
    g_assert_true(r->retransmission);
    g_assert_cmpint(r->cause, ==, OTA_CAUSE_RESPONSE_LOST);

    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_true(f->copy->msg == r->msg);
    g_assert_cmpuint(s->datagrams_fragmented, ==, 1);
    g_assert_cmpuint(s->datagrams_incomplete, ==, 1);
    g_assert_cmpuint(s->fragments_lost, ==, 0);
    g_assert_cmpuint(s->requests, ==, 2);
    g_assert_false(s->complete);
    g_assert_cmpint(s->last_response_us, ==, -1);
    fx_done(&fx);
}

/* An incomplete copy after its message's last complete one (a lost resend)
 * is tied to that message when finalizing. */
static void test_leftover_copy(void)
{
    fx_t fx;
    ota_copy_t *c1, *c2;

    fx_init(&fx);
    fragmented_scenario(&fx, &c1, &c2);
    meter_coap_t q = req_b2(&fx, 7, 0, 6), a = resp_b2(&fx, 7, 0, FALSE, 6, 150);
    lowpan_view_t c3f1 = lv_frag1(0x13, 200, 90, 96, &a);
    hop(&fx, 4 * SEC, M_LINK, G_LINK, &q, TRUE, NULL);
    ota_frame_t *f = data_frame(&fx, 4100 * MS, G_LINK, M_LINK, 210);
    ota_track_lowpan(fx.t, f, &c3f1);
    g_assert_null(f->copy->msg);
    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_true(f->copy->msg == c2->msg);
    g_assert_cmpuint(s->datagrams_fragmented, ==, 3);
    g_assert_cmpuint(s->datagrams_incomplete, ==, 2);
    g_assert_cmpuint(s->fragments_lost, ==, 3);
    g_assert_cmpuint(s->requests, ==, 3);
    g_assert_cmpuint(s->retransmissions, ==, 2);
    /* The only response round is followed by a retransmission: not accepted. */
    g_assert_false(s->complete);
    g_assert_cmpfloat(s->rtt_first_median_s, <, 0);
    fx_done(&fx);
}

/* The sniffer missed the first request: the transfer starts with its first
 * request seen, not with the response before it. */
static void test_first_request_is_a_request(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t a0 = resp_b2(&fx, 1, 0, TRUE, 4, 256);
    meter_coap_t q1 = req_b2(&fx, 2, 1, 4), a1 = resp_b2(&fx, 2, 1, FALSE, 4, 10);

    /* A response to no request seen belongs to no exchange, and so to no transfer. */
    g_assert_null(hop(&fx, 100 * MS, G_LINK, M_LINK, &a0, TRUE, NULL));
    guint32 qf;
    hop(&fx, 200 * MS, M_LINK, G_LINK, &q1, TRUE, &qf);
    ota_copy_result_t *r = hop(&fx, 300 * MS, G_LINK, M_LINK, &a1, TRUE, NULL);
    g_assert_nonnull(r->msg->request);
    g_assert_cmpint(r->rtt_first_us, ==, 100 * MS);
    ota_transfer_t *x = ota_track_transfer(fx.t, 1);
    g_assert_cmphex(x->meter_link, ==, M_LINK);
    const meter_transfer_record_t *s = finalize(&fx, 1);
    g_assert_cmpint(s->first_request_us, ==, 200 * MS);
    g_assert_cmpuint(s->requests, ==, 1);
    assert_s(s->duration_s, 0.1);
    fx_done(&fx);
}

/* Two meters whose exchanges happen to use the same MID: an incomplete copy
 * of one meter's response must not be counted in the other's transfer. */
static void test_mid_collision_two_meters(void)
{
    const ota_addr_t n_link = G_GUINT64_CONSTANT(0xffff0005);
    fx_t fx;
    fx_init(&fx);
    meter_coap_t qn = req_b2(&fx, 77, 0, 6), an = resp_b2(&fx, 77, 0, FALSE, 6, 150);
    meter_coap_t qm = req_b2(&fx, 77, 0, 6), am = resp_b2(&fx, 77, 0, FALSE, 6, 150);
    lowpan_view_t nf1 = lv_frag1(0x31, 200, 90, 96, &an);
    guint32 nf, mf;

    /* Meter N (transfer 1): its request, then a response copy that never completes. */
    guint8 seq = fx.seq[n_link & 3]++;
    ota_frame_t *f = data_frame(&fx, 10 * SEC, n_link, G_LINK, seq);
    lowpan_view_t w = lv_whole(&qn);
    ota_track_lowpan(fx.t, f, &w);
    nf = f->frame;
    message(&fx, f, 10 * SEC, "fd00::5", G_IP, &qn);
    ack_frame(&fx, 10 * SEC + 800, seq);
    ota_frame_t *lost = data_frame(&fx, 10 * SEC + 100 * MS, G_LINK, n_link, 99);
    ota_track_lowpan(fx.t, lost, &nf1);
    (void)nf;

    /* Meter M (transfer 2), 10 s later, same MID. */
    hop(&fx, 20 * SEC, M_LINK, G_LINK, &qm, TRUE, &mf);
    hop(&fx, 20 * SEC + 100 * MS, G_LINK, M_LINK, &am, TRUE, NULL);

    ota_track_finalize(fx.t, 60.0);
    const meter_transfer_record_t *s1 = &ota_track_transfer(fx.t, 1)->rec, *s2 = &ota_track_transfer(fx.t, 2)->rec;
    /* M's response cannot own a copy older than M's request: the lost copy
     * stays with N's exchange (its request, the message with that MID). */
    g_assert_cmpuint(s2->datagrams_incomplete, ==, 0);
    g_assert_cmpuint(s1->datagrams_incomplete, ==, 1);
    g_assert_true(lost->copy->msg && lost->copy->msg->xfer->id == 1);
    fx_done(&fx);
}

/* The record's own columns are the transfer's, set by finalize; a path
 * with its slash, the block size of the last SZX. */
static void test_record_columns(void)
{
    fx_t fx;
    fx_init(&fx);
    meter_coap_t q0 = req_b2(&fx, 1, 0, 6), a0 = resp_b2(&fx, 1, 0, TRUE, 4, 256);
    meter_coap_t q1 = req_b2(&fx, 2, 1, 4), a1 = resp_b2(&fx, 2, 1, FALSE, 4, 100);
    a0.size2 = 356;
    up(&fx, 0, &q0);
    down(&fx, 100 * MS, &a0);
    up(&fx, 200 * MS, &q1);
    down(&fx, 300 * MS, &a1);
    ota_track_set_verified(fx.t, 1);
    const meter_transfer_record_t *s = finalize(&fx, 1);
    const ota_transfer_t *x = ota_track_transfer(fx.t, 1);

    g_assert_cmpuint(s->transfer, ==, 1);
    g_assert_cmpstr(s->meter, ==, x->meter);
    g_assert_cmpstr(s->gateway, ==, x->gateway);
    g_assert_cmpstr(s->path, ==, "/firmware/img");
    g_assert_cmpstr(s->kind, ==, "block2");
    g_assert_cmpuint(s->szx_first, ==, 6);
    g_assert_cmpuint(s->szx, ==, 4);
    g_assert_cmpuint(s->block_size, ==, 256);
    g_assert_true(s->renegotiated);
    g_assert_true(s->verified);
    g_assert_cmpint(s->size_hint, ==, 356);
    g_assert_true(s->complete);
    g_assert_cmpuint(s->bytes, ==, 356);
    /* The same path text again when finalize recomputes. */
    const char *path = s->path;
    ota_link_in_t nothing = { ++fx.frame, 3 * SEC, FALSE, 0, 0, FALSE, 0, 0, 0, FALSE, FALSE, FALSE, FALSE, FALSE, 0, 0 };
    ota_track_frame(fx.t, &nothing);
    g_assert_true(finalize(&fx, 1)->path == path);
    fx_done(&fx);
}

/* ================= frames the sniffer missed ================= */

/* A two-block download over M-R-G as a script of frames, played whole (the
 * perfect sniffer) or with frames taken out (one that missed them): the
 * test knows what it took out, so the counts of the perfect play are the
 * truth. Requests are single frames, responses three fragments; every data
 * frame is acknowledged unless the script says otherwise. */
typedef struct {
    gint64 us;
    ota_addr_t src, dst;
    guint8 seq;
    gboolean is_ack;
    gint kind;                /* 0 single frame, 1 FRAG1, 2 FRAGN */
    guint16 tag, off;
    gint len;
    const meter_coap_t *m;
    gint copy;                /* the copy it belongs to: its message is read at the copy's last frame */
    gboolean last_of_copy;
} miss_ev_t;

#define MISS_SIZE 240
typedef struct {
    miss_ev_t ev[64];
    guint n;
    guint8 seq[4];            /* per sender: M, R, G */
    gint copies;
    meter_coap_t q0, a0, q1, a1;
} miss_script_t;

static guint8 next_seq(miss_script_t *sc, ota_addr_t src)
{
    return sc->seq[src & 3]++;
}

static void add_ev(miss_script_t *sc, miss_ev_t e)
{
    g_assert_cmpuint(sc->n, <, G_N_ELEMENTS(sc->ev));
    sc->ev[sc->n++] = e;
}

/* A frame and (acked) its ACK 800 us later; retry: sent once more first, unacknowledged. */
static void add_frame(miss_script_t *sc, gint64 us, ota_addr_t src, ota_addr_t dst, gint kind, guint16 tag,
                      guint16 off, gint len, const meter_coap_t *m, gboolean last, gboolean retry)
{
    guint8 seq = next_seq(sc, src);
    miss_ev_t e = { us, src, dst, seq, FALSE, kind, tag, off, len, m, sc->copies, last };
    if (retry) {
        add_ev(sc, e);
        e.us += 20 * MS;     /* beyond the first transmission's ACK window */
        e.last_of_copy = last;
    }
    add_ev(sc, e);
    add_ev(sc, (miss_ev_t){ e.us + 800, 0, 0, seq, TRUE, 0, 0, 0, 0, NULL, -1, FALSE });
}

static void add_request(miss_script_t *sc, gint64 us, const meter_coap_t *m)
{
    add_frame(sc, us, M_LINK, R_LINK, 0, 0, 0, 0, m, TRUE, FALSE);
    sc->copies++;
    add_frame(sc, us + HOP_US, R_LINK, G_LINK, 0, 0, 0, 0, m, TRUE, FALSE);
    sc->copies++;
}

/* 240 bytes: FRAG1 spans 96, FRAGNs at 96 (96 bytes) and 192 (48). */
static void add_response(miss_script_t *sc, gint64 us, const meter_coap_t *m, guint16 tag, gboolean retry_middle)
{
    for (gint hop = 0; hop < 2; hop++) {
        ota_addr_t src = hop ? R_LINK : G_LINK, dst = hop ? M_LINK : R_LINK;
        gint64 at = us + hop * HOP_US;
        add_frame(sc, at, src, dst, 1, tag, 0, 90, m, FALSE, FALSE);
        add_frame(sc, at + 5 * MS, src, dst, 2, tag, 96, 96, m, FALSE, retry_middle && !hop);
        add_frame(sc, at + 15 * MS, src, dst, 2, tag, 192, 48, m, TRUE, FALSE);
        sc->copies++;
    }
}

static void miss_script(fx_t *fx, miss_script_t *sc)
{
    memset(sc, 0, sizeof *sc);
    /* Radios start their numbers anywhere: these never meet. */
    sc->seq[M_LINK & 3] = 0x10;
    sc->seq[R_LINK & 3] = 0x50;
    sc->seq[G_LINK & 3] = 0x90;
    sc->q0 = req_b2(fx, 1, 0, 4);
    sc->a0 = resp_b2(fx, 1, 0, TRUE, 4, 160);
    sc->q1 = req_b2(fx, 2, 1, 4);
    sc->a1 = resp_b2(fx, 2, 1, FALSE, 4, 160);
    add_request(sc, 0, &sc->q0);
    add_response(sc, 100 * MS, &sc->a0, 0x21, TRUE);
    add_request(sc, 300 * MS, &sc->q1);
    add_response(sc, 400 * MS, &sc->a1, 0x22, FALSE);
}

/* The index of the n-th event (0-based) matching: a data frame of copy, kind and offset, or its ACK. */
static guint find_ev(const miss_script_t *sc, gint copy, guint16 off, gboolean ack, guint nth)
{
    for (guint i = 0; i < sc->n; i++)
        if (!sc->ev[i].is_ack && sc->ev[i].copy == copy && sc->ev[i].off == off && nth-- == 0)
            return ack ? i + 1 : i;
    g_assert_not_reached();
    return 0;
}

enum { STAMP_END_MODE, STAMP_START_MODE, STAMP_HOST_MODE };

/* Plays the script without the events in skip (a bit per event), with
 * stamps at each frame's end, start, or at a host 1-4 ms later. */
static void play(fx_t *fx, const miss_script_t *sc, guint64 skip, int stamps)
{
    gboolean heard_all[64] = { 0 };
    for (gint c = 0; c < sc->copies; c++) {
        heard_all[c] = TRUE;
        for (guint i = 0; i < sc->n; i++)
            if (!sc->ev[i].is_ack && sc->ev[i].copy == c && (skip >> i & 1))
                heard_all[c] = FALSE;
    }
    for (guint i = 0; i < sc->n; i++) {
        const miss_ev_t *e = &sc->ev[i];
        /* A FRAGN shorter than a full one is in a shorter frame. */
        guint32 air = e->is_ack ? ACK_AIR_US : e->kind == 2 ? DATA_AIR_US - (guint32)(96 - e->len) * 32 : DATA_AIR_US;
        gint64 us = e->us + (stamps == STAMP_START_MODE ? -(gint64)air
                             : stamps == STAMP_HOST_MODE ? 1000 + (e->seq % 4) * 900 : 0);
        ++fx->frame;
        if (skip >> i & 1)
            continue;
        ota_link_in_t in = { fx->frame, us, TRUE, e->is_ack ? 2 : 1, e->seq, !e->is_ack, e->src, e->dst, air,
                             FALSE, FALSE, FALSE, FALSE, !e->is_ack, (guint64)e->seq << 8 | (guint64)e->off, 0 };
        ota_frame_t *f = ota_track_frame(fx->t, &in);
        if (e->is_ack)
            continue;
        lowpan_view_t lv = e->kind == 0 ? lv_whole(e->m)
                           : e->kind == 1 ? lv_frag1(e->tag, MISS_SIZE, e->len, 96, e->m)
                                          : lv_fragn(e->tag, MISS_SIZE, e->off, e->len);
        ota_track_lowpan(fx->t, f, &lv);
        if (e->last_of_copy && heard_all[e->copy] && !f->mac_retry) {
            gboolean up = meter_coap_is_request(e->m);
            message(fx, f, us, up ? M_IP : G_IP, up ? G_IP : M_IP, e->m);
        }
    }
}

/* The counts the sniffer's misses must not change where the capture holds
 * the evidence. */
static void assert_same_losses(const meter_transfer_record_t *a, const meter_transfer_record_t *b)
{
    g_assert_cmpuint(a->blocks, ==, b->blocks);
    g_assert_cmpint(a->complete, ==, b->complete);
    g_assert_cmpuint(a->requests, ==, b->requests);
    g_assert_cmpuint(a->datagram_copies, ==, b->datagram_copies);
    g_assert_cmpuint(a->frames_sent, ==, b->frames_sent);
    g_assert_cmpuint(a->frames_unacked, ==, b->frames_unacked);
    g_assert_cmpuint(a->mac_retries, ==, b->mac_retries);
    g_assert_cmpuint(a->datagrams_fragmented, ==, b->datagrams_fragmented);
    g_assert_cmpuint(a->datagrams_incomplete, ==, b->datagrams_incomplete);
    g_assert_cmpuint(a->fragments_lost, ==, b->fragments_lost);
    g_assert_cmpuint(a->request_copies, ==, b->request_copies);
    g_assert_cmpuint(a->request_copies_lost, ==, b->request_copies_lost);
    g_assert_cmpuint(a->request_frames_complete, ==, b->request_frames_complete);
    g_assert_cmpuint(a->response_copies, ==, b->response_copies);
    g_assert_cmpuint(a->response_copies_lost, ==, b->response_copies_lost);
    g_assert_cmpuint(a->response_frames_complete, ==, b->response_frames_complete);
    g_assert_cmpuint(a->response_first_lost, ==, b->response_first_lost);
    g_assert_cmpuint(a->response_later_frames, ==, b->response_later_frames);
}

typedef struct {
    const char *what;
    gint copy;                /* copies: 0 q0 M-R, 1 q0 R-G, 2 a0 G-R, 3 a0 R-M, 4 q1 M-R, 5 q1 R-G, 6 a1 G-R, 7 a1 R-M */
    guint16 off;
    guint nth;                /* which transmission (a0 G-R's FRAGN 96 is sent twice) */
    gboolean frame, ack;      /* what the sniffer missed */
    guint missed;             /* frames missed: what the tracker must infer */
} miss_case_t;

static void check_miss_case(const miss_case_t *mc, int stamps)
{
    fx_t perfect, missed;
    miss_script_t sc;
    meter_transfer_record_t truth;

    fx_init(&perfect);
    miss_script(&perfect, &sc);
    play(&perfect, &sc, 0, stamps);
    snap(&perfect, 1, &truth);
    g_assert_cmpuint(truth.frames_missed_by_sniffer, ==, 0);
    g_assert_cmpuint(ota_track_counts(perfect.t)->frames_missed, ==, 0);
    g_assert_cmpuint(truth.copies_lost_uncertain, ==, 0);

    fx_init(&missed);
    miss_script(&missed, &sc);
    guint64 skip = 0;
    if (mc->frame)
        skip |= G_GUINT64_CONSTANT(1) << find_ev(&sc, mc->copy, mc->off, FALSE, mc->nth);
    if (mc->ack)
        skip |= G_GUINT64_CONSTANT(1) << find_ev(&sc, mc->copy, mc->off, TRUE, mc->nth);
    play(&missed, &sc, skip, stamps);
    const meter_transfer_record_t *s = finalize(&missed, 1);
    if (g_test_verbose())
        g_printerr("%s (stamps %d): missed %u\n", mc->what, stamps, s->frames_missed_by_sniffer);
    assert_same_losses(s, &truth);
    g_assert_cmpuint(s->frames_missed_by_sniffer, ==, mc->missed);
    g_assert_cmpuint(ota_track_counts(missed.t)->frames_missed, ==, mc->missed);
    g_assert_cmpuint(s->copies_lost_uncertain, ==, 0);
    fx_done(&perfect);
    fx_done(&missed);
}

static const miss_case_t miss_cases[] = {
    /* (a) an ACK whose frame the sniffer missed: a middle fragment, and a retry */
    { "fragment, its ACK heard", 3, 96, 0, TRUE, FALSE, 1 },
    { "retry, its ACK heard", 2, 96, 1, TRUE, FALSE, 1 },
    /* (b) FRAGNs of a tag whose FRAG1 was missed, a gap, a missed last fragment the next hop forwarded */
    { "FRAG1, its ACK heard", 2, 0, 0, TRUE, FALSE, 1 },
    { "FRAG1 and its ACK", 2, 0, 0, TRUE, TRUE, 2 },
    { "middle fragment and its ACK", 6, 96, 0, TRUE, TRUE, 2 },
    { "last fragment, its ACK heard, forwarded", 6, 192, 0, TRUE, FALSE, 1 },
    /* an ACK missed: the next fragment, the next hop's copy */
    { "ACK of a middle fragment", 6, 96, 0, FALSE, TRUE, 1 },
    { "ACK of a forwarded last fragment", 2, 192, 0, FALSE, TRUE, 1 },
    /* (c) the answer to a request: its last hop's ACK missed */
    { "ACK of a request's last hop", 1, 0, 0, FALSE, TRUE, 1 },
    /* (d) the next block's request: the ACK into the meter missed */
    { "ACK of a response's last frame into the meter", 3, 192, 0, FALSE, TRUE, 1 },
};

static void test_sniffer_missed(gconstpointer data)
{
    for (int stamps = STAMP_END_MODE; stamps <= STAMP_HOST_MODE; stamps++)
        check_miss_case((const miss_case_t *)data, stamps);
}

/* What no later frame shows stays uncertain, with a bound that holds the
 * truth: the last fragment into the meter of the last block and its ACK
 * missed leaves the copy incomplete, counted lost and flagged uncertain. */
static void test_sniffer_missed_uncertain(void)
{
    for (int stamps = STAMP_END_MODE; stamps <= STAMP_HOST_MODE; stamps++) {
        fx_t perfect, missed;
        miss_script_t sc;
        meter_transfer_record_t truth;

        fx_init(&perfect);
        miss_script(&perfect, &sc);
        play(&perfect, &sc, 0, stamps);
        snap(&perfect, 1, &truth);
        fx_init(&missed);
        miss_script(&missed, &sc);
        guint64 skip = G_GUINT64_CONSTANT(1) << find_ev(&sc, 7, 192, FALSE, 0) |
                       G_GUINT64_CONSTANT(1) << find_ev(&sc, 7, 192, TRUE, 0);
        play(&missed, &sc, skip, stamps);
        const meter_transfer_record_t *s = finalize(&missed, 1);
        g_assert_cmpuint(s->response_copies_lost, >, truth.response_copies_lost);
        g_assert_cmpuint(s->copies_lost_uncertain, >=, s->response_copies_lost - truth.response_copies_lost);
        g_assert_cmpuint(s->response_copies_lost - s->copies_lost_uncertain, <=, truth.response_copies_lost);
        g_assert_cmpuint(s->datagrams_incomplete, ==, truth.datagrams_incomplete + 1);
        fx_done(&perfect);
        fx_done(&missed);
    }
}

/* The first block's answer missed whole, on both hops, ACKs and all: the
 * next block's request proves it arrived, so the blocks are the perfect
 * sniffer's; the copies it never saw are not counted (and the record says
 * by how much its counts may be low). */
static void test_sniffer_missed_blocks(void)
{
    fx_t perfect, missed;
    miss_script_t sc;
    meter_transfer_record_t truth;

    fx_init(&perfect);
    miss_script(&perfect, &sc);
    play(&perfect, &sc, 0, STAMP_END_MODE);
    snap(&perfect, 1, &truth);
    fx_init(&missed);
    miss_script(&missed, &sc);
    guint64 skip = 0;
    for (guint i = 0; i < sc.n; i++)
        if ((!sc.ev[i].is_ack && (sc.ev[i].copy == 2 || sc.ev[i].copy == 3)) ||
            (sc.ev[i].is_ack && i && !sc.ev[i - 1].is_ack && (sc.ev[i - 1].copy == 2 || sc.ev[i - 1].copy == 3)))
            skip |= G_GUINT64_CONSTANT(1) << i;
    play(&missed, &sc, skip, STAMP_END_MODE);
    const meter_transfer_record_t *s = finalize(&missed, 1);
    g_assert_cmpuint(truth.blocks, ==, 2);
    g_assert_cmpuint(s->blocks, ==, truth.blocks);
    /* Proven, block 0 counts as the full 256-byte block a client gets
     * before it asks for the next (the script's carries only 160). */
    g_assert_cmpuint(s->bytes, ==, 256 + 160);
    g_assert_cmpuint(s->datagram_copies, ==, truth.datagram_copies - 2);
    g_assert_cmpuint(s->frames_missed_high, >=, 2);
    fx_done(&perfect);
    fx_done(&missed);
}

/* ---- frames the sniffer missed, told by the senders' numbers and ACKs ---- */

#define POLL_AIR_US ((12 + 6) * 32)
#define POLL_ACK_US (TURNAROUND + ACK_AIR_US)   /* an ACK's end after its frame's end */
#define TURNAROUND 192

/* A sleepy meter's polls: what each event is, and whether the sniffer heard it. */
typedef enum { EV_POLL, EV_ACK, EV_BROADCAST } poll_ev_kind_t;
typedef struct {
    poll_ev_kind_t kind;
    gint64 us;
    guint8 seq;
    gboolean missed;
} poll_ev_t;

/* Plays the events the sniffer heard in time order (stamped at each
 * frame's end); the frames missed the capture counts. */
static int poll_ev_cmp(const void *a, const void *b)
{
    gint64 d = ((const poll_ev_t *)a)->us - ((const poll_ev_t *)b)->us;
    return d < 0 ? -1 : d > 0;
}

static guint32 play_polls_stamped(poll_ev_t *ev, guint n, int stamps)
{
    fx_t fx;
    fx_init(&fx);
    gint64 last_us = G_MININT64 / 2;
    qsort(ev, n, sizeof *ev, poll_ev_cmp);
    for (guint i = 0; i < n; i++) {
        ++fx.frame;
        if (ev[i].missed)
            continue;
        guint32 air = ev[i].kind == EV_ACK ? ACK_AIR_US : POLL_AIR_US;
        /* A host stamps 1-4 ms late, each frame its own delay but in order. */
        gint64 us = ev[i].us + (stamps == STAMP_START_MODE ? -(gint64)air
                                : stamps == STAMP_HOST_MODE ? 1000 + (gint64)(i % 4) * 900 : 0);
        if (stamps == STAMP_HOST_MODE)
            us = last_us = MAX(us, last_us + 10);
        ota_link_in_t in = { fx.frame, us, TRUE, 3, ev[i].seq, TRUE, M_LINK, R_LINK, POLL_AIR_US, FALSE, FALSE,
                             TRUE, FALSE, FALSE, 0x1000u + ev[i].seq, 0 };
        if (ev[i].kind == EV_ACK) {
            in.frame_type = 2;
            in.ack_request = in.data_request = FALSE;
            in.src = in.dst = 0;
            in.air_us = ACK_AIR_US;
        } else if (ev[i].kind == EV_BROADCAST) {
            in.frame_type = 1;
            in.ack_request = in.data_request = FALSE;
            in.src = G_GUINT64_CONSTANT(0x00124b0001a0c000);   /* MLE: its extended address */
            in.dst = 0;
        }
        ota_track_frame(fx.t, &in);
    }
    ota_track_finalize(fx.t, 60.0);
    guint32 missed = ota_track_counts(fx.t)->frames_missed;
    fx_done(&fx);
    return missed;
}

/* The same in every timestamp mode: the count, if they agree. */
static guint32 play_polls(poll_ev_t *ev, guint n)
{
    guint32 missed = play_polls_stamped(ev, n, STAMP_END_MODE);
    for (int stamps = STAMP_START_MODE; stamps <= STAMP_HOST_MODE; stamps++) {
        poll_ev_t copy[32];
        memcpy(copy, ev, n * sizeof *ev);
        g_assert_cmpuint(play_polls_stamped(copy, n, stamps), ==, missed);
    }
    return missed;
}

/* Polls 0x10.. every 100 ms, each acknowledged; then the case's changes. */
static guint polls(poll_ev_t *ev, guint n_polls)
{
    guint n = 0;
    for (guint k = 0; k < n_polls; k++) {
        gint64 at = (gint64)k * 100 * MS;
        ev[n++] = (poll_ev_t){ EV_POLL, at, (guint8)(0x10 + k), FALSE };
        ev[n++] = (poll_ev_t){ EV_ACK, at + POLL_ACK_US, (guint8)(0x10 + k), FALSE };
    }
    return n;
}

static void test_sniffer_missed_numbers(void)
{
    poll_ev_t ev[32];
    guint n = polls(ev, 5);

    g_assert_cmpuint(play_polls(ev, n), ==, 0);
    /* A poll and its ACK missed: the number skipped is one frame (its ACK is not known). */
    ev[4].missed = ev[5].missed = TRUE;
    g_assert_cmpuint(play_polls(ev, n), ==, 1);
    /* The poll alone: the same frame; its ACK, heard, adds none. */
    ev[5].missed = FALSE;
    g_assert_cmpuint(play_polls(ev, n), ==, 1);
    /* The number went to a broadcast the sniffer heard (it is not acknowledged): nothing missed. */
    n = polls(ev, 5);
    ev[4] = (poll_ev_t){ EV_BROADCAST, 200 * MS, 0x12, FALSE };
    ev[5] = (poll_ev_t){ EV_BROADCAST, 201 * MS, 0x12, FALSE };
    g_assert_cmpuint(play_polls(ev, n), ==, 0);
    /* ... and missed, with nothing else to tell: one. */
    ev[4].missed = ev[5].missed = TRUE;
    g_assert_cmpuint(play_polls(ev, n), ==, 1);
}

/* ACKs of transmissions the sniffer missed, and an ACK it missed. */
static void test_sniffer_missed_retries(void)
{
    poll_ev_t ev[32];
    guint n = polls(ev, 4);

    /* Poll 0x11 sent once more 3 ms later, its first ACK lost on the way
     * back (the sniffer heard it): the sniffer missed the second poll, and
     * heard its ACK. */
    ev[n++] = (poll_ev_t){ EV_POLL, 100 * MS + 3 * MS, 0x11, TRUE };
    ev[n++] = (poll_ev_t){ EV_ACK, 100 * MS + 3 * MS + POLL_ACK_US, 0x11, FALSE };
    g_assert_cmpuint(play_polls(ev, n), ==, 1);
    /* The other way round: the first poll missed (its ACK heard), the second heard with its ACK. */
    n = polls(ev, 4);
    ev[2].missed = TRUE;
    ev[n++] = (poll_ev_t){ EV_POLL, 100 * MS + 3 * MS, 0x11, FALSE };
    ev[n++] = (poll_ev_t){ EV_ACK, 100 * MS + 3 * MS + POLL_ACK_US, 0x11, FALSE };
    g_assert_cmpuint(play_polls(ev, n), ==, 1);
    /* An ACK missed: poll 0x11 sent once, and the meter went on. */
    n = polls(ev, 4);
    ev[3].missed = TRUE;
    g_assert_cmpuint(play_polls(ev, n), ==, 1);
    /* Sent again and again unacknowledged, then given up (or a failed
     * channel access): no ACK came, nothing missed. */
    n = polls(ev, 4);
    ev[3].missed = TRUE;
    ev[n++] = (poll_ev_t){ EV_POLL, 100 * MS + 3 * MS, 0x11, FALSE };
    ev[n++] = (poll_ev_t){ EV_ACK, 100 * MS + 3 * MS + POLL_ACK_US, 0x11, TRUE };
    g_assert_cmpuint(play_polls(ev, n), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    wmem_init();
    g_test_add_func("/ota_track/retry_vs_duplicate", test_retry_vs_duplicate);
    g_test_add_func("/ota_track/records_let_go", test_records_let_go);
    g_test_add_func("/ota_track/ack_matching", test_ack_matching);
    g_test_add_func("/ota_track/time_base", test_time_base);
    g_test_add_func("/ota_track/one_read_start", test_one_read_start);
    g_test_add_func("/ota_track/one_read_rebind", test_one_read_rebind);
    g_test_add_func("/ota_track/one_read_host_by_chance", test_one_read_host_by_chance);
    g_test_add_func("/ota_track/fragments_any_order", test_fragments_any_order);
    g_test_add_func("/ota_track/fragments_incomplete", test_fragments_incomplete);
    g_test_add_func("/ota_track/fragment_gap_after_frag1", test_fragment_gap_after_frag1);
    g_test_add_func("/ota_track/download_rtt_turnaround", test_download_rtt_turnaround);
    g_test_add_func("/ota_track/percentiles_nearest_rank", test_percentiles_nearest_rank);
    g_test_add_func("/ota_track/hop_copies_vs_retransmission", test_hop_copies_vs_retransmission);
    g_test_add_func("/ota_track/rerequest", test_rerequest);
    g_test_add_func("/ota_track/accepted_response_round", test_accepted_response_round);
    g_test_add_func("/ota_track/blocks_and_renegotiation", test_blocks_and_renegotiation);
    g_test_add_func("/ota_track/block1_upload", test_block1_upload);
    g_test_add_func("/ota_track/fragment_accounting", test_fragment_accounting);
    g_test_add_func("/ota_track/record_columns", test_record_columns);
    g_test_add_func("/ota_track/finalize_idempotent", test_finalize_idempotent);
    g_test_add_func("/ota_track/finalize_part_way", test_finalize_part_way);
    g_test_add_func("/ota_track/turnaround_rules", test_turnaround_rules);
    g_test_add_func("/ota_track/no_acks_in_capture", test_no_acks_in_capture);
    g_test_add_func("/ota_track/leftover_copy", test_leftover_copy);
    g_test_add_func("/ota_track/first_request_is_a_request", test_first_request_is_a_request);
    g_test_add_func("/ota_track/mid_collision_two_meters", test_mid_collision_two_meters);
    for (guint i = 0; i < G_N_ELEMENTS(miss_cases); i++) {
        char *name = g_strdup_printf("/ota_track/sniffer_missed/%u", i);
        g_test_add_data_func(name, &miss_cases[i], test_sniffer_missed);
        g_free(name);
    }
    g_test_add_func("/ota_track/sniffer_missed_uncertain", test_sniffer_missed_uncertain);
    g_test_add_func("/ota_track/sniffer_missed_blocks", test_sniffer_missed_blocks);
    g_test_add_func("/ota_track/sniffer_missed_numbers", test_sniffer_missed_numbers);
    g_test_add_func("/ota_track/sniffer_missed_retries", test_sniffer_missed_retries);
    int rc = g_test_run();
    wmem_cleanup();
    return rc;
}
