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
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "recommend.h"
#include "report.h"

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

/* One more frame on a hop when the capture cannot show it (documented):
 * a 127-byte frame's air time, the ACK's turnaround and air time, the mean
 * first backoff and a CCA. */
#define FRAME_HOP_S ((133 * 32 + 192 + 11 * 32 + 3.5 * 320 + 128) * 1e-6)

/* The inputs, in the documentation's symbols. */
typedef struct {
    double B0, p0, k0, kq, R, D, d1, O, Pq, bL, bZ, b, h, a, n, q, u, w, phi, beta, T0;
    double m0, g, gl, gh, c;     /* the train: q(p) = m0 + g p, growth range gl..gh, hops x fatal share */
    double Nm, Lm, Sp;           /* middle fragments sent, lost, sum of their places */
    gboolean g_measured;
    gboolean fits, upload;
} doc_model_t;

static double positive_ratio(double a, double b, double none)
{
    return b > 0 ? a / b : none;
}

/* The inputs table of the documentation (no other transfer to fit the
 * turn-around's growth on: the flash assumption, bounded by the measured
 * turn-around, for a download; none for an upload). */
static doc_model_t doc_inputs(const ms_transfer_t *x, double flash)
{
    const meter_transfer_record_t *r = &x->rec;
    doc_model_t m = { 0 };
    double req_ok = (double)r->request_copies - MIN(r->request_copies_lost, r->request_copies);
    double resp_ok = (double)r->response_copies - MIN(r->response_copies_lost, r->response_copies);
    double kq_req = positive_ratio(r->request_frames_complete, req_ok, 1);
    double k_resp = positive_ratio(r->response_frames_complete, resp_ok, 1);
    double later_lost = (double)r->response_copies_lost - MIN(r->response_first_lost, r->response_copies_lost);

    m.upload = strcmp(r->kind, "block1") == 0;
    m.B0 = r->block_size;
    m.p0 = MIN(1.0, ((double)r->retransmissions + r->rerequests) / r->requests);
    m.k0 = m.upload ? kq_req : k_resp;
    m.kq = m.upload ? k_resp : kq_req;
    m.D = r->fragn_room ? MAX(8.0, (double)(r->fragn_room / 8 * 8)) : 104;
    m.R = r->fragn_room ? MIN(116.0, m.D + 12) : 116;
    double ok = m.upload ? req_ok : resp_ok, bytes = m.upload ? r->request_bytes_complete : r->response_bytes_complete;
    m.O = ok > 0 ? bytes / ok - (127 - m.R) * m.k0 - (m.k0 > 1 ? 4 + 5 * (m.k0 - 1) : 0) - m.B0 : 36;
    m.O = CLAMP(m.O, 0, m.R);
    m.d1 = r->frag1_block_bytes;
    m.Pq = positive_ratio(r->request_copies_lost, r->request_copies, 0);
    m.bL = positive_ratio(later_lost, r->response_later_frames, -1);
    m.bZ = positive_ratio(r->train_last_lost, r->train_last_frames, -1);
    if (m.upload)
        m.b = 1 - pow(1 - m.Pq, 1 / MAX(1.0, kq_req));
    else
        m.b = m.k0 >= 2.5 && later_lost > 0 ? m.bL : r->train_last_lost > 0 && m.bZ < m.Pq ? m.bZ : m.Pq;
    m.h = MAX(1.0, positive_ratio(r->request_copies, r->requests, 1));
    /* The train: the least-squares line of a middle fragment's loss on its place. */
    m.Nm = r->train_middle_frames;
    m.Lm = r->train_middle_lost;
    m.Sp = r->train_position_sum;
    double Spp = r->train_position_sq_sum, Lp = r->train_lost_position_sum;
    double var = m.Nm > 0 ? Spp / m.Nm - (m.Sp / m.Nm) * (m.Sp / m.Nm) : 0;
    m.m0 = MIN(m.b, 1.0);
    m.g = m.gl = 0;
    m.gh = m.m0;
    if (m.Nm >= 2 && m.Lm >= 1 && var >= 0.5) {
        double den = m.Nm * Spp - m.Sp * m.Sp, mean = m.Lm / m.Nm;
        double slope = (m.Nm * Lp - m.Sp * m.Lm) / den, se = sqrt(mean * (1 - mean) * m.Nm / den);
        m.g_measured = TRUE;
        m.g = MAX(0.0, slope);
        m.gl = MAX(0.0, slope - 1.645 * se);
        m.gh = MAX(m.gl, slope + 1.645 * se);
        m.m0 = MAX(0.0, (m.Lm - m.g * m.Sp) / m.Nm);
    }
    double lost_copies = (double)r->request_copies_lost + r->response_copies_lost;
    m.c = m.h * (lost_copies > 0 ? MIN(1.0, ((double)r->retransmissions + r->rerequests) / lost_copies) : 1);
    m.a = r->time_air_s / r->blocks;
    m.n = r->time_network_s / r->blocks;
    m.q = r->time_poll_s / r->blocks;
    m.u = r->time_turnaround_s / r->blocks;
    m.w = (r->time_timeouts_s + r->time_unseen_s) / r->blocks;
    /* A meter's pauses after giving up, shown as turn-around, are waits. */
    if (r->rerequests && r->turnaround_median_s >= 0 && m.u > 2 * r->turnaround_median_s) {
        m.w += m.u - r->turnaround_median_s;
        m.u = r->turnaround_median_s;
    }
    double Sb = m.upload ? r->request_span_s : r->response_span_s, So = m.upload ? r->response_span_s : r->request_span_s;
    gboolean spans = Sb >= 0 && So >= 0, measured = spans && m.k0 - m.kq >= 0.5;
    m.phi = measured ? MAX(0.0, (Sb - So) / (m.k0 - m.kq)) : m.h * FRAME_HOP_S;
    if (spans && !measured)
        m.phi = MIN(m.phi, (Sb + So) / (m.k0 + m.kq));
    if (spans && Sb + So > 1.5 * (m.a + m.n))
        m.phi = MIN(m.phi, (m.a + m.n) / (m.k0 + m.kq));
    m.beta = m.upload ? 0 : flash * m.B0 > m.u ? (m.B0 > 0 ? m.u / m.B0 : 0) : flash;
    double unit = wait_per_first_timeout(m.p0);
    m.fits = unit > 0 && isfinite(unit);
    m.T0 = m.fits ? m.w / unit : 2.5;
    return m;
}

