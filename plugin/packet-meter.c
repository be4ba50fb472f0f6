/* packet-meter.c: registers the "meter" protocol, the root of meterscope's
 * filter names (meter.cfg.*, meter.his.*, meter.fw.*, meter.ota.*).
 *
 * The decoders that hang below it (config blob, SenML history, MCUboot
 * images, block-wise sessions) are added by their own files.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/packet.h>

void proto_register_meter(void);
void proto_reg_handoff_meter(void);

static int proto_meter = -1;

void proto_register_meter(void)
{
    proto_meter = proto_register_protocol("Metering device CoAP interface (meterscope)",
                                          "Meter", "meter");
}

void proto_reg_handoff_meter(void)
{
}
