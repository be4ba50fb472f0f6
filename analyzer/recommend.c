/* recommend.c: the block-size model of docs/recommendation.md.
 *
 * A block costs the time on air of its frames, the network round trip, the
 * meter's turn-around and the CoAP timeouts waited after failed exchanges.
 * Only the first and the last depend on the block size: the frames grow
 * with it, and each frame added to a response can be lost, which loses the
 * exchange. The measured exchange loss is the starting point; the frames a
 * block size adds or removes change it by the loss of one added frame.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "recommend.h"

/* IEEE 802.15.4: 127-byte PSDU; short addresses and PAN ID compression
 * (9-byte MAC header) and the FCS leave 116 bytes. FRAG1 has a 4-byte
 * header, FRAGN a 5-byte one and 8-byte multiples of data. What a response
 * adds to its block (compressed IPv6/UDP, CoAP header, token, options) is
 * measured on the capture: the bytes of its complete response frames. */
#define FRAME_ROOM      116
#define MAC_OVERHEAD    11
#define FRAG1_HEADER    4
#define FRAGN_HEADER    5
#define FRAGN_DATA      (((FRAME_ROOM - FRAGN_HEADER) / 8) * 8)
#define DEFAULT_OVERHEAD 36     /* "a block bigger than about 80 bytes is fragmented" */
#define MAX_RETRANSMIT  4       /* RFC 7252: then the meter starts again with a new MID */

guint ms_frames_for_block(guint32 block_size, double overhead)
{
    double bytes = block_size + overhead;

    if (bytes <= FRAME_ROOM)
        return 1;
    return 1 + (guint)ceil((bytes + FRAG1_HEADER - FRAME_ROOM) / FRAGN_DATA);
}

/* Expected time waiting for timeouts per block when each exchange fails
 * with probability f: the k-th failure in a row waits timeout x 2^(k-1),
 * doubling up to MAX_RETRANSMIT times, then a new exchange starts over. */
static double expected_wait(double f, double timeout)
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

static double ratio(double a, double b, double none)
{
    return b > 0 ? a / b : none;
}

const ms_transfer_t *ms_recommend_basis(const ms_capture_t *c)
{
    const ms_transfer_t *best = NULL;
    int best_rank = -1;

    for (guint i = 0; i < c->transfers->len; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        int rank = (x->rec.complete ? 2 : 0) + (g_strcmp0(x->rec.kind, "block2") == 0);
        if (!x->rec.blocks || !x->rec.requests || !x->rec.frames_sent)
            continue;
        if (rank > best_rank || (rank == best_rank && x->rec.bytes > best->rec.bytes)) {
            best = x;
            best_rank = rank;
        }
    }
    return best;
}

/* Responses of at least this many frames have later frames that are not
 * mostly last frames. A last frame is lost more often than a middle one (a
 * sleepy meter stops listening after a frame without the frame pending bit,
 * so a retry after a lost ACK finds it asleep); with two-frame responses
 * the later frames are all last frames and overstate what an added frame
 * costs. */
#define LATER_FRAMES_MIN_RESPONSE 2.5

gboolean ms_recommend(const ms_transfer_t *x, double flash_s_per_byte, ms_recommendation_t *r)
{
    memset(r, 0, sizeof(*r));
    if (!x || !x->rec.blocks || !x->rec.requests || !x->rec.frames_sent)
        return FALSE;
    double blocks = x->rec.blocks;
    guint32 complete = x->rec.response_copies - MIN(x->rec.response_copies_lost, x->rec.response_copies);
    guint32 later_lost = x->rec.response_copies_lost - MIN(x->rec.response_first_lost, x->rec.response_copies_lost);

    r->transfer = x->rec.transfer;
    r->block_size = x->rec.block_size;
    r->flash_s_per_byte = flash_s_per_byte;
    r->exchange_loss = MIN(1.0, (double)(x->rec.retransmissions + x->rec.rerequests) / x->rec.requests);
    r->response_frames = ratio(x->rec.response_frames_complete, complete, 1);
    /* Bytes on air of a complete response, less its MAC and FRAG headers and the block. */
    double k0 = r->response_frames;
    r->block_overhead = complete ? ratio(x->rec.response_bytes_complete, complete, 0) - MAC_OVERHEAD * k0 -
                                   (k0 > 1 ? FRAG1_HEADER + FRAGN_HEADER * (k0 - 1) : 0) - x->rec.block_size
                                 : DEFAULT_OVERHEAD;
    r->block_overhead = CLAMP(r->block_overhead, 0, FRAME_ROOM);
    r->request_loss = ratio(x->rec.request_copies_lost, x->rec.request_copies, 0);
    r->first_frame_loss = ratio(x->rec.response_first_lost, x->rec.response_copies, 0);
    r->later_frame_loss = ratio(later_lost, x->rec.response_later_frames, -1);
    /* One frame more in a response: lost like a later frame, measured where
     * the responses have middle frames; else (single-frame or two-frame
     * responses, or no later frame lost: the capture cannot tell how often)
     * like a request, the nearest thing the capture measures. */
    r->added_from_later = k0 >= LATER_FRAMES_MIN_RESPONSE && later_lost > 0;
    r->added_frame_loss = r->added_from_later ? r->later_frame_loss : r->request_loss;
    r->hops = MAX(1.0, ratio(x->rec.request_copies, x->rec.requests, 1));
    r->air_s = x->rec.time_air_s / blocks;
    r->network_s = x->rec.time_network_s / blocks;
    r->turnaround_s = x->rec.time_turnaround_s / blocks;
    r->timeouts_s = x->rec.time_timeouts_s / blocks;
    /* The first timeout that makes the model's wait equal the measured one
     * (RFC 7252's mean, 2.5 s, when nothing failed). */
    double unit = expected_wait(r->exchange_loss, 1);
    r->timeout_s = unit > 0 && isfinite(unit) ? r->timeouts_s / unit : 2.5;

    /* Frames of a response at each size: the measured k0 moved by the frames
     * the formula adds or removes. The formula alone can be off by a frame
     * where the MAC header is longer than assumed (security, mesh header)
     * and k0 is an average (a short last block); the model must give back
     * the measured time at the measured size. */
    double frames0 = 1 + k0, best = -1;
    double k_base = ms_frames_for_block(x->rec.block_size, r->block_overhead);
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        guint32 b = 16u << szx;
        double k = MAX(1.0, k0 + ms_frames_for_block(b, r->block_overhead) - k_base);
        double fail = 1 - (1 - r->exchange_loss) * pow(1 - r->added_frame_loss, r->hops * (k - k0));
        fail = CLAMP(fail, 0, 1);
        double t = r->air_s * (1 + k) / frames0 + r->network_s +
                   MAX(0.0, r->turnaround_s + flash_s_per_byte * ((double)b - x->rec.block_size)) +
                   expected_wait(fail, r->timeout_s);
        r->exchange_fail[szx] = fail;
        r->rate_Bps[szx] = isfinite(t) && t > 0 ? b / t : 0;
        if (r->rate_Bps[szx] > best) {
            best = r->rate_Bps[szx];
            r->best_szx = szx;
        }
    }
    return TRUE;
}
