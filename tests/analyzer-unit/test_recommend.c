/* test_recommend.c: the block-size model (analyzer/recommend.c) against its
 * definition in docs/recommendation.md. The test derives the inputs and the
 * predicted rate of every block size again from the documented formulas
 * (and, for one lossless transfer, from numbers worked out by hand), then
 * checks what must hold whatever the inputs: the measured rate given back
 * at the measured size, the chosen SZX the fastest, more loss never faster,
 * and no NaN or infinity out of empty, lossless, total-loss, absurd or huge
 * inputs.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "recommend.h"

#define FLASH_S_PER_BYTE 150e-6   /* the analyser's default, --flash-us-per-byte 150 */
#define REL_TOLERANCE    1e-9

/* ---- The model as docs/recommendation.md writes it ---------------------- */

/* Frames of a response of `bytes` (block and overhead), cut the way 6LoWPAN
 * does: one frame holds 116 bytes; else FRAG1 (4-byte header) carries 112,
 * and each FRAGN (5-byte header, data in multiples of 8) 104. */
static guint cut_frames(double bytes)
{
    guint n = 1;

    if (bytes <= 116)
        return 1;
    for (bytes -= 112; bytes > 0; bytes -= 104)
        n++;
    return n;
}

/* W(F) / T0: the k-th failure in a row waits T0 2^(k-1), five times at
 * most, then the exchange starts over. */
static double wait_per_first_timeout(double f)
{
    double sum = 0;

    if (f <= 0)
        return 0;
    if (f >= 1)
        return INFINITY;
    for (int k = 1; k <= 5; k++)
        sum += pow(f, k) * pow(2, k - 1);
    return sum / (1 - pow(f, 5));
}

/* The inputs, in the documentation's symbols. */
typedef struct {
    double B0, p0, k0, O, Pq, bL, b, h, a, n, u, w, T0, beta;
} doc_model_t;

/* The inputs table of the documentation, for a transfer where every
 * denominator is positive and the copies add up. */
static doc_model_t doc_inputs(const ms_transfer_t *x, double beta)
{
    doc_model_t m = { 0 };
    double complete = (double)x->rec.response_copies - x->rec.response_copies_lost;

    m.B0 = x->rec.block_size;
    m.p0 = (double)(x->rec.retransmissions + x->rec.rerequests) / x->rec.requests;
    m.k0 = x->rec.response_frames_complete / complete;
    m.O = x->rec.response_bytes_complete / complete - 11 * m.k0 - (m.k0 > 1 ? 4 + 5 * (m.k0 - 1) : 0) - m.B0;
    m.Pq = (double)x->rec.request_copies_lost / x->rec.request_copies;
    m.bL = ((double)x->rec.response_copies_lost - x->rec.response_first_lost) / x->rec.response_later_frames;
    m.b = m.k0 >= 3 && x->rec.response_copies_lost > x->rec.response_first_lost ? m.bL : m.Pq;
    m.h = (double)x->rec.request_copies / x->rec.requests;
    m.a = x->rec.time_air_s / x->rec.blocks;
    m.n = x->rec.time_network_s / x->rec.blocks;
    m.u = x->rec.time_turnaround_s / x->rec.blocks;
    m.w = x->rec.time_timeouts_s / x->rec.blocks;
    m.T0 = m.p0 > 0 ? m.w / wait_per_first_timeout(m.p0) : 2.5;
    m.beta = beta;
    return m;
}

static double doc_frames(const doc_model_t *m, double B)
{
    return MAX(1.0, m->k0 + cut_frames(B + m->O) - cut_frames(m->B0 + m->O));
}

/* F(B), kept a probability: fewer frames than measured can remove more loss
 * than was measured (the code clamps it the same way). */
static double doc_fail(const doc_model_t *m, double B)
{
    double f = 1 - (1 - m->p0) * pow(1 - m->b, m->h * (doc_frames(m, B) - m->k0));
    return CLAMP(f, 0, 1);
}

static double doc_time(const doc_model_t *m, double B)
{
    return m->a * (1 + doc_frames(m, B)) / (1 + m->k0) + m->n + MAX(0.0, m->u + m->beta * (B - m->B0)) +
           m->T0 * wait_per_first_timeout(doc_fail(m, B));
}

static double doc_rate(const doc_model_t *m, double B)
{
    double t = doc_time(m, B);
    return isfinite(t) && t > 0 ? B / t : 0;
}

