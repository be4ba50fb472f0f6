/* scenario.c: parameter defaults and the named scenarios.
 *
 * The defaults describe one sleepy meter one hop from the border router on
 * a bursty link losing about 5% of frames; each scenario changes only what
 * it is about. The field-* scenarios are the calibrated field set (see
 * docs/meter-sim.md for what each number stands for physically).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "scenario.h"

static const guint8 THREAD_KEY[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                       0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };

void sim_params_defaults(sim_params_t *p)
{
    memset(p, 0, sizeof(*p));
    g_strlcpy(p->name, "default", sizeof(p->name));
    p->seed = 1;
    p->link = CAPTURE_WPAN_FCS;
    p->channel = 15;
    p->start_epoch_us = SIM_DEFAULT_START_US;
    p->max_duration_s = 4 * 3600;
    p->sniffer_at = SNIFFER_AT_METER;
    p->sniffer_near_hops = 1;

    p->hops = 1;
    p->n_meters = 1;
    p->n_background = 0;
    p->hidden_fraction = 0.3;
    p->sleepy = TRUE;
    p->poll_ms = 100;
    p->idle_poll_ms = 4000;

    p->loss_model = LOSS_GILBERT_ELLIOTT;
    p->loss = 0.05;
    p->ge_bad_ms = 40;
    p->ge_bad_loss = 0.9;
    p->ge_good_loss = 0.01;
    p->mac_max_frame_retries = 3;
    p->mac_max_csma_backoffs = 4;
    p->mac_min_be = 3;
    p->mac_max_be = 5;
    p->security = FALSE;
    memcpy(p->network_key, THREAD_KEY, 16);
    p->iphc_context = TRUE;

    p->rtt_ms = 40;
    p->rtt_jitter_ms = 20;
    p->gw_proc_ms = 2;
    p->separate_p = 0;
    p->separate_delay_ms = 800;

    p->coap_port = 5683;
    p->ack_timeout_s = 2.0;
    p->ack_random_factor = 1.5;
    p->max_retransmit = 4;
    p->max_rerequests = 3;
    p->resume_after_s = 30;
    p->max_resumes = 3;
    p->token_mode = TOKEN_PER_REQUEST;
    p->m_bit_in_requests = FALSE;

    p->turnaround_ms = 60;
    p->flash_us_per_byte = 150;
    p->erase_ms = 45;
    p->sector_size = 4096;
    p->busy_drop = 0.01;

    p->do_config = TRUE;
    p->do_history = TRUE;
    p->do_firmware = TRUE;
    for (int i = 0; i < SIM_MAX_METERS; i++)
        p->fw_szx[i] = 4;
    p->image_size = 12 * 1024;
    p->his_szx = 4;
    p->history_samples = 24;
    p->downloads = 1;
    p->same_mid = -1;
    p->download_interval_s = 3600;

    p->gw_max_szx = 6;
    p->gw_szx0 = GW_SZX0_NORMAL;
    p->gw_szx7_payload = TRUE;
    p->gw_size2 = TRUE;

    p->outage_meter = 0;
    p->bg_upload_interval_s = 60;
    p->mle_interval_s = 32;
    p->bg_ota_every = 4;
    p->bg_ota_szx = 4;
    p->bg_history_samples = 6;
    p->bg_hidden_relay = FALSE;
    p->block_gap_ms = 0;
}

static void apply_default(sim_params_t *p) { (void)p; }

/* The field measurement: a 512 kB image over a ~5% lossy link, 30-50 ms
 * round trip, firmware download only. */
static void field(sim_params_t *p, int szx)
{
    p->image_size = 512 * 1024 - 32 - 144;   /* the whole image file is 512 KiB */
    p->do_config = FALSE;
    p->do_history = FALSE;
    p->rtt_ms = 40;
    p->rtt_jitter_ms = 20;
    sim_params_set_szx(p, szx);
}
#define FIELD(n) static void apply_field##n(sim_params_t *p) { field(p, n); }
FIELD(1) FIELD(2) FIELD(3) FIELD(4) FIELD(5) FIELD(6)
#undef FIELD

static void apply_multihop(sim_params_t *p)
{
    p->hops = 3;
    sim_params_set_szx(p, 5);
}

