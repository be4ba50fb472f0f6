/* recommend.c: the block-size model of docs/recommendation.md.
 *
 * A block costs what the capture measured per block (air, network, poll
 * waits, turn-around, timeouts) moved by what the block size changes: the
 * frames of the direction that carries the block (a download's responses,
 * an upload's requests), each costing what one more frame took across the
 * hops in the capture's clean exchanges; the turn-around, as it grows with
 * the block size; and the timeouts, since each added frame can be lost and
 * lose the exchange. The measured exchange loss is the starting point; the
 * frames a block size adds or removes change it by the loss of one added
 * frame.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "recommend.h"
#include "ratio.h"

/* IEEE 802.15.4: 127-byte PSDU; short addresses and PAN ID compression
 * (9-byte MAC header) and the FCS leave 116 bytes, unless the transfer's
 * fragments show less (security, a mesh header): a FRAGN carries the
 * largest multiple of 8 that fits after its 5-byte header, so its data D
 * says the room is D + 5 to D + 12 (taken: D + 12, at most 116). FRAG1 has
 * a 4-byte header. What a block's datagram adds to the block (compressed
 * IPv6/UDP, CoAP header, token, options) is measured on the capture. */
#define PSDU_MAX        127
#define FRAME_ROOM      116
#define FRAG1_HEADER    4
#define FRAGN_HEADER    5
#define FRAGN_DATA      (((FRAME_ROOM - FRAGN_HEADER) / 8) * 8)
#define DEFAULT_OVERHEAD 36     /* "a block bigger than about 80 bytes is fragmented" */
#define MAX_RETRANSMIT  4       /* RFC 7252: then the meter starts again with a new MID */
/* One more frame on one hop when the capture cannot show it: a full
 * frame's air time, the ACK's turnaround and air time, the mean first CSMA
 * backoff (macMinBE 3) and a CCA, at 2.4 GHz O-QPSK. */
#define SPANS_TOO_LONG  1.5
#define FRAME_HOP_S     ((PSDU_MAX + 6) * 32e-6 + (192 + 11 * 32) * 1e-6 + 3.5 * 320e-6 + 128e-6)

guint ms_frames_for_block(guint32 block_size, const ms_recommendation_t *r)
{
    double bytes = block_size + r->block_overhead;

    /* A FRAG1 that carried d bytes of the block would have carried them and
     * its 4-byte header unfragmented. */
    if (r->frag1_block_bytes >= 0)
        return block_size <= r->frag1_block_bytes + FRAG1_HEADER
                   ? 1 : 1 + (guint)ceil((block_size - r->frag1_block_bytes) / r->fragn_data);
    if (bytes <= r->frame_room)
        return 1;
    return 1 + (guint)ceil((bytes + FRAG1_HEADER - r->frame_room) / r->fragn_data);
}

const char *ms_turn_source_name(ms_turn_source_t s)
{
    static const char *const names[] = { "measured", "bounded", "assumed", "none" };
    return (guint)s < G_N_ELEMENTS(names) ? names[s] : "none";
}

/* Expected time waiting for timeouts per block when each exchange fails
 * with probability f: the k-th failure in a row waits timeout x 2^(k-1),
 * doubling up to MAX_RETRANSMIT times, then a new exchange starts over. */
double ms_expected_wait(double f, double timeout)
{
    double cycle = 0, fk = 1;

    if (f <= 0)
        return 0;
    if (f >= 1)
        return INFINITY;
    for (int k = 1; k <= MAX_RETRANSMIT + 1; k++) {
        fk *= f;
        cycle += fk * ldexp(1, k - 1);
    }
    return timeout * cycle / (1 - pow(f, MAX_RETRANSMIT + 1));
}

static gboolean is_upload(const meter_transfer_record_t *r)
{
    return g_strcmp0(r->kind, "block1") == 0;
}

/* The model works on where the time went: nothing to model from a transfer
 * whose parts are all 0 (a capture without usable timestamps). */
static gboolean took_time(const meter_transfer_record_t *r)
{
    double total = 0;

    for (guint i = 0; i < METER_SPLIT_PARTS; i++)
        total += meter_split_value(r, i);
    return total > 0;
}

