/* whatif.c: the what-ifs of docs/recommendation.md, "What if".
 *
 * Every knob moves one part of the per-block time the capture measured
 * (recommend.c): the block size everything (the block-size model), the
 * poll period the poll waits, ACK_TIMEOUT the waits after lost exchanges
 * and the retransmissions sent for nothing, a gap between blocks adds
 * itself, a hop more or less the air time and the exchange loss. What a
 * change costs the meter's battery follows from the rounds it sends, the
 * frames of each, its polls and, for a meter that never sleeps, the time.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "whatif.h"
#include "ratio.h"
#include "radio_timing.h"
#include "verdict.h"

#define Z90 1.645                /* a 90% range */
#define ACK_RANDOM_MEAN 1.25     /* RFC 7252: ACK_TIMEOUT times a factor drawn from [1, 1.5] */
#define ACK_TIMEOUT_RFC 2.0
#define ACK_FRAME_BYTES 5        /* an IEEE 802.15.4 Imm-Ack's PSDU */
#define DATA_REQUEST_BYTES 18    /* a Data Request with a long source address, PAN ID compressed */
#define MAX_RETRANSMIT 4

static const double POLL_PERIODS_S[] = { 0.05, 0.1, 0.25, 0.5, 1.0 };
static const double ACK_TIMEOUTS_S[] = { 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0 };
static const double GAPS_S[] = { 0.02, 0.05, 0.1 };

const char *ms_knob_name(ms_knob_t k)
{
    static const char *const names[] = { "block_size", "poll_period", "ack_timeout", "pacing", "hops" };
    return (guint)k < G_N_ELEMENTS(names) ? names[k] : "?";
}

static double frame_air_s(double psdu_bytes)
{
    return (psdu_bytes + RADIO_PHY_HEADER_BYTES) * RADIO_BYTE_US * 1e-6;
}

/* A frame and its ACK: both on the air, the turnaround between. */
static double frame_and_ack_s(double psdu_bytes)
{
    return frame_air_s(psdu_bytes) + RADIO_TURNAROUND_US * 1e-6 + frame_air_s(ACK_FRAME_BYTES);
}

/* What the capture measured, per block and per round, that every what-if
 * starts from. */
typedef struct {
    double blocks_now;           /* the transfer's blocks */
    double block_s;              /* the measured time per block, all six parts */
    double rounds;               /* request rounds per block */
    double req_frames, resp_frames, req_bytes, resp_bytes;   /* per round, and a frame's PSDU */
    double poll_s;               /* poll waits per block, those the split booked as network too */
    double polls;                /* Data Requests per block */
    double spurious;             /* per block */
    double dup_per_spurious;     /* duplicate answers a retransmission for nothing brought */
    double loss, loss_sd;        /* exchange loss and its standard error */
    gboolean waits_fit;          /* the timeouts are the model's waits (else they stay as measured) */
} base_t;

static void measure(const meter_transfer_record_t *x, const ms_recommendation_t *r, base_t *b)
{
    b->blocks_now = x->blocks;
    b->block_s = r->air_s + r->network_s + r->poll_s + r->turnaround_s + r->timeouts_s;
    b->rounds = meter_ratio(x->requests, x->blocks, 1);
    b->req_frames = r->upload ? r->block_frames : r->other_frames;
    b->resp_frames = r->upload ? r->other_frames : r->block_frames;
    b->req_bytes = meter_ratio(x->request_bytes_complete, x->request_frames_complete, 60);
    b->resp_bytes = meter_ratio(x->response_bytes_complete, x->response_frames_complete, 100);
    b->poll_s = r->poll_s + meter_ratio(meter_poll_wait_unseen_s(x), x->blocks, 0);
    b->polls = meter_ratio(x->polls, x->blocks, 0);
    b->spurious = meter_ratio(x->spurious_retransmissions, x->blocks, 0);
    b->dup_per_spurious = CLAMP(meter_ratio(x->duplicate_responses, x->spurious_retransmissions, 0), 0, 1);
    b->loss = r->exchange_loss;
    b->loss_sd = x->requests ? sqrt(MAX(b->loss * (1 - b->loss), 0.25 / x->requests) / x->requests) : 0;
    b->waits_fit = r->exchange_loss > 0 && r->exchange_loss < 1;
}

