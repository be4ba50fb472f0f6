/* verdict.c: the dominant cause of a transfer's lost time, from its record.
 *
 * Causes that decide what can be judged at all, or that no timer or block
 * size mends, come first: a capture that cannot show the radio, the peer's
 * errors, long silences, retransmissions sent for nothing. Then the part of
 * the time split that took the most besides the air itself: timeouts (the
 * radio lost exchanges), poll waits, the meter's turn-around, the round
 * trips beyond the radio. docs/recommendation.md gives the thresholds and
 * why.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "verdict.h"
#include "ratio.h"

/* A sniffer that missed this share of the transfer's frames leaves its
 * losses and retransmissions too uncertain to blame on the radio. */
#define CAPTURE_MISSED_SHARE 0.10
/* Silences that took this share of the transfer are its story. */
#define STALLS_SHARE 0.25
/* Silences with more blocks retried than this each are the loss's backoff. */
#define STALL_RETRIED_BLOCKS 2
/* ... and where more than this share of the blocks needed a retry. */
#define STALL_RETRIED_SHARE 0.25
/* Retransmissions sent for nothing: most of them, and enough to matter. */
#define SPURIOUS_SHARE 0.5
#define SPURIOUS_MIN 3
#define SPURIOUS_REQUESTS_SHARE 0.05
/* Below this share of the duration no part is a cause worth naming. */
#define NOTABLE_SHARE 0.15

const char *meter_verdict_cause_name(meter_verdict_cause_t cause)
{
    static const char *const names[VERDICT_CAUSES] = {
        "none", "radio_loss", "poll_wait", "spurious_retransmissions", "turnaround",
        "backhaul", "stalls", "protocol_error", "capture_imperfect",
    };
    return (guint)cause < VERDICT_CAUSES ? names[cause] : "none";
}

/* "12.3 s of 250.0 s (5%)"; under 10 s to the millisecond. */
static void part_text(char *buf, gsize size, double part, double whole)
{
    int decimals = whole < 10 ? 3 : 1;
    g_snprintf(buf, size, "%.*f s of %.*f s (%.0f%%)", decimals, part, decimals, whole, 100 * meter_ratio(part, whole, 0));
}

static gboolean on_ip(const meter_transfer_record_t *r, const char *side)
{
    return r->vantage && strcmp(r->vantage, side) == 0;
}

static gboolean capture_imperfect(const meter_transfer_record_t *r, meter_verdict_t *v)
{
    double frames = (double)r->frames_sent + r->frames_missed_estimate;

    /* At the gateway the meter's turn-around holds the whole radio path:
     * only retransmissions sent for nothing can still be told. Next to
     * the meter on IP the split is the meter's own, but for the radio. */
    if (on_ip(r, "gateway")) {
        g_snprintf(v->evidence, sizeof v->evidence,
                   "the capture was taken on IP next to the gateway: the radio's part (air, loss, polls, the "
                   "meter's turn-around) cannot be judged, and %.1f s of waits are not visible from it",
                   r->time_unseen_s);
        v->lost_s = r->time_unseen_s;
        return TRUE;
    }
    if (meter_ratio(r->frames_missed_estimate, frames, 0) >= CAPTURE_MISSED_SHARE) {
        g_snprintf(v->evidence, sizeof v->evidence,
                   "the sniffer missed about %u of the transfer's %.0f frames (%.0f%%): its losses and "
                   "retransmissions are bounds, and the cause of the lost time cannot be judged from it",
                   r->frames_missed_estimate, frames, 100 * meter_ratio(r->frames_missed_estimate, frames, 0));
        return TRUE;
    }
    return FALSE;
}

