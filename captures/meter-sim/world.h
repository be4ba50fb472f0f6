/* world.h: the simulated network: nodes (border router, mesh routers,
 * meters, background nodes), IPv6 datagrams travelling hop by hop as 6LoWPAN
 * fragments, the cloud gateway behind the border router, and the one
 * timeline everything runs on.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef WORLD_H
#define WORLD_H
#include <glib.h>
#include "scenario.h"
#include "event_queue.h"
#include "capture_writer.h"
#include "wpan_frame.h"

#define PAN_ID        0xface
#define MAX_PATH      5        /* nodes on a path: meter + up to 3 routers + BR */
#define MAX_FRAGS     32

typedef struct world world_t;
typedef struct node node_t;
typedef struct datagram datagram_t;
typedef struct mac_tx mac_tx_t;
typedef struct truth_xfer truth_xfer_t;

typedef enum { ROLE_BORDER_ROUTER, ROLE_ROUTER, ROLE_METER, ROLE_BACKGROUND } node_role_t;

/* What an application hands to the network, and gets back: a CoAP message
 * with its encoded bytes, and for the truth, the transfer it belongs to. */
typedef struct {
    GByteArray   *coap;          /* encoded CoAP message */
    truth_xfer_t *xfer;          /* NULL: not part of a transfer */
    gboolean      is_retransmission;  /* same MID sent again (CON) */
    gboolean      has_block2;    /* a response carrying a Block2 option */
    gint64        gw_time_us;    /* when the gateway sent it (responses) */
    guint16       req_mid;       /* the gateway's messages: MID of the request answered */
    const void   *rec;           /* the truth's record of the datagram carrying it */
    const void   *answers_rec;   /* the gateway's messages: the record of the request transmission answered */
} app_msg_t;

struct node {
    world_t     *w;
    int          idx;
    node_role_t  role;
    char         name[16];
    guint64      ext;            /* EUI-64 */
    guint16      rloc16;
    guint8       ipv6[16];       /* address used for CoAP (on-mesh prefix) */
    gboolean     sleepy;
    gboolean     hidden;         /* inaudible to the meters' path (hidden terminal) */
    node_t      *parent;         /* next hop towards the border router */

    /* MAC */
    guint8       seq;
    guint32      frame_counter;
    guint16      next_tag;
    GQueue       txq;            /* mac_tx_t* waiting for direct transmission */
    mac_tx_t    *cur;            /* the frame in CSMA, on air or awaiting its ACK */
    GQueue       indirect;       /* frames held for sleepy children */
    GHashTable  *last_rx_seq;    /* src node -> last seq + 1: MAC duplicate filter */

    /* Sleepy end device */
    gboolean     awake;          /* receiver on after a poll with frame pending */
    guint        poll_gen;
    guint        awake_gen;
    gboolean     fast_poll;

    /* Gilbert-Elliott state of this node's receiver */
    gboolean     ge_bad;
    gint64       ge_until;
    /* Link outage (meter): no frame to or from it gets through */
    gint64       outage_from, outage_until;

    gpointer     app;            /* meter_app_t* for meters and background nodes */
};

struct datagram {
    int          id;
    node_t      *path[MAX_PATH];
    int          n_path;         /* path[0] originates, path[n_path-1] is final */
    GByteArray  *ipv6;           /* uncompressed packet (gateway view) */
    GPtrArray   *frags;          /* link payloads without mesh header */
    gboolean     fragmented;
    guint16      tag;
    guint16      size;           /* uncompressed IPv6 size */
    app_msg_t    msg;
    gboolean     upstream;       /* towards the gateway */
    /* per hop h (path[h] -> path[h+1]) */
    guint32      sent_mask[MAX_PATH];   /* fragments transmitted at least once */
    guint32      rx_mask[MAX_PATH];     /* fragments received by path[h+1] */
    gboolean     hop_failed[MAX_PATH];  /* sender gave up: rest of the datagram dropped */
    gint64       complete_on_air_us[MAX_PATH]; /* capture time of the last fragment's first copy */
    gboolean     delivered;
    int          refs;
    gpointer     truth_rec;      /* the truth's on-air record (transfer datagrams only) */
    gpointer     pair_rec;       /* the truth's two-vantage record (--gateway-output only) */
};

struct mac_tx {
    node_t      *src, *dst;      /* dst NULL: broadcast */
    gboolean     is_poll;        /* MAC Data Request command */
    GByteArray  *payload;        /* MAC payload (6LoWPAN, incl. mesh header) */
    datagram_t  *dg;             /* NULL for polls and non-datagram frames */
    int          frag, hop;
    int          attempts;       /* channel access attempts so far */
    int          sent;           /* times it went on the air */
    gboolean     secured;
    GByteArray  *psdu;           /* built at the first attempt; retries resend it */
    gint64       queued_us;      /* indirect: when it joined the parent's queue (for the truth) */
};

struct world {
    sim_params_t     p;
    GRand           *rng;
    struct sniffer  *sniffer;    /* what the capture gets of the air (sniffer.c) */
    event_queue_t   *eq;
    capture_writer_t *cap;
    capture_writer_t *gw_cap;    /* the gateway's own capture of the run, or NULL */
    struct backhaul  *backhaul;  /* losses and delays beyond the Internet (backhaul.c) */
    guint8           mac_key[16];
    GPtrArray       *nodes;      /* node_t* */
    node_t          *br;
    node_t          *meters[SIM_MAX_METERS];
    guint8           gateway_ip6[16];
    guint8           br_ip6[16];
    int              next_dgram_id;
    GArray          *air;        /* on-air intervals, see channel.c */
    gpointer         gateway;    /* gateway_app_t* */
    gpointer         truth;      /* truth_t* */
    gboolean         stop;
};

/* Time now, in simulation microseconds since the capture start. */
static inline gint64 world_now(const world_t *w) { return event_queue_now(w->eq); }
static inline void world_at(world_t *w, gint64 t, event_fn fn, gpointer obj, gpointer arg)
{
    event_queue_at(w->eq, t, fn, obj, arg);
}
/* An event that owns arg (event_queue_at_owned). */
static inline void world_at_owned(world_t *w, gint64 t, event_fn fn, gpointer obj, gpointer arg, GDestroyNotify free_arg)
{
    event_queue_at_owned(w->eq, t, fn, obj, arg, free_arg);
}
double world_uniform(world_t *w, double lo, double hi);

world_t *world_new(const sim_params_t *p, capture_writer_t *cap, GError **err);
/* Also writes the gateway's Ethernet to gw_cap (its clock: backhaul.c). */
void     world_set_gateway_capture(world_t *w, capture_writer_t *gw_cap);
void     world_free(world_t *w);
void     world_run(world_t *w);

/* Sends a CoAP message from a node (meter or background node) to the
 * gateway, or from the gateway down to a node. Takes ownership of msg->coap. */
void world_send_up(world_t *w, node_t *from, const app_msg_t *msg);
void world_send_down(world_t *w, node_t *to, const app_msg_t *msg);

/* Called by the MAC when path[hop+1] received fragment frag of dg. */
void world_fragment_received(world_t *w, datagram_t *dg, int hop, int frag);
/* Called by the MAC when path[hop] gave up on fragment frag. */
void world_fragment_failed(datagram_t *dg, int hop);
void datagram_unref(datagram_t *dg);

#endif