const ms_transfer_t *ms_recommend_basis(const ms_capture_t *c)
{
    const ms_transfer_t *best = NULL;
    int best_rank = -1;

    for (guint i = 0; i < c->transfers->len; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        int rank = (x->rec.complete ? 2 : 0) + !is_upload(&x->rec);
        if (!x->rec.blocks || !x->rec.requests || !x->rec.frames_sent || !took_time(&x->rec))
            continue;
        if (rank > best_rank || (rank == best_rank && x->rec.bytes > best->rec.bytes)) {
            best = x;
            best_rank = rank;
        }
    }
    return best;
}

/* How the meter's turn-around per block grows with the block size, where
 * the capture has transfers of the same meter and kind at several block
 * sizes: the least-squares slope of turn-around per block on block size. */
static gboolean fit_turnaround(const ms_capture_t *c, const meter_transfer_record_t *x, double *slope,
                               guint *sizes)
{
    double n = 0, sb = 0, st = 0, sbb = 0, sbt = 0;
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);

    for (guint i = 0; c && i < c->transfers->len; i++) {
        const meter_transfer_record_t *r = &((const ms_transfer_t *)g_ptr_array_index(c->transfers, i))->rec;
        if (r->blocks < 2 || g_strcmp0(r->meter, x->meter) || g_strcmp0(r->kind, x->kind) ||
            g_strcmp0(r->path, x->path))
            continue;
        double b = r->block_size, t = r->time_turnaround_s / r->blocks;
        n++;
        sb += b;
        st += t;
        sbb += b * b;
        sbt += b * t;
        g_hash_table_add(seen, GUINT_TO_POINTER(r->block_size));
    }
    *sizes = g_hash_table_size(seen);
    g_hash_table_destroy(seen);
    double den = n * sbb - sb * sb;
    if (*sizes < 2 || den <= 0)
        return FALSE;
    double fit = (n * sbt - sb * st) / den;
    if (!isfinite(fit))
        return FALSE;
    *slope = MAX(0.0, fit);
    return TRUE;
}

/* What the model takes from the record, and the flash assumption: a NaN,
 * an infinity or a negative time among them gives no prediction rather
 * than a wrong one (the analyser's reader refuses such records; this holds
 * for any caller). Returns FALSE with the reason in r->not_computed. */
static gboolean inputs_finite(const meter_transfer_record_t *x, double flash_s_per_byte, ms_recommendation_t *r)
{
    const struct { const char *name; double value; gboolean may_be_negative; } inputs[] = {
        { "time_air_s", x->time_air_s, FALSE },         { "time_network_s", x->time_network_s, FALSE },
        { "time_poll_s", x->time_poll_s, FALSE },       { "time_turnaround_s", x->time_turnaround_s, FALSE },
        { "time_timeouts_s", x->time_timeouts_s, FALSE }, { "time_unseen_s", x->time_unseen_s, FALSE },
        { "request_span_s", x->request_span_s, TRUE },  { "response_span_s", x->response_span_s, TRUE },
        { "frag1_block_bytes", x->frag1_block_bytes, TRUE },
        { "the flash write time per byte", flash_s_per_byte, FALSE },
    };

    for (guint i = 0; i < G_N_ELEMENTS(inputs); i++)
        if (!isfinite(inputs[i].value) || (!inputs[i].may_be_negative && inputs[i].value < 0)) {
            g_snprintf(r->not_computed, sizeof r->not_computed, "%s is %s", inputs[i].name,
                       isfinite(inputs[i].value) ? "negative" : "not a finite number");
            return FALSE;
        }
    return TRUE;
}

/* The figures the reports show besides the predictions: huge finite
 * inputs can still overflow one (a timeout fitted to a tiny loss). */
static gboolean figures_finite(ms_recommendation_t *r)
{
    const struct { const char *name; double value; } figures[] = {
        { "exchange loss", r->exchange_loss }, { "frames of a block", r->block_frames },
        { "frames of the other direction", r->other_frames }, { "bytes besides the block", r->block_overhead },
        { "added frame's loss", r->added_frame_loss }, { "hops", r->hops },
        { "train's frame loss", r->train_loss }, { "train's loss growth", r->train_growth },
        { "train's loss growth range", r->train_growth_high }, { "fatal share", r->train_hops },
        { "air time per block", r->air_s }, { "network time per block", r->network_s },
        { "poll wait per block", r->poll_s }, { "turn-around per block", r->turnaround_s },
        { "timeouts per block", r->timeouts_s }, { "time of a frame more", r->frame_s },
        { "turn-around growth", r->turn_s_per_byte }, { "first timeout", r->timeout_s },
        { "image size", r->size_bytes },
    };

    for (guint i = 0; i < G_N_ELEMENTS(figures); i++)
        if (!isfinite(figures[i].value)) {
            g_snprintf(r->not_computed, sizeof r->not_computed, "the model's %s is not a finite number",
                       figures[i].name);
            return FALSE;
        }
    return TRUE;
}

