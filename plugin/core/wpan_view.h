/* wpan_view.h: finds the IEEE 802.15.4 frame in a captured record (link
 * types 195, 230, 283 and ZEP v2 in Ethernet/IPv4/UDP) and reads its MAC
 * header (IEEE 802.15.4-2006 and -2015 addressing, auxiliary security
 * header) far enough for retries, acknowledgements and the payload.
 *
 * Written here so that the plugin can follow every frame without asking
 * tshark for a protocol tree: asking for stock 802.15.4 fields makes tshark
 * build one for every frame, which alone costs about a quarter more time.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef WPAN_VIEW_H
#define WPAN_VIEW_H

#include <epan/tvbuff.h>

/* IEEE 802.15.4 frame types (Frame Control bits 0-2). */
enum { WPAN_FRAME_BEACON = 0, WPAN_FRAME_DATA = 1, WPAN_FRAME_ACK = 2, WPAN_FRAME_COMMAND = 3 };
/* MAC command identifiers (IEEE 802.15.4-2006 table 82) the tracker uses. */
enum { WPAN_CMD_DATA_REQUEST = 0x04 };

typedef struct {
    guint8   frame_type;          /* WPAN_FRAME_* */
    gboolean security, frame_pending, ack_request, has_seq;
    guint8   security_level;      /* secured: the auxiliary header's level (0-7) ... */
    guint8   key_id_mode;         /* ... and key identifier mode (0-3; Thread's MAC security: 1) */
    guint8   seq;
    guint64  src, dst;            /* EUI-64, or 0xffff0000 | short address; 0 = none */
    gint     payload_offset;      /* in the PSDU tvb; the payload runs to payload_end */
    gint     payload_end;         /* before the MIC and FCS */
    gint     command_id;          /* a command frame's identifier when readable, else -1 */
} wpan_view_t;

/* The PSDU within a record: a subset of frame, and whether it ends in an FCS
 * (or in the 2 bytes a ZEP sniffer in LQI mode puts there).
 * encap is the record's WTAP_ENCAP_*. NULL when the record holds none. */
tvbuff_t *wpan_view_psdu(tvbuff_t *frame, int encap, gboolean *has_fcs);
gboolean  wpan_view_parse(tvbuff_t *psdu, gboolean has_fcs, wpan_view_t *out);

#endif
