/* recommend.c: the block-size model of docs/recommendation.md.
 *
 * A block costs the time on air of its frames, the network round trip, the
 * meter's turn-around and the CoAP timeouts waited after failed exchanges.
 * Only the first and the last depend on the block size: the frames grow
 * with it, each frame can be lost, and one lost frame loses the exchange.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "recommend.h"

/* IEEE 802.15.4: 127-byte PSDU; short addresses and PAN ID compression
 * (9-byte MAC header) and the FCS leave 116 bytes. A CoAP block response
 * adds about 36 bytes (compressed IPv6/UDP with the gateway's address
 * inline, CoAP header, token and Block2): blocks over 80 bytes fragment.
 * FRAG1 has a 4-byte header, FRAGN a 5-byte one and 8-byte multiples. */
#define FRAME_ROOM      116
#define BLOCK_OVERHEAD  36
#define FRAG1_HEADER    4
#define FRAGN_DATA      (((FRAME_ROOM - 5) / 8) * 8)
#define MAX_RETRANSMIT  4       /* RFC 7252: then the meter starts again with a new MID */

guint ms_frames_for_block(guint32 block_size)
{
    guint32 bytes = block_size + BLOCK_OVERHEAD;

    if (bytes <= FRAME_ROOM)
        return 1;
    return 1 + (bytes + FRAG1_HEADER - FRAME_ROOM + FRAGN_DATA - 1) / FRAGN_DATA;
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

const ms_transfer_t *ms_recommend_basis(const ms_capture_t *c)
{
    const ms_transfer_t *best = NULL;
    int best_rank = -1;

    for (guint i = 0; i < c->transfers->len; i++) {
        const ms_transfer_t *x = g_ptr_array_index(c->transfers, i);
        int rank = (x->complete ? 2 : 0) + (g_strcmp0(x->kind, "block2") == 0);
        if (!x->blocks || !x->requests || !x->frames_sent)
            continue;
        if (rank > best_rank || (rank == best_rank && x->bytes > best->bytes)) {
            best = x;
            best_rank = rank;
        }
    }
    return best;
}

gboolean ms_recommend(const ms_transfer_t *x, double flash_s_per_byte, ms_recommendation_t *r)
{
    memset(r, 0, sizeof(*r));
    if (!x || !x->blocks || !x->requests || !x->frames_sent)
        return FALSE;
    double blocks = x->blocks;
    guint frames0 = 1 + ms_frames_for_block(x->block_size);

    r->transfer = x->transfer;
    r->block_size = x->block_size;
    r->flash_s_per_byte = flash_s_per_byte;
    r->frame_loss = x->acks_visible ? (double)x->frames_unacked / x->frames_sent : 0;
    r->exchange_loss = MIN(1.0, (double)(x->retransmissions + x->rerequests) / x->requests);
    r->frames_per_exchange = (double)x->frames_sent / x->requests;
    r->other_loss = MAX(0.0, 1 - (1 - r->exchange_loss) / pow(1 - r->frame_loss, r->frames_per_exchange));
    r->air_s = x->time_air_s / blocks;
    r->network_s = x->time_network_s / blocks;
    r->turnaround_s = x->time_turnaround_s / blocks;
    r->timeouts_s = x->time_timeouts_s / blocks;
    /* The first timeout that makes the model's wait equal the measured one
     * (RFC 7252's mean, 2.5 s, when nothing failed). */
    double unit = expected_wait(r->exchange_loss, 1);
    r->timeout_s = unit > 0 && isfinite(unit) ? r->timeouts_s / unit : 2.5;

    double best = -1;
    for (guint szx = 0; szx <= MS_SZX_MAX; szx++) {
        guint32 b = 16u << szx;
        /* Frames scale with the arithmetic, hops and all, from the measured count. */
        double frames = r->frames_per_exchange * (1 + ms_frames_for_block(b)) / frames0;
        double fail = 1 - (1 - r->other_loss) * pow(1 - r->frame_loss, frames);
        double t = r->air_s * frames / r->frames_per_exchange + r->network_s +
                   MAX(0.0, r->turnaround_s + flash_s_per_byte * ((double)b - x->block_size)) +
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
