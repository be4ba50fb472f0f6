/* truth_xfer.h: the truth's record of one block-wise transfer, kept from
 * the events of its meter, its gateway and its datagrams (truth.c), and
 * read by the parts that write it (docs/ground-truth.md, transfers[]).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_XFER_H
#define TRUTH_XFER_H
#include <glib.h>
#include "world.h"

typedef struct {
    int      id;                 /* order of beginning, from 1 */
    const node_t *meter;
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
    char     outcome[16];        /* complete, error, aborted, unfinished */
    gint64   air_first_request_us, air_last_response_us, air_last_activity_us;
    gint64   gw_first_request_us, gw_last_response_us;
} truth_xfer_t;

#endif