static void apply_secure(sim_params_t *p)
{
    p->security = TRUE;
    p->hops = 2;
}

static void apply_busy(sim_params_t *p)
{
    p->n_background = 30;
    p->image_size = 8 * 1024;
    p->bg_upload_interval_s = 20;
}

/* The field report's busy network (shared/meter-protocol.md, "Field
 * reference"): about 30 nodes, where 256-byte blocks won at about 118 B/s and
 * 512- and 1024-byte transfers rarely completed. The meter sits behind a
 * router (two hops); half of the 30 other nodes are out of that router's
 * and the meter's range (hidden terminals: CSMA/CA cannot avoid them, their
 * frames collide with the meter's at the meter and its parent); each sends a
 * 6-hour load profile (24 samples, a three-block Block1 upload) about every
 * 10 s, every fourth keeps downloading other firmware at SZX 4, routers
 * advertise MLE. 5% loss over the path (2.5% per hop, bursty as in the
 * field set), 40 +- 10 ms round trip, firmware only, a 32 KiB image, and a
 * bound: what has not finished after 10 minutes (55 B/s) is "unfinished".
 * docs/meter-sim.md explains the shape and gives the sweeps. */
static void apply_busy_field(sim_params_t *p)
{
    p->hops = 2;
    p->n_background = 30;
    p->hidden_fraction = 0.5;
    p->bg_upload_interval_s = 10;
    p->bg_history_samples = 24;
    p->loss = 0.025;
    p->do_config = p->do_history = FALSE;
    p->image_size = 32 * 1024;
    p->max_duration_s = 600;
}

static void apply_bernoulli(sim_params_t *p)
{
    p->loss_model = LOSS_BERNOULLI;
    p->loss = 0.05;
    p->busy_drop = 0;
}

static void apply_router(sim_params_t *p)
{
    p->sleepy = FALSE;
    p->separate_p = 0.2;
}

static void apply_edge_szx7(sim_params_t *p)
{
    sim_params_set_szx(p, 7);
    p->do_config = p->do_history = FALSE;
    p->image_size = 4096;
}

static void apply_edge_szx0_empty(sim_params_t *p)
{
    sim_params_set_szx(p, 0);
    p->gw_szx0 = GW_SZX0_EMPTY;
    p->do_config = p->do_history = FALSE;
    p->image_size = 2048;
}

static void apply_edge_szx0_bad_option(sim_params_t *p)
{
    sim_params_set_szx(p, 0);
    p->gw_szx0 = GW_SZX0_BAD_OPTION;
    p->do_config = p->do_history = FALSE;
    p->image_size = 2048;
}

static void apply_renegotiate(sim_params_t *p)
{
    sim_params_set_szx(p, 6);
    p->gw_max_szx = 4;
    p->do_config = p->do_history = FALSE;
}

static void apply_openthread(sim_params_t *p)
{
    p->token_mode = TOKEN_FIRST_ONLY;
    p->m_bit_in_requests = TRUE;
    p->sleepy = TRUE;
    p->poll_ms = 500;
}

/* A slow backhaul: the round trip to the gateway (2-5 s) is longer than
 * ACK_TIMEOUT, so the meter retransmits requests whose answers are only
 * late, on a radio link that loses nothing. */
static void apply_slow_backhaul(sim_params_t *p)
{
    p->loss_model = LOSS_BERNOULLI;
    p->loss = 0;
    p->busy_drop = 0;
    p->rtt_ms = 3500;
    p->rtt_jitter_ms = 3000;
}

/* The same slow backhaul behind the usual bursty 5% radio link. */
static void apply_slow_lossy(sim_params_t *p)
{
    p->rtt_ms = 3500;
    p->rtt_jitter_ms = 3000;
}

/* The same image downloaded again and again, hours apart, by a meter that
 * reboots in between and so uses its Message IDs again; the second attempt
 * dies in a link outage and the third starts over from block 0. */
