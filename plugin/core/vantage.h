/* vantage.h: two vantage points in one capture file (a sniffer's capture
 * and the gateway's merged with mergecap): each CoAP message is seen once
 * on 802.15.4 and once on IP, and this finds, for a copy at one, its copy at
 * the other. A radio transmission's hop copies and MAC retries (the same
 * bytes again within a second) are one round; every IP copy is one. Rounds
 * of the same bytes pair by time, after the two clocks' offset, estimated
 * between the two directions' delays of the messages seen once at each
 * (the gateway: the address most requests go to).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VANTAGE_H
#define VANTAGE_H
#include <glib.h>

typedef enum { VANTAGE_RADIO, VANTAGE_IP } vantage_kind_t;

typedef struct vantage_map vantage_map_t;

vantage_map_t *vantage_map_new(void);
void           vantage_map_free(vantage_map_t *m);
/* Message index of frame, with content key (its endpoints and bytes) and
 * address hashes src and dst, a CoAP request or not, seen at kind at ts_us
 * by that capture's clock. In frame order, once each. */
void     vantage_note(vantage_map_t *m, guint64 key, vantage_kind_t kind, guint64 src, guint64 dst, gboolean request,
                      guint32 frame, guint index, gint64 ts_us);
/* Whether both vantage points have shown a message. */
gboolean vantage_both_seen(const vantage_map_t *m);
/* The copy at the other vantage point of the message noted for (frame,
 * index): FALSE when there is none (yet). *kind: the vantage point of
 * this copy; *offset_us: the clocks' offset estimate (IP minus radio). */
gboolean vantage_other(vantage_map_t *m, guint32 frame, guint index, vantage_kind_t *kind, guint32 *other_frame,
                       gint64 *other_ts_us, gint64 *offset_us);

#endif
