/* truth_internal.h: the truth's state, kept by truth.c from the run's
 * events and written by truth_write.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_INTERNAL_H
#define TRUTH_INTERNAL_H
#include "truth.h"
#include "events.h"
#include "payloads.h"
#include "truth_on_air.h"
#include "truth_pair.h"
#include "truth_sniffer.h"
#include "truth_xfer.h"

/* What a sniffer hearing every transmission counts (docs/ground-truth.md, air). */
typedef struct {
    guint64 frames, acks, data_requests, broadcasts;
    guint64 fragment_frames, mac_retries, frames_unacked;
    guint64 datagrams, datagrams_fragmented, datagrams_delivered;
    guint64 coap_messages, block2_responses, con_retransmissions, reassembled;
} air_counts_t;

/* The same CoAP counts on the gateway's Ethernet. */
typedef struct {
    guint64 coap_messages, block2_responses, con_retransmissions;
} gw_counts_t;

typedef struct {
    const node_t  *node;
    meter_config_t cfg;
} config_entry_t;

struct truth {
    const world_t *w;
    sim_listener_t listener;     /* its callbacks, with this truth as their context */
    GPtrArray    *xfers;         /* truth_xfer_t*, by id - 1 */
    air_counts_t  air;
    gw_counts_t   gw;
    GHashTable   *air_seen;      /* "hop-src>hop-dst|origin|mid" of CON copies */
    GHashTable   *gw_seen;
    GArray       *configs;       /* config_entry_t, the meters' in the order they took them */
    GHashTable   *history;       /* node_t* -> GArray of senml_sample_t */
    on_air_t     *on_air;        /* per transfer, what a sniffer can find */
    sniffer_truth_t *sniffer;    /* what this capture's sniffer did not capture */
    pair_truth_t *pair;          /* --gateway-output: the two vantage points, message by message */
    const char   *gateway_capture;
    guint8        firmware_pubkey[32];
    gint64        end_us;        /* when the run stopped, simulation time */
};

#endif
