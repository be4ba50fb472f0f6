/* packet-meter-fw-export.c: Export Objects for the meter's firmware
 * images ("meter-fw"): one entry per download, its bytes contiguous from
 * 0, named "<meter>_<name>" or "<meter>_<name>.partial" until it completes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/tap.h>
#include <epan/export_object.h>
#include <epan/to_str.h>
#include <epan/address.h>

#include "packet-meter-fw-export.h"

/* One entry per transfer per listener, updated in place as blocks arrive:
 * a single-pass tshark never learns which block of an unfinished download
 * is its last, so the entry of a transfer follows it (".partial" until the
 * image completes). listener (tapdata) -> GHashTable(key -> entry). */
static GHashTable *eo_lists;

static void fw_eo_reset(void)
{
    if (eo_lists)
        g_hash_table_remove_all(eo_lists);
}

static char *eo_filename(const meter_fw_image_view_t *x, gboolean complete)
{
    char *meter = x->meter->type != AT_NONE ? address_to_str(NULL, x->meter) : g_strdup("meter");
    const char *base = x->path ? strrchr(x->path, '/') : NULL;
    char *name;

    base = base ? base + 1 : x->path;
    if (!base || !*base)
        base = "firmware.img";
    g_strdelimit(meter, ":/", '-');
    name = g_strdup_printf("%s_%s%s", meter, base, complete ? "" : ".partial");
    wmem_free(NULL, meter);
    return name;
}

static tap_packet_status fw_eo_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                      const void *data, tap_flags_t flags _U_)
{
    export_object_list_t *list = (export_object_list_t *)tapdata;
    const meter_fw_image_view_t *x = (const meter_fw_image_view_t *)data;
    GHashTable *entries;
    export_object_entry_t *e;
    gboolean complete = x->complete;
    guint32 have = x->have;
    guint32 pkt = x->last_frame;

    if (!eo_lists)
        eo_lists = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                         (GDestroyNotify)g_hash_table_destroy);
    entries = (GHashTable *)g_hash_table_lookup(eo_lists, tapdata);
    if (!entries) {
        entries = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
        g_hash_table_insert(eo_lists, tapdata, entries);
    }
    e = (export_object_entry_t *)g_hash_table_lookup(entries, &x->key);
    if (!e) {
        if (have == 0)
            return TAP_PACKET_DONT_REDRAW;
        e = g_new0(export_object_entry_t, 1);
        e->hostname = x->gateway->type != AT_NONE ? address_to_str(NULL, x->gateway) : g_strdup("");
        e->content_type = g_strdup("application/octet-stream");
        g_hash_table_insert(entries, g_memdup2(&x->key, sizeof x->key), e);
        list->add_entry(list->gui_data, e);
    } else if (e->payload_len == have && e->pkt_num == pkt &&
               (e->filename && g_str_has_suffix(e->filename, ".partial")) == !complete) {
        return TAP_PACKET_DONT_REDRAW;
    }
    /* The contiguous prefix only grows, and its bytes never change. */
    if (have != e->payload_len) {
        guint32 old = (guint32)e->payload_len;
        e->payload_data = (guint8 *)g_realloc(e->payload_data, have ? have : 1);
        if (have > old)
            memcpy(e->payload_data + old, x->bytes + old, have - old);
        e->payload_len = have;
    }
    g_free(e->filename);
    e->filename = eo_filename(x, complete);
    e->pkt_num = pkt;
    return TAP_PACKET_REDRAW;
}

int meter_fw_export_register(int proto_meter)
{
    /* Export Objects are named after a protocol's filter name; "meter-fw"
     * is a name-only protocol under "meter" (like FTP-DATA's "ftp-data"). */
    int proto_meter_fw_eo = proto_register_protocol_in_name_only("Meter firmware images", "Meter-FW",
                                                                 "meter-fw", proto_meter, FT_PROTOCOL);

    return register_export_object(proto_meter_fw_eo, fw_eo_packet, fw_eo_reset);
}
