/* mesh.h: the datagram layer: IPv6 datagrams carried hop by hop through the
 * mesh as 6LoWPAN fragments, and between the border router and the cloud
 * gateway over the Internet and the backhaul. It sits on the MAC (mac.h)
 * and hands complete datagrams up to the applications (node_t.deliver,
 * world_t.gateway_deliver).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MESH_H
#define MESH_H
#include "world.h"

/* Takes the MAC's indications of w (world_t.fragment_received, fragment_failed). */
void mesh_init(world_t *w);

/* Sends a CoAP message from a node (meter or background node) to the
 * gateway, or from the gateway down to a node. Takes ownership of msg->coap. */
void mesh_send_up(world_t *w, node_t *from, const app_msg_t *msg);
void mesh_send_down(world_t *w, node_t *to, const app_msg_t *msg);

#endif
