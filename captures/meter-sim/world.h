/* world.h: the simulated network's objects: the nodes (border router, mesh
 * routers, meters, background nodes) in their routing tree, the IPv6
 * datagrams travelling through it, the frames a node's MAC sends, and the
 * one timeline everything runs on. The parts that act on them sit above
 * and are plugged in by run.c: the channel, the sniffer, the MAC, the
 * datagram layer (mesh.c), the applications, and whoever listens to what
 * happens (events.h).
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

extern const guint8 ON_MESH_PREFIX[8];   /* 2001:db8:1::/64, 6LoWPAN context 1 */

typedef struct world world_t;
typedef struct node node_t;
typedef struct datagram datagram_t;
typedef struct mac_tx mac_tx_t;
typedef struct sim_listener sim_listener_t;   /* events.h */

typedef enum { ROLE_BORDER_ROUTER, ROLE_ROUTER, ROLE_METER, ROLE_BACKGROUND } node_role_t;

/* What an application hands to the network, and gets back: a CoAP message
 * with its encoded bytes, and the transfer it belongs to. */
typedef struct {
    GByteArray  *coap;           /* encoded CoAP message */
    int          xfer;           /* its transfer's id (world_t.next_xfer_id), 0: none */
    gboolean     is_retransmission;  /* same MID sent again (CON) */
    gboolean     has_block2;     /* a response carrying a Block2 option */
    gint64       gw_time_us;     /* when the gateway sent it (responses) */
    guint16      req_mid;        /* the gateway's messages: MID of the request answered */
    int          answers_dgram;  /* the gateway's messages: the datagram of the request transmission answered */
    int          dgram;          /* the datagram that carries it (set by the network) */
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

    /* Its application (meters and background nodes), which gets every
     * complete datagram addressed to the node. */
    gpointer     app;
    void       (*deliver)(node_t *n, const app_msg_t *msg, const datagram_t *dg);
};

struct datagram {
    int          id;             /* unique in the run, from 1 */
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
    guint32      sent_mask[MAX_PATH];   /* fragments transmitted at least once (mac.c) */
    guint32      rx_mask[MAX_PATH];     /* fragments received by path[h+1] */
    gboolean     hop_failed[MAX_PATH];  /* sender gave up: rest of the datagram dropped */
    gint64       complete_on_air_us[MAX_PATH]; /* capture time of the last fragment's first copy (mac.c) */
    gboolean     delivered;
    int          refs;
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
    gint64       queued_us;      /* indirect: when it joined the parent's queue */
};

struct world {
    sim_params_t     p;
    GRand           *rng;
    event_queue_t   *eq;
    capture_writer_t *cap;
    capture_writer_t *gw_cap;    /* the gateway's own capture of the run, or NULL */
    guint8           mac_key[16];
    GPtrArray       *nodes;      /* node_t* */
    node_t          *br;
    node_t          *meters[SIM_MAX_METERS];
    guint8           gateway_ip6[16];
    int              next_dgram_id;
    int              next_xfer_id;   /* the transfers the meters began */
    gboolean         stop;

    /* The parts that act on the network, plugged in by run.c */
    struct channel  *channel;    /* who is on the air (channel.c) */
    struct sniffer  *sniffer;    /* what the capture gets of the air (sniffer.c) */
    struct backhaul *backhaul;   /* losses and delays beyond the Internet (backhaul.c) */
    /* The datagram layer above the MAC (mesh.c): fragment frag of dg that
     * path[hop + 1] received; and one that path[hop] gave up on. */
    void           (*fragment_received)(world_t *w, datagram_t *dg, int hop, int frag);
    void           (*fragment_failed)(world_t *w, datagram_t *dg, int hop);
    /* The gateway's application, which gets every datagram reaching it. */
    gpointer         gateway;
    void           (*gateway_deliver)(world_t *w, node_t *from, const app_msg_t *msg);
    /* Who hears what happens (events.h); NULL: nobody. */
    const sim_listener_t *listener;
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

/* The nodes in their tree (scenario's hops, meters, background nodes), the
 * timeline and the simulation's random stream; nothing acts on them yet. */
world_t *world_new(const sim_params_t *p, capture_writer_t *cap, GError **err);
void     world_free(world_t *w);

/* Routers forward and advertise; sleepy children do neither. */
gboolean node_is_router(const node_t *n);
/* n's link-local address, fe80::/64 with its EUI-64 interface identifier. */
void     node_link_local(const node_t *n, guint8 addr[16]);

datagram_t *datagram_new(world_t *w, const app_msg_t *msg, gboolean upstream);
void        datagram_unref(datagram_t *dg);

/* A frame for src's MAC to send to dst (NULL: broadcast); takes payload, holds dg. */
mac_tx_t *mac_tx_new(node_t *src, node_t *dst, GByteArray *payload, datagram_t *dg, int hop,
                     int frag);
void      mac_tx_free(mac_tx_t *tx);

#endif
