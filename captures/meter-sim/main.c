/* main.c: meter-sim, the capture generator's command line.
 *
 * meter-sim [--scenario NAME] [--seed N] --output FILE [parameters...]
 * writes FILE (pcap) and FILE.truth.json, deterministic for a given seed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "capture_writer.h"
#include "scenario.h"
#include "run.h"
#include "truth.h"
#include "world.h"

#ifndef METERSCOPE_VERSION
#define METERSCOPE_VERSION "0.0.0"
#endif

static char *opt_scenario, *opt_output, *opt_link, *opt_loss_model, *opt_token, *opt_key,
    *opt_szx_list, *opt_gw_szx0, *opt_timestamp, *opt_sniffer_at, *opt_gateway_output;
static gint64 opt_seed = -1, opt_start = -1;
static int opt_szx = -1, opt_image_size = -1, opt_channel = -1, opt_coap_port = -1, opt_sniffer_position = G_MININT;
static gboolean opt_quiet, opt_version, opt_no_szx7_payload;

static gboolean parse_hex_key(const char *hex, guint8 out[16])
{
    if (strlen(hex) != 32)
        return FALSE;
    for (int i = 0; i < 16; i++) {
        int hi = g_ascii_xdigit_value(hex[2 * i]), lo = g_ascii_xdigit_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return FALSE;
        out[i] = (guint8)(hi << 4 | lo);
    }
    return TRUE;
}

static char *scenario_help(void)
{
    const scenario_t *s;
    GString *h = g_string_new("Scenarios (--scenario):\n");

    for (guint i = 0; (s = scenario_nth(i)) != NULL; i++)
        g_string_append_printf(h, "  %-22s %s\n", s->name, s->summary);
    g_string_append(h, "\nWrites FILE and FILE.truth.json (the ground truth; see docs/ground-truth.md).\n"
                       "Parameters given on the command line override the scenario's.");
    return g_string_free(h, FALSE);
}

/* The scenario must be applied before the other options override it. */
static const char *find_scenario_arg(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc)
            return argv[i + 1];
        if (g_str_has_prefix(argv[i], "--scenario="))
            return argv[i] + 11;
    }
    return NULL;
}

static int fail(const char *msg)
{
    fprintf(stderr, "meter-sim: %s\n", msg);
    return 1;
}