/* kf(B): from the FRAG1's share of a block where one was fragmented, else
 * from the room and the overhead. */
static double doc_cut(const doc_model_t *m, double B)
{
    if (m->d1 >= 0)
        return B <= m->d1 + 4 ? 1 : 1 + ceil((B - m->d1) / m->D);
    return B + m->O <= m->R ? 1 : 1 + ceil((B + m->O + 4 - m->R) / m->D);
}

static double doc_frames(const doc_model_t *m, double B)
{
    return MAX(1.0, doc_cut(m, B) * m->k0 / doc_cut(m, m->B0));
}

/* F(B), kept a probability: fewer frames than measured can remove more loss
 * than was measured (the code clamps it the same way). */
/* H(k): the hazard of a train's frames after the first, at places 1..k-1. */
static double doc_hazard(double k, double q0, double g)
{
    double n = MAX(0.0, k - 1);
    return -n * log(1 - MIN(q0, 1.0)) + g * n * (n + 1) / 2;
}

static double doc_fail_with(const doc_model_t *m, double B, double q0, double g)
{
    double h = doc_hazard(doc_frames(m, B), q0, g) - doc_hazard(m->k0, q0, g);
    double f = 1 - (1 - m->p0) * exp(-m->c * h);
    return CLAMP(f, 0, 1);
}

static double doc_fail(const doc_model_t *m, double B)
{
    return doc_fail_with(m, B, m->m0, m->g);
}

static double doc_time(const doc_model_t *m, double B)
{
    double k = doc_frames(m, B);
    double phi = k < m->k0 ? MIN(m->phi, (m->a + m->n) / (m->k0 + m->kq)) : m->phi;
    return m->a + m->n + m->q + (m->fits ? 0 : m->w) + (k - m->k0) * phi +
           MAX(0.0, m->u + m->beta * (B - m->B0)) + m->T0 * wait_per_first_timeout(doc_fail(m, B));
}

static double doc_rate(const doc_model_t *m, double B)
{
    double t = doc_time(m, B);
    return isfinite(t) && t > 0 ? B / t : 0;
}

/* The frames for a block with the default room (116 bytes, FRAGNs of 104)
 * and overhead O, as ms_frames_for_block cuts them. */
