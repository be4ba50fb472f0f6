/* meter-cfg-firmware.c: the firmware announcements of the config blobs
 * (meter-cfg-firmware.h), by meter, in frame order, for the whole capture file.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/to_str.h>

#include "meter-cfg-firmware.h"
#include "meter-session.h"

/* The session's slot: meter address string -> wmem_array_t of
 * meter_cfg_firmware_t*, all in file scope, which frees it. */
static void *by_meter_new(void)
{
    return wmem_map_new(wmem_file_scope(), g_str_hash, g_str_equal);
}

const meter_cfg_firmware_t *meter_cfg_firmware_for(meter_session_t *session, const address *meter,
                                                   guint32 before_frame)
{
    wmem_map_t *cfg_fw_by_meter = (wmem_map_t *)meter_session_part(session, METER_PART_CFG_FIRMWARE);
    wmem_array_t *list;
    char *key;

    if (!meter || !cfg_fw_by_meter)
        return NULL;
    key = address_to_str(NULL, meter);
    list = (wmem_array_t *)wmem_map_lookup(cfg_fw_by_meter, key);
    wmem_free(NULL, key);
    if (!list)
        return NULL;
    for (guint i = wmem_array_get_count(list); i-- > 0;) {
        const meter_cfg_firmware_t *rec = *(const meter_cfg_firmware_t **)wmem_array_index(list, i);
        if (rec->frame <= before_frame)
            return rec;
    }
    return NULL;
}

void meter_cfg_firmware_record(meter_session_t *session, const address *meter, guint32 frame,
                               const meter_cfg_t *cfg)
{
    wmem_map_t *cfg_fw_by_meter = (wmem_map_t *)meter_session_part(session, METER_PART_CFG_FIRMWARE);
    wmem_allocator_t *fs = wmem_file_scope();
    const meter_cfg_firmware_info_t *fw = cfg->firmware;
    meter_cfg_firmware_t *rec = wmem_new0(fs, meter_cfg_firmware_t);
    wmem_array_t *list;
    char *key;

    rec->version = fw->version ? wmem_strdup(fs, fw->version) : NULL;
    rec->path = fw->path ? wmem_strdup(fs, fw->path) : NULL;
    rec->size = fw->size;
    rec->has_size = fw->has_size;
    memcpy(rec->sha256, fw->sha256, sizeof rec->sha256);
    rec->has_sha256 = fw->has_sha256;
    rec->config_version = (guint32)MIN(cfg->config_version, G_MAXUINT32);
    rec->has_config_version = cfg->has_config_version;
    rec->frame = frame;
    key = address_to_str(NULL, meter);
    list = (wmem_array_t *)wmem_map_lookup(cfg_fw_by_meter, key);
    if (!list) {
        list = wmem_array_new(fs, sizeof(meter_cfg_firmware_t *));
        wmem_map_insert(cfg_fw_by_meter, wmem_strdup(fs, key), list);
    }
    wmem_free(NULL, key);
    wmem_array_append_one(list, rec);
}

void meter_cfg_firmware_register(void)
{
    meter_session_add_part(METER_PART_CFG_FIRMWARE, by_meter_new, NULL);
}