int main(int argc, char **argv)
{
    sim_params_t p;
    const char *scen_name = find_scenario_arg(argc, argv);
    const scenario_t *scen = scenario_find(scen_name ? scen_name : "default");
    GError *err = NULL;

    sim_params_defaults(&p);
    if (scen) {
        scen->apply(&p);
        g_strlcpy(p.name, scen->name, sizeof(p.name));
        p.injected_cause = scen->cause;
    }

    GOptionEntry entries[] = {
        { "scenario", 0, 0, G_OPTION_ARG_STRING, &opt_scenario, "Named scenario (see below)", "NAME" },
        { "seed", 's', 0, G_OPTION_ARG_INT64, &opt_seed, "Random seed (default 1)", "N" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output, "Capture file to write", "FILE" },
        { "link", 0, 0, G_OPTION_ARG_STRING, &opt_link, "195, 230, 283, zep or gateway (default 195)", "TYPE" },
        { "timestamp", 0, 0, G_OPTION_ARG_STRING, &opt_timestamp,
          "What a frame's timestamp marks: end (default), start, or host (end + 0.5-4 ms)", "MODE" },
        { "sniffer-miss", 0, 0, G_OPTION_ARG_DOUBLE, &p.sniffer_miss,
          "Share of the frames on the air the sniffer misses (default 0: it hears all)", "P" },
        { "sniffer-burst", 0, 0, G_OPTION_ARG_DOUBLE, &p.sniffer_burst,
          "Its misses come in runs of this mean length, in frames (default: independent)", "MEAN_LEN" },
        { "sniffer-at", 0, 0, G_OPTION_ARG_STRING, &opt_sniffer_at,
          "Where the sniffer sits: meter (next to meter0, the default) or border-router", "NODE" },
        { "sniffer-position", 0, 0, G_OPTION_ARG_INT, &opt_sniffer_position,
          "Nodes more than HOPS mesh hops from it are far (default 1)", "HOPS" },
        { "sniffer-far-miss", 0, 0, G_OPTION_ARG_DOUBLE, &p.sniffer_far_miss,
          "Extra miss probability of a far node's frames (default 0)", "P" },
        { "channel", 0, 0, G_OPTION_ARG_INT, &opt_channel, "IEEE 802.15.4 channel 11..26 (default 15)", "N" },
        { "start", 0, 0, G_OPTION_ARG_INT64, &opt_start, "Capture start, UNIX seconds", "T" },
        { "max-duration", 0, 0, G_OPTION_ARG_DOUBLE, &p.max_duration_s, "Stop the simulation after S seconds", "S" },
        { "hops", 0, 0, G_OPTION_ARG_INT, &p.hops, "Mesh hops meter to border router, 1..3", "N" },
        { "meters", 0, 0, G_OPTION_ARG_INT, &p.n_meters, "Meters running the script, 1..8", "N" },
        { "background", 0, 0, G_OPTION_ARG_INT, &p.n_background, "Background nodes, 0..30", "N" },
        { "hidden-fraction", 0, 0, G_OPTION_ARG_DOUBLE, &p.hidden_fraction, "Share of background nodes hidden from the meters", "F" },
        { "rx-on-when-idle", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &p.sleepy, "Meters are routers, not sleepy end devices", NULL },
        { "poll-ms", 0, 0, G_OPTION_ARG_INT, &p.poll_ms, "SED data poll period during an exchange", "MS" },
        { "idle-poll-ms", 0, 0, G_OPTION_ARG_INT, &p.idle_poll_ms, "SED data poll period when idle", "MS" },
        { "loss-model", 0, 0, G_OPTION_ARG_STRING, &opt_loss_model, "bernoulli or gilbert (default gilbert)", "M" },
        { "loss", 0, 0, G_OPTION_ARG_DOUBLE, &p.loss, "Average frame loss probability", "P" },
        { "ge-bad-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.ge_bad_ms, "Gilbert-Elliott: mean bad period", "MS" },
        { "ge-bad-loss", 0, 0, G_OPTION_ARG_DOUBLE, &p.ge_bad_loss, "Gilbert-Elliott: loss while bad", "P" },
        { "ge-good-loss", 0, 0, G_OPTION_ARG_DOUBLE, &p.ge_good_loss, "Gilbert-Elliott: loss while good", "P" },
        { "mac-retries", 0, 0, G_OPTION_ARG_INT, &p.mac_max_frame_retries, "macMaxFrameRetries (default 3)", "N" },
        { "csma-backoffs", 0, 0, G_OPTION_ARG_INT, &p.mac_max_csma_backoffs, "macMaxCSMABackoffs (default 4)", "N" },
        { "min-be", 0, 0, G_OPTION_ARG_INT, &p.mac_min_be, "macMinBE (default 3)", "N" },
        { "max-be", 0, 0, G_OPTION_ARG_INT, &p.mac_max_be, "macMaxBE (default 5)", "N" },
        { "security", 0, 0, G_OPTION_ARG_NONE, &p.security, "Thread MAC security (AES-CCM*, MIC-32, key id mode 1)", NULL },
        { "network-key", 0, 0, G_OPTION_ARG_STRING, &opt_key, "Thread network key, 32 hex digits", "HEX" },
        { "no-iphc-context", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &p.iphc_context, "Carry full source addresses inline", NULL },
        { "rtt-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.rtt_ms, "Border router to gateway round trip", "MS" },
        { "rtt-jitter-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.rtt_jitter_ms, "... its jitter (uniform span)", "MS" },
        { "gateway-output", 0, 0, G_OPTION_ARG_FILENAME, &opt_gateway_output,
          "Also write the gateway's Ethernet capture of the same run to FILE", "FILE" },
        { "gateway-clock-offset-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.gw_clock_offset_ms,
          "The gateway capture's clock ahead of the radio's at the start (default 0)", "MS" },
        { "gateway-clock-drift-ppm", 0, 0, G_OPTION_ARG_DOUBLE, &p.gw_clock_drift_ppm,
          "... and running fast by this many parts per million (default 0)", "PPM" },
        { "backhaul-loss", 0, 0, G_OPTION_ARG_DOUBLE, &p.backhaul_loss,
          "Datagrams lost between border router and gateway, each way (default 0)", "P" },
        { "backhaul-delay-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.backhaul_delay_ms,
          "Extra one-way backhaul delay, uniform 0..MS (default 0)", "MS" },
        { "gw-proc-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.gw_proc_ms, "Gateway processing time", "MS" },
        { "separate-p", 0, 0, G_OPTION_ARG_DOUBLE, &p.separate_p, "Probability of a separate response", "P" },
        { "separate-delay-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.separate_delay_ms, "Delay of a separate response", "MS" },
        { "coap-port", 0, 0, G_OPTION_ARG_INT, &opt_coap_port,
          "UDP port of the meters' and the gateway's CoAP (default 5683)", "PORT" },
        { "ack-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &p.ack_timeout_s, "CoAP ACK_TIMEOUT (default 2)", "S" },
        { "ack-random-factor", 0, 0, G_OPTION_ARG_DOUBLE, &p.ack_random_factor, "CoAP ACK_RANDOM_FACTOR (default 1.5)", "F" },
        { "max-retransmit", 0, 0, G_OPTION_ARG_INT, &p.max_retransmit, "CoAP MAX_RETRANSMIT (default 4)", "N" },
        { "max-rerequests", 0, 0, G_OPTION_ARG_INT, &p.max_rerequests, "New-MID re-requests of a block before pausing", "N" },
        { "resume-after", 0, 0, G_OPTION_ARG_DOUBLE, &p.resume_after_s, "Pause before resuming a transfer", "S" },
        { "max-resumes", 0, 0, G_OPTION_ARG_INT, &p.max_resumes, "Resumes before the meter gives up", "N" },
        { "token", 0, 0, G_OPTION_ARG_STRING, &opt_token, "per-request, per-transfer or first-only", "MODE" },
        { "m-bit-in-requests", 0, 0, G_OPTION_ARG_NONE, &p.m_bit_in_requests, "Set M=1 in Block2 requests (OpenThread)", NULL },
        { "turnaround-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.turnaround_ms, "Meter's fixed processing per response", "MS" },
        { "flash-us-per-byte", 0, 0, G_OPTION_ARG_DOUBLE, &p.flash_us_per_byte, "SPI flash programming time", "US" },
        { "erase-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.erase_ms, "Flash sector erase time", "MS" },
        { "sector-size", 0, 0, G_OPTION_ARG_INT, &p.sector_size, "Flash sector size", "BYTES" },
        { "busy-drop", 0, 0, G_OPTION_ARG_DOUBLE, &p.busy_drop, "Meter drops a datagram it ACKed", "P" },
        { "no-config", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &p.do_config, "Skip the config fetch", NULL },
        { "no-history", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &p.do_history, "Skip the history upload", NULL },
        { "no-firmware", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &p.do_firmware, "Skip the firmware download", NULL },
        { "szx", 0, 0, G_OPTION_ARG_INT, &opt_szx, "Firmware block SZX for every meter, 0..7", "N" },
        { "szx-list", 0, 0, G_OPTION_ARG_STRING, &opt_szx_list, "Per-meter SZX, e.g. 4,6", "LIST" },
        { "image-size", 0, 0, G_OPTION_ARG_INT, &opt_image_size, "Firmware body size", "BYTES" },
        { "his-szx", 0, 0, G_OPTION_ARG_INT, &p.his_szx, "Block1 SZX of history uploads", "N" },
        { "history-samples", 0, 0, G_OPTION_ARG_INT, &p.history_samples, "Samples per history upload, 1..64", "N" },
        { "gw-max-szx", 0, 0, G_OPTION_ARG_INT, &p.gw_max_szx, "Largest SZX the gateway answers with", "N" },
        { "gw-szx0", 0, 0, G_OPTION_ARG_STRING, &opt_gw_szx0, "normal, bad-option or empty", "MODE" },
        { "gw-szx7-no-payload", 0, 0, G_OPTION_ARG_NONE, &opt_no_szx7_payload, "Answer SZX 7 with 4.00 and no payload", NULL },
        { "gw-no-size2", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &p.gw_size2,
          "Send no Size2 with block 0 (the image's size then comes from the config blob or the image)", NULL },
        { "downloads", 0, 0, G_OPTION_ARG_INT, &p.downloads, "Firmware downloads by each meter, 1..100", "N" },
        { "download-interval", 0, 0, G_OPTION_ARG_DOUBLE, &p.download_interval_s,
          "Seconds from the end of one download to the start of the next", "S" },
        { "reboot-mids", 0, 0, G_OPTION_ARG_NONE, &p.reboot_mids,
          "Each download starts its Message IDs where the first did (a reboot)", NULL },
        { "same-mid", 0, 0, G_OPTION_ARG_INT, &p.same_mid,
          "Every request of the meters carries this Message ID, 0..65535 (a broken client)", "MID" },
        { "outage-at", 0, 0, G_OPTION_ARG_DOUBLE, &p.outage_at_s, "Meter link outage start", "S" },
        { "outage", 0, 0, G_OPTION_ARG_DOUBLE, &p.outage_s, "Meter link outage length", "S" },
        { "outage-meter", 0, 0, G_OPTION_ARG_INT, &p.outage_meter, "Which meter loses its link", "N" },
        { "bg-upload-interval", 0, 0, G_OPTION_ARG_DOUBLE, &p.bg_upload_interval_s, "Background nodes' upload period", "S" },
        { "bg-ota-every", 0, 0, G_OPTION_ARG_INT, &p.bg_ota_every, "Every Nth node (by index) of the background downloads firmware, repeatedly (default 4; 0: none)", "N" },
        { "bg-ota-szx", 0, 0, G_OPTION_ARG_INT, &p.bg_ota_szx, "... at this block SZX, 1..6 (default 4)", "N" },
        { "bg-history-samples", 0, 0, G_OPTION_ARG_INT, &p.bg_history_samples, "Samples in a background node's periodic report, 1..64 (default 6)", "N" },
        { "bg-hidden-relay", 0, 0, G_OPTION_ARG_NONE, &p.bg_hidden_relay, "Hidden background nodes reach the border router through one hidden router", NULL },
        { "block-gap-ms", 0, 0, G_OPTION_ARG_DOUBLE, &p.block_gap_ms, "Pacing: the meter's extra wait before each next block request (default 0)", "MS" },
        { "mle-interval", 0, 0, G_OPTION_ARG_DOUBLE, &p.mle_interval_s, "MLE advertisement period", "S" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Print no summary", NULL },
        { "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version, "Print the version", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("- write a simulated Thread meter sniffer capture");
    char *desc = scenario_help();
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx, desc);
    g_free(desc);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "meter-sim: %s (try --help)\n", err->message);
        return 1;
    }
    g_option_context_free(ctx);
    if (opt_version) {
        printf("meter-sim %s\n", METERSCOPE_VERSION);
        return 0;
    }
    if (scen_name && !scen)
        return fail("unknown scenario (see --help)");
    if (!opt_output)
        return fail("--output FILE is required (try --help)");

    if (opt_seed >= 0)
        p.seed = (guint64)opt_seed;
    if (opt_start >= 0)
        p.start_epoch_us = opt_start * 1000000;
    if (opt_channel >= 0) {
        if (opt_channel < 11 || opt_channel > 26)
            return fail("--channel must be 11..26");
        p.channel = (guint8)opt_channel;
    }
    if (opt_coap_port >= 0) {
        /* 19788 is MLE's: its frames would read as CoAP. */
        if (opt_coap_port < 1 || opt_coap_port > 65535 || opt_coap_port == 19788)
            return fail("--coap-port must be 1..65535, not MLE's 19788");
        p.coap_port = (guint16)opt_coap_port;
    }
    if (opt_timestamp) {
        if (strcmp(opt_timestamp, "end") == 0) p.stamp = STAMP_END;
        else if (strcmp(opt_timestamp, "start") == 0) p.stamp = STAMP_START;
        else if (strcmp(opt_timestamp, "host") == 0) p.stamp = STAMP_HOST;
        else return fail("--timestamp must be end, start or host");
    }
    if (opt_sniffer_at) {
        if (strcmp(opt_sniffer_at, "meter") == 0) p.sniffer_at = SNIFFER_AT_METER;
        else if (strcmp(opt_sniffer_at, "border-router") == 0) p.sniffer_at = SNIFFER_AT_BORDER_ROUTER;
        else return fail("--sniffer-at must be meter or border-router");
    }
    if (opt_sniffer_position >= 0)
        p.sniffer_near_hops = opt_sniffer_position;
    else if (opt_sniffer_position != G_MININT)
        return fail("--sniffer-position must be 0 or more hops");
    if (opt_link) {
        if (strcmp(opt_link, "195") == 0) p.link = CAPTURE_WPAN_FCS;
        else if (strcmp(opt_link, "230") == 0) p.link = CAPTURE_WPAN_NOFCS;
        else if (strcmp(opt_link, "283") == 0) p.link = CAPTURE_WPAN_TAP;
        else if (strcmp(opt_link, "zep") == 0) p.link = CAPTURE_ZEP;
        else if (strcmp(opt_link, "gateway") == 0) p.link = CAPTURE_GATEWAY;
        else return fail("--link must be 195, 230, 283, zep or gateway");
    }
    if (opt_loss_model) {
        if (strcmp(opt_loss_model, "bernoulli") == 0) p.loss_model = LOSS_BERNOULLI;
        else if (strcmp(opt_loss_model, "gilbert") == 0) p.loss_model = LOSS_GILBERT_ELLIOTT;
        else return fail("--loss-model must be bernoulli or gilbert");
    }
    if (opt_token) {
        if (strcmp(opt_token, "per-request") == 0) p.token_mode = TOKEN_PER_REQUEST;
        else if (strcmp(opt_token, "per-transfer") == 0) p.token_mode = TOKEN_PER_TRANSFER;
        else if (strcmp(opt_token, "first-only") == 0) p.token_mode = TOKEN_FIRST_ONLY;
        else return fail("--token must be per-request, per-transfer or first-only");
    }
    if (opt_gw_szx0) {
        if (strcmp(opt_gw_szx0, "normal") == 0) p.gw_szx0 = GW_SZX0_NORMAL;
        else if (strcmp(opt_gw_szx0, "bad-option") == 0) p.gw_szx0 = GW_SZX0_BAD_OPTION;
        else if (strcmp(opt_gw_szx0, "empty") == 0) p.gw_szx0 = GW_SZX0_EMPTY;
        else return fail("--gw-szx0 must be normal, bad-option or empty");
    }
    if (opt_no_szx7_payload)
        p.gw_szx7_payload = FALSE;
    if (opt_key && !parse_hex_key(opt_key, p.network_key))
        return fail("--network-key must be 32 hex digits");
    if (opt_szx >= 0)
        for (int i = 0; i < SIM_MAX_METERS; i++)
            p.fw_szx[i] = opt_szx;
    if (opt_szx_list) {
        gchar **v = g_strsplit(opt_szx_list, ",", SIM_MAX_METERS);
        for (int i = 0; v[i]; i++)
            p.fw_szx[i] = atoi(v[i]);
        g_strfreev(v);
    }
    if (opt_image_size >= 0)
        p.image_size = (guint32)opt_image_size;

    if (p.hops < 1 || p.hops > 3)
        return fail("--hops must be 1..3");
    if (p.n_meters < 1 || p.n_meters > SIM_MAX_METERS)
        return fail("--meters must be 1..8");
    if (p.n_background < 0 || p.n_background > 30)
        return fail("--background must be 0..30");
    if (p.bg_ota_every < 0)
        return fail("--bg-ota-every must be 0 or more");
    if (p.bg_ota_szx < 1 || p.bg_ota_szx > 6)
        return fail("--bg-ota-szx must be 1..6");
    if (p.bg_history_samples < 1 || p.bg_history_samples > 64)
        return fail("--bg-history-samples must be 1..64");
    if (p.block_gap_ms < 0 || p.block_gap_ms > 1e7)
        return fail("--block-gap-ms must be 0..1e7");
    for (int i = 0; i < p.n_meters; i++)
        if (p.fw_szx[i] < 0 || p.fw_szx[i] > 7)
            return fail("SZX must be 0..7");
    if (p.his_szx < 0 || p.his_szx > 6 || p.gw_max_szx < 0 || p.gw_max_szx > 6)
        return fail("--his-szx and --gw-max-szx must be 0..6");
    if (p.image_size < 1 || p.image_size > 4 * 1024 * 1024)
        return fail("--image-size must be 1..4194304");
    if (p.loss < 0 || p.loss > 1 || p.busy_drop < 0 || p.busy_drop > 1)
        return fail("probabilities must be within 0..1");
    if (!(p.sniffer_miss >= 0 && p.sniffer_miss < 1) || !(p.sniffer_far_miss >= 0 && p.sniffer_far_miss <= 1))
        return fail("--sniffer-miss must be within 0..1 (1 excluded), --sniffer-far-miss within 0..1");
    /* Burst chain: the good-to-bad step P / (L (1 - P)) must be a probability. */
    if (p.sniffer_burst != 0 && !(p.sniffer_burst >= 1 && p.sniffer_burst < 1e9 &&
                                  p.sniffer_miss <= p.sniffer_burst * (1 - p.sniffer_miss)))
        return fail("--sniffer-burst is a mean run length in frames: at least 1, and at least P/(1-P)");
    if (p.link == CAPTURE_GATEWAY && (p.sniffer_miss > 0 || p.sniffer_far_miss > 0))
        return fail("--sniffer-miss and --sniffer-far-miss model a radio sniffer, not the gateway's Ethernet");
    if (!(p.backhaul_loss >= 0 && p.backhaul_loss < 1) || !(p.backhaul_delay_ms >= 0 && p.backhaul_delay_ms <= 1e7))
        return fail("--backhaul-loss must be within 0..1 (1 excluded), --backhaul-delay-ms within 0..1e7");
    if (!(fabs(p.gw_clock_offset_ms) <= 1e10) || !(fabs(p.gw_clock_drift_ppm) <= 1e5))
        return fail("--gateway-clock-offset-ms must be within +-1e10, --gateway-clock-drift-ppm within +-1e5");
    if (!opt_gateway_output && (p.gw_clock_offset_ms != 0 || p.gw_clock_drift_ppm != 0))
        return fail("--gateway-clock-offset-ms and --gateway-clock-drift-ppm are the clock of --gateway-output FILE");
    if (opt_gateway_output && p.link == CAPTURE_GATEWAY)
        return fail("--gateway-output writes the gateway's side beside a radio capture: not with --link gateway");
    if (opt_gateway_output && strcmp(opt_gateway_output, opt_output) == 0)
        return fail("--gateway-output must be another file than --output");
    p.gateway_pair = opt_gateway_output != NULL;
    if (p.mac_min_be < 0 || p.mac_max_be > 8 || p.mac_min_be > p.mac_max_be)
        return fail("need 0 <= --min-be <= --max-be <= 8");
    if (p.poll_ms < 1 || p.idle_poll_ms < 1 || p.ack_timeout_s <= 0 || p.ack_random_factor < 1)
        return fail("timers must be positive (and ACK_RANDOM_FACTOR >= 1)");
    if (p.same_mid > 65535)
        return fail("--same-mid is a Message ID, 0..65535");
    if (p.downloads < 1 || p.downloads > 100 || !(p.download_interval_s >= 0 && p.download_interval_s < 1e7))
        return fail("need 1 <= --downloads <= 100 and 0 <= --download-interval < 1e7");

    capture_writer_t *cap = capture_writer_open(opt_output, p.link, p.channel, &err);
    if (!cap) {
        fprintf(stderr, "meter-sim: %s\n", err->message);
        return 1;
    }
    capture_writer_t *gw_cap = NULL;
    if (opt_gateway_output) {
        gw_cap = capture_writer_open(opt_gateway_output, CAPTURE_GATEWAY, p.channel, &err);
        if (!gw_cap) {
            fprintf(stderr, "meter-sim: %s\n", err->message);
            return 1;
        }
    }
    run_t *run = run_new(&p, cap, gw_cap, opt_gateway_output, &err);
    if (!run) {
        fprintf(stderr, "meter-sim: %s\n", err->message);
        return 1;
    }
    run_execute(run);

    truth_t *truth = run_truth(run);
    char *truth_path = g_strconcat(opt_output, ".truth.json", NULL);
    guint64 records = capture_writer_count(cap);
    int rc = 0;
    /* The truth file counts the records, so write it before closing. */
    if (!truth_write_json(truth, truth_path, opt_output, &err) || !capture_writer_close(cap, &err) ||
        (gw_cap && !capture_writer_close(gw_cap, &err))) {
        fprintf(stderr, "meter-sim: %s\n", err->message);
        rc = 1;
    } else if (!opt_quiet) {
        printf("%s: scenario %s, seed %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " records\n", opt_output,
               p.name, p.seed, records);
        truth_print_summary(truth, stdout);
    }
    g_free(truth_path);
    run_free(run);
    return rc;
}