/* ---- Transfers -------------------------------------------------------------- */

static void assert_close(double got, double want, const char *what, guint szx)
{
    if (fabs(got - want) > REL_TOLERANCE * MAX(fabs(want), 1e-12)) {
        g_test_message("%s at SZX %u: got %.17g, want %.17g", what, szx, got, want);
        g_test_fail();
    }
}

/* A consistent download: `blocks` blocks of `block_size` bytes, each response
 * `frames` frames (an average: a short last block makes it fractional)
 * carrying `overhead` bytes besides the block, MAC and FRAG headers. Every
 * block takes `air`, `network` and `turnaround` seconds; no loss. */
static ms_transfer_t download(guint32 blocks, guint32 block_size, double frames, double overhead, double air,
                              double network, double turnaround)
{
    double bytes_per_response = block_size + overhead + 11 * frames + (frames > 1 ? 4 + 5 * (frames - 1) : 0);

    return (ms_transfer_t){ .rec = {
        .transfer = 1, .kind = "block2", .complete = TRUE, .block_size = block_size, .blocks = blocks,
        .bytes = blocks * block_size, .requests = blocks, .frames_sent = (guint32)(blocks * (1 + frames)),
        .request_copies = blocks, .response_copies = blocks,
        .response_frames_complete = (guint32)lround(blocks * frames),
        .response_bytes_complete = (guint32)lround(blocks * bytes_per_response),
        .response_later_frames = (guint32)lround(blocks * (frames - 1)),
        .time_air_s = blocks * air, .time_network_s = blocks * network, .time_turnaround_s = blocks * turnaround,
    } };
}

/* Loses `lost_exchanges` of the exchanges (retransmitted), waiting
 * `timeouts` seconds in all for them. */
static void lose_exchanges(ms_transfer_t *x, guint32 lost_exchanges, double timeouts)
{
    x->rec.retransmissions = lost_exchanges;
    x->rec.requests = x->rec.blocks + lost_exchanges;
    x->rec.request_copies = x->rec.requests;
    x->rec.time_timeouts_s = timeouts;
}

/* The recommendation against the documentation, rate by rate. */
static void assert_as_documented(const ms_transfer_t *x, double beta)
{
    ms_recommendation_t r;
    doc_model_t m = doc_inputs(x, beta);
    guint best = 0;

    g_assert_true(ms_recommend(x, beta, &r));
    assert_close(r.exchange_loss, m.p0, "p0", 0);
    assert_close(r.response_frames, m.k0, "k0", 0);
    assert_close(r.block_overhead, m.O, "O", 0);
    assert_close(r.request_loss, m.Pq, "Pq", 0);
    assert_close(r.added_frame_loss, m.b, "b", 0);
    assert_close(r.hops, m.h, "h", 0);
    assert_close(r.timeout_s, m.T0, "T0", 0);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        double B = 16 << szx;
        assert_close(r.exchange_fail[szx], doc_fail(&m, B), "F", szx);
        assert_close(r.rate_Bps[szx], doc_rate(&m, B), "rate", szx);
        if (doc_rate(&m, B) > doc_rate(&m, 16 << best))
            best = szx;
    }
    g_assert_cmpuint(r.best_szx, ==, best);
}

/* ---- Tests ------------------------------------------------------------------ */

static void test_frames_for_block(void)
{
    static const double overheads[] = { 0, 20, 36, 36.5, 60, 116 };

    for (guint i = 0; i < G_N_ELEMENTS(overheads); i++)
        for (guint32 b = 0; b <= 1200; b++)
            g_assert_cmpuint(ms_frames_for_block(b, overheads[i]), ==, cut_frames(b + overheads[i]));
    /* At the edges, by hand: 80 + 36 fills one frame; 112 + 104 fill two. */
    g_assert_cmpuint(ms_frames_for_block(80, 36), ==, 1);
    g_assert_cmpuint(ms_frames_for_block(81, 36), ==, 2);
    g_assert_cmpuint(ms_frames_for_block(180, 36), ==, 2);
    g_assert_cmpuint(ms_frames_for_block(181, 36), ==, 3);
}

