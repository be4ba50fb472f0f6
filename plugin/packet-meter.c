/* packet-meter.c: the "meter" protocol and its hook into CoAP.
 *
 * A postdissector: after the stock dissectors have run (802.15.4, ZEP, TAP,
 * 6LoWPAN reassembly, MAC decryption, IPv6/UDP, CoAP), it reads every CoAP
 * message of the frame, recognises the meter's resources by URI path (a
 * response by its request's path), numbers block-wise transfers, and hands
 * payloads to the decoders (packet-meter-cfg.c, -his.c, -fw.c). It never
 * changes how other traffic is decoded.
 *
 * Requests and responses are matched by Message ID between the same
 * endpoints (piggy-backed responses and empty ACKs) and by token (separate
 * responses), so OpenThread's tokenless follow-up blocks are matched too.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/to_str.h>
#include "packet-meter.h"
#include "coap_view.h"

void proto_register_meter(void);
void proto_reg_handoff_meter(void);

int proto_meter = -1;
module_t *meter_module = NULL;

static int proto_coap = -1;
static dissector_handle_t meter_post_handle;

static int hf_meter_resource = -1;
static int hf_meter_path = -1;
static int hf_meter_transfer = -1;
static int hf_meter_request_in = -1;
static int hf_meter_response_in = -1;
static gint ett_meter = -1;

static const char *pref_path_config = "meter/cfg";
static const char *pref_path_history = "meter/his";
static const char *pref_path_firmware = "firmware/";

static const value_string resource_names[] = {
    { METER_RES_OTHER, "other" },
    { METER_RES_CONFIG, "configuration" },
    { METER_RES_HISTORY, "history upload" },
    { METER_RES_FIRMWARE, "firmware download" },
    { 0, NULL },
};

/* ---- first-pass state: requests by MID and token, transfers by resource ---- */

typedef struct {
    const char *path;
    guint32 frame;          /* the first frame the request was seen in */
    guint32 response_frame; /* the first response to it */
    guint32 transfer_id;
    address client, server;
} request_rec_t;

typedef struct {
    guint32  id;
    guint16  block0_mid;    /* the Message ID of its block-0 request */
    guint8   block0_szx;
    gboolean progressed;    /* a request for a later block was seen */
    gboolean completed;     /* the last block was answered */
} transfer_state_t;

/* What one CoAP message of one frame resolved to, kept for later passes,
 * with where its bytes are: later passes of tshark -2 get no CoAP fields
 * (only the first pass is primed with a postdissector's wanted fields), so
 * they find the message again in the frame's data sources. */
typedef struct {
    meter_resource_t resource;
    const char *path;
    guint32 transfer_id;
    request_rec_t *request;   /* the request (its own record for a request) */
    gboolean is_client_side;
    const char *ds_name;      /* data source, e.g. "Reassembled 6LoWPAN (315 bytes)" */
    gint start, length;       /* the CoAP message within it */
} msg_result_t;

#define MAX_MSGS_PER_FRAME 16

typedef struct {
    guint n;
    msg_result_t *msg[MAX_MSGS_PER_FRAME];
} frame_msgs_t;

static wmem_map_t *requests_by_mid;    /* "client|server|mid" */
static wmem_map_t *requests_by_token;  /* "client|server|t<hex>" */
static wmem_map_t *transfers;          /* "client|server|path" */
static guint32 next_transfer_id;

static void meter_init(void)
{
    next_transfer_id = 0;
}

static const char *endpoint_str(wmem_allocator_t *scope, const address *a, guint32 port)
{
    return wmem_strdup_printf(scope, "%s#%u", address_to_str(scope, a), port);
}

static char *mid_key(const char *client, const char *server, guint16 mid)
{
    return wmem_strdup_printf(wmem_file_scope(), "%s|%s|%u", client, server, mid);
}

static char *token_key(const meter_coap_t *m, const char *client, const char *server)
{
    char hex[17];

    for (guint i = 0; i < m->tkl && i < 8; i++)
        snprintf(hex + 2 * i, 3, "%02x", m->token[i]);
    hex[2 * MIN(m->tkl, 8)] = '\0';
    return wmem_strdup_printf(wmem_file_scope(), "%s|%s|t%s", client, server, hex);
}

