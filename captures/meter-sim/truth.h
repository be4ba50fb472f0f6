/* truth.h: the ground truth of a run, written beside the capture as JSON:
 * per block-wise transfer the numbers the plugin and the analyser must find,
 * plus what a sniffer sees in the capture as a whole. Every definition is in
 * docs/ground-truth.md.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_H
#define TRUTH_H
#include <stdio.h>
#include "world.h"
#include "payloads.h"

struct truth_xfer {
    int      id;
    node_t  *meter;
    gboolean background;
    char     kind[8];            /* "block2" or "block1" */
    char     method[8];
    char     path[64];
    char     query[32];
    int      szx_requested, szx;
    gboolean renegotiated;
    guint32  resource_size;      /* image or SenML pack, bytes */
    guint8   sha256[32];
    gboolean has_sha256;
    guint32  blocks;             /* distinct blocks delivered to the meter / gateway */
    guint32  bytes;              /* contiguous bytes delivered */
    guint32  requests;           /* request transmissions, all kinds */
    guint32  coap_retransmissions;    /* meter's CON retransmissions (same MID) */
    guint32  gateway_retransmissions; /* gateway's separate-response retransmissions */
    guint32  rerequests;         /* same block again with a new MID */
    guint32  resumes;
    guint32  separate_responses;
    guint32  duplicate_responses;
    guint32  error_responses;
    guint32  dropped_by_meter;
    guint32  mac_retries;
    guint32  datagrams_sent, datagrams_fragmented, datagrams_delivered;
    guint32  fragments_sent, fragments_unacked;
    char     outcome[16];        /* complete, aborted, unfinished */
    gint64   air_first_request_us, air_last_response_us, air_last_activity_us;
    gint64   gw_first_request_us, gw_last_response_us;
};

typedef struct truth truth_t;

truth_t      *truth_new(world_t *w);
void          truth_free(truth_t *t);
truth_xfer_t *truth_xfer_begin(truth_t *t, node_t *meter, const char *kind, const char *method,
                               const char *path, const char *query, int szx);
/* The transfer ended; dg is the datagram of its last response (NULL when
 * it did not complete). */
void          truth_xfer_end(truth_t *t, truth_xfer_t *x, const char *outcome, const datagram_t *dg,
                             const app_msg_t *last_response);

/* tx just went on air; captured: the sniffer wrote it to the capture. */
void truth_mac_attempt(truth_t *t, mac_tx_t *tx, gboolean captured);
void truth_mac_failed(truth_t *t, const mac_tx_t *tx);
/* A Data Request of tx->dst that started at dr_start (simulation time)
 * made its parent send tx, held for it since tx->queued_us. */
void truth_indirect_pulled(truth_t *t, const mac_tx_t *tx, gint64 dr_start);
/* An ACK went on air for a transmission by acked_sender of fragment frag of
 * dg (NULL: a poll) on hop; captured as for truth_mac_attempt. */
void truth_ack_sent(truth_t *t, const datagram_t *dg, const node_t *acked_sender, int hop, int frag,
                    gsize ack_len, gboolean captured);
void truth_datagram_sent(truth_t *t, datagram_t *dg);
void truth_datagram_delivered(truth_t *t, const datagram_t *dg);
/* The meter took msg as the answer to its open exchange: it stops waiting. */
void truth_response_taken(truth_t *t, const app_msg_t *msg);
void truth_gateway_received(truth_t *t, const datagram_t *dg, int peer_idx, gint64 now);
void truth_gateway_sent(truth_t *t, datagram_t *dg, int peer_idx, gint64 now);

/* The backhaul lost dg between the border router and the gateway. */
void truth_backhaul_lost(truth_t *t, const datagram_t *dg);
/* The gateway capture's path, for the pair section (--gateway-output). */
void truth_set_gateway_capture(truth_t *t, const char *path);
void truth_set_config(truth_t *t, const node_t *n, const meter_config_t *cfg);
void truth_finish(truth_t *t, gint64 now);
gboolean truth_write_json(truth_t *t, const char *path, const char *capture_path, GError **err);
void truth_print_summary(truth_t *t, FILE *out);

#endif
