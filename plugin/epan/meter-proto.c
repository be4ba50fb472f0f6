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