/* No loss, 64-byte blocks in single frames with 36 bytes of overhead, 10 ms
 * on air, 50 ms network, 200 ms turn-around per block. By hand: the
 * responses of 16..1024 bytes plus 36 are 52, 68, 100 (one frame each),
 * 164 (2 frames), 292 (3), 548 (6) and 1060 (11) bytes; nothing fails, so
 * T(B) = 0.01 (1 + k) / 2 + 0.05 + 0.2 + 150e-6 (B - 64) s (the flash
 * term, -7.2 ms at 16 bytes, never outweighs the 200 ms turn-around). */
static void test_lossless_by_hand(void)
{
    static const double frames[] = { 1, 1, 1, 2, 3, 6, 11 };
    ms_transfer_t x = download(100, 64, 1, 36, 0.01, 0.05, 0.2);
    ms_recommendation_t r;

    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    assert_close(r.block_overhead, 36, "O", 0);
    assert_close(r.response_frames, 1, "k0", 0);
    g_assert_cmpfloat(r.exchange_loss, ==, 0);
    g_assert_cmpfloat(r.timeout_s, ==, 2.5);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        double B = 16 << szx;
        double t = 0.01 * (1 + frames[szx]) / 2 + 0.05 + 0.2 + 150e-6 * (B - 64);
        assert_close(r.rate_Bps[szx], B / t, "rate", szx);
        g_assert_cmpfloat(r.exchange_fail[szx], ==, 0);
    }
    /* 1024 / 0.454 s = 2256 B/s: without loss the biggest block wins. */
    g_assert_cmpuint(r.best_szx, ==, 6);
    assert_as_documented(&x, FLASH_S_PER_BYTE);
}

/* Lossy downloads, one for each source of the added-frame loss. */
static void test_lossy_as_documented(void)
{
    /* 3-frame responses with a later frame lost: b is the later-frame loss;
     * requests cross 2.2 hops on average. */
    ms_transfer_t x = download(1000, 256, 3, 40, 0.03, 0.08, 0.25);
    lose_exchanges(&x, 100, 250.0);
    x.rec.response_copies = 1100;
    x.rec.response_copies_lost = 100;
    x.rec.response_first_lost = 40;
    x.rec.response_frames_complete = 3000;
    x.rec.response_bytes_complete = 1000 * (256 + 40 + 33 + 4 + 10);
    x.rec.response_later_frames = 2000;
    x.rec.request_copies = (guint32)(2.2 * x.rec.requests);
    x.rec.request_copies_lost = 30;
    assert_as_documented(&x, FLASH_S_PER_BYTE);
    ms_recommendation_t r;
    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    g_assert_true(r.added_from_later);
    assert_close(r.later_frame_loss, 60.0 / 2000, "bL", 0);
    assert_close(r.first_frame_loss, 40.0 / 1100, "first-frame loss", 0);

    /* 2-frame responses: every later frame is a last frame, so b is the
     * request loss. */
    x = download(500, 128, 2, 24, 0.02, 0.06, 0.3);
    lose_exchanges(&x, 40, 150.0);
    x.rec.request_copies_lost = 12;
    x.rec.response_copies = 540;
    x.rec.response_copies_lost = 40;
    x.rec.response_first_lost = 10;
    assert_as_documented(&x, FLASH_S_PER_BYTE);
    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    g_assert_false(r.added_from_later);

    /* Single-frame responses, and no flash cost at all. */
    x = download(2000, 32, 1, 30, 0.006, 0.04, 0.15);
    lose_exchanges(&x, 90, 300.0);
    x.rec.request_copies_lost = 40;
    x.rec.response_copies = 2090;
    x.rec.response_copies_lost = 90;
    x.rec.response_first_lost = 90;
    assert_as_documented(&x, 0);

    /* 1024-byte blocks, 10.5 frames on average (a short last block), later
     * frames lost, 2 hops: every other size has fewer frames, and at 16
     * bytes removing them removes more loss than was measured (F clamped
     * at 0). */
    x = download(200, 1024, 10.5, 30, 0.12, 0.1, 0.4);
    lose_exchanges(&x, 6, 20.0);
    x.rec.request_copies = 2 * x.rec.requests;
    x.rec.response_copies = 206;
    x.rec.response_copies_lost = 6;
    x.rec.response_first_lost = 1;
    x.rec.request_copies_lost = 2;
    assert_as_documented(&x, FLASH_S_PER_BYTE);
    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpfloat(r.exchange_fail[0], ==, 0);
}

/* Random consistent downloads: at the measured size the model gives back
 * the measured time per block (docs: a consistency check of the inputs),
 * and the SZX chosen is the fastest, the first of equals. */