/* The whole image: blocks of block_s seconds, each with rounds rounds of
 * the given frames, polls and retransmissions for nothing; a meter that
 * never sleeps has its radio on all along. */
static void image_cost(const base_t *b, gboolean sleepy, double blocks, double block_s, double rounds,
                       double resp_frames, double polls, double spurious, ms_image_cost_t *c)
{
    double round_frames = b->req_frames + resp_frames;
    double round_on = b->req_frames * frame_and_ack_s(b->req_bytes) + resp_frames * frame_and_ack_s(b->resp_bytes);
    double spurious_frames = b->req_frames + b->dup_per_spurious * resp_frames;
    double spurious_on = b->req_frames * frame_and_ack_s(b->req_bytes) +
                         b->dup_per_spurious * resp_frames * frame_and_ack_s(b->resp_bytes);

    c->duration_s = blocks * block_s;
    /* Each frame and its ACK: two frames on the air for the meter. */
    c->meter_frames = blocks * (2 * (rounds * round_frames + spurious * spurious_frames) + 2 * polls);
    c->radio_on_s = sleepy ? blocks * (rounds * round_on + spurious * spurious_on +
                                       polls * frame_and_ack_s(DATA_REQUEST_BYTES))
                           : c->duration_s;
    c->spurious = blocks * spurious;
}

/* The first timeout's waits at exchange loss f, or the measured waits where
 * the loss does not explain them (nothing failed: waits seen at a gateway). */
static double waits(const ms_recommendation_t *r, const base_t *b, double f, double timeout_s)
{
    return b->waits_fit ? ms_expected_wait(CLAMP(f, 0, 1), timeout_s) : r->timeouts_s;
}

/* A 90% range of a block's time from the exchange loss's standard error,
 * the rest of the block as given. */
static void loss_range(const ms_recommendation_t *r, const base_t *b, double rest_s, double f, double f_sd,
                       double timeout_s, double blocks, ms_image_cost_t *c)
{
    c->low_s = blocks * (rest_s + waits(r, b, f - Z90 * f_sd, timeout_s));
    c->high_s = blocks * (rest_s + waits(r, b, f + Z90 * f_sd, timeout_s));
    c->low_s = MIN(c->low_s, c->duration_s);
    c->high_s = isfinite(c->high_s) ? MAX(c->high_s, c->duration_s) : -1;
}

static ms_whatif_t *add(ms_whatifs_t *w, ms_knob_t knob, double value)
{
    ms_whatif_t blank = { .knob = knob, .value = value };
    g_array_append_val(w->changes, blank);
    return &g_array_index(w->changes, ms_whatif_t, w->changes->len - 1);
}

static double image_blocks(const ms_whatifs_t *w, guint32 block_size)
{
    return ceil(w->image_bytes / block_size);
}

static void block_sizes(ms_whatifs_t *w, const ms_recommendation_t *r, const base_t *b)
{
    double k_base = ms_frames_for_block(r->block_size, r);

    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        guint32 size = 16u << szx;
        if (size == r->block_size || r->rate_Bps[szx] <= 0)
            continue;
        double blocks = image_blocks(w, size), block_s = size / r->rate_Bps[szx];
        double f = r->exchange_fail[szx];
        double k = MAX(1.0, ms_frames_for_block(size, r) * r->block_frames / k_base);
        double resp = r->upload ? b->resp_frames : k;
        double rounds = b->rounds * meter_ratio(1 - b->loss, 1 - f, 1);
        ms_whatif_t *c = add(w, MS_KNOB_BLOCK_SIZE, szx);
        g_snprintf(c->setting, sizeof c->setting, "SZX %u (%u-byte blocks)", szx, size);
        image_cost(b, w->sleepy, blocks, block_s, rounds, resp, b->polls * meter_ratio(block_s, b->block_s, 1), 0,
                   &c->cost);
        /* The extrapolated loss is as uncertain as the measured one, and
         * more the further the frames are from the measured ones. */
        double f_sd = b->loss_sd * MAX(1.0, fabs(k - r->block_frames) * r->hops / MAX(1.0, r->block_frames));
        loss_range(r, b, block_s - waits(r, b, f, r->timeout_s), f, f_sd, r->timeout_s, blocks, &c->cost);
        /* and as uncertain as the loss's growth along a train (recommend.c) */
        if (r->rate_high_Bps[szx] > 0)
            c->cost.low_s = MIN(c->cost.low_s, blocks * size / r->rate_high_Bps[szx]);
        c->cost.high_s = r->rate_low_Bps[szx] > 0 ? MAX(c->cost.high_s, blocks * size / r->rate_low_Bps[szx])
                                                  : -1;
        g_snprintf(c->note, sizeof c->note, "%.1f frames a block, exchange loss %.1f%% (measured %.1f%%)",
                   k, 100 * f, 100 * b->loss);
    }
}