/* No prediction: nothing left that a report could show as one. */
static void clear_outputs(ms_recommendation_t *r)
{
    memset(r->rate_Bps, 0, sizeof r->rate_Bps);
    memset(r->rate_low_Bps, 0, sizeof r->rate_low_Bps);
    memset(r->rate_high_Bps, 0, sizeof r->rate_high_Bps);
    memset(r->exchange_fail, 0, sizeof r->exchange_fail);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++)
        r->duration_s[szx] = -1;
    r->best_szx = 0;
}

/* The fit of a middle fragment's loss on its place needs places that
 * differ: their variance at least this (trains of 5 frames or more). */
#define TRAIN_PLACES_VARIANCE_MIN 0.5
/* The growth's range: the fit's +- 1.645 standard errors (90%). */
#define TRAIN_GROWTH_Z 1.645

/* The frames after the first of a train of k frames, their loss summed
 * over their places 1..k-1 (continuous in k): the intercept's share as
 * (k - 1) frames lost like that, the growth's as g (k - 1) k / 2. */
static double train_hazard(double k, double loss, double growth)
{
    double n = MAX(0.0, k - 1);
    return -n * log1p(-MIN(loss, 1.0)) + growth * n * (n + 1) / 2;
}

/* The intercept that keeps the measured mean loss of the middle fragments
 * at their mean place with this growth (never below 0). */
static double train_intercept(const meter_transfer_record_t *x, double growth)
{
    double n = x->train_middle_frames;
    return MAX(0.0, (x->train_middle_lost - growth * (double)x->train_position_sum) / n);
}

/* Where the capture shows middle fragments at several places (trains of 5
 * frames or more) and some lost: the least-squares line of their loss on
 * their place (a lost fragment 1, one that got through 0), its slope at
 * least 0, and the range 1.645 standard errors either way allows. Else
 * the growth is assumed 0 and may be, as far as the capture can tell, as
 * much as the loss of an added frame per place (its hazard growing by its
 * own size with every frame before it). */
static void fit_train(const meter_transfer_record_t *x, ms_recommendation_t *r)
{
    double n = x->train_middle_frames, l = x->train_middle_lost, sp = x->train_position_sum,
           spp = x->train_position_sq_sum, lp = x->train_lost_position_sum;
    double var = n > 0 ? spp / n - (sp / n) * (sp / n) : 0;

    r->middle_frames = n;
    r->middle_lost = l;
    r->train_loss = MIN(r->added_frame_loss, 1.0);
    r->train_growth = r->train_growth_low = 0;
    r->train_growth_high = r->train_loss;
    r->train_growth_measured = FALSE;
    if (n < 2 || l < 1 || var < TRAIN_PLACES_VARIANCE_MIN)
        return;
    double den = n * spp - sp * sp, mean = l / n;
    double slope = (n * lp - sp * l) / den;
    double se = sqrt(mean * (1 - mean) * n / den);
    if (!isfinite(slope) || !isfinite(se))
        return;
    r->train_growth_measured = TRUE;
    r->train_growth = MAX(0.0, slope);
    r->train_growth_low = MAX(0.0, slope - TRAIN_GROWTH_Z * se);
    r->train_growth_high = MAX(r->train_growth_low, slope + TRAIN_GROWTH_Z * se);
    r->train_loss = train_intercept(x, r->train_growth);
}

/* Responses of at least this many frames have later frames that are not
 * mostly last frames. A last frame is lost more often than a middle one (a
 * sleepy meter stops listening after a frame without the frame pending bit,
 * so a retry after a lost ACK finds it asleep); with two-frame responses
 * the later frames are all last frames and overstate what an added frame
 * costs. */