static void test_properties_random(void)
{
    GRand *rand = g_rand_new_with_seed(13);

    for (guint i = 0; i < 2000; i++) {
        guint szx0 = g_rand_int_range(rand, 0, MS_SZX_MAX + 1);
        guint32 b0 = 16u << szx0, blocks = g_rand_int_range(rand, 1, 5000);
        double overhead = g_rand_double_range(rand, 0, 60);
        double frames = ms_frames_for_block(b0, overhead) - g_rand_double_range(rand, 0, 0.5);
        ms_transfer_t x = download(blocks, b0, MAX(1.0, frames), overhead, g_rand_double_range(rand, 0, 0.2),
                                   g_rand_double_range(rand, 0, 1), g_rand_double_range(rand, 0, 2));
        guint32 lost = g_rand_boolean(rand) ? g_rand_int_range(rand, 0, blocks) : 0;
        lose_exchanges(&x, lost, lost ? g_rand_double_range(rand, 0, 5) * lost : 0);
        x.rec.request_copies = x.rec.requests + g_rand_int_range(rand, 0, x.rec.requests);
        x.rec.request_copies_lost = g_rand_int_range(rand, 0, lost + 1);
        x.rec.response_copies = x.rec.blocks + lost;
        x.rec.response_copies_lost = lost;
        x.rec.response_first_lost = g_rand_int_range(rand, 0, lost + 1);
        double beta = g_rand_double_range(rand, 0, 500e-6);

        ms_recommendation_t r;
        g_assert_true(ms_recommend(&x, beta, &r));
        double measured = (x.rec.time_air_s + x.rec.time_network_s + x.rec.time_turnaround_s + x.rec.time_timeouts_s) / blocks;
        if (measured > 0)
            assert_close(r.rate_Bps[szx0], b0 / measured, "rate at the measured size", szx0);
        assert_close(r.exchange_fail[szx0], r.exchange_loss, "F at the measured size", szx0);
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
            g_assert_true(isfinite(r.rate_Bps[szx]) && r.rate_Bps[szx] >= 0);
            g_assert_cmpfloat(r.rate_Bps[szx], <=, r.rate_Bps[r.best_szx]);
            if (szx < r.best_szx)
                g_assert_cmpfloat(r.rate_Bps[szx], <, r.rate_Bps[r.best_szx]);
        }
    }
    g_rand_free(rand);
}

/* More failed exchanges, each waiting the same first timeout (3 s): no
 * block size is predicted faster. */
static void test_more_exchange_loss_never_faster(void)
{
    double previous[MS_SZX_MAX + 1];

    for (guint32 lost = 0; lost <= 150; lost += 10) {
        ms_transfer_t x = download(300, 128, 2, 30, 0.02, 0.07, 0.25);
        double p0 = lost / (300.0 + lost);
        lose_exchanges(&x, lost, 300 * 3.0 * wait_per_first_timeout(p0));
        x.rec.request_copies_lost = x.rec.requests / 10;   /* b = Pq = 0.1 throughout */

        ms_recommendation_t r;
        g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
        if (lost)
            assert_close(r.timeout_s, 3.0, "T0", 0);
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
            if (lost)
                g_assert_cmpfloat(r.rate_Bps[szx], <=, previous[szx] * (1 + REL_TOLERANCE));
            previous[szx] = r.rate_Bps[szx];
        }
    }
}

/* More loss of an added frame (here the request loss: 2-frame responses),
 * the exchanges failing as often: no block of more frames than measured is
 * predicted faster. Blocks of fewer frames gain, by the definition: the
 * frames they remove took their loss with them. */
static void test_more_frame_loss_never_faster(void)
{
    double previous[MS_SZX_MAX + 1];

    for (guint32 lost = 0; lost <= 60; lost += 3) {
        ms_transfer_t x = download(400, 128, 2, 30, 0.02, 0.07, 0.25);
        lose_exchanges(&x, 60, 180.0);
        x.rec.request_copies_lost = lost;
        x.rec.response_copies = 400;

        ms_recommendation_t r;
        g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
            guint32 b = 16u << szx;
            gboolean more_frames = ms_frames_for_block(b, 30) > ms_frames_for_block(128, 30);
            gboolean fewer_frames = ms_frames_for_block(b, 30) < ms_frames_for_block(128, 30);
            if (lost && more_frames)
                g_assert_cmpfloat(r.rate_Bps[szx], <=, previous[szx] * (1 + REL_TOLERANCE));
            if (lost && fewer_frames)
                g_assert_cmpfloat(r.rate_Bps[szx], >=, previous[szx] * (1 - REL_TOLERANCE));
            previous[szx] = r.rate_Bps[szx];
        }
    }
}