static guint frames(guint32 block, double overhead)
{
    ms_recommendation_t r = { .frame_room = 116, .fragn_data = 104, .block_overhead = overhead,
                              .frag1_block_bytes = -1 };
    return ms_frames_for_block(block, &r);
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
        .transfer = 1, .meter = "m", .path = "/fw", .kind = "block2", .complete = TRUE, .block_size = block_size,
        .blocks = blocks, .bytes = blocks * block_size, .requests = blocks,
        .frames_sent = (guint32)(blocks * (1 + frames)), .size_hint = -1,
        .request_span_s = -1, .response_span_s = -1, .frag1_block_bytes = -1,
        .request_copies = blocks, .request_frames_complete = blocks, .response_copies = blocks,
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
    x->rec.request_frames_complete = x->rec.requests;
    x->rec.time_timeouts_s = timeouts;
}

/* The recommendation against the documentation, rate by rate. */
static void assert_as_documented(const ms_transfer_t *x, double beta)
{
    ms_recommendation_t r;
    doc_model_t m = doc_inputs(x, beta);
    guint best = 0;

    g_assert_true(ms_recommend(NULL, x, beta, &r));
    assert_close(r.exchange_loss, m.p0, "p0", 0);
    assert_close(r.block_frames, m.k0, "k0", 0);
    assert_close(r.other_frames, m.kq, "kq", 0);
    assert_close(r.block_overhead, m.O, "O", 0);
    assert_close(r.request_loss, m.Pq, "Pq", 0);
    assert_close(r.added_frame_loss, m.b, "b", 0);
    assert_close(r.hops, m.h, "h", 0);
    assert_close(r.frame_s, m.phi, "phi", 0);
    assert_close(r.turn_s_per_byte, m.beta, "beta", 0);
    assert_close(r.timeout_s, m.T0, "T0", 0);
    assert_close(r.train_loss, m.m0, "q(0)", 0);
    assert_close(r.train_growth, m.g, "g", 0);
    assert_close(r.train_growth_low, m.gl, "g low", 0);
    assert_close(r.train_growth_high, m.gh, "g high", 0);
    assert_close(r.train_hops, m.c, "c", 0);
    g_assert_cmpint(r.train_growth_measured, ==, m.g_measured);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        double B = 16 << szx;
        assert_close(r.exchange_fail[szx], doc_fail(&m, B), "F", szx);
        assert_close(r.rate_Bps[szx], doc_rate(&m, B), "rate", szx);
        /* The range: the rates at the growth's two ends (each with the
         * intercept that keeps the middle fragments' measured loss). */
        double lo = doc_rate(&m, B), hi = lo;
        for (guint end = 0; end < 2; end++) {
            double g = end ? m.gh : m.gl;
            double q0 = m.g_measured ? MAX(0.0, (m.Lm - g * m.Sp) / m.Nm) : m.m0;
            doc_model_t e = m;
            e.m0 = q0;
            e.g = g;
            lo = MIN(lo, doc_rate(&e, B));
            hi = MAX(hi, doc_rate(&e, B));
        }
        assert_close(r.rate_low_Bps[szx], lo, "rate low", szx);
        assert_close(r.rate_high_Bps[szx], hi, "rate high", szx);
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
            g_assert_cmpuint(frames(b, overheads[i]), ==, cut_frames(b + overheads[i]));
    /* At the edges, by hand: 80 + 36 fills one frame; 112 + 104 fill two. */
    g_assert_cmpuint(frames(80, 36), ==, 1);
    g_assert_cmpuint(frames(81, 36), ==, 2);
    g_assert_cmpuint(frames(180, 36), ==, 2);
    g_assert_cmpuint(frames(181, 36), ==, 3);
    /* From what the fragments carried (a secured mesh path: FRAG1 54 bytes
     * of the block, FRAGNs 88): 58 bytes fit one frame (the 4-byte FRAG1
     * header saved), 59 do not; 54 + 88 fill two; 1024 bytes take
     * 1 + ceil(970 / 88) = 13. */
    ms_recommendation_t r = { .frame_room = 100, .fragn_data = 88, .block_overhead = 40, .frag1_block_bytes = 54 };
    g_assert_cmpuint(ms_frames_for_block(58, &r), ==, 1);
    g_assert_cmpuint(ms_frames_for_block(59, &r), ==, 2);
    g_assert_cmpuint(ms_frames_for_block(142, &r), ==, 2);
    g_assert_cmpuint(ms_frames_for_block(143, &r), ==, 3);
    g_assert_cmpuint(ms_frames_for_block(1024, &r), ==, 13);
}