/* A sleepy meter's poll timer runs on from the poll that brought the last
 * answer: the next answer reaches its parent d later (the meter's
 * turn-around and the round trip), and waits for the poll after it, P - d,
 * or half a period on average where d spreads over more than the period.
 * The wait of one exchange at period p, for a d. */
static double poll_wait(double p, double d)
{
    return MAX(p - d, p / 2);
}

static void poll_periods(ms_whatifs_t *w, const meter_transfer_record_t *x, const ms_recommendation_t *r,
                         const base_t *b)
{
    double period = x->poll_period_s;
    double exchanges = meter_ratio((double)x->requests - x->retransmissions, x->blocks, 1);

    if (!w->sleepy || period <= 0 || b->poll_s <= 0 || exchanges <= 0)
        return;
    double blocks = image_blocks(w, r->block_size);
    /* d as the measured wait says; where the capture could not see the
     * answers reach the parent, as uncertain as those waits. */
    double wait_now = b->poll_s / exchanges, d = MAX(0.0, period - wait_now);
    double unseen = meter_ratio(meter_poll_wait_unseen_s(x), (double)x->requests - x->retransmissions, 0) +
                    meter_ratio(x->time_poll_uncertain_s, (double)x->requests - x->retransmissions, 0);
    /* what the formula is off by at the measured period (a wait shorter than half of it) */
    double scale = wait_now / poll_wait(period, d);
    for (guint i = 0; i < G_N_ELEMENTS(POLL_PERIODS_S); i++) {
        double p = POLL_PERIODS_S[i];
        if (fabs(p - period) < 0.2 * period)
            continue;
        double poll_s = exchanges * scale * poll_wait(p, d), block_s = b->block_s - b->poll_s + poll_s;
        double polls = b->polls * meter_ratio(block_s, b->block_s, 1) * period / p;
        double low = exchanges * scale * MIN(poll_wait(p, d + unseen), poll_wait(p, MAX(0.0, d - unseen)));
        double high = exchanges * scale * MAX(poll_wait(p, d + unseen), poll_wait(p, MAX(0.0, d - unseen)));
        ms_whatif_t *c = add(w, MS_KNOB_POLL_PERIOD, p);
        g_snprintf(c->setting, sizeof c->setting, "poll every %.0f ms during the update", 1e3 * p);
        image_cost(b, w->sleepy, blocks, block_s, b->rounds, b->resp_frames, polls, b->spurious, &c->cost);
        loss_range(r, b, block_s - waits(r, b, b->loss, r->timeout_s), b->loss, b->loss_sd, r->timeout_s, blocks,
                   &c->cost);
        c->cost.low_s = MAX(0.0, c->cost.low_s - blocks * (poll_s - low));
        if (c->cost.high_s >= 0)
            c->cost.high_s += blocks * (high - poll_s);
        g_snprintf(c->note, sizeof c->note,
                   "poll waits %.3f s a block instead of %.3f s (polls every %.0f ms now; answers reach the parent "
                   "%.3f s after a poll)", poll_s, b->poll_s, 1e3 * period, d);
    }
}

/* The share of answers later than t, the round trips taken as log-normal
 * through their measured median and 95th percentile. */
