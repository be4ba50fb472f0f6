/* vantage_read.h: one capture of a two-vantage analysis (meterscope
 * --vantage NAME=FILE), read by tshark with stock fields into the CoAP
 * transmissions it holds. On 802.15.4 a transmission is seen as several
 * copies: one per mesh hop and a MAC retry of a frame is the same copy
 * again; they are collapsed into one round with its first and last air time
 * and, per hop, whether every frame of the copy was acknowledged. On
 * Ethernet (the gateway) every CoAP datagram is a round of its own.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VANTAGE_READ_H
#define VANTAGE_READ_H
#include <glib.h>
#include "tshark_runner.h"

#define MS_ROUND_MAX_COPIES 8

typedef struct {
    guint16  src16, dst16;       /* the link; 0xffff: not 802.15.4 */
    double   complete_s;         /* when the copy was complete on that link */
    guint    frame;              /* the frame that completed it */
    gboolean acked;              /* every frame of the copy acknowledged on the air */
} ms_copy_t;

typedef struct {
    char    *key;                /* addresses, ports and a digest of the UDP payload: the same message */
    char     src[48], dst[48];   /* IPv6 addresses after 6LoWPAN decompression */
    guint16  mid;
    guint8   type, code;
    char     token[20];          /* hex */
    char     path[96];           /* Uri-Path, '/'-joined, requests only */
    gint64   block;              /* block number of a Block1 or Block2 option, -1 none */
    guint    bytes;              /* UDP payload length */
    double   first_s, last_s;    /* first frame of the round on the air; its last copy complete (gateway: its time) */
    guint    first_frame;
    guint    n_copies;
    ms_copy_t copies[MS_ROUND_MAX_COPIES];
    guint    mac_retries;
} ms_round_t;

/* A fragmented datagram that never was complete on a link: its first fragment. */
typedef struct {
    guint16  src16, dst16;
    guint    size;               /* datagram_size: the uncompressed IPv6 packet */
    double   time;
    guint    frame;
} ms_partial_t;

typedef struct {
    char      *name;             /* "radio" or "gateway" */
    char      *file;
    gboolean   radio;            /* 802.15.4 frames seen */
    guint      frames;
    GPtrArray *rounds;           /* ms_round_t*, in the order their first copies were captured */
    GArray    *partials;         /* ms_partial_t, in capture order */
    struct ms_vantage_reader *reader;   /* the reader's state while reading */
} ms_vantage_t;

ms_vantage_t *ms_vantage_new(const char *name, const char *file);
void          ms_vantage_free(ms_vantage_t *v);
/* Runs tshark on v->file (with t's preferences, ACK tracking on) and fills v. */
ms_run_status_t ms_vantage_read(const ms_tshark_t *t, ms_vantage_t *v, char **message);
/* Feeds one line of the fields run (the reader's half, for the tests). */
void ms_vantage_feed(ms_vantage_t *v, const char *line);
void ms_vantage_finish(ms_vantage_t *v);

#endif