/* No loss, 64-byte blocks in single frames with 36 bytes of overhead, 10 ms
 * on air, 50 ms network, 200 ms turn-around per block. By hand: the
 * responses of 16..1024 bytes plus 36 are 52, 68, 100 (one frame each),
 * 164 (2 frames), 292 (3), 548 (6) and 1060 (11) bytes; nothing fails, and
 * no span tells what a frame more takes (one frame's time on one hop,
 * 6.048 ms), so T(B) = 0.01 + 0.05 + 0.2 + 0.006048 (k - 1) +
 * 150e-6 (B - 64) s (the flash assumed: it allows 9.6 ms of the 200 ms
 * measured turn-around at 64 bytes). */
static void test_lossless_by_hand(void)
{
    static const double frames[] = { 1, 1, 1, 2, 3, 6, 11 };
    ms_transfer_t x = download(100, 64, 1, 36, 0.01, 0.05, 0.2);
    ms_recommendation_t r;

    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    assert_close(r.block_overhead, 36, "O", 0);
    assert_close(r.block_frames, 1, "k0", 0);
    g_assert_cmpfloat(r.exchange_loss, ==, 0);
    g_assert_cmpfloat(r.timeout_s, ==, 2.5);
    g_assert_false(r.frame_s_measured);
    assert_close(r.frame_s, 0.006048, "phi", 0);
    g_assert_cmpint(r.turn_source, ==, MS_TURN_ASSUMED);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        double B = 16 << szx;
        double t = 0.01 + 0.05 + 0.2 + 0.006048 * (frames[szx] - 1) + 150e-6 * (B - 64);
        assert_close(r.rate_Bps[szx], B / t, "rate", szx);
        g_assert_cmpfloat(r.exchange_fail[szx], ==, 0);
    }
    /* 1024 / 0.4645 s = 2204 B/s: without loss the biggest block wins. */
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
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpstr(r.added_from, ==, "later_frames");
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
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpstr(r.added_from, ==, "requests");

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
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpfloat(r.exchange_fail[0], ==, 0);

    /* 11-frame trains across 3 hops whose middle fragments are lost more
     * the further they are (places 1..9, 1% + 0.5% a place): the growth is
     * fitted; fewer failed exchanges than lost copies; the meter paused
     * after giving up (turn-around 3 s a block, median 0.2 s). */
    x = download(130, 1024, 11, 90, 0.37, 0.13, 3.0);
    lose_exchanges(&x, 220, 1600.0);
    x.rec.rerequests = 18;
    x.rec.requests += 18;
    x.rec.turnaround_median_s = 0.2;
    x.rec.request_copies = 3 * x.rec.requests;
    x.rec.request_copies_lost = 20;
    x.rec.response_copies = 980;
    x.rec.response_copies_lost = 400;
    x.rec.response_first_lost = 28;
    x.rec.train_middle_frames = x.rec.train_middle_lost = 0;
    for (guint p = 1; p <= 9; p++) {
        guint32 sent = 800 - 30 * p, lost = (guint32)lround(sent * (0.01 + 0.005 * p));
        x.rec.train_middle_frames += sent;
        x.rec.train_middle_lost += lost;
        x.rec.train_position_sum += p * sent;
        x.rec.train_position_sq_sum += p * p * sent;
        x.rec.train_lost_position_sum += p * lost;
    }
    x.rec.train_last_frames = 560;
    x.rec.train_last_lost = 20;
    assert_as_documented(&x, FLASH_S_PER_BYTE);
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_true(r.train_growth_measured);
    g_assert_cmpfloat(fabs(r.train_growth - 0.005), <, 0.001);
    g_assert_cmpfloat(r.train_hops, <, r.hops);
    g_assert_cmpfloat(r.turnaround_s, ==, 0.2);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
        g_assert_true(r.rate_low_Bps[szx] <= r.rate_Bps[szx] && r.rate_Bps[szx] <= r.rate_high_Bps[szx]);
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
        double k0 = frames(b0, overhead) - g_rand_double_range(rand, 0, 0.5);
        ms_transfer_t x = download(blocks, b0, MAX(1.0, k0), overhead, g_rand_double_range(rand, 0, 0.2),
                                   g_rand_double_range(rand, 0, 1), g_rand_double_range(rand, 0, 2));
        guint32 lost = g_rand_boolean(rand) ? g_rand_int_range(rand, 0, blocks) : 0;
        lose_exchanges(&x, lost, lost ? g_rand_double_range(rand, 0, 5) * lost : 0);
        x.rec.request_copies = x.rec.requests + g_rand_int_range(rand, 0, x.rec.requests);
        x.rec.request_copies_lost = g_rand_int_range(rand, 0, lost + 1);
        x.rec.response_copies = x.rec.blocks + lost;
        x.rec.response_copies_lost = lost;
        x.rec.response_first_lost = g_rand_int_range(rand, 0, lost + 1);
        double beta = g_rand_double_range(rand, 0, 500e-6);
        if (g_rand_boolean(rand)) {      /* spans of clean exchanges, and poll waits */
            x.rec.request_span_s = g_rand_double_range(rand, 0, 0.05);
            x.rec.response_span_s = g_rand_double_range(rand, 0, 0.3);
            x.rec.time_poll_s = g_rand_double_range(rand, 0, 0.1) * blocks;
        }

        ms_recommendation_t r;
        g_assert_true(ms_recommend(NULL, &x, beta, &r));
        double measured = (x.rec.time_air_s + x.rec.time_network_s + x.rec.time_turnaround_s + x.rec.time_timeouts_s +
                           x.rec.time_poll_s) / blocks;
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
        g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
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
        g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
            guint32 b = 16u << szx;
            gboolean more_frames = frames(b, 30) > frames(128, 30);
            gboolean fewer_frames = frames(b, 30) < frames(128, 30);
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
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpstr(r.added_from, ==, "requests");
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
    g_assert_false(ms_recommend(NULL, NULL, FLASH_S_PER_BYTE, &r));
    g_assert_true(memcmp(&r, &zero, sizeof(r)) == 0);

    ms_transfer_t empty = x;
    empty.rec.blocks = empty.rec.bytes = 0;
    memset(&r, 0xff, sizeof(r));
    g_assert_false(ms_recommend(NULL, &empty, FLASH_S_PER_BYTE, &r));
    g_assert_true(memcmp(&r, &zero, sizeof(r)) == 0);
    empty = x;
    empty.rec.requests = 0;
    g_assert_false(ms_recommend(NULL, &empty, FLASH_S_PER_BYTE, &r));
    empty = x;
    empty.rec.frames_sent = 0;
    g_assert_false(ms_recommend(NULL, &empty, FLASH_S_PER_BYTE, &r));
}