#define LATER_FRAMES_MIN_RESPONSE 2.5

gboolean ms_recommend(const ms_capture_t *c, const ms_transfer_t *t, double flash_s_per_byte,
                      ms_recommendation_t *r)
{
    memset(r, 0, sizeof(*r));
    if (!t || !t->rec.blocks || !t->rec.requests || !t->rec.frames_sent)
        return FALSE;
    const meter_transfer_record_t *x = &t->rec;
    double blocks = x->blocks;
    double req_ok = (double)x->request_copies - MIN(x->request_copies_lost, x->request_copies);
    double resp_ok = (double)x->response_copies - MIN(x->response_copies_lost, x->response_copies);
    double later_lost = (double)x->response_copies_lost - MIN(x->response_first_lost, x->response_copies_lost);
    double req_frames = meter_ratio(x->request_frames_complete, req_ok, 1);
    double resp_frames = meter_ratio(x->response_frames_complete, resp_ok, 1);

    r->transfer = x->transfer;
    r->block_size = x->block_size;
    r->upload = is_upload(x);
    if (!inputs_finite(x, flash_s_per_byte, r)) {
        clear_outputs(r);
        return TRUE;
    }
    r->flash_s_per_byte = flash_s_per_byte;
    r->exchange_loss = MIN(1.0, ((double)x->retransmissions + x->rerequests) / x->requests);
    r->block_frames = r->upload ? req_frames : resp_frames;
    r->other_frames = r->upload ? resp_frames : req_frames;
    r->fragn_data = x->fragn_room ? (double)(x->fragn_room / 8 * 8) : FRAGN_DATA;
    r->fragn_data = MAX(8.0, r->fragn_data);
    r->frame_room = x->fragn_room ? MIN((double)FRAME_ROOM, r->fragn_data + FRAGN_HEADER + 7) : FRAME_ROOM;
    /* Bytes on air of a complete copy, less its MAC and FRAG headers and the block. */
    double k0 = r->block_frames, copies_ok = r->upload ? req_ok : resp_ok;
    double bytes_ok = r->upload ? x->request_bytes_complete : x->response_bytes_complete;
    r->block_overhead = copies_ok > 0 ? bytes_ok / copies_ok - (PSDU_MAX - r->frame_room) * k0 -
                                        (k0 > 1 ? FRAG1_HEADER + FRAGN_HEADER * (k0 - 1) : 0) - x->block_size
                                      : DEFAULT_OVERHEAD;
    r->block_overhead = CLAMP(r->block_overhead, 0, r->frame_room);
    r->frag1_block_bytes = x->frag1_block_bytes;
    r->request_loss = meter_ratio(x->request_copies_lost, x->request_copies, 0);
    r->first_frame_loss = meter_ratio(x->response_first_lost, x->response_copies, 0);
    r->later_frame_loss = meter_ratio(later_lost, x->response_later_frames, -1);
    r->last_frame_loss = meter_ratio(x->train_last_lost, x->train_last_frames, -1);
    /* One frame more in a block's datagram. A download's: lost like a later
     * frame of a response, measured where the responses have middle frames;
     * else (single-frame or two-frame responses, or no later frame lost:
     * the capture cannot tell how often) like a request, the nearest thing
     * the capture measures. An upload's: like a frame of its requests. */
    if (r->upload) {
        r->added_frame_loss = 1 - pow(1 - MIN(r->request_loss, 1.0), 1 / MAX(1.0, req_frames));
        r->added_from = "request_frames";
    } else if (k0 >= LATER_FRAMES_MIN_RESPONSE && later_lost > 0) {
        r->added_frame_loss = r->later_frame_loss;
        r->added_from = "later_frames";
    } else if (x->train_last_lost > 0 && r->last_frame_loss < r->request_loss) {
        r->added_frame_loss = r->last_frame_loss;
        r->added_from = "last_frames";
    } else {
        r->added_frame_loss = r->request_loss;
        r->added_from = "requests";
    }
    r->hops = MAX(1.0, meter_ratio(x->request_copies, x->requests, 1));
    fit_train(x, r);
    /* Not every lost copy costs an exchange (a last fragment whose ACKs
     * were all lost arrived; a duplicate answer's copy was not needed): a
     * frame's loss on a hop costs an exchange as often as lost copies did. */
    double copies_lost = (double)x->request_copies_lost + x->response_copies_lost;
    r->fatal_share = copies_lost > 0 ? MIN(1.0, ((double)x->retransmissions + x->rerequests) / copies_lost) : 1;
    r->train_hops = r->hops * r->fatal_share;
    r->air_s = x->time_air_s / blocks;
    r->network_s = x->time_network_s / blocks;
    r->poll_s = x->time_poll_s / blocks;
    r->turnaround_s = x->time_turnaround_s / blocks;
    r->timeouts_s = (x->time_timeouts_s + x->time_unseen_s) / blocks;
    /* A meter that gave up on a block (a re-request) paused before asking
     * again, and the pause shows as turn-around: where the turn-around per
     * block is more than twice its median, the excess is waiting after
     * failures, which grows and shrinks with the loss like the timeouts. */
    if (x->rerequests && x->turnaround_median_s >= 0 && r->turnaround_s > 2 * x->turnaround_median_s) {
        r->timeouts_s += r->turnaround_s - x->turnaround_median_s;
        r->turnaround_s = x->turnaround_median_s;
    }
    /* One more frame: what the block's direction took across the hops more
     * than the other direction, per frame more, in the clean exchanges
     * (poll waits left out); where both are as long, one frame's time on
     * each hop. */
    /* What the blocks' frames took on their way, per frame of an exchange. */
    double flight_per_frame = (r->air_s + r->network_s) / (k0 + r->other_frames);
    double span_block = r->upload ? x->request_span_s : x->response_span_s;
    double span_other = r->upload ? x->response_span_s : x->request_span_s;
    gboolean spans = span_block >= 0 && span_other >= 0;
    r->frame_s_measured = spans && k0 - r->other_frames >= 0.5;
    if (r->frame_s_measured) {
        r->frame_s = MAX(0.0, (span_block - span_other) / (k0 - r->other_frames));
    } else {
        /* Assumed, but never more than a frame took in the clean exchanges. */
        r->frame_s = r->hops * FRAME_HOP_S;
        if (spans)
            r->frame_s = MIN(r->frame_s, (span_block + span_other) / (k0 + r->other_frames));
    }
    /* Where a host's stamps make the spans half again as long as the
     * blocks' time on the way (the spans are medians, and a transfer's time
     * starts at its first request's end, so they may exceed it a little),
     * never more than that time per frame: a block of fewer frames cannot
     * take less than nothing. */
    if (spans && span_block + span_other > SPANS_TOO_LONG * (r->air_s + r->network_s))
        r->frame_s = MIN(r->frame_s, flight_per_frame);
    /* The turn-around's growth: measured at several sizes; else for a
     * download the flash write time assumed, unless the measured
     * turn-around is shorter than the assumption allows at this size. */
    double slope = 0;
    if (fit_turnaround(c, x, &slope, &r->turn_sizes)) {
        r->turn_source = MS_TURN_MEASURED;
    } else if (r->upload) {
        r->turn_source = MS_TURN_NONE;
    } else if (flash_s_per_byte * x->block_size > r->turnaround_s) {
        r->turn_source = MS_TURN_BOUNDED;
        slope = x->block_size ? r->turnaround_s / x->block_size : 0;
    } else {
        r->turn_source = MS_TURN_ASSUMED;
        slope = flash_s_per_byte;
    }
    r->turn_s_per_byte = slope;
    /* The first timeout that makes the model's wait equal the measured one
     * (RFC 7252's mean, 2.5 s, when nothing failed: then waits seen, such as
     * those inferred at a gateway, stay as they are). */
    double unit = ms_expected_wait(r->exchange_loss, 1);
    gboolean fits = unit > 0 && isfinite(unit);
    r->timeout_s = fits ? r->timeouts_s / unit : 2.5;
    r->size_bytes = x->size_hint >= 0 ? (double)x->size_hint : x->complete ? (double)x->bytes : -1;

    /* Frames at each size: the formula's, scaled by what it is off by at
     * the measured size (k0 is an average: a short last block, copies that
     * lost a frame); the model must give back the measured time there. */
    double fixed = r->air_s + r->network_s + r->poll_s + (fits ? 0 : r->timeouts_s), best = -1;
    double k_base = ms_frames_for_block(x->block_size, r);
    /* The growth's ends: the intercept refitted to each, so that both
     * keep the measured loss of the middle fragments. */
    double loss_low = r->train_growth_measured ? train_intercept(x, r->train_growth_low) : r->train_loss;
    double loss_high = r->train_growth_measured ? train_intercept(x, r->train_growth_high) : r->train_loss;
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        guint32 b = 16u << szx;
        double k = MAX(1.0, ms_frames_for_block(b, r) * k0 / k_base);
        double turn = MAX(0.0, r->turnaround_s + slope * ((double)b - x->block_size));
        /* A frame fewer saves no more than a frame's share of the time the
         * blocks were on their way. */
        double per_frame = k < k0 ? MIN(r->frame_s, flight_per_frame) : r->frame_s;
        double t_fixed = fixed + (k - k0) * per_frame + turn;
        /* The exchange fails as measured, changed by the hazard of the
         * frames the size adds or removes, at their places, on every hop. */
        double hz = train_hazard(k, r->train_loss, r->train_growth) - train_hazard(k0, r->train_loss, r->train_growth);
        double fail = CLAMP(1 - (1 - r->exchange_loss) * exp(-r->train_hops * hz), 0, 1);
        double t_b = t_fixed + ms_expected_wait(fail, r->timeout_s);
        for (guint end = 0; end < 2; end++) {
            double g = end ? r->train_growth_high : r->train_growth_low, q = end ? loss_high : loss_low;
            double h_end = train_hazard(k, q, g) - train_hazard(k0, q, g);
            double f_end = CLAMP(1 - (1 - r->exchange_loss) * exp(-r->train_hops * h_end), 0, 1);
            double t_end = t_fixed + ms_expected_wait(f_end, r->timeout_s);
            double rate = isfinite(t_end) && t_end > 0 ? b / t_end : 0;
            if (end == 0) {
                r->rate_low_Bps[szx] = r->rate_high_Bps[szx] = rate;
            } else {
                r->rate_low_Bps[szx] = MIN(r->rate_low_Bps[szx], rate);
                r->rate_high_Bps[szx] = MAX(r->rate_high_Bps[szx], rate);
            }
        }
        r->exchange_fail[szx] = fail;
        /* An infinite time is a size that never gets through (rate 0); a
         * NaN, or a time so short the rate overflows, is a model that
         * broke on these inputs: no prediction at all. */
        r->rate_Bps[szx] = isfinite(t_b) && t_b > 0 ? b / t_b : 0;
        r->rate_low_Bps[szx] = MIN(r->rate_low_Bps[szx], r->rate_Bps[szx]);
        r->rate_high_Bps[szx] = MAX(r->rate_high_Bps[szx], r->rate_Bps[szx]);
        if (isnan(t_b) || isnan(fail) || !isfinite(r->rate_Bps[szx])) {
            g_snprintf(r->not_computed, sizeof r->not_computed,
                       "the model's time per block at SZX %u is not a finite number", szx);
            break;
        }
        r->duration_s[szx] = r->size_bytes >= 0 && r->rate_Bps[szx] > 0 ? r->size_bytes / r->rate_Bps[szx] : -1;
        if (r->rate_Bps[szx] > best) {
            best = r->rate_Bps[szx];
            r->best_szx = szx;
        }
    }
    if (*r->not_computed || !figures_finite(r))
        clear_outputs(r);
    return TRUE;
}

void ms_recommend_why(const ms_recommendation_t *r, char *buf, gsize size)
{
    guint32 best = 16u << r->best_szx;
    double k_base = ms_frames_for_block(r->block_size, r);
    double k = MAX(1.0, ms_frames_for_block(best, r) * r->block_frames / k_base);
    guint now = 0;

    while (now < MS_SZX_MAX && (16u << now) < r->block_size)
        now++;
    if (best == r->block_size) {
        g_snprintf(buf, size, "the measured size: no other is predicted faster");
        return;
    }
    g_snprintf(buf, size,
               "%u-byte blocks take %.1f frames instead of %.1f, and %.0f%% of their exchanges fail instead of the "
               "measured %.0f%%: %.0f B/s instead of %.0f", best, k, r->block_frames, 100 * r->exchange_fail[r->best_szx],
               100 * r->exchange_loss, r->rate_Bps[r->best_szx], r->rate_Bps[now]);
}