/* Responses of 3 frames whose later frames all came through: the capture
 * cannot tell how often one is lost, so the request loss stands in. */
static void test_no_later_frame_lost(void)
{
    ms_transfer_t x = download(100, 256, 3, 40, 0.03, 0.08, 0.25);
    ms_recommendation_t r;

    lose_exchanges(&x, 10, 30.0);
    x.rec.request_copies_lost = 7;
    x.rec.response_copies = 110;
    x.rec.response_copies_lost = 10;
    x.rec.response_first_lost = 10;
    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    g_assert_false(r.added_from_later);
    g_assert_cmpfloat(r.later_frame_loss, ==, 0);
    assert_close(r.added_frame_loss, 7.0 / 110, "b", 0);
    assert_as_documented(&x, FLASH_S_PER_BYTE);
}

/* No transfer, or one without a block, a request or a frame: nothing to
 * base a prediction on, and nothing left in the output. */
static void test_refuses_empty(void)
{
    ms_recommendation_t r, zero;
    ms_transfer_t x = download(10, 64, 1, 36, 0.01, 0.05, 0.2);

    memset(&zero, 0, sizeof(zero));
    memset(&r, 0xff, sizeof(r));
    g_assert_false(ms_recommend(NULL, FLASH_S_PER_BYTE, &r));
    g_assert_true(memcmp(&r, &zero, sizeof(r)) == 0);

    ms_transfer_t empty = x;
    empty.rec.blocks = empty.rec.bytes = 0;
    memset(&r, 0xff, sizeof(r));
    g_assert_false(ms_recommend(&empty, FLASH_S_PER_BYTE, &r));
    g_assert_true(memcmp(&r, &zero, sizeof(r)) == 0);
    empty = x;
    empty.rec.requests = 0;
    g_assert_false(ms_recommend(&empty, FLASH_S_PER_BYTE, &r));
    empty = x;
    empty.rec.frames_sent = 0;
    g_assert_false(ms_recommend(&empty, FLASH_S_PER_BYTE, &r));
}

/* Blocks and requests but no copies tracked (no 6LoWPAN view of them): the
 * defaults, single frames with 36 bytes of overhead (a block bigger than
 * about 80 bytes is fragmented), no loss, one hop. */
static void test_no_loss_data(void)
{
    ms_transfer_t x = { .rec = { .kind = "block2", .block_size = 64, .blocks = 50, .bytes = 3200, .requests = 50,
                        .frames_sent = 100, .time_air_s = 0.5, .time_network_s = 2.5, .time_turnaround_s = 10 } };
    ms_recommendation_t r;

    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpfloat(r.response_frames, ==, 1);
    g_assert_cmpfloat(r.block_overhead, ==, 36);
    g_assert_cmpfloat(r.request_loss, ==, 0);
    g_assert_cmpfloat(r.first_frame_loss, ==, 0);
    g_assert_cmpfloat(r.later_frame_loss, <, 0);
    g_assert_false(r.added_from_later);
    g_assert_cmpfloat(r.added_frame_loss, ==, 0);
    g_assert_cmpfloat(r.hops, ==, 1);
    g_assert_cmpfloat(r.timeout_s, ==, 2.5);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        g_assert_cmpfloat(r.exchange_fail[szx], ==, 0);
        g_assert_true(isfinite(r.rate_Bps[szx]) && r.rate_Bps[szx] > 0);
    }
    assert_close(r.rate_Bps[2], 64 / (0.01 + 0.05 + 0.2), "rate at the measured size", 2);
}

/* Every exchange failed (or more retransmissions than requests): no size
 * gets through, every rate is 0 and no NaN comes out. */
