/* meter-proto.h: what every meterscope part shares: the root protocol "meter"
 * that each part registers its fields, subtrees and expert infos under, its
 * preferences module, the keys of their per-frame data, and the context the
 * hook (packet-meter.c) hands the payload decoders with each message.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_PROTO_H
#define METER_PROTO_H

#include <epan/packet.h>
#include <epan/prefs.h>
#include "coap_msg.h"

extern int proto_meter;
extern module_t *meter_module;   /* preferences "meter.*" */

/* Registers the protocol and its preferences module: first, before any part. */
void meter_proto_register(void);
/* Whether a stock dissector of this filter name ("wpan", "6lowpan")
 * dissected part of the frame so far: proto_is_frame_protocol() by the
 * protocol's id, without a string compare per layer (it runs on every frame). */
int      meter_proto_id(const char *filter_name);
gboolean meter_frame_has(packet_info *pinfo, int proto_id);

/* p_add_proto_data keys under proto_meter, one range per part, all here so
 * that no two parts share one. */
enum {
    METER_PDATA_HOOK_SCRATCH = 1,              /* packet-meter.c: the frame's CoAP messages (packet pool) */
    METER_PDATA_FW_COUNTER   = 0x6d6677ffu,    /* packet-meter-fw.c: its calls in this frame (packet pool) */
    METER_PDATA_FW_FRAME     = 0x6d667700u,    /* ... + the call's index (< 0xff): what it found (file scope) */
    METER_PDATA_HIS_FRAME    = 0x48495331u,    /* packet-meter-his.c: what it found (file scope) */
};

/* Which of the meter's resources a message belongs to, by its URI path
 * (a response by the path of its request); the paths are preferences. */
typedef enum {
    METER_RES_OTHER = 0,
    METER_RES_CONFIG,    /* GET /meter/cfg */
    METER_RES_HISTORY,   /* POST /meter/his */
    METER_RES_FIRMWARE,  /* GET /firmware/... */
} meter_resource_t;

struct meter_session;   /* meter-session.h */

/* The context a decoder gets with a message. */
typedef struct {
    struct meter_session *session;   /* the file's: the decoder's state is there */
    const meter_coap_t *msg;
    meter_resource_t resource;
    const address *meter;      /* the meter's address (client side) */
    const address *gateway;    /* the gateway's address (server side) */
    guint32  transfer_id;      /* unique per (meter, gateway, path, transfer); 0 if not block-wise */
    guint32  request_frame;    /* for a response: its request; 0 if unknown */
} meter_ctx_t;

#endif
