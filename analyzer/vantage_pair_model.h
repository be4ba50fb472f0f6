/* vantage_pair_model.h: what a pairing of a radio and a gateway capture
 * holds (vantage_pair.h builds it, vantage_transfers.h fills its
 * transfers): one definition both read, so neither includes the other.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VANTAGE_PAIR_MODEL_H
#define VANTAGE_PAIR_MODEL_H
#include <glib.h>
#include "clock_align.h"
#include "vantage_read.h"

enum { MS_UP, MS_DOWN };   /* meter (Thread node) to gateway, and back */

typedef enum {
    MS_FATE_DELIVERED,        /* at both ends */
    MS_FATE_LOST_RADIO,       /* died on the air (or never complete there) */
    MS_FATE_LOST_BACKHAUL,    /* between the border router and the gateway, or in the border router */
    MS_FATE_NOT_IN_RADIO,     /* the gateway has it; the sniffer missed it */
    MS_FATE_NOT_IN_GATEWAY,   /* on the air towards the meter, never in the gateway capture */
    MS_FATE_COUNT
} ms_fate_t;

typedef struct {
    int               dir;            /* MS_UP or MS_DOWN */
    const ms_round_t *radio, *gateway;   /* either may be NULL */
    const ms_partial_t *partial;      /* lost on the radio and never complete: its first fragment */
    ms_fate_t         fate;
    gboolean          late;           /* delivered after its sender had sent it again */
    gboolean          ambiguous;      /* another round of the same bytes could be the one that arrived */
    guint             round;          /* rank among the transmissions of the same message */
    double            radio_first_s, radio_last_s;   /* radio clock; NAN none */
    double            gateway_s;      /* the gateway capture's own stamp; NAN none */
    double            gateway_aligned_s;   /* that stamp on the radio clock */
    double            radio_leg_s, backhaul_leg_s;   /* NAN when not measured */
    int               transfer;       /* index in transfers, -1 none */
    const char       *node;           /* the Thread node's address (its capture's), NULL unknown */
} ms_pair_msg_t;

typedef struct {
    char     node[48];                /* the Thread node's IPv6 address */
    char     path[96];
    gboolean blockwise;
    double   first_s, last_s;         /* radio clock */
    guint    messages[2], fate[2][MS_FATE_COUNT], late[2];
    double   backhaul_sum_s[2], backhaul_median_s[2], backhaul_max_s[2];
    guint    backhaul_n[2];
    double   network_s;               /* answered exchanges: request's last copy to answer's first, on the radio */
    double   gateway_s;               /* of it, the gateway's own time (arrival to answer) */
    double   exchange_backhaul_s[2];  /* of it, the backhaul legs of those exchanges */
    guint    exchanges;
    guint    ambiguous;               /* messages paired where another round was as plausible */
} ms_pair_transfer_t;

typedef struct {
    char           gateway_addr[48];
    ms_clock_fit_t clock;
    guint          shared;            /* messages seen once at each end, the alignment's points */
    GArray        *msgs;              /* ms_pair_msg_t, in radio-clock order */
    GArray        *transfers;         /* ms_pair_transfer_t */
} ms_pair_t;

#endif
