/* scenario_faults.c: the fault scenarios. Each injects one cause of lost
 * time, named in scenario_t.cause and in the truth's "injected_cause", into
 * an otherwise quiet download, so that the analyser's verdict can be checked
 * against it (tests/analyzer/test_verdict_faults.py). docs/meter-sim.md,
 * "Fault scenarios", gives each one's physics and what the truth shows.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "scenario.h"

/* The quiet download every fault starts from: firmware only, an 8 KiB image
 * at SZX 4 (33 blocks, a second of simulation), a radio that loses nothing
 * and a meter that drops nothing, the default 40 +- 10 ms backhaul, 100 ms
 * polls and ~100 ms of flash per block. Left alone it takes about 7 s, of
 * which nothing stands out; the faults add tens of seconds. */
static void quiet(sim_params_t *p)
{
    p->do_config = p->do_history = FALSE;
    p->image_size = 8 * 1024;
    sim_params_set_szx(p, 4);
    p->loss_model = LOSS_BERNOULLI;
    p->loss = 0;
    p->busy_drop = 0;
    p->max_duration_s = 3600;
}

/* Two hops of bursty 20% loss: most exchanges lose a fragment somewhere
 * and wait out ACK_TIMEOUT (seed 1: 235 s for the quiet 7 s). */
static void apply_radio_loss(sim_params_t *p)
{
    quiet(p);
    p->hops = 2;
    p->loss_model = LOSS_GILBERT_ELLIOTT;
    p->loss = 0.2;
}

/* A 1.5 s poll period on a lossless link: each response waits at the
 * parent for the meter's next poll. Below ACK_TIMEOUT (2 s), so nothing is
 * retransmitted; 3 s polls would bring spurious retransmissions instead. */
static void apply_poll(sim_params_t *p)
{
    quiet(p);
    p->poll_ms = 1500;
}

/* A 2.5-4.5 s backhaul round trip behind a lossless radio: every answer
 * comes after ACK_TIMEOUT, so the meter sends requests again whose answers
 * were only late (the truth's spurious_retransmissions). */
static void apply_spurious(sim_params_t *p)
{
    quiet(p);
    p->rtt_ms = 3500;
    p->rtt_jitter_ms = 2000;
}

/* A meter that takes a second between a block and its next request. */
static void apply_turnaround(sim_params_t *p)
{
    quiet(p);
    p->turnaround_ms = 1000;
}

/* A 1.15-1.45 s backhaul round trip: slow, but below ACK_TIMEOUT with the
 * radio's and the poll's time added, so nothing is retransmitted. */
static void apply_backhaul(sim_params_t *p)
{
    quiet(p);
    p->rtt_ms = 1300;
    p->rtt_jitter_ms = 300;
}

/* Meter 0's link goes for 60 s, 1.5 s into the download (which starts at
 * about 1 s and would take 3-7 s): its retransmissions die unheard, and it
 * carries on where it was once the link is back. */
static void apply_stall(sim_params_t *p)
{
    quiet(p);
    p->outage_meter = 0;
    p->outage_at_s = 2.5;
    p->outage_s = 60;
}

/* The meter asks for SZX 7; the gateway answers 4.02 Bad Option (with the
 * payload all the same, as node-coap does) and the meter starts again at
 * SZX 6. The refused transfer is the faulty one: nothing else goes wrong. */
static void apply_protocol(sim_params_t *p)
{
    quiet(p);
    sim_params_set_szx(p, 7);
}

/* A sniffer that misses 30% of the frames on the air, one at a time. */
static void apply_capture(sim_params_t *p)
{
    quiet(p);
    p->sniffer_miss = 0.3;
}

/* The quiet download as the gateway's Ethernet sees it: no radio at all. */
static void apply_gateway_view(sim_params_t *p)
{
    quiet(p);
    p->link = CAPTURE_GATEWAY;
}

static const scenario_t FAULTS[] = {
    { "fault-radio-loss", "fault: two hops of bursty 20% frame loss (cause radio_loss)", apply_radio_loss,
      "radio_loss" },
    { "fault-poll", "fault: the sleepy meter polls every 1.5 s, lossless link (cause poll_wait)", apply_poll,
      "poll_wait" },
    { "fault-spurious", "fault: 2.5-4.5 s backhaul round trip over ACK_TIMEOUT, lossless radio "
      "(cause spurious_retransmissions)", apply_spurious, "spurious_retransmissions" },
    { "fault-turnaround", "fault: the meter takes 1 s between blocks (cause turnaround)", apply_turnaround,
      "turnaround" },
    { "fault-backhaul", "fault: 1.15-1.45 s backhaul round trip, below ACK_TIMEOUT (cause backhaul)",
      apply_backhaul, "backhaul" },
    { "fault-stall", "fault: meter0's link is down for 60 s mid-download (cause stalls)", apply_stall, "stalls" },
    { "fault-protocol", "fault: SZX 7 refused with 4.02, the meter falls back to SZX 6 (cause protocol_error)",
      apply_protocol, "protocol_error" },
    { "fault-capture", "fault: the sniffer misses 30% of the frames (cause capture_imperfect)", apply_capture,
      "capture_imperfect" },
    { "fault-gateway-view", "fault: the quiet download captured at the gateway, no radio (cause capture_imperfect)",
      apply_gateway_view, "capture_imperfect" },
};

const scenario_t *scenario_faults(guint *n)
{
    *n = G_N_ELEMENTS(FAULTS);
    return FAULTS;
}
