/* fuzz_config.c: the config blob decoder (packet-meter-cfg.c). It builds its
 * protocol tree and expert infos as it walks the CBOR (wscbor), so unlike
 * the other targets it needs a running epan: the plugin's dissectors are
 * linked in and registered, and each input is dissected the way Wireshark's
 * fuzzshark does it, by a postdissector over a record no other dissector
 * claims. The first byte picks the CoAP context the decoder gets: none,
 * Content-Format 60, another Content-Format, or a known meter (so that an
 * announced firmware is recorded in the file-scoped table); the rest is the
 * blob. The key table gets extra keys of every type. Dissector bugs
 * (DISSECTOR_ASSERT, a field added with the wrong type) abort, so libFuzzer
 * reports them as crashes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <epan/epan.h>
#include <epan/epan_dissect.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/wmem_scopes.h>
#include <wiretap/wtap.h>
#include <wsutil/privileges.h>
#include <wsutil/filesystem.h>
#include "packet-meter.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void plugin_register(void);

static epan_dissect_t *fuzz_edt;

static const nstime_t *fuzz_frame_ts(struct packet_provider_data *prov _U_, guint32 frame_num _U_)
{
    static const nstime_t zero;
    return &zero;
}

static int fuzz_config_postdissector(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    static const guint8 meter_ip[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0x02, 0x12, 0x4b, 0, 0x01, 0xa0, 0xc0, 0 };
    meter_coap_t msg = { .content_format = -1, .size1 = -1, .size2 = -1 };
    meter_ctx_t ctx = { .msg = &msg };
    address meter;

    if (tvb_captured_length(tvb) < 1)
        return 0;
    switch (tvb_get_guint8(tvb, 0) & 3) {
    case 0:
        dissect_meter_cfg(tvb_new_subset_remaining(tvb, 1), pinfo, tree, NULL);
        return tvb_captured_length(tvb);
    case 1:
        msg.content_format = 60;
        break;
    case 2:
        msg.content_format = tvb_get_guint8(tvb, 0) >> 2;
        break;
    case 3:
        msg.content_format = 60;
        set_address(&meter, AT_IPv6, sizeof(meter_ip), meter_ip);
        ctx.meter = &meter;
        break;
    }
    dissect_meter_cfg(tvb_new_subset_remaining(tvb, 1), pinfo, tree, &ctx);
    return tvb_captured_length(tvb);
}
/* A new epan session is a new capture file: the plugin's file-scoped state
 * starts empty. Not one per input: every dissector's init routines run
 * again, and libwireshark 4.0 keeps about 9 MB of each session (measured
 * with no-op inputs). */
#define INPUTS_PER_SESSION 200000

static void fuzz_new_session(void)
{
    static const struct packet_provider_funcs funcs = { fuzz_frame_ts, NULL, NULL, NULL };
    static epan_t *session;

    if (fuzz_edt) {
        epan_dissect_free(fuzz_edt);
        epan_free(session);
    }
    session = epan_new(NULL, &funcs);
    fuzz_edt = epan_dissect_new(session, TRUE, TRUE);
}

int LLVMFuzzerInitialize(int *argc _U_, char ***argv)
{

    /* No profile, no extcap, no system plugins: only what is linked here. */
    g_setenv("WIRESHARK_ABORT_ON_DISSECTOR_BUG", "1", TRUE);
    g_setenv("WIRESHARK_CONFIG_DIR", "/nonexistent", TRUE);
    init_process_policies();
    char *err = configuration_init((*argv)[0], NULL);
    g_free(err);
    wtap_init(FALSE);
    plugin_register();
    if (!epan_init(NULL, NULL, FALSE)) {
        fprintf(stderr, "fuzz_config: epan_init failed\n");
        exit(1);
    }
    epan_load_settings();
    /* Keys named only in the key table (UAT meter_cfg_keys), one of each
     * type, and a reference key given another type: the table's paths. */
    static const char *const keys[] = {
        "\"20\",\"x_text\",\"text\",\"\"", "\"21\",\"x_uint\",\"uint\",\"Wh\"",
        "\"22\",\"x_int\",\"int\",\"\"", "\"23\",\"x_float\",\"float\",\"V\"",
        "\"24\",\"x_bytes\",\"bytes\",\"\"", "\"25\",\"x_map\",\"map\",\"\"",
        "\"26\",\"x_array\",\"array\",\"\"", "\"27\",\"x_bool\",\"bool\",\"\"",
        "\"2\",\"config_version_text\",\"text\",\"\"",
    };
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
        char *pref = g_strdup_printf("uat:meter_cfg_keys:%s", keys[i]), *errmsg = NULL;
        if (prefs_set_pref(pref, &errmsg) != PREFS_SET_OK) {
            fprintf(stderr, "fuzz_config: %s: %s\n", pref, errmsg ? errmsg : "refused");
            exit(1);
        }
        g_free(errmsg);
        g_free(pref);
    }
    prefs_apply_all();

    int proto = proto_get_id_by_filter_name("meter");
    register_postdissector(create_dissector_handle(fuzz_config_postdissector, proto));
    fuzz_new_session();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static guint32 frame;
    wtap_rec rec;
    frame_data fd;
    guint32 len = (guint32)MIN(size, G_MAXINT32);

    memset(&rec, 0, sizeof(rec));
    rec.rec_type = REC_TYPE_PACKET;
    rec.rec_header.packet_header.caplen = len;
    rec.rec_header.packet_header.len = len;
    rec.rec_header.packet_header.pkt_encap = G_MAXINT16;   /* no link-layer dissector claims it */
    rec.presence_flags = WTAP_HAS_TS | WTAP_HAS_CAP_LEN;
    frame_data_init(&fd, ++frame, &rec, 0, 0);
    /* The plugin keeps a record of every frame it sees in a first pass (its
     * tracker, its per-frame results), and the firmware a blob announces
     * for a known meter. Only mode 3 needs a first pass; the others are
     * dissected as a later pass would, so that memory grows with mode-3
     * inputs only and not with every execution. */
    fd.visited = !(size > 0 && (data[0] & 3) == 3);
    epan_dissect_run(fuzz_edt, WTAP_FILE_TYPE_SUBTYPE_UNKNOWN, &rec, tvb_new_real_data(data, len, len), &fd, NULL);
    frame_data_destroy(&fd);
    epan_dissect_reset(fuzz_edt);
    if (frame % INPUTS_PER_SESSION == 0)
        fuzz_new_session();
    return 0;
}
