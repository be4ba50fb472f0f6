/* events.h: what happens in a run, told by the simulation (the MAC, the
 * datagram layer, the applications, the run) to whoever listens: the truth
 * (truth.c). The simulation calls these as things happen and never looks
 * at its listener again; a listener learns the run from them alone, keeps
 * its own account, and changes nothing in the simulation. Times are the
 * simulation's now (world_now) unless an argument says otherwise.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef EVENTS_H
#define EVENTS_H
#include <glib.h>
#include "world.h"
#include "payloads.h"

/* A transfer as its meter begins it. */
typedef struct {
    int           id;            /* world_t.next_xfer_id: transfers are numbered as they begin */
    const node_t *meter;
    gboolean      background;    /* a background node's own transfer */
    const char   *kind;          /* "block2" (download) or "block1" (upload) */
    const char   *method, *path, *query;
    int           szx;           /* the block size asked for */
    guint32       resource_size; /* the image or the SenML pack, bytes */
    const guint8 *sha256;        /* the image's SHA-256 TLV; NULL: none */
} xfer_info_t;

/* What befell a transfer, as the meter or the gateway counts it. */
typedef enum {
    XFER_REQUEST,                /* the meter sent a request with a new Message ID */
    XFER_RETRANSMISSION,         /* ... or again with the same one (RFC 7252 4.2) */
    XFER_REREQUEST,              /* its exchange failed: the same block asked for with a new MID */
    XFER_RESUME,                 /* after a pause (also a re-request) */
    XFER_SEPARATE_RESPONSE,      /* an empty ACK: the response comes on its own */
    XFER_DUPLICATE_RESPONSE,     /* a response for a MID the meter no longer waited for */
    XFER_ERROR_RESPONSE,         /* a 4.xx/5.xx answer, or a block of the wrong length */
    XFER_DROPPED,                /* the meter discarded a datagram it got whole (busy with flash) */
    XFER_GATEWAY_RETRANSMISSION, /* the gateway sent its separate response again */
} xfer_count_t;

struct sim_listener {
    gpointer ctx;                /* passed back to every callback */

    /* The air (mac.c) */
    /* A transmission of tx ended; captured: the sniffer wrote it to the capture. */
    void (*frame_on_air)(gpointer ctx, const mac_tx_t *tx, gboolean captured);
    /* That transmission was the last of dg's fragments to go out on hop for
     * the first time: the copy on hop is complete on air. */
    void (*copy_on_air)(gpointer ctx, const datagram_t *dg, int hop);
    /* tx went without an ACK through all its MAC retries. */
    void (*frame_failed)(gpointer ctx, const mac_tx_t *tx);
    /* A Data Request of tx->dst that started at dr_start_us (simulation time)
     * made its parent send tx, held for it since tx->queued_us. */
    void (*indirect_pulled)(gpointer ctx, const mac_tx_t *tx, gint64 dr_start_us);
    /* An ACK of ack_len bytes ended, for a transmission by acked_sender of
     * fragment frag of dg (NULL: of a Data Request) on hop. */
    void (*ack_on_air)(gpointer ctx, const datagram_t *dg, const node_t *acked_sender, int hop, int frag,
                       gsize ack_len, gboolean captured);

    /* Datagrams (mesh.c) */
    /* Its originator (a node, or the border router for the gateway) sends dg's first fragments. */
    void (*datagram_sent)(gpointer ctx, const datagram_t *dg);
    /* dg reached its final mesh node whole. */
    void (*datagram_delivered)(gpointer ctx, const datagram_t *dg);
    /* dg reached the gateway; or the gateway sent it (before the backhaul). */
    void (*gateway_received)(gpointer ctx, const datagram_t *dg);
    void (*gateway_sent)(gpointer ctx, const datagram_t *dg);
    /* The backhaul lost dg between the border router and the gateway. */
    void (*backhaul_lost)(gpointer ctx, const datagram_t *dg);

    /* The applications (meter_app.c, gateway_app.c) */
    /* The samples n's history pack holds. */
    void (*history)(gpointer ctx, const node_t *n, const senml_sample_t *samples, guint n_samples);
    /* n took cfg as its config. */
    void (*config_taken)(gpointer ctx, const node_t *n, const meter_config_t *cfg);
    void (*xfer_begin)(gpointer ctx, const xfer_info_t *x);
    void (*xfer_count)(gpointer ctx, int xfer, xfer_count_t what);
    /* The meter took the next len bytes at offset (a Block2 payload, or a
     * Block1 block the gateway acknowledged). */
    void (*block_taken)(gpointer ctx, int xfer, guint32 offset, guint32 len);
    /* The gateway answered with a smaller SZX and the meter went on with it. */
    void (*renegotiated)(gpointer ctx, int xfer, int szx);
    /* The meter took the message dg carries as the answer it waited for. */
    void (*response_taken)(gpointer ctx, const datagram_t *dg);
    /* outcome: complete, error or aborted; last_response: the datagram of
     * the final response the meter accepted (NULL when not complete). */
    void (*xfer_end)(gpointer ctx, int xfer, const char *outcome, const datagram_t *last_response);

    /* The run (run.c): it stopped at end_us, simulation time. */
    void (*run_end)(gpointer ctx, gint64 end_us);
};

/* Tells w's listener, if any, about an event: sim_emit(w, frame_failed, tx). */
#define sim_emit(w, event, ...)                                                        \
    do {                                                                               \
        const sim_listener_t *listener_ = (w)->listener;                               \
        if (listener_ && listener_->event)                                             \
            listener_->event(listener_->ctx, __VA_ARGS__);                             \
    } while (0)

#endif
