/* meter-cfg-keys.h: the config blob's key table, the UAT "meter_cfg_keys"
 * (preference meter.cfg_keys): rows add a newer firmware's keys, rename a
 * reference key or give it another type, on top of the reference keys that
 * core/meter_cfg.c always knows.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_CFG_KEYS_H
#define METER_CFG_KEYS_H

#include <epan/uat.h>

#include "meter_cfg.h"

/* Makes the table; its preference is registered with the others (meter-prefs.c). */
uat_t *meter_cfg_keys_register(void);

/* The reference keys merged with the table's rows, for meter_cfg_parse(). */
const meter_cfg_keys_t *meter_cfg_key_table(void);

#endif
