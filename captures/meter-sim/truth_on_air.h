/* truth_on_air.h: per transfer, the numbers a sniffer can find in the capture
 * (docs/ota-sessions.md), kept from the simulator's own state: which copies
 * of each datagram were complete on air on which hop and when, which fragment
 * transmissions got an ACK on the air, and which request each response
 * answers. Written as `transfers[].on_air` (docs/ground-truth.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_ON_AIR_H
#define TRUTH_ON_AIR_H
#include <glib.h>
#include <json-glib/json-glib.h>
#include "world.h"
#include "truth_xfer.h"

typedef struct on_air on_air_t;

on_air_t *on_air_new(void);
void      on_air_free(on_air_t *oa);
/* dg carries a message of a transfer: start its record (once); its sender
 * handed it over at capture time us (the meter, or the gateway). */
void      on_air_datagram(on_air_t *oa, const datagram_t *dg, gint64 us);
/* child (a sleepy node) sent a Data Request that started at capture time us. */
void      on_air_poll_sent(on_air_t *oa, const node_t *child, gint64 us);
/* The parent on hop of dg sent a fragment of it, held since had_us, after
 * the Data Request of child that started at dr_us (capture times). */
void      on_air_poll_wait(on_air_t *oa, const datagram_t *dg, int hop, const node_t *child, gint64 had_us,
                           gint64 dr_us);
/* One transmission of fragment frag of dg on hop (retry: not its first),
 * on the air for dur_us until end_us (capture time). */
void      on_air_frame(on_air_t *oa, const datagram_t *dg, int hop, int frag, gboolean retry, gint64 end_us,
                       gint64 dur_us, gboolean captured);
/* The copy of dg on hop became complete on air at capture time us. */
void      on_air_copy(on_air_t *oa, const datagram_t *dg, int hop, gint64 us);
/* An ACK frame for a transmission of fragment frag of dg on hop went on air
 * (for dur_us, until end_us); captured: the sniffer wrote it (also for on_air_frame). */
void      on_air_acked(on_air_t *oa, const datagram_t *dg, int hop, int frag, gint64 end_us, gint64 dur_us,
                       gboolean captured);
/* The meter took the message dg carries (a response) as the answer it
 * waited for, at capture time us. */
void      on_air_taken(on_air_t *oa, const datagram_t *dg, gint64 us);
/* The gateway's copy: a request arriving, a response leaving (capture time). */
void      on_air_gateway(on_air_t *oa, const datagram_t *dg, gint64 us);
/* Adds x's "on_air" member, for the 802.15.4 captures or the gateway's
 * Ethernet. */
void      on_air_write(on_air_t *oa, JsonBuilder *b, const truth_xfer_t *x, gboolean gateway_view);
/* Adds to an array x's copies with a frame or ACK the sniffer did not
 * capture; returns how many, and in *unreassemblable those complete on air
 * of which the capture lacks a fragment. */
guint     on_air_write_missed(on_air_t *oa, JsonBuilder *b, const truth_xfer_t *x, guint *unreassemblable);

#endif