static gboolean protocol_error(const meter_transfer_record_t *r, meter_verdict_t *v)
{
    if (r->protocol_anomalies && !r->error_responses) {
        g_snprintf(v->evidence, sizeof v->evidence,
                   "the gateway sent %u answer%s RFC 7959 does not allow (a block of another length than its SZX "
                   "with more to come, a larger SZX than asked, or SZX 7)", r->protocol_anomalies,
                   r->protocol_anomalies == 1 ? "" : "s");
        return TRUE;
    }
    if (r->error_responses) {
        g_snprintf(v->evidence, sizeof v->evidence,
                   "the gateway answered %u request%s with an error (4.xx or 5.xx)%s", r->error_responses,
                   r->error_responses == 1 ? "" : "s",
                   r->renegotiated ? " and answered with another block size than asked" : "");
        return TRUE;
    }
    if (r->renegotiated) {
        g_snprintf(v->evidence, sizeof v->evidence,
                   "the gateway answered with another block size than the meter asked for (SZX %u asked, "
                   "%u used)", r->szx_first, r->szx);
        return TRUE;
    }
    return FALSE;
}

static gboolean stalls(const meter_transfer_record_t *r, meter_verdict_t *v)
{
    char part[64];

    if (!r->stalls || meter_ratio(r->stalled_s, r->duration_s, 0) < STALLS_SHARE)
        return FALSE;
    /* CoAP's doubling timeouts make silences of their own on a lossy link
     * (the fourth wait is 16-24 s): then many blocks needed a retry, and
     * the silences are the radio's. An outage stops a block or two. */
    if (r->blocks_retried > STALL_RETRIED_BLOCKS * r->stalls || r->blocks_retried > STALL_RETRIED_SHARE * r->blocks)
        return FALSE;
    part_text(part, sizeof part, r->stalled_s, r->duration_s);
    g_snprintf(v->evidence, sizeof v->evidence, "%u silence%s (an outage, or the meter pausing) took %s",
               r->stalls, r->stalls == 1 ? "" : "s", part);
    v->lost_s = r->stalled_s;
    return TRUE;
}

static gboolean spurious(const meter_transfer_record_t *r, meter_verdict_t *v)
{
    GString *e = g_string_new("answers take longer than the meter waits before it retransmits");

    if (r->spurious_retransmissions < SPURIOUS_MIN ||
        r->spurious_retransmissions < SPURIOUS_SHARE * r->retransmissions ||
        r->spurious_retransmissions < SPURIOUS_REQUESTS_SHARE * r->requests) {
        g_string_free(e, TRUE);
        return FALSE;
    }
    if (r->rtt_last_median_s >= 0)
        g_string_append_printf(e, " (%.2f s median, %.2f s at the 95th percentile)", r->rtt_last_median_s,
                               r->rtt_last_p95_s);
    if (r->retransmit_after_median_s >= 0)
        g_string_append_printf(e, ", which is after a median %.2f s", r->retransmit_after_median_s);
    g_string_append_printf(e, ": %u of %u retransmissions were sent for nothing", r->spurious_retransmissions,
                           r->retransmissions);
    g_strlcpy(v->evidence, e->str, sizeof v->evidence);
    g_string_free(e, TRUE);
    return TRUE;
}

/* A meter that gave up on a block pauses before it asks again, and the
 * pause shows as turn-around (the block's last answer got through a hop
 * and counts as accepted): where the turn-around is more than twice its
 * median a block and blocks were asked again, the excess is the radio's. */
static double pauses_after_loss(const meter_transfer_record_t *r)
{
    if (!r->rerequests || r->turnaround_median_s < 0 || !r->blocks)
        return 0;
    double usual = r->turnaround_median_s * r->blocks;
    return r->time_turnaround_s > 2 * usual ? r->time_turnaround_s - usual : 0;
}

double meter_poll_wait_unseen_s(const meter_transfer_record_t *r)
{
    double exchanges = (double)r->requests - r->retransmissions;
    double period = r->poll_period_s, turn = MAX(0.0, r->turnaround_median_s);

    if (period <= 0 || exchanges <= 0)
        return 0;
    /* The poll timer runs on from the poll that brought the last answer:
     * the next answer is ready no sooner than the meter's turn-around
     * later, and waits for the poll after it; where turn-around and round
     * trip spread over more than a period, half a period on average. */
    double wait = MAX(period - turn, period / 2);
    return CLAMP(exchanges * wait - r->time_poll_s, 0, r->time_network_s);
}

