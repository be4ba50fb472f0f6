/* meter-proto.c: the root protocol and its preferences module (meter-proto.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "meter-proto.h"

int proto_meter = -1;
module_t *meter_module = NULL;

void meter_proto_register(void)
{
    proto_meter = proto_register_protocol("Metering device CoAP interface (meterscope)", "Meter", "meter");
    meter_module = prefs_register_protocol(proto_meter, NULL);
}

int meter_proto_id(const char *filter_name)
{
    return proto_get_id_by_filter_name(filter_name);
}

gboolean meter_frame_has(packet_info *pinfo, int proto_id)
{
    for (wmem_list_frame_t *l = wmem_list_head(pinfo->layers); l; l = wmem_list_frame_next(l))
        if (GPOINTER_TO_INT(wmem_list_frame_data(l)) == proto_id)
            return TRUE;
    return FALSE;
}
