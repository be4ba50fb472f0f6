/* mac.h: IEEE 802.15.4 MAC of a simulated node: unslotted CSMA/CA,
 * acknowledgements and retries with the same sequence number, and indirect
 * transmission to sleepy children that poll with MAC Data Requests.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MAC_H
#define MAC_H
#include "world.h"

/* Queues tx for direct transmission by tx->src (takes ownership). */
void      mac_send(mac_tx_t *tx);
/* Holds tx at its sender until the sleepy destination polls for it. */
void      mac_send_indirect(mac_tx_t *tx);
/* Drops the not yet sent fragments of dg queued at n for hop. */
void      mac_drop_datagram(node_t *n, datagram_t *dg, int hop);
/* Sleepy end devices: periodic MAC Data Requests; fast while an exchange is open. */
void      mac_start_polling(node_t *n);
void      mac_set_fast_poll(node_t *n, gboolean fast);
/* An unacknowledged broadcast frame (MLE) with an extended source address. */
void      mac_broadcast(node_t *n, GByteArray *payload);

#endif