/* The part of the split that took the most, besides the air. */
static void largest_part(const meter_transfer_record_t *r, meter_verdict_t *v)
{
    double pauses = pauses_after_loss(r), unseen_poll = meter_poll_wait_unseen_s(r);
    const struct { meter_verdict_cause_t cause; double s; } parts[] = {
        { VERDICT_RADIO_LOSS, r->time_timeouts_s + r->time_unseen_s + pauses },
        { VERDICT_POLL_WAIT, r->time_poll_s + unseen_poll },
        { VERDICT_TURNAROUND, r->time_turnaround_s - pauses },
        { VERDICT_BACKHAUL, r->time_network_s - unseen_poll },
    };
    guint best = 0;
    char part[64];

    for (guint i = 1; i < G_N_ELEMENTS(parts); i++)
        if (parts[i].s > parts[best].s)
            best = i;
    part_text(part, sizeof part, parts[best].s, r->duration_s);
    if (meter_ratio(parts[best].s, r->duration_s, 0) < NOTABLE_SHARE) {
        v->cause = VERDICT_NONE;
        g_snprintf(v->evidence, sizeof v->evidence,
                   "no cause stands out: the largest part besides the air took %s", part);
        return;
    }
    v->cause = parts[best].cause;
    v->lost_s = parts[best].s;
    char fragments[96] = "";
    if (r->datagrams_fragmented)
        g_snprintf(fragments, sizeof fragments, ", %u of %u fragmented datagrams never complete",
                   r->datagrams_incomplete, r->datagrams_fragmented);
    switch (v->cause) {
    case VERDICT_RADIO_LOSS:
        g_snprintf(v->evidence, sizeof v->evidence,
                   "exchanges lost on the %s: %u retransmissions and %u re-requests for %u blocks%s; waiting "
                   "for CoAP timeouts and pausing after them took %s",
                   on_ip(r, "meter") ? "way (this capture, on IP, cannot say where)" : "radio",
                   r->retransmissions, r->rerequests, r->blocks, fragments, part);
        break;
    case VERDICT_POLL_WAIT:
        if (r->poll_period_s >= 0)
            g_snprintf(v->evidence, sizeof v->evidence,
                       "answers wait for the sleepy meter's poll (every %.0f ms, %u Data Requests; %.1f s of it "
                       "where the capture cannot see the answer arrive, half a period an exchange): %s",
                       1e3 * r->poll_period_s, r->polls, unseen_poll, part);
        else
            g_snprintf(v->evidence, sizeof v->evidence, "messages wait for a sleepy node's poll: %s", part);
        break;
    case VERDICT_TURNAROUND:
        g_snprintf(v->evidence, sizeof v->evidence,
                   "the meter's own turn-around between blocks (flash writes, processing; %.3f s median) took %s",
                   r->turnaround_median_s >= 0 ? r->turnaround_median_s : 0, part);
        break;
    default:
        g_snprintf(v->evidence, sizeof v->evidence,
                   "round trips beyond the radio (the backhaul to the gateway; %.3f s median from a request's "
                   "last transmission) took %s", r->rtt_last_median_s >= 0 ? r->rtt_last_median_s : 0, part);
        break;
    }
}

void meter_verdict(const meter_transfer_record_t *r, meter_verdict_t *v)
{
    memset(v, 0, sizeof *v);
    if (!r->requests || r->duration_s <= 0) {
        g_strlcpy(v->evidence, "nothing to judge: the transfer took no measurable time", sizeof v->evidence);
        return;
    }
    if (on_ip(r, "gateway") && spurious(r, v))
        v->cause = VERDICT_SPURIOUS;
    else if (capture_imperfect(r, v))
        v->cause = VERDICT_CAPTURE_IMPERFECT;
    else if (protocol_error(r, v))
        v->cause = VERDICT_PROTOCOL_ERROR;
    else if (stalls(r, v))
        v->cause = VERDICT_STALLS;
    else if (spurious(r, v))
        v->cause = VERDICT_SPURIOUS;
    else
        largest_part(r, v);
}