/* Blocks and requests but no copies tracked (no 6LoWPAN view of them): the
 * defaults, single frames with 36 bytes of overhead (a block bigger than
 * about 80 bytes is fragmented), no loss, one hop. */
static void test_no_loss_data(void)
{
    ms_transfer_t x = { .rec = { .kind = "block2", .block_size = 64, .blocks = 50, .bytes = 3200, .requests = 50,
                        .frames_sent = 100, .time_air_s = 0.5, .time_network_s = 2.5, .time_turnaround_s = 10,
                        .request_span_s = -1, .response_span_s = -1, .frag1_block_bytes = -1, .size_hint = -1 } };
    ms_recommendation_t r;

    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpfloat(r.block_frames, ==, 1);
    g_assert_cmpfloat(r.block_overhead, ==, 36);
    g_assert_cmpfloat(r.request_loss, ==, 0);
    g_assert_cmpfloat(r.first_frame_loss, ==, 0);
    g_assert_cmpfloat(r.later_frame_loss, <, 0);
    g_assert_cmpstr(r.added_from, ==, "requests");
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
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpfloat(r.exchange_loss, ==, 1);
    g_assert_true(isfinite(r.timeout_s));
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        g_assert_cmpfloat(r.exchange_fail[szx], ==, 1);
        g_assert_cmpfloat(r.rate_Bps[szx], ==, 0);
    }
    g_assert_cmpuint(r.best_szx, <=, MS_SZX_MAX);
}