static double late_share(double t, double median, double p95)
{
    if (median <= 0 || t <= 0)
        return 0;
    double sigma = p95 > median ? log(p95 / median) / Z90 : 0.05;
    /* To a billionth: libm's erfc differs in its last bits between glibc
     * releases, and the reports must not (a share of 1e-37 is none). */
    return round(0.5 * erfc((log(t) - log(median)) / (sigma * M_SQRT2)) * 1e9) / 1e9;
}

/* Retransmissions for nothing per exchange with ACK_TIMEOUT a: the k-th
 * goes out when the answer is later than a x factor x (2^k - 1), the factor
 * drawn from [1, 1.5]. */
static double spurious_per_exchange(double a, const meter_transfer_record_t *x)
{
    double sum = 0;

    for (int k = 1; k <= MAX_RETRANSMIT; k++)
        for (int i = 0; i < 5; i++) {
            double factor = 1 + 0.5 * (i + 0.5) / 5;
            sum += late_share(a * factor * (ldexp(1, k) - 1), x->rtt_last_median_s, x->rtt_last_p95_s) / 5;
        }
    return sum;
}

static void ack_timeouts(ms_whatifs_t *w, const meter_transfer_record_t *x, const ms_recommendation_t *r,
                         const base_t *b)
{
    double a0 = w->ack_timeout_s, blocks = image_blocks(w, r->block_size);
    double exchanges = MAX(1.0, (double)x->requests - x->retransmissions);
    double model_now = spurious_per_exchange(a0, x), measured_now = x->spurious_retransmissions / exchanges;
    /* The model anchored to what the capture counted. */
    double anchor = model_now > 1e-6 && measured_now > 0 ? CLAMP(measured_now / model_now, 0.25, 4.0) : 1;
    double first_timeout = r->timeout_s;

    for (guint i = 0; i < G_N_ELEMENTS(ACK_TIMEOUTS_S); i++) {
        double a = ACK_TIMEOUTS_S[i];
        if (fabs(a - a0) < 0.1 * a0)
            continue;
        double timeout_s = first_timeout * a / a0;
        double wait = waits(r, b, b->loss, timeout_s), wait_now = waits(r, b, b->loss, first_timeout);
        double block_s = b->block_s - wait_now + wait;
        double spurious = measured_now > 0 || model_now > 0
                              ? anchor * spurious_per_exchange(a, x) * exchanges / MAX(1.0, x->blocks) : 0;
        ms_whatif_t *c = add(w, MS_KNOB_ACK_TIMEOUT, a);
        g_snprintf(c->setting, sizeof c->setting, "ACK_TIMEOUT %.1f s", a);
        image_cost(b, w->sleepy, blocks, block_s, b->rounds - b->spurious + spurious, b->resp_frames,
                   b->polls * meter_ratio(block_s, b->block_s, 1), 0, &c->cost);
        /* the retransmissions for nothing, counted apart from the rounds */
        c->cost.spurious = blocks * spurious;
        loss_range(r, b, block_s - wait, b->loss, b->loss_sd, timeout_s, blocks, &c->cost);
        g_snprintf(c->note, sizeof c->note,
                   "waits after a lost exchange x%.2f; %.0f retransmissions for nothing instead of %.0f", a / a0,
                   c->cost.spurious, w->now.spurious);
    }
}

static void pacing(ms_whatifs_t *w, const ms_recommendation_t *r, const base_t *b)
{
    double blocks = image_blocks(w, r->block_size);

    for (guint i = 0; i < G_N_ELEMENTS(GAPS_S); i++) {
        double gap = GAPS_S[i], block_s = b->block_s + gap;
        ms_whatif_t *c = add(w, MS_KNOB_PACING, gap);
        g_snprintf(c->setting, sizeof c->setting, "a %.0f ms gap between blocks", 1e3 * gap);
        image_cost(b, w->sleepy, blocks, block_s, b->rounds, b->resp_frames, b->polls, b->spurious, &c->cost);
        loss_range(r, b, block_s - waits(r, b, b->loss, r->timeout_s), b->loss, b->loss_sd, r->timeout_s, blocks,
                   &c->cost);
        g_snprintf(c->note, sizeof c->note,
                   "adds the gap to every block; this capture shows no loss a gap would avoid (the model has "
                   "no term for the meter's own traffic colliding)");
    }
}

