/* verdict.h: why a transfer took the time it took, in one sentence: the
 * dominant cause of its lost time and the evidence for it, read off its
 * record (common/transfer_record.h) alone, so that the plugin's statistics
 * and expert infos and the analyser say the same. The analyser adds the
 * action its what-ifs show to pay (analyzer/whatif.h). The causes and the
 * order they are judged in: docs/recommendation.md, "The verdict".
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VERDICT_H
#define VERDICT_H

#include "transfer_record.h"

typedef enum {
    VERDICT_NONE,                /* nothing notable lost (or nothing to judge) */
    VERDICT_RADIO_LOSS,          /* exchanges lost on the radio: waits for CoAP timeouts */
    VERDICT_POLL_WAIT,           /* answers waiting for a sleepy meter's poll */
    VERDICT_SPURIOUS,            /* retransmissions of requests whose answers were only late */
    VERDICT_TURNAROUND,          /* the meter's own time between blocks (flash writes) */
    VERDICT_BACKHAUL,            /* round trips beyond the radio (border router to gateway) */
    VERDICT_STALLS,              /* long silences: an outage, a pause before resuming */
    VERDICT_PROTOCOL_ERROR,      /* the peer's error responses or block-size renegotiation */
    VERDICT_CAPTURE_IMPERFECT,   /* the capture cannot show what would be judged */
    VERDICT_CAUSES
} meter_verdict_cause_t;

typedef struct {
    meter_verdict_cause_t cause;
    double lost_s;               /* the time the cause took (0 for causes that cost no time) */
    char   evidence[320];        /* the sentence's first half: the cause and its numbers */
} meter_verdict_t;

/* The record's verdict; its evidence names numbers from r only. */
void        meter_verdict(const meter_transfer_record_t *r, meter_verdict_t *v);
/* The poll waits the time split books as network: where the capture
 * cannot see an answer reach the sleepy meter's parent (one hop from the
 * border router, the answer comes off the backhaul), it waits for the next
 * poll of a timer that runs on from the poll that brought the last answer:
 * at most the period less the meter's turn-around (the round trip taken as
 * nothing: the capture cannot tell it from the wait), at least half a
 * period, once an exchange; what the split shows as poll waits already
 * counts, and never more than the network time. */
double      meter_poll_wait_unseen_s(const meter_transfer_record_t *r);
/* "radio_loss", "poll_wait", ...: the name the reports and the tests use. */
const char *meter_verdict_cause_name(meter_verdict_cause_t cause);

#endif