static meter_resource_t classify(const char *path)
{
    if (!path)
        return METER_RES_OTHER;
    if (pref_path_config && *pref_path_config && strcmp(path, pref_path_config) == 0)
        return METER_RES_CONFIG;
    if (pref_path_history && *pref_path_history && strcmp(path, pref_path_history) == 0)
        return METER_RES_HISTORY;
    if (pref_path_firmware && *pref_path_firmware && g_str_has_prefix(path, pref_path_firmware))
        return METER_RES_FIRMWARE;
    return METER_RES_OTHER;
}

/* The transfer definition (docs/ground-truth.md): a block-0 request with a
 * new Message ID starts a new transfer once the current one completed, went
 * past block 0, or asked block 0 with another SZX; otherwise it re-requests
 * block 0 of the current transfer. */
static guint32 transfer_for_request(const meter_coap_t *m, const char *client, const char *server)
{
    const meter_block_t *b = m->block2.present ? &m->block2 : &m->block1;
    char *key = wmem_strdup_printf(wmem_file_scope(), "%s|%s|%s", client, server, m->path);
    transfer_state_t *t = (transfer_state_t *)wmem_map_lookup(transfers, key);
    guint32 num = b->present ? b->num : 0;
    guint8 szx = b->present ? b->szx : 6;

    if (num == 0) {
        gboolean fresh = !t || t->completed || t->progressed || t->block0_szx != szx;
        if (fresh) {
            t = wmem_new0(wmem_file_scope(), transfer_state_t);
            t->id = ++next_transfer_id;
            t->block0_mid = m->mid;
            t->block0_szx = szx;
            wmem_map_insert(transfers, key, t);
        }
        return t->id;
    }
    if (!t) {
        /* The capture started mid-transfer. */
        t = wmem_new0(wmem_file_scope(), transfer_state_t);
        t->id = ++next_transfer_id;
        t->block0_szx = szx;
        wmem_map_insert(transfers, key, t);
    }
    t->progressed = TRUE;
    return t->id;
}

static gboolean is_block_wise(const meter_coap_t *m, meter_resource_t res)
{
    return m->block1.present || m->block2.present || res == METER_RES_FIRMWARE;
}

static msg_result_t *resolve_first_pass(packet_info *pinfo, const meter_coap_t *m)
{
    msg_result_t *r = wmem_new0(wmem_file_scope(), msg_result_t);
    const char *src = endpoint_str(wmem_file_scope(), &pinfo->src, pinfo->srcport);
    const char *dst = endpoint_str(wmem_file_scope(), &pinfo->dst, pinfo->destport);

    if (meter_coap_is_request(m)) {
        char *k = mid_key(src, dst, m->mid);
        request_rec_t *req = (request_rec_t *)wmem_map_lookup(requests_by_mid, k);
        if (!req) {
            req = wmem_new0(wmem_file_scope(), request_rec_t);
            req->path = m->path ? wmem_strdup(wmem_file_scope(), m->path) : NULL;
            req->frame = pinfo->num;
            copy_address_wmem(wmem_file_scope(), &req->client, &pinfo->src);
            copy_address_wmem(wmem_file_scope(), &req->server, &pinfo->dst);
            r->resource = classify(req->path);
            if (r->resource != METER_RES_OTHER && is_block_wise(m, r->resource))
                req->transfer_id = transfer_for_request(m, src, dst);
            wmem_map_insert(requests_by_mid, k, req);
            wmem_map_insert(requests_by_token, token_key(m, src, dst), req);
        }
        r->request = req;
        r->is_client_side = TRUE;
    } else {
        /* A response (or empty ACK) travels server -> client. */
        request_rec_t *req = NULL;
        if (m->type == 2 || m->type == 3)
            req = (request_rec_t *)wmem_map_lookup(requests_by_mid, mid_key(dst, src, m->mid));
        if (!req && m->code != 0)
            req = (request_rec_t *)wmem_map_lookup(requests_by_token, token_key(m, dst, src));
        if (req && m->code != 0) {
            if (!req->response_frame)
                req->response_frame = pinfo->num;
            if (req->transfer_id && m->code >= 64 && m->code < 96) {
                const meter_block_t *b = m->block2.present ? &m->block2 : &m->block1;
                gboolean last = b->present ? !b->more : TRUE;
                if (last) {
                    char *key = wmem_strdup_printf(wmem_file_scope(), "%s|%s|%s", dst, src, req->path);
                    transfer_state_t *t = (transfer_state_t *)wmem_map_lookup(transfers, key);
                    if (t && t->id == req->transfer_id)
                        t->completed = TRUE;
                }
            }
        }
        r->request = req;
    }
    if (r->request) {
        r->path = r->request->path;
        r->resource = classify(r->path);
        r->transfer_id = r->request->transfer_id;
    }
    return r;
}

