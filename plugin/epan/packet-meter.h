/* packet-meter.h: what the meterscope parts share: the root protocol, its
 * preferences module, and the context the hook in packet-meter.c hands the
 * payload decoders (config blob, history, firmware) with each message.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_H
#define PACKET_METER_H

#include <epan/packet.h>
#include <epan/prefs.h>
#include "coap_msg.h"

extern int proto_meter;
extern module_t *meter_module;   /* preferences "meter.*" */

/* Which of the meter's resources a message belongs to, by its URI path
 * (a response by the path of its request); the paths are preferences. */
typedef enum {
    METER_RES_OTHER = 0,
    METER_RES_CONFIG,    /* GET /meter/cfg */
    METER_RES_HISTORY,   /* POST /meter/his */
    METER_RES_FIRMWARE,  /* GET /firmware/... */
} meter_resource_t;

/* The context a decoder gets with a message. */
typedef struct {
    const meter_coap_t *msg;
    meter_resource_t resource;
    const address *meter;      /* the meter's address (client side) */
    const address *gateway;    /* the gateway's address (server side) */
    guint32  transfer_id;      /* unique per (meter, gateway, path, transfer); 0 if not block-wise */
    guint32  request_frame;    /* for a response: its request; 0 if unknown */
} meter_ctx_t;

/* Each part registers its fields, subtrees, expert infos and preferences
 * under proto_meter, then dissects payloads through these. tree may be NULL;
 * columns, expert infos and state are updated regardless. */
void proto_register_meter_cfg(void);
void proto_register_meter_his(void);
void proto_register_meter_fw(void);
void proto_reg_handoff_meter_fw(void);

void dissect_meter_cfg(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
void dissect_meter_his(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);
void dissect_meter_fw(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const meter_ctx_t *ctx);

#endif