static void test_total_loss(void)
{
    ms_transfer_t x = download(10, 128, 2, 30, 0.02, 0.07, 0.25);
    ms_recommendation_t r;

    lose_exchanges(&x, 10, 100.0);
    x.rec.retransmissions = 3 * x.rec.requests;
    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpfloat(r.exchange_loss, ==, 1);
    g_assert_true(isfinite(r.timeout_s));
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        g_assert_cmpfloat(r.exchange_fail[szx], ==, 1);
        g_assert_cmpfloat(r.rate_Bps[szx], ==, 0);
    }
    g_assert_cmpuint(r.best_szx, <=, MS_SZX_MAX);
}

/* No time measured at all: no division by zero. Without a flash cost no
 * size has a time, so no rate (and of equal rates the smallest block is
 * chosen); with one, only bigger blocks take time. */
static void test_zero_times(void)
{
    ms_transfer_t x = download(10, 64, 1, 36, 0, 0, 0);
    ms_recommendation_t r;

    g_assert_true(ms_recommend(&x, 0, &r));
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
        g_assert_cmpfloat(r.rate_Bps[szx], ==, 0);
    g_assert_cmpuint(r.best_szx, ==, 0);
    g_assert_true(ms_recommend(&x, FLASH_S_PER_BYTE, &r));
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        double B = 16 << szx;
        assert_close(r.rate_Bps[szx], B > 64 ? B / (FLASH_S_PER_BYTE * (B - 64)) : 0, "rate", szx);
    }
}

static void assert_sane(const ms_recommendation_t *r)
{
    g_assert_true(isfinite(r->exchange_loss) && r->exchange_loss >= 0 && r->exchange_loss <= 1);
    g_assert_true(isfinite(r->block_overhead) && r->block_overhead >= 0 && r->block_overhead <= 116);
    g_assert_true(isfinite(r->hops) && r->hops >= 1);
    g_assert_true(isfinite(r->timeout_s) && r->timeout_s >= 0);
    g_assert_cmpuint(r->best_szx, <=, MS_SZX_MAX);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        g_assert_true(r->exchange_fail[szx] >= 0 && r->exchange_fail[szx] <= 1);
        g_assert_true(isfinite(r->rate_Bps[szx]) && r->rate_Bps[szx] >= 0);
        g_assert_cmpfloat(r->rate_Bps[szx], <=, r->rate_Bps[r->best_szx]);
    }
}

/* Counts near their limit and times of centuries: finite answers. */
static void test_huge_values(void)
{
    ms_transfer_t x = { .rec = {
        .kind = "block2", .complete = TRUE, .block_size = 1024, .blocks = G_MAXUINT32 / 4, .bytes = G_MAXUINT32,
        .requests = G_MAXUINT32, .retransmissions = G_MAXUINT32 / 2, .frames_sent = G_MAXUINT32,
        .request_copies = G_MAXUINT32, .request_copies_lost = G_MAXUINT32 / 3, .response_copies = G_MAXUINT32,
        .response_copies_lost = G_MAXUINT32 - 1, .response_first_lost = 1,
        .response_frames_complete = G_MAXUINT32, .response_bytes_complete = G_MAXUINT32,
        .response_later_frames = G_MAXUINT32, .time_air_s = 1e15, .time_network_s = 1e16,
        .time_turnaround_s = 1e17, .time_timeouts_s = 1e300,
    } };
    ms_recommendation_t r;

    g_assert_true(ms_recommend(&x, 1.0, &r));
    assert_sane(&r);
    g_assert_true(ms_recommend(&x, 1e300, &r));
    assert_sane(&r);
}

/* Counts that need not add up (more response copies lost than sent, more
 * first frames lost than copies lost, timeouts without a failure, a block
 * size of 0 or beyond 1024): no NaN, no infinity, and the best SZX is still
 * the fastest. What one transfer cannot break stays: lost request copies
 * are some of the copies, later frames lost some of the later frames (an
 * added-frame loss above 1 has no meaning: the model takes powers of
 * 1 - b), and not every exchange failed when blocks came through (with an
 * exchange loss of 1 and an added-frame loss of 1, F is 0 x 0^-n, NaN, at
 * sizes of fewer frames than measured). */