static void add_meter_items(proto_tree *tree, tvbuff_t *tvb, gint start, gint length,
                            const msg_result_t *r, proto_tree **subtree, packet_info *pinfo)
{
    proto_item *ti = proto_tree_add_item(tree, proto_meter, tvb, start, length, ENC_NA);
    proto_item *pi;

    *subtree = proto_item_add_subtree(ti, ett_meter);
    proto_item_append_text(ti, ", %s /%s", val_to_str_const(r->resource, resource_names, "?"),
                           r->path ? r->path : "");
    pi = proto_tree_add_uint(*subtree, hf_meter_resource, tvb, start, 0, r->resource);
    proto_item_set_generated(pi);
    if (r->path) {
        pi = proto_tree_add_string(*subtree, hf_meter_path, tvb, start, 0, r->path);
        proto_item_set_generated(pi);
    }
    if (r->transfer_id) {
        pi = proto_tree_add_uint(*subtree, hf_meter_transfer, tvb, start, 0, r->transfer_id);
        proto_item_set_generated(pi);
    }
    if (r->request && r->request->frame != pinfo->num) {
        pi = proto_tree_add_uint(*subtree, hf_meter_request_in, tvb, start, 0, r->request->frame);
        proto_item_set_generated(pi);
    }
    if (r->request && r->is_client_side && r->request->response_frame) {
        pi = proto_tree_add_uint(*subtree, hf_meter_response_in, tvb, start, 0, r->request->response_frame);
        proto_item_set_generated(pi);
    }
}

static void dissect_message(packet_info *pinfo, proto_tree *tree, tvbuff_t *ds_tvb,
                            const msg_result_t *r)
{
    meter_coap_t m;
    proto_tree *mtree = NULL;

    if (r->resource == METER_RES_OTHER ||
        !coap_view_parse(ds_tvb, r->start, r->length, pinfo->pool, &m))
        return;
    m.path = r->path;
    add_meter_items(tree, ds_tvb, r->start, r->length, r, &mtree, pinfo);

    meter_ctx_t ctx = {
        .msg = &m,
        .resource = r->resource,
        .meter = r->request ? &r->request->client : &pinfo->src,
        .gateway = r->request ? &r->request->server : &pinfo->dst,
        .transfer_id = r->transfer_id,
        .request_frame = r->request ? r->request->frame : 0,
    };
    if (!m.payload)
        return;
    switch (r->resource) {
    case METER_RES_CONFIG:
        if (!meter_coap_is_request(&m) && m.code >= 64 && m.code < 96)
            dissect_meter_cfg(m.payload, pinfo, mtree, &ctx);
        break;
    case METER_RES_HISTORY:
        if (meter_coap_is_request(&m))
            dissect_meter_his(m.payload, pinfo, mtree, &ctx);
        break;
    case METER_RES_FIRMWARE:
        if (!meter_coap_is_request(&m) && m.code != 0)
            dissect_meter_fw(m.payload, pinfo, mtree, &ctx);
        break;
    case METER_RES_OTHER:
        break;
    }
}

static const char *data_source_name_of(packet_info *pinfo, tvbuff_t *ds_tvb)
{
    for (GSList *l = pinfo->data_src; l; l = l->next) {
        struct data_source *src = (struct data_source *)l->data;
        if (get_data_source_tvb(src) == ds_tvb) {
            char *name = get_data_source_name(src);
            const char *copy = wmem_strdup(wmem_file_scope(), name);
            wmem_free(NULL, name);
            return copy;
        }
    }
    return NULL;
}

static tvbuff_t *data_source_named(packet_info *pinfo, const char *wanted)
{
    tvbuff_t *found = NULL;

    for (GSList *l = pinfo->data_src; l && !found; l = l->next) {
        struct data_source *src = (struct data_source *)l->data;
        char *name = get_data_source_name(src);
        if (wanted && strcmp(name, wanted) == 0)
            found = get_data_source_tvb(src);
        wmem_free(NULL, name);
    }
    return found;
}

