/* packet-meter-fw-export.h: Export Objects for firmware images. The
 * firmware decoder queues a view of each download's image on the tap that
 * meter_fw_export_register() returns, on every frame that adds to it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_METER_FW_EXPORT_H
#define PACKET_METER_FW_EXPORT_H

#include <epan/address.h>

typedef struct {
    guint64        key;          /* the download (the firmware decoder's transfer key) */
    const address *meter, *gateway;
    const char    *path;         /* NULL: unknown */
    gboolean       complete;     /* every byte up to the M=0 block's end is in */
    guint32        have;         /* bytes contiguous from 0 (the whole image once complete) */
    const guint8  *bytes;        /* at least have of them; they never change once there */
    guint32        last_frame;   /* the frame that completed it, or this frame */
} meter_fw_image_view_t;

/* Registers "meter-fw" under proto_meter; returns the tap to queue views on. */
int meter_fw_export_register(int proto_meter);

#endif