/* No time measured at all: no division by zero. The turn-around is 0 at
 * 64 bytes, less than the flash assumption allows, so it does not grow
 * (whatever the assumption); only the frames a bigger block adds take time,
 * one frame's time on one hop each. */
static void test_zero_times(void)
{
    ms_transfer_t x = download(10, 64, 1, 36, 0, 0, 0);
    ms_recommendation_t r;

    for (int pass = 0; pass < 2; pass++) {
        g_assert_true(ms_recommend(NULL, &x, pass ? FLASH_S_PER_BYTE : 0, &r));
        g_assert_cmpfloat(r.turn_s_per_byte, ==, 0);
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
            double B = 16 << szx, k = frames(16u << szx, 36);
            assert_close(r.rate_Bps[szx], k > 1 ? B / ((k - 1) * 0.006048) : 0, "rate", szx);
        }
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

    g_assert_true(ms_recommend(NULL, &x, 1.0, &r));
    assert_sane(&r);
    x.rec.request_span_s = 1e300;
    x.rec.response_span_s = 1e301;
    x.rec.time_poll_s = 1e300;
    x.rec.time_unseen_s = 1e300;
    g_assert_true(ms_recommend(NULL, &x, 1e300, &r));
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
            .kind = g_rand_boolean(rand) ? "block2" : "block1",
            .block_size = sizes[g_rand_int_range(rand, 0, G_N_ELEMENTS(sizes))],
            .request_span_s = g_rand_double_range(rand, -1, 1), .response_span_s = g_rand_double_range(rand, -1, 1),
            .frag1_block_bytes = g_rand_boolean(rand) ? -1 : g_rand_double_range(rand, 0, 200),
            .fragn_room = COUNT() % 130, .request_frames_complete = COUNT(), .request_bytes_complete = COUNT() * 100,
            .time_poll_s = g_rand_double_range(rand, 0, 100), .time_unseen_s = g_rand_double_range(rand, 0, 100),
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
        g_assert_cmpint(ms_recommend(NULL, &x, g_rand_double_range(rand, 0, 1e-3), &r), ==, usable);
        if (usable)
            assert_sane(&r);
    }
    g_rand_free(rand);
}

/* The table and the JSON of one capture holding x with recommendation r
 * (x only for the transfer's own lines: r may come from another). */
static void reports_of(const ms_transfer_t *x, const ms_recommendation_t *r, char **table, char **json)
{
    ms_capture_t c = { .file = "test.pcap", .transfers = g_ptr_array_new() };
    ms_analysis_t a = { .capture = &c, .has_recommendation = TRUE, .recommendation = *r };
    size_t len;
    FILE *out;

    ms_transfer_t copy = *x;
    copy.points = g_array_new(FALSE, FALSE, sizeof(ms_point_t));
    g_ptr_array_add(c.transfers, &copy);
    out = open_memstream(table, &len);
    ms_report_table(out, &a, 1);
    fclose(out);
    out = open_memstream(json, &len);
    ms_report_json(out, &a, 1);
    fclose(out);
    g_array_free(copy.points, TRUE);
    g_ptr_array_free(c.transfers, TRUE);
}

/* An input that is not a finite number (NaN or infinite times, a negative
 * one, a NaN flash assumption), or finite inputs so extreme that a figure
 * of the model overflows (a timeout fitted to a loss of 2e-10 and 1e299 s
 * of timeouts per block): no prediction, the reason said instead, and no
 * NaN, infinity or made-up rate in the table or the JSON (which must
 * parse: json-glib writes NaN as "nan.0"). */