/* First pass: read the CoAP messages the stock dissector found. */
static void first_pass(packet_info *pinfo, proto_tree *tree)
{
    GPtrArray *coap = proto_get_finfo_ptr_array(tree, proto_coap);
    frame_msgs_t *fm = wmem_new0(wmem_file_scope(), frame_msgs_t);

    p_add_proto_data(wmem_file_scope(), pinfo, proto_meter, 0, fm);
    for (guint i = 0; coap && i < coap->len && fm->n < MAX_MSGS_PER_FRAME; i++) {
        field_info *fi = (field_info *)g_ptr_array_index(coap, i);
        meter_coap_t m;
        if (!coap_view_parse(fi->ds_tvb, fi->start, fi->length, pinfo->pool, &m))
            continue;
        msg_result_t *r = resolve_first_pass(pinfo, &m);
        r->ds_name = data_source_name_of(pinfo, fi->ds_tvb);
        r->start = fi->start;
        r->length = fi->length;
        fm->msg[fm->n++] = r;
        dissect_message(pinfo, tree, fi->ds_tvb, r);
    }
}

static int dissect_meter_post(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    frame_msgs_t *fm = (frame_msgs_t *)p_get_proto_data(wmem_file_scope(), pinfo, proto_meter, 0);

    if (!fm) {
        if (!PINFO_FD_VISITED(pinfo))
            first_pass(pinfo, tree);
        return tvb_captured_length(tvb);
    }
    for (guint i = 0; i < fm->n; i++) {
        tvbuff_t *ds = data_source_named(pinfo, fm->msg[i]->ds_name);
        if (ds)
            dissect_message(pinfo, tree, ds, fm->msg[i]);
    }
    return tvb_captured_length(tvb);
}

void proto_register_meter(void)
{
    static hf_register_info hf[] = {
        { &hf_meter_resource, { "Resource", "meter.resource", FT_UINT8, BASE_DEC,
          VALS(resource_names), 0x0, "Which of the meter's resources this message belongs to", HFILL } },
        { &hf_meter_path, { "URI path", "meter.path", FT_STRING, BASE_NONE,
          NULL, 0x0, "The resource path (a response: its request's)", HFILL } },
        { &hf_meter_transfer, { "Transfer", "meter.transfer", FT_UINT32, BASE_DEC,
          NULL, 0x0, "Block-wise transfer number in this capture", HFILL } },
        { &hf_meter_request_in, { "Request in", "meter.request_in", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0, "The request this message answers", HFILL } },
        { &hf_meter_response_in, { "Response in", "meter.response_in", FT_FRAMENUM, BASE_NONE,
          FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0, "The first response to this request", HFILL } },
    };
    static gint *ett[] = { &ett_meter };

    proto_meter = proto_register_protocol("Metering device CoAP interface (meterscope)",
                                          "Meter", "meter");
    proto_register_field_array(proto_meter, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));

    meter_module = prefs_register_protocol(proto_meter, NULL);
    prefs_register_string_preference(meter_module, "path.config", "Config path",
        "URI path of the configuration resource (no leading slash)", &pref_path_config);
    prefs_register_string_preference(meter_module, "path.history", "History path",
        "URI path the meter POSTs its SenML history to", &pref_path_history);
    prefs_register_string_preference(meter_module, "path.firmware", "Firmware path prefix",
        "URI paths starting with this are firmware images", &pref_path_firmware);

    requests_by_mid = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
    requests_by_token = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
    transfers = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
    register_init_routine(meter_init);

    proto_register_meter_cfg();
    proto_register_meter_his();
    proto_register_meter_fw();
}

void proto_reg_handoff_meter(void)
{
    GArray *wanted = g_array_new(FALSE, FALSE, sizeof(int));

    proto_coap = proto_get_id_by_filter_name("coap");
    meter_post_handle = create_dissector_handle(dissect_meter_post, proto_meter);
    register_postdissector(meter_post_handle);
    g_array_append_val(wanted, proto_coap);
    set_postdissector_wanted_hfids(meter_post_handle, wanted);
    proto_reg_handoff_meter_fw();
}
