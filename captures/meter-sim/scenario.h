/* scenario.h: every physical and protocol parameter of a simulation run,
 * their defaults, and the named scenarios that override them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SCENARIO_H
#define SCENARIO_H
#include <glib.h>
#include "capture_writer.h"

#define SIM_MAX_METERS 8
#define SIM_DEFAULT_START_US (G_GINT64_CONSTANT(1772359200) * 1000000)   /* 2026-03-01 10:00:00 UTC */

typedef enum { LOSS_BERNOULLI, LOSS_GILBERT_ELLIOTT } loss_model_t;
typedef enum { TOKEN_PER_REQUEST, TOKEN_PER_TRANSFER, TOKEN_FIRST_ONLY } token_mode_t;
typedef enum { GW_SZX0_NORMAL, GW_SZX0_BAD_OPTION, GW_SZX0_EMPTY } gw_szx0_t;
/* The instant a sniffer stamps a frame at: its end (most radios' RX-done
 * event), its start (the SFD, as TI's sniffers do), or its arrival at the
 * host, 0.5-4 ms after its end and never before the frame before it. */
typedef enum { STAMP_END, STAMP_START, STAMP_HOST } stamp_mode_t;
/* The node the sniffer sits next to: the first meter (a field engineer's
 * dongle) or the border router (a sniffer installed with the network). */
typedef enum { SNIFFER_AT_METER, SNIFFER_AT_BORDER_ROUTER } sniffer_at_t;