static void test_absurd_inputs(void)
{
    GRand *rand = g_rand_new_with_seed(7);
    static const guint32 sizes[] = { 0, 1, 16, 64, 100, 1024, 5000 };

    for (guint i = 0; i < 5000; i++) {
#define COUNT() (g_rand_boolean(rand) ? 0 : (guint32)g_rand_int_range(rand, 0, 1000))
        ms_transfer_t x = { .rec = {
            .kind = "block2", .block_size = sizes[g_rand_int_range(rand, 0, G_N_ELEMENTS(sizes))],
            .blocks = COUNT(), .requests = COUNT(), .retransmissions = COUNT(), .rerequests = COUNT(),
            .frames_sent = COUNT(), .request_copies = COUNT(), .request_copies_lost = COUNT(),
            .response_copies = COUNT(), .response_copies_lost = COUNT(), .response_first_lost = COUNT(),
            .response_frames_complete = COUNT(), .response_bytes_complete = COUNT() * 100,
            .response_later_frames = COUNT(),
            .time_air_s = g_rand_double_range(rand, 0, 100), .time_network_s = g_rand_double_range(rand, 0, 100),
            .time_turnaround_s = g_rand_double_range(rand, 0, 100),
            .time_timeouts_s = g_rand_double_range(rand, 0, 1000),
        } };
#undef COUNT
        x.rec.request_copies_lost = MIN(x.rec.request_copies_lost, x.rec.request_copies);
        if (x.rec.blocks)
            x.rec.requests = MAX(x.rec.requests, x.rec.retransmissions + x.rec.rerequests + 1);
        x.rec.response_later_frames = MAX(x.rec.response_later_frames, x.rec.response_copies_lost);
        ms_recommendation_t r;
        gboolean usable = x.rec.blocks && x.rec.requests && x.rec.frames_sent;
        g_assert_cmpint(ms_recommend(&x, g_rand_double_range(rand, 0, 1e-3), &r), ==, usable);
        if (usable)
            assert_sane(&r);
    }
    g_rand_free(rand);
}

/* The transfer the recommendation is made from: complete beats incomplete,
 * then a download beats an upload, then more bytes; transfers without a
 * block, a request or a frame never count. */
static void test_basis(void)
{
    ms_transfer_t up = download(20, 64, 1, 36, 0.01, 0.05, 0.2);
    ms_transfer_t down = download(10, 64, 1, 36, 0.01, 0.05, 0.2);
    ms_transfer_t big_incomplete = download(900, 64, 1, 36, 0.01, 0.05, 0.2);
    ms_transfer_t bigger_down = download(30, 64, 1, 36, 0.01, 0.05, 0.2);
    ms_transfer_t no_frames = download(5000, 64, 1, 36, 0.01, 0.05, 0.2);
    ms_capture_t c = { .transfers = g_ptr_array_new() };

    up.rec.kind = "block1";
    big_incomplete.rec.complete = FALSE;
    no_frames.rec.frames_sent = 0;
    g_assert_null(ms_recommend_basis(&c));
    g_ptr_array_add(c.transfers, &no_frames);
    g_assert_null(ms_recommend_basis(&c));
    g_ptr_array_add(c.transfers, &big_incomplete);
    g_assert_true(ms_recommend_basis(&c) == &big_incomplete);
    g_ptr_array_add(c.transfers, &up);
    g_assert_true(ms_recommend_basis(&c) == &up);
    g_ptr_array_add(c.transfers, &down);
    g_assert_true(ms_recommend_basis(&c) == &down);
    g_ptr_array_add(c.transfers, &bigger_down);
    g_assert_true(ms_recommend_basis(&c) == &bigger_down);
    g_ptr_array_free(c.transfers, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/recommend/frames_for_block", test_frames_for_block);
    g_test_add_func("/recommend/lossless_by_hand", test_lossless_by_hand);
    g_test_add_func("/recommend/lossy_as_documented", test_lossy_as_documented);
    g_test_add_func("/recommend/properties_random", test_properties_random);
    g_test_add_func("/recommend/more_exchange_loss_never_faster", test_more_exchange_loss_never_faster);
    g_test_add_func("/recommend/more_frame_loss_never_faster", test_more_frame_loss_never_faster);
    g_test_add_func("/recommend/no_later_frame_lost", test_no_later_frame_lost);
    g_test_add_func("/recommend/refuses_empty", test_refuses_empty);
    g_test_add_func("/recommend/no_loss_data", test_no_loss_data);
    g_test_add_func("/recommend/total_loss", test_total_loss);
    g_test_add_func("/recommend/zero_times", test_zero_times);
    g_test_add_func("/recommend/huge_values", test_huge_values);
    g_test_add_func("/recommend/absurd_inputs", test_absurd_inputs);
    g_test_add_func("/recommend/basis", test_basis);
    return g_test_run();
}