static void apply_repeat(sim_params_t *p)
{
    p->do_config = p->do_history = FALSE;
    p->image_size = 6 * 1024;
    p->downloads = 4;
    p->download_interval_s = 3 * 3600;
    p->reboot_mids = TRUE;
    p->idle_poll_ms = 30000;
    p->mle_interval_s = 300;
    p->max_duration_s = 12 * 3600;
    /* The first download ends after about 6 s; the second starts 3 h later. */
    p->outage_meter = 0;
    p->outage_at_s = 3 * 3600 + 9;
    p->outage_s = 600;
    p->max_resumes = 0;
}

/* Two meters at once on a three-hop path with background traffic: meter 0
 * loses its link for a while and resumes, meter 1 asks for 1024-byte blocks
 * and the gateway renegotiates to 256. */
static void apply_two_meters(sim_params_t *p)
{
    p->hops = 3;
    p->n_meters = 2;
    p->n_background = 4;
    p->do_config = p->do_history = FALSE;
    p->image_size = 12 * 1024;
    p->fw_szx[0] = 4;
    p->fw_szx[1] = 6;
    p->gw_max_szx = 4;
    /* Long enough that meter 0's exchange fails and it pauses, then resumes. */
    p->outage_meter = 0;
    p->outage_at_s = 8;
    p->outage_s = 80;
    p->max_rerequests = 0;
    p->resume_after_s = 15;
}

static const scenario_t SCENARIOS[] = {
    { "default", "one sleepy meter: config, history, 12 kB image at SZX 4, bursty 5% loss", apply_default, NULL },
    { "field-szx1", "field set: 512 kB image, SZX 1 (32-byte blocks)", apply_field1, NULL },
    { "field-szx2", "field set: 512 kB image, SZX 2 (64-byte blocks)", apply_field2, NULL },
    { "field-szx3", "field set: 512 kB image, SZX 3 (128-byte blocks)", apply_field3, NULL },
    { "field-szx4", "field set: 512 kB image, SZX 4 (256-byte blocks)", apply_field4, NULL },
    { "field-szx5", "field set: 512 kB image, SZX 5 (512-byte blocks)", apply_field5, NULL },
    { "field-szx6", "field set: 512 kB image, SZX 6 (1024-byte blocks)", apply_field6, NULL },
    { "multihop", "three mesh hops (mesh header on router links), SZX 5", apply_multihop, NULL },
    { "secure", "Thread MAC security (AES-CCM*, MIC-32), two hops", apply_secure, NULL },
    { "busy", "30 background nodes (MLE, uploads, other OTA), hidden terminals", apply_busy, NULL },
    { "busy-field", "the field's busy network: 2 hops, 30 nodes (half hidden) reporting every ~10 s, 32 KiB image, 10 min bound",
      apply_busy_field, NULL },
    { "bernoulli", "independent 5% frame loss, no meter drops", apply_bernoulli, NULL },
    { "router", "a non-sleepy meter; the gateway sends 20% separate responses", apply_router, NULL },
    { "edge-szx7", "meter asks SZX 7; gateway answers 4.02 with payload; meter falls back to SZX 6", apply_edge_szx7, NULL },
    { "edge-szx0-empty", "SZX 0 zero-length Block2; gateway answers 2.05, M=1, empty payload", apply_edge_szx0_empty, NULL },
    { "edge-szx0-bad-option", "SZX 0; gateway answers 4.02 Bad Option with payload", apply_edge_szx0_bad_option, NULL },
    { "renegotiate", "meter asks SZX 6, gateway answers SZX 4", apply_renegotiate, NULL },
    { "openthread", "OpenThread client habits: tokenless follow-up blocks, M=1 in requests", apply_openthread, NULL },
    { "two-meters", "two meters, three hops, background: one resumes after an outage, one renegotiates",
      apply_two_meters, NULL },
    { "repeat", "one image downloaded four times 3 h apart, Message IDs reused; the 2nd attempt dies in an outage",
      apply_repeat, NULL },
    { "slow-backhaul", "2-5 s round trip to the gateway, above ACK_TIMEOUT, on a radio link that loses nothing",
      apply_slow_backhaul, NULL },
    { "slow-lossy", "the slow backhaul behind the default bursty 5% radio link", apply_slow_lossy, NULL },
};

const scenario_t *scenario_ordinary(guint *n)
{
    *n = G_N_ELEMENTS(SCENARIOS);
    return SCENARIOS;
}