static void hops(ms_whatifs_t *w, const ms_recommendation_t *r, const base_t *b)
{
    double blocks = image_blocks(w, r->block_size), h = r->hops;
    double per_hop = 1 - pow(1 - MIN(b->loss, 0.999999), 1 / h);

    for (int d = -1; d <= 1; d += 2) {
        double h2 = round(h) + d;
        if (h2 < 1 || h2 > 6)
            continue;
        double f = 1 - pow(1 - per_hop, h2), air = r->air_s * h2 / h;
        double wait = waits(r, b, f, r->timeout_s);
        double block_s = b->block_s - r->air_s + air - waits(r, b, b->loss, r->timeout_s) + wait;
        double rounds = b->rounds * meter_ratio(1 - b->loss, 1 - f, 1);
        ms_whatif_t *c = add(w, MS_KNOB_HOPS, h2);
        g_snprintf(c->setting, sizeof c->setting, "%.0f hop%s to the border router", h2, h2 == 1 ? "" : "s");
        image_cost(b, w->sleepy, blocks, block_s, rounds, b->resp_frames, b->polls * meter_ratio(block_s, b->block_s, 1),
                   b->spurious, &c->cost);
        loss_range(r, b, block_s - wait, f, b->loss_sd * h2 / h, r->timeout_s, blocks, &c->cost);
        g_snprintf(c->note, sizeof c->note, "exchange loss %.1f%% (%.1f%% a hop, as measured over %.1f hops)",
                   100 * f, 100 * per_hop, h);
    }
}

static int by_saving(const void *a, const void *b)
{
    const ms_whatif_t *p = a, *q = b;
    if (p->saved_s != q->saved_s)
        return p->saved_s > q->saved_s ? -1 : 1;
    /* the same time: the fewer frames first */
    return p->cost.meter_frames < q->cost.meter_frames ? -1 : p->cost.meter_frames > q->cost.meter_frames;
}

gboolean ms_whatifs(const ms_transfer_t *t, const ms_recommendation_t *r, ms_whatifs_t *w)
{
    const meter_transfer_record_t *x = &t->rec;
    base_t b = { 0 };

    memset(w, 0, sizeof *w);
    if (*r->not_computed || !x->blocks || !r->block_size)
        return FALSE;
    measure(x, r, &b);
    w->transfer = x->transfer;
    w->image_bytes = r->size_bytes > 0 ? r->size_bytes : x->bytes;
    if (w->image_bytes <= 0)
        return FALSE;
    w->sleepy = x->polls > 0 || r->poll_s > 0;
    w->ack_timeout_measured = x->retransmit_after_median_s > 0;
    w->ack_timeout_s = w->ack_timeout_measured ? x->retransmit_after_median_s / ACK_RANDOM_MEAN : ACK_TIMEOUT_RFC;
    w->changes = g_array_new(FALSE, FALSE, sizeof(ms_whatif_t));

    double blocks = image_blocks(w, r->block_size);
    image_cost(&b, w->sleepy, blocks, b.block_s, b.rounds, b.resp_frames, b.polls, b.spurious, &w->now);
    loss_range(r, &b, b.block_s - waits(r, &b, b.loss, r->timeout_s), b.loss, b.loss_sd, r->timeout_s, blocks,
               &w->now);
    block_sizes(w, r, &b);
    poll_periods(w, x, r, &b);
    ack_timeouts(w, x, r, &b);
    pacing(w, r, &b);
    hops(w, r, &b);
    for (guint i = 0; i < w->changes->len; i++) {
        ms_whatif_t *c = &g_array_index(w->changes, ms_whatif_t, i);
        c->saved_s = w->now.duration_s - c->cost.duration_s;
    }
    g_array_sort(w->changes, by_saving);
    return TRUE;
}

void ms_whatifs_clear(ms_whatifs_t *w)
{
    if (w->changes)
        g_array_free(w->changes, TRUE);
    memset(w, 0, sizeof *w);
}