typedef struct {
    char     name[32];
    /* The cause of lost time a fault scenario injects (scenario_t.cause),
     * for the truth; NULL for the others. */
    const char *injected_cause;
    guint64  seed;
    capture_kind_t link;
    guint8   channel;
    gint64   start_epoch_us;       /* capture start, UNIX microseconds */
    double   max_duration_s;       /* the simulation stops here whatever happens */
    stamp_mode_t stamp;            /* what the sniffer's timestamps mark */

    /* The sniffer's own misses (sniffer.c); none by default */
    double   sniffer_miss;         /* long-run share of frames its miss process misses */
    double   sniffer_burst;        /* > 0: mean length of a run of misses, in frames (Gilbert) */
    sniffer_at_t sniffer_at;
    int      sniffer_near_hops;    /* nodes within this many mesh hops of it are near */
    double   sniffer_far_miss;     /* extra miss probability of a far node's frame */

    /* Topology */
    int      hops;                 /* meter to border router: 1..3 */
    int      n_meters;             /* meters running the task script */
    int      n_background;         /* other Thread nodes: 0..30 */
    double   hidden_fraction;      /* background nodes the meters' path cannot hear */
    gboolean sleepy;               /* meters are sleepy end devices */
    int      poll_ms;              /* SED data poll period while an exchange is open */
    int      idle_poll_ms;         /* ... and between tasks */

    /* IEEE 802.15.4 radio and MAC */
    loss_model_t loss_model;
    double   loss;                 /* long-run average frame loss probability */
    double   ge_bad_ms;            /* Gilbert-Elliott: mean length of a bad period */
    double   ge_bad_loss;          /* frame loss while bad */
    double   ge_good_loss;         /* frame loss while good */
    int      mac_max_frame_retries;
    int      mac_max_csma_backoffs;
    int      mac_min_be, mac_max_be;
    gboolean security;
    guint8   network_key[16];
    gboolean iphc_context;         /* compress the on-mesh prefix with context 1 */

    /* Border router to cloud gateway */
    double   rtt_ms, rtt_jitter_ms;
    double   gw_proc_ms;
    /* The gateway's own capture of the same run (meter-sim --gateway-output,
     * backhaul.c): its clock, and a backhaul that loses and delays */
    gboolean gateway_pair;         /* a second capture at the gateway is written */
    double   gw_clock_offset_ms;   /* its clock minus the true time at the capture start */
    double   gw_clock_drift_ppm;   /* and how fast it runs ahead, parts per million */
    double   backhaul_loss;        /* each datagram between border router and gateway, each way */
    double   backhaul_delay_ms;    /* extra one-way delay, uniform 0..this */
    double   separate_p;           /* probability of an empty ACK + separate response */
    double   separate_delay_ms;

    /* CoAP (RFC 7252 4.8) */
    guint16  coap_port;            /* UDP port of every CoAP endpoint (5683; 0xF0Bx is NHC-compressed) */
    double   ack_timeout_s, ack_random_factor;
    int      max_retransmit;
    int      max_rerequests;       /* new-MID re-requests of one block before pausing */
    double   resume_after_s;       /* pause before resuming an interrupted transfer */
    int      max_resumes;
    token_mode_t token_mode;
    gboolean m_bit_in_requests;    /* OpenThread sets M=1 in Block2 requests */

    /* Meter application and flash */
    double   turnaround_ms;        /* fixed processing between response and next request */
    double   flash_us_per_byte;    /* SPI flash programming */
    double   erase_ms;             /* sector erase when a block starts a new sector */
    int      sector_size;
    double   busy_drop;            /* meter drops a complete datagram it already ACKed */

    /* Tasks */
    gboolean do_config, do_history, do_firmware;
    int      fw_szx[SIM_MAX_METERS]; /* requested SZX per meter (0..7) */
    guint32  image_size;           /* firmware body size, bytes */
    int      his_szx;
    int      history_samples;
    int      downloads;            /* firmware downloads by each meter, one after the other */
    double   download_interval_s;  /* from the end of one to the start of the next */
    gboolean reboot_mids;          /* each download starts its Message IDs where the first did */
    int      same_mid;             /* >= 0: every request of the meters carries this MID (a broken client) */

    /* Gateway behaviour */
    int      gw_max_szx;           /* answers with min(asked, this): renegotiation */
    gw_szx0_t gw_szx0;
    gboolean gw_szx7_payload;      /* node-coap: 4.02 Bad Option for SZX 7, payload anyway */
    gboolean gw_size2;             /* Size2 (the image's length) in the answer to block 0 */

    /* A link outage of meter 0 (seconds from start; 0 = none) */
    double   outage_at_s, outage_s;
    int      outage_meter;

    /* Background traffic */
    double   bg_upload_interval_s;
    double   mle_interval_s;
    int      bg_ota_every;         /* every Nth node (by index) of the background downloads firmware, again and again */
    int      bg_ota_szx;           /* ... at this block size */
    int      bg_history_samples;   /* samples in a background node's periodic report */
    gboolean bg_hidden_relay;      /* hidden background nodes reach the border router through one hidden router */

    /* Pacing: the meter waits this long after its turn-around before the next block request */
    double   block_gap_ms;
} sim_params_t;

typedef struct {
    const char *name;
    const char *summary;
    void (*apply)(sim_params_t *p);
    /* A fault scenario's dominant cause of lost time, in the analyser's
     * verdict vocabulary (radio_loss, poll_wait, ...); NULL otherwise. */
    const char *cause;
} scenario_t;

void sim_params_defaults(sim_params_t *p);
/* Every meter asks for firmware blocks of this SZX (inline: the ordinary
 * and the fault scenarios both use it, and neither file calls the other's). */
static inline void sim_params_set_szx(sim_params_t *p, int szx)
{
    for (int i = 0; i < SIM_MAX_METERS; i++)
        p->fw_szx[i] = szx;
}
/* scenario_list.c: a scenario by name; the i-th, the ordinary ones then
 * the fault ones, NULL past the last. */
const scenario_t *scenario_find(const char *name);
const scenario_t *scenario_nth(guint i);

/* The ordinary scenarios (scenario.c) and the fault scenarios (scenario_faults.c). */
const scenario_t *scenario_ordinary(guint *n);
const scenario_t *scenario_faults(guint *n);

#endif