static void test_not_computed(void)
{
    const struct { const char *what; double flash; double air, turnaround, timeouts, span; guint32 retx; } cases[] = {
        { "the flash write time per byte", NAN, 0.01, 0.2, 0, -1, 0 },
        { "the flash write time per byte", INFINITY, 0.01, 0.2, 0, -1, 0 },
        { "the flash write time per byte", -150e-6, 0.01, 0.2, 0, -1, 0 },
        { "time_turnaround_s", FLASH_S_PER_BYTE, 0.01, NAN, 0, -1, 0 },
        { "time_air_s", FLASH_S_PER_BYTE, -0.5, 0.2, 0, -1, 0 },
        { "time_timeouts_s", FLASH_S_PER_BYTE, 0.01, 0.2, INFINITY, -1, 0 },
        { "request_span_s", FLASH_S_PER_BYTE, 0.01, 0.2, 0, INFINITY, 0 },
        { "first timeout", FLASH_S_PER_BYTE, 0.01, 0.2, 1e300, -1, 1 },
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        ms_transfer_t x = download(10, 256, 3, 40, 0.03, 0.08, 0.25);
        ms_recommendation_t r;
        char *table, *json;
        x.rec.time_air_s = 10 * cases[i].air;
        x.rec.time_turnaround_s = 10 * cases[i].turnaround;
        x.rec.time_timeouts_s = cases[i].timeouts;
        x.rec.request_span_s = cases[i].span;
        if (cases[i].retx) {
            x.rec.requests = G_MAXUINT32;
            x.rec.retransmissions = cases[i].retx;
        }
        g_test_message("case %u: %s", i, cases[i].what);
        g_assert_true(ms_recommend(NULL, &x, cases[i].flash, &r));
        g_assert_nonnull(strstr(r.not_computed, cases[i].what));
        for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
            g_assert_cmpfloat(r.rate_Bps[szx], ==, 0);

        /* The reports of a sane transfer with this recommendation: the
         * reader refuses a record holding a NaN, and only r is tested. */
        ms_transfer_t shown = download(10, 256, 3, 40, 0.03, 0.08, 0.25);
        reports_of(&shown, &r, &table, &json);
        g_assert_nonnull(strstr(table, "cannot be computed"));
        g_assert_null(strstr(table, "recommended:"));
        g_assert_false(g_regex_match_simple("\\b(nan|inf)", table, G_REGEX_CASELESS, 0));
        JsonParser *parser = json_parser_new();
        g_assert_true(json_parser_load_from_data(parser, json, -1, NULL));
        JsonObject *root = json_node_get_object(json_parser_get_root(parser));
        JsonObject *cap = json_array_get_object_element(json_object_get_array_member(root, "captures"), 0);
        JsonObject *rec = json_object_get_object_member(cap, "recommendation");
        g_assert_nonnull(strstr(json_object_get_string_member(rec, "not_computed"), cases[i].what));
        g_assert_cmpuint(json_array_get_length(json_object_get_array_member(rec, "predictions")), ==, 0);
        g_assert_true(json_object_get_null_member(rec, "best_szx"));
        g_object_unref(parser);
        g_free(table);
        g_free(json);
    }

    /* The same transfer with sane figures: predictions, and no reason. */
    ms_transfer_t x = download(10, 256, 3, 40, 0.03, 0.08, 0.25);
    ms_recommendation_t r;
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpstr(r.not_computed, ==, "");
    g_assert_cmpfloat(r.rate_Bps[r.best_szx], >, 0);
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

/* An upload: the requests carry the block (3 frames at 256 bytes), the
 * responses are single frames, one frame more is lost like a frame of a
 * request (a copy of 3 frames lost with Pq: 1 - (1 - Pq)^(1/3)), and the
 * meter writes nothing, so its turn-around does not grow. */
static void test_upload(void)
{
    ms_transfer_t x = download(300, 256, 1, 36, 0.02, 0.06, 0.1);
    ms_recommendation_t r;

    x.rec.kind = "block1";
    lose_exchanges(&x, 20, 60.0);
    x.rec.request_frames_complete = 3 * (x.rec.requests - 15);
    x.rec.request_copies_lost = 15;
    x.rec.request_bytes_complete = (x.rec.requests - 15) * (256 + 40 + 3 * 11 + 4 + 5 * 2);
    x.rec.response_frames_complete = 300;
    x.rec.request_span_s = 0.03;
    x.rec.response_span_s = 0.008;
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_true(r.upload);
    g_assert_cmpstr(r.added_from, ==, "request_frames");
    assert_close(r.block_frames, 3, "k0", 0);
    assert_close(r.other_frames, 1, "kq", 0);
    assert_close(r.added_frame_loss, 1 - pow(1 - 15.0 / 320, 1 / 3.0), "b", 0);
    assert_close(r.frame_s, (0.03 - 0.008) / 2, "phi", 0);
    g_assert_cmpint(r.turn_source, ==, MS_TURN_NONE);
    g_assert_cmpfloat(r.turn_s_per_byte, ==, 0);
    assert_as_documented(&x, FLASH_S_PER_BYTE);
}

/* Clean exchanges show what a frame more takes: a response of 5 frames took
 * 50 ms across the hops, a request of 1 frame 10 ms, so 10 ms a frame. Where
 * a host's stamps made the spans half again as long as the blocks' air and
 * network time, a frame takes no more than that time per frame. */
static void test_frame_time_measured(void)
{
    ms_transfer_t x = download(100, 512, 5, 40, 0.05, 0.08, 0.2);
    ms_recommendation_t r;

    x.rec.request_span_s = 0.01;
    x.rec.response_span_s = 0.05;
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_true(r.frame_s_measured);
    assert_close(r.frame_s, 0.01, "phi", 0);
    assert_as_documented(&x, FLASH_S_PER_BYTE);
    x.rec.response_span_s = 0.5;
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    assert_close(r.frame_s, (0.05 + 0.08) / 6, "phi capped", 0);
    assert_as_documented(&x, FLASH_S_PER_BYTE);
}

/* Several block sizes of the same meter, path and kind in the capture: the
 * turn-around's growth is their least-squares slope (here exactly 100 us a
 * byte over 60 ms), whatever the flash assumption; a transfer of another
 * path does not count. */
static void test_turnaround_measured(void)
{
    static const guint32 sizes[] = { 64, 256, 1024 };
    ms_transfer_t x[4];
    ms_capture_t c = { .transfers = g_ptr_array_new() };
    ms_recommendation_t r;

    for (guint i = 0; i < 3; i++) {
        x[i] = download(50, sizes[i], 1, 36, 0.01, 0.05, 0.06 + 100e-6 * sizes[i]);
        g_ptr_array_add(c.transfers, &x[i]);
    }
    x[3] = download(50, 128, 1, 36, 0.01, 0.05, 5.0);
    x[3].rec.path = "/other";
    g_ptr_array_add(c.transfers, &x[3]);
    g_assert_true(ms_recommend(&c, &x[1], FLASH_S_PER_BYTE, &r));
    g_assert_cmpint(r.turn_source, ==, MS_TURN_MEASURED);
    g_assert_cmpuint(r.turn_sizes, ==, 3);
    assert_close(r.turn_s_per_byte, 100e-6, "beta", 0);
    g_ptr_array_free(c.transfers, TRUE);
}

/* A meter whose turn-around is 0 at 64 bytes writes no block in measurable
 * time: the assumed 150 us/byte (9.6 ms at 64 bytes) is more than it took,
 * so the turn-around does not grow, and a smaller block (one frame too)
 * gains nothing: the same time per block, fewer bytes. */
static void test_turnaround_bounded(void)
{
    ms_transfer_t x = download(2, 64, 1, 44, 0.003, 0.0005, 0);
    ms_recommendation_t r;

    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    g_assert_cmpint(r.turn_source, ==, MS_TURN_BOUNDED);
    g_assert_cmpfloat(r.turn_s_per_byte, ==, 0);
    assert_close(r.rate_Bps[0], 16 / 0.0035, "rate at 16 bytes", 0);
    assert_close(r.rate_Bps[2], 64 / 0.0035, "rate at 64 bytes", 2);
    assert_as_documented(&x, FLASH_S_PER_BYTE);
}

/* With the image's size known (Size2, the header, or a complete transfer),
 * each size's rate says how long the image takes; without one, nothing. */
static void test_durations(void)
{
    ms_transfer_t x = download(100, 256, 3, 40, 0.03, 0.08, 0.25);
    ms_recommendation_t r;

    x.rec.size_hint = 100000;
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
        assert_close(r.duration_s[szx], 100000 / r.rate_Bps[szx], "duration", szx);
    x.rec.size_hint = -1;
    x.rec.complete = FALSE;
    g_assert_true(ms_recommend(NULL, &x, FLASH_S_PER_BYTE, &r));
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
        g_assert_cmpfloat(r.duration_s[szx], <, 0);
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
    g_test_add_func("/recommend/not_computed", test_not_computed);
    g_test_add_func("/recommend/basis", test_basis);
    g_test_add_func("/recommend/upload", test_upload);
    g_test_add_func("/recommend/frame_time_measured", test_frame_time_measured);
    g_test_add_func("/recommend/turnaround_measured", test_turnaround_measured);
    g_test_add_func("/recommend/turnaround_bounded", test_turnaround_bounded);
    g_test_add_func("/recommend/durations", test_durations);
    return g_test_run();
}
