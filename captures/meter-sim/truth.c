/* truth.c: ground-truth bookkeeping and the FILE.truth.json writer.
 *
 * Capture-level counts are what a sniffer that hears every transmission
 * can see: a datagram copy on a hop is "complete on air" once each of its
 * fragments went out at least once on that hop, whether or not the receiver
 * got it; that is when a dissector can reassemble it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <arpa/inet.h>
#include <string.h>
#include "truth.h"
#include "coap_msg.h"
#include "meter_app.h"
#include "gateway_app.h"
#include "truth_on_air.h"
#include "truth_sniffer.h"
#include "truth_pair.h"
#include "sniffer.h"
#include "channel.h"

typedef struct {
    guint64 frames, acks, data_requests, broadcasts;
    guint64 fragment_frames, mac_retries, frames_unacked;
    guint64 datagrams, datagrams_fragmented, datagrams_delivered;
    guint64 coap_messages, block2_responses, con_retransmissions, reassembled;
} air_counts_t;

typedef struct {
    guint64 coap_messages, block2_responses, con_retransmissions;
} gw_counts_t;

typedef struct {
    const node_t  *node;
    meter_config_t cfg;
} config_entry_t;

struct truth {
    world_t      *w;
    GPtrArray    *xfers;
    air_counts_t  air;
    gw_counts_t   gw;
    GHashTable   *air_seen;   /* "hop-src>hop-dst|origin|mid" of CON copies */
    GHashTable   *gw_seen;
    GArray       *configs;
    on_air_t     *on_air;     /* per transfer, what a sniffer can find */
    sniffer_truth_t *sniffer; /* what this capture's sniffer did not capture */
    pair_truth_t *pair;       /* --gateway-output: the two vantage points, message by message */
    const char   *gateway_capture;
    gint64        end_us;
};

truth_t *truth_new(world_t *w)
{
    truth_t *t = g_new0(truth_t, 1);

    t->w = w;
    t->xfers = g_ptr_array_new_with_free_func(g_free);
    t->air_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    t->gw_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    t->configs = g_array_new(FALSE, TRUE, sizeof(config_entry_t));
    t->on_air = on_air_new();
    t->sniffer = sniffer_truth_new();
    if (w->p.gateway_pair)
        t->pair = pair_truth_new();
    return t;
}

void truth_free(truth_t *t)
{
    g_ptr_array_unref(t->xfers);
    g_hash_table_destroy(t->air_seen);
    g_hash_table_destroy(t->gw_seen);
    g_array_free(t->configs, TRUE);
    on_air_free(t->on_air);
    sniffer_truth_free(t->sniffer);
    pair_truth_free(t->pair);
    g_free(t);
}

truth_xfer_t *truth_xfer_begin(truth_t *t, node_t *meter, const char *kind, const char *method,
                               const char *path, const char *query, int szx)
{
    truth_xfer_t *x = g_new0(truth_xfer_t, 1);

    x->id = (int)t->xfers->len + 1;
    x->meter = meter;
    g_strlcpy(x->kind, kind, sizeof(x->kind));
    g_strlcpy(x->method, method, sizeof(x->method));
    g_strlcpy(x->path, path, sizeof(x->path));
    g_strlcpy(x->query, query, sizeof(x->query));
    x->szx_requested = x->szx = szx;
    g_strlcpy(x->outcome, "unfinished", sizeof(x->outcome));
    x->air_first_request_us = x->air_last_response_us = x->air_last_activity_us = -1;
    x->gw_first_request_us = x->gw_last_response_us = -1;
    g_ptr_array_add(t->xfers, x);
    return x;
}

void truth_xfer_end(truth_t *t, truth_xfer_t *x, const char *outcome, const datagram_t *dg,
                    const app_msg_t *last_response)
{
    g_strlcpy(x->outcome, outcome, sizeof(x->outcome));
    if (dg && last_response) {
        x->air_last_response_us = dg->complete_on_air_us[dg->n_path - 2];
        x->gw_last_response_us = t->w->p.start_epoch_us + last_response->gw_time_us;
    }
}

static gboolean coap_is_con(const GByteArray *c) { return c->len >= 4 && ((c->data[0] >> 4) & 3) == 0; }
static gboolean coap_is_request(const GByteArray *c) { return c->len >= 4 && c->data[1] >= 1 && c->data[1] < 32; }
static guint16 coap_mid(const GByteArray *c) { return c->len >= 4 ? (guint16)((c->data[2] << 8) | c->data[3]) : 0; }

/* Counts one copy of a CoAP message and whether it repeats a CON's MID. */
static void count_copy(GHashTable *seen, const char *link, int origin, const app_msg_t *m,
                       guint64 *messages, guint64 *block2, guint64 *retx)
{
    (*messages)++;
    if (m->has_block2)
        (*block2)++;
    if (!coap_is_con(m->coap))
        return;
    char *key = g_strdup_printf("%s|%d|%u", link, origin, coap_mid(m->coap));
    if (g_hash_table_contains(seen, key)) {
        (*retx)++;
        g_free(key);
    } else {
        g_hash_table_add(seen, key);
    }
}

static void complete_on_air(truth_t *t, datagram_t *dg, int hop, gint64 now)
{
    truth_xfer_t *x = dg->msg.xfer;
    char link[32];

    dg->complete_on_air_us[hop] = now;
    on_air_copy(dg, hop, now);
    pair_truth_copy(dg, hop, now);
    if (dg->fragmented)
        t->air.reassembled++;
    g_snprintf(link, sizeof(link), "%d>%d", dg->path[hop]->idx, dg->path[hop + 1]->idx);
    count_copy(t->air_seen, link, dg->upstream ? dg->path[0]->idx : -1, &dg->msg,
               &t->air.coap_messages, &t->air.block2_responses, &t->air.con_retransmissions);
    if (!x)
        return;
    x->air_last_activity_us = now;
    if (hop == 0 && dg->upstream && x->air_first_request_us < 0 && coap_is_request(dg->msg.coap))
        x->air_first_request_us = now;
}

void truth_mac_attempt(truth_t *t, mac_tx_t *tx, gboolean captured)
{
    datagram_t *dg = tx->dg;
    gint64 now = t->w->p.start_epoch_us + world_now(t->w);

    if (!captured)
        sniffer_truth_frame_missed(t->sniffer, tx, now);
    t->air.frames++;
    if (tx->is_poll) {
        t->air.data_requests++;
        on_air_poll_sent(t->on_air, tx->src, now - air_time_us(tx->psdu->len));
    }
    if (!tx->dst)
        t->air.broadcasts++;
    if (tx->sent > 1)
        t->air.mac_retries++;
    if (!dg)
        return;
    if (dg->fragmented)
        t->air.fragment_frames++;
    on_air_frame(dg, tx->hop, tx->frag, tx->sent > 1, now, air_time_us(tx->psdu->len), captured);
    pair_truth_frame(dg, now);
    if (dg->msg.xfer) {
        if (tx->sent > 1)
            dg->msg.xfer->mac_retries++;
        else if (dg->fragmented)
            dg->msg.xfer->fragments_sent++;
    }
    guint32 bit = 1u << tx->frag;
    if (!(dg->sent_mask[tx->hop] & bit)) {
        guint32 all = dg->frags->len >= 32 ? 0xffffffffu : (1u << dg->frags->len) - 1;
        dg->sent_mask[tx->hop] |= bit;
        if (dg->sent_mask[tx->hop] == all)
            complete_on_air(t, dg, tx->hop, now);
    }
}

void truth_mac_failed(truth_t *t, const mac_tx_t *tx)
{
    t->air.frames_unacked++;
    if (tx->dg && tx->dg->fragmented && tx->dg->msg.xfer)
        tx->dg->msg.xfer->fragments_unacked++;
}

void truth_indirect_pulled(truth_t *t, const mac_tx_t *tx, gint64 dr_start)
{
    if (tx->dg)
        on_air_poll_wait(t->on_air, tx->dg, tx->hop, tx->dst, t->w->p.start_epoch_us + tx->queued_us,
                         t->w->p.start_epoch_us + dr_start);
}

void truth_ack_sent(truth_t *t, const datagram_t *dg, const node_t *acked_sender, int hop, int frag,
                    gsize ack_len, gboolean captured)
{
    gint64 now = t->w->p.start_epoch_us + world_now(t->w);

    t->air.frames++;
    t->air.acks++;
    if (!captured)
        sniffer_truth_ack_missed(t->sniffer, dg, acked_sender, now);
    on_air_acked(dg, hop, frag, now, air_time_us(ack_len), captured);
}

void truth_datagram_sent(truth_t *t, datagram_t *dg)
{
    on_air_datagram(t->on_air, dg, t->w->p.start_epoch_us + world_now(t->w));
    if (t->pair && dg->upstream)
        pair_truth_up(t->pair, dg, t->w->p.start_epoch_us + world_now(t->w));
    t->air.datagrams++;
    if (dg->fragmented)
        t->air.datagrams_fragmented++;
    if (dg->msg.xfer) {
        dg->msg.xfer->datagrams_sent++;
        if (dg->fragmented)
            dg->msg.xfer->datagrams_fragmented++;
    }
}

void truth_datagram_delivered(truth_t *t, const datagram_t *dg)
{
    t->air.datagrams_delivered++;
    pair_truth_delivered(dg);
    if (dg->msg.xfer)
        dg->msg.xfer->datagrams_delivered++;
}

void truth_response_taken(truth_t *t, const app_msg_t *msg)
{
    on_air_taken(msg, t->w->p.start_epoch_us + world_now(t->w));
}

void truth_gateway_received(truth_t *t, const datagram_t *dg, int peer_idx, gint64 now)
{
    const app_msg_t *msg = &dg->msg;
    truth_xfer_t *x = msg->xfer;
    char link[16];

    on_air_gateway(dg, t->w->p.start_epoch_us + now);
    pair_truth_at_gateway(dg, t->w->p.start_epoch_us + now);
    g_snprintf(link, sizeof(link), "up%d", peer_idx);
    count_copy(t->gw_seen, link, peer_idx, msg, &t->gw.coap_messages, &t->gw.block2_responses,
               &t->gw.con_retransmissions);
    if (x && x->gw_first_request_us < 0 && coap_is_request(msg->coap))
        x->gw_first_request_us = t->w->p.start_epoch_us + now;
}

void truth_gateway_sent(truth_t *t, datagram_t *dg, int peer_idx, gint64 now)
{
    const app_msg_t *msg = &dg->msg;
    char link[16];

    on_air_datagram(t->on_air, dg, t->w->p.start_epoch_us + now);
    on_air_gateway(dg, t->w->p.start_epoch_us + now);
    if (t->pair)
        pair_truth_down(t->pair, dg, t->w->p.start_epoch_us + now);
    g_snprintf(link, sizeof(link), "down%d", peer_idx);
    count_copy(t->gw_seen, link, -1, msg, &t->gw.coap_messages, &t->gw.block2_responses,
               &t->gw.con_retransmissions);
}

void truth_backhaul_lost(truth_t *t, const datagram_t *dg)
{
    (void)t;
    pair_truth_backhaul_lost(dg);
}

void truth_set_gateway_capture(truth_t *t, const char *path)
{
    t->gateway_capture = path;
}

void truth_set_config(truth_t *t, const node_t *n, const meter_config_t *cfg)
{
    for (guint i = 0; i < t->configs->len; i++)
        if (g_array_index(t->configs, config_entry_t, i).node == n)
            return;
    config_entry_t e = { n, *cfg };
    g_array_append_val(t->configs, e);
}

void truth_finish(truth_t *t, gint64 now)
{
    t->end_us = now;
}

/* ---- JSON ---- */

static void json_str(GString *s, const char *v)
{
    g_string_append_c(s, '"');
    for (const char *c = v; *c; c++) {
        if (*c == '"' || *c == '\\')
            g_string_append_printf(s, "\\%c", *c);
        else if ((guchar)*c < 0x20)
            g_string_append_printf(s, "\\u%04x", *c);
        else
            g_string_append_c(s, *c);
    }
    g_string_append_c(s, '"');
}

static void json_hex(GString *s, const guint8 *b, gsize n)
{
    g_string_append_c(s, '"');
    for (gsize i = 0; i < n; i++)
        g_string_append_printf(s, "%02x", b[i]);
    g_string_append_c(s, '"');
}

static void json_ip6(GString *s, const guint8 *a)
{
    char txt[INET6_ADDRSTRLEN];

    json_str(s, inet_ntop(AF_INET6, a, txt, sizeof(txt)) ? txt : "?");
}

static void json_time(GString *s, const char *key, gint64 us)
{
    if (us < 0) {
        g_string_append_printf(s, "\"%s_us\": null, \"%s\": null", key, key);
        return;
    }
    GDateTime *dt = g_date_time_new_from_unix_utc(us / 1000000);
    char *iso = g_date_time_format(dt, "%Y-%m-%dT%H:%M:%S");
    g_string_append_printf(s, "\"%s_us\": %" G_GINT64_FORMAT ", \"%s\": \"%s.%06dZ\"", key, us, key,
                           iso, (int)(us % 1000000));
    g_free(iso);
    g_date_time_unref(dt);
}

static const char *kind_name(capture_kind_t k)
{
    switch (k) {
    case CAPTURE_WPAN_FCS: return "ieee802154-fcs";
    case CAPTURE_WPAN_NOFCS: return "ieee802154-nofcs";
    case CAPTURE_WPAN_TAP: return "ieee802154-tap";
    case CAPTURE_ZEP: return "zep";
    case CAPTURE_GATEWAY: return "gateway";
    }
    return "?";
}

static void xfer_times(const truth_t *t, const truth_xfer_t *x, gint64 *first, gint64 *last,
                       gint64 *activity)
{
    if (t->w->p.link == CAPTURE_GATEWAY) {
        *first = x->gw_first_request_us;
        *last = x->gw_last_response_us;
        *activity = x->gw_last_response_us;
    } else {
        *first = x->air_first_request_us;
        *last = x->air_last_response_us;
        *activity = x->air_last_activity_us;
    }
}

static void write_xfer(GString *s, const truth_t *t, const truth_xfer_t *x)
{
    gint64 first, last, activity;
    gint64 end;
    guint32 lost = x->datagrams_sent - x->datagrams_delivered;

    xfer_times(t, x, &first, &last, &activity);
    end = last >= 0 ? last : activity;
    g_string_append_printf(s, "    {\"id\": %d, \"background\": %s, \"kind\": \"%s\", \"method\": \"%s\",\n",
                           x->id, x->background ? "true" : "false", x->kind, x->method);
    g_string_append_printf(s, "     \"meter\": {\"name\": \"%s\", \"ext\": \"%016" G_GINT64_MODIFIER "x\", "
                              "\"short\": \"0x%04x\", \"ipv6\": ",
                           x->meter->name, x->meter->ext, x->meter->rloc16);
    json_ip6(s, x->meter->ipv6);
    g_string_append(s, "},\n     \"gateway\": ");
    json_ip6(s, t->w->gateway_ip6);
    g_string_append(s, ", \"uri_path\": ");
    char *p = g_strconcat("/", x->path, NULL);
    json_str(s, p);
    g_free(p);
    g_string_append(s, ", \"uri_query\": ");
    json_str(s, x->query);
    g_string_append_printf(s, ",\n     \"szx_requested\": %d, \"szx\": %d, \"block_size\": %u, \"renegotiated\": %s,\n",
                           x->szx_requested, x->szx, 1u << (x->szx + 4), x->renegotiated ? "true" : "false");
    g_string_append_printf(s, "     \"resource_size\": %u, \"sha256\": ", x->resource_size);
    if (x->has_sha256)
        json_hex(s, x->sha256, 32);
    else
        g_string_append(s, "null");
    g_string_append_printf(s, ", \"blocks\": %u, \"bytes\": %u, \"outcome\": \"%s\", \"complete\": %s,\n     ",
                           x->blocks, x->bytes, x->outcome, strcmp(x->outcome, "complete") == 0 ? "true" : "false");
    json_time(s, "first_request", first);
    g_string_append(s, ", ");
    json_time(s, "last_response", last);
    g_string_append(s, ",\n     ");
    json_time(s, "last_activity", activity);
    if (first >= 0 && end > first)
        g_string_append_printf(s, ",\n     \"duration_s\": %.6f, \"effective_rate_Bps\": %.6f,\n",
                               (double)(end - first) / 1e6, x->bytes / ((double)(end - first) / 1e6));
    else
        g_string_append(s, ",\n     \"duration_s\": null, \"effective_rate_Bps\": null,\n");
    g_string_append_printf(s,
        "     \"requests\": %u, \"coap_retransmissions\": %u, \"gateway_retransmissions\": %u, "
        "\"rerequests\": %u, \"resumes\": %u,\n"
        "     \"separate_responses\": %u, \"duplicate_responses\": %u, \"error_responses\": %u, "
        "\"dropped_by_meter\": %u,\n"
        "     \"mac_retries\": %u, \"datagrams_sent\": %u, \"datagrams_fragmented\": %u, "
        "\"datagrams_lost\": %u, \"fragments_sent\": %u, \"fragments_unacked\": %u",
        x->requests, x->coap_retransmissions, x->gateway_retransmissions, x->rerequests, x->resumes,
        x->separate_responses, x->duplicate_responses, x->error_responses, x->dropped_by_meter,
        x->mac_retries, x->datagrams_sent, x->datagrams_fragmented, lost, x->fragments_sent,
        x->fragments_unacked);
    on_air_write(t->on_air, s, x, t->w->p.link == CAPTURE_GATEWAY);
    sniffer_truth_write_xfer(t->sniffer, s, x, t->on_air);
    g_string_append_c(s, '}');
}

static void write_config(GString *s, const config_entry_t *e)
{
    const meter_config_t *c = &e->cfg;

    g_string_append_printf(s, "    {\"meter\": \"%s\", \"device_id\": ", e->node->name);
    json_str(s, c->device_id);
    g_string_append_printf(s, ", \"config_version\": %u, \"sample_interval\": %u, \"upload_interval\": %u, "
                              "\"history_path\": ", c->config_version, c->sample_interval, c->upload_interval);
    json_str(s, c->history_path);
    g_string_append_printf(s, ", \"meter_kind\": %u, \"pulse_factor\": %.17g, \"unit\": ", c->meter_kind, c->pulse_factor);
    json_str(s, c->unit);
    g_string_append_printf(s, ", \"utc_offset\": %d,\n     \"firmware\": {\"version\": ", c->utc_offset);
    json_str(s, c->fw_version);
    g_string_append(s, ", \"path\": ");
    json_str(s, c->fw_path);
    g_string_append_printf(s, ", \"size\": %u, \"sha256\": ", c->fw_size);
    json_hex(s, c->fw_sha256, 32);
    g_string_append_printf(s, "}, \"block_szx\": %u, \"ack_timeout_ms\": %u, \"auth_token\": ", c->block_szx,
                           c->ack_timeout_ms);
    json_str(s, c->auth_token);
    g_string_append(s, ",\n     \"points\": [");
    for (guint i = 0; i < c->n_points; i++) {
        g_string_append(s, i ? ", {\"name\": " : "{\"name\": ");
        json_str(s, c->points[i].name);
        g_string_append(s, ", \"point_id\": ");
        json_str(s, c->points[i].point_id);
        g_string_append(s, ", \"unit\": ");
        json_str(s, c->points[i].unit);
        g_string_append(s, "}");
    }
    g_string_append(s, "]}");
}

static void write_history(GString *s, const node_t *n)
{
    const senml_sample_t *smp;
    guint count = meter_app_history((node_t *)n, (const void **)&smp);

    g_string_append_printf(s, "    {\"meter\": \"%s\", \"records\": [", n->name);
    for (guint i = 0; i < count; i++)
        g_string_append_printf(s, "%s\n      {\"name\": \"urn:dev:mac:%016" G_GINT64_MODIFIER "x:energy\", "
                                  "\"time\": %.6f, \"value\": %.17g, \"unit\": \"Wh\"}",
                               i ? "," : "", n->ext, smp[i].time, smp[i].value);
    g_string_append(s, "]}");
}

gboolean truth_write_json(truth_t *t, const char *path, const char *capture_path, GError **err)
{
    const sim_params_t *p = &t->w->p;
    GString *s = g_string_new("{\n");
    char *base = g_path_get_basename(capture_path);
    gboolean ok;

    g_string_append(s, "  \"format\": \"meterscope-truth\", \"version\": 1,\n  \"capture\": ");
    json_str(s, base);
    g_free(base);
    g_string_append_printf(s, ", \"link\": \"%s\", \"linktype\": %d, \"scenario\": ", kind_name(p->link),
                           p->link == CAPTURE_ZEP || p->link == CAPTURE_GATEWAY ? 1 : (int)p->link);
    json_str(s, p->name);
    g_string_append_printf(s, ", \"seed\": %" G_GUINT64_FORMAT ", \"timestamp\": \"%s\",\n", p->seed,
                           p->stamp == STAMP_START ? "start" : p->stamp == STAMP_HOST ? "host" : "end");
    g_string_append_printf(s, "  \"channel\": %u, \"pan_id\": \"0x%04x\", \"security\": %s, \"network_key\": ",
                           p->channel, PAN_ID, p->security ? "true" : "false");
    json_hex(s, p->network_key, 16);
    g_string_append(s, ", \"firmware_pubkey\": ");
    json_hex(s, gateway_image(t->w->gateway, gateway_main_image_path())->pubkey, 32);
    g_string_append_printf(s, ",\n  \"wireshark_prefs\": [\"6lowpan.context1:2001:db8:1::/64\"%s],\n",
                           p->security ? ", \"uat:ieee802154_keys:\\\"00112233445566778899aabbccddeeff\\\",\\\"1\\\",\\\"Thread hash\\\"\"" : "");
    g_string_append(s, "  \"nodes\": [");
    for (guint i = 0; i < t->w->nodes->len; i++) {
        const node_t *n = g_ptr_array_index(t->w->nodes, i);
        static const char *roles[] = { "border_router", "router", "meter", "background" };
        g_string_append_printf(s, "%s\n    {\"name\": \"%s\", \"role\": \"%s\", \"ext\": \"%016" G_GINT64_MODIFIER "x\", "
                                  "\"short\": \"0x%04x\", \"sleepy\": %s, \"hidden\": %s, \"sniffer_hops\": %d, "
                                  "\"ipv6\": ",
                               i ? "," : "", n->name, roles[n->role], n->ext, n->rloc16,
                               n->sleepy ? "true" : "false", n->hidden ? "true" : "false",
                               sniffer_hops_to(t->w, n));
        json_ip6(s, n->ipv6);
        g_string_append(s, "}");
    }
    g_string_append(s, "],\n  \"transfers\": [\n");
    for (guint i = 0; i < t->xfers->len; i++) {
        write_xfer(s, t, g_ptr_array_index(t->xfers, i));
        g_string_append(s, i + 1 < t->xfers->len ? ",\n" : "\n");
    }
    g_string_append(s, "  ],\n  \"config\": [\n");
    for (guint i = 0; i < t->configs->len; i++) {
        write_config(s, &g_array_index(t->configs, config_entry_t, i));
        g_string_append(s, i + 1 < t->configs->len ? ",\n" : "\n");
    }
    g_string_append(s, "  ],\n  \"history\": [\n");
    for (int i = 0; i < p->n_meters; i++) {
        if (!p->do_history)
            break;
        write_history(s, t->w->meters[i]);
        g_string_append(s, i + 1 < p->n_meters ? ",\n" : "\n");
    }
    const air_counts_t *a = &t->air;
    g_string_append_printf(s,
        "  ],\n  \"air\": {\"frames\": %" G_GUINT64_FORMAT ", \"acks\": %" G_GUINT64_FORMAT
        ", \"data_requests\": %" G_GUINT64_FORMAT ", \"broadcasts\": %" G_GUINT64_FORMAT
        ", \"fragment_frames\": %" G_GUINT64_FORMAT ", \"mac_retries\": %" G_GUINT64_FORMAT
        ", \"frames_unacked\": %" G_GUINT64_FORMAT ",\n          \"datagrams\": %" G_GUINT64_FORMAT
        ", \"datagrams_fragmented\": %" G_GUINT64_FORMAT ", \"datagrams_delivered\": %" G_GUINT64_FORMAT
        ", \"reassembled_copies\": %" G_GUINT64_FORMAT ",\n          \"coap_messages\": %" G_GUINT64_FORMAT
        ", \"block2_responses\": %" G_GUINT64_FORMAT ", \"con_retransmissions\": %" G_GUINT64_FORMAT "},\n",
        a->frames, a->acks, a->data_requests, a->broadcasts, a->fragment_frames, a->mac_retries,
        a->frames_unacked, a->datagrams, a->datagrams_fragmented, a->datagrams_delivered, a->reassembled,
        a->coap_messages, a->block2_responses, a->con_retransmissions);
    g_string_append_printf(s,
        "  \"gateway_view\": {\"coap_messages\": %" G_GUINT64_FORMAT ", \"block2_responses\": %" G_GUINT64_FORMAT
        ", \"con_retransmissions\": %" G_GUINT64_FORMAT "},\n",
        t->gw.coap_messages, t->gw.block2_responses, t->gw.con_retransmissions);
    sniffer_truth_write(t->sniffer, s, p, a->frames, capture_writer_count(t->w->cap));
    if (t->pair)
        pair_truth_write(t->pair, s, p, t->gateway_capture);
    g_string_append_printf(s, "  \"records\": %" G_GUINT64_FORMAT ", \"end_us\": %" G_GINT64_FORMAT "\n}\n",
                           capture_writer_count(t->w->cap), p->start_epoch_us + t->end_us);
    ok = g_file_set_contents(path, s->str, (gssize)s->len, err);
    g_string_free(s, TRUE);
    return ok;
}

static void human_duration(char *buf, gsize n, double s)
{
    if (s >= 3600)
        g_snprintf(buf, n, "%dh%02dm%02ds", (int)(s / 3600), (int)(s / 60) % 60, (int)s % 60);
    else if (s >= 60)
        g_snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        g_snprintf(buf, n, "%.3fs", s);
}

void truth_print_summary(truth_t *t, FILE *out)
{
    const air_counts_t *a = &t->air;

    fprintf(out, "%-3s %-8s %-6s %-24s %3s %5s %7s %9s %-10s %10s %5s %5s %4s %6s\n", "id", "meter", "kind",
            "path", "szx", "block", "blocks", "bytes", "outcome", "duration", "B/s", "retx", "rereq",
            "lost");
    for (guint i = 0; i < t->xfers->len; i++) {
        const truth_xfer_t *x = g_ptr_array_index(t->xfers, i);
        gint64 first, last, activity;
        char dur[32] = "-";
        double rate = 0;

        if (x->background)
            continue;
        xfer_times(t, x, &first, &last, &activity);
        gint64 end = last >= 0 ? last : activity;
        if (first >= 0 && end > first) {
            human_duration(dur, sizeof(dur), (double)(end - first) / 1e6);
            rate = x->bytes / ((double)(end - first) / 1e6);
        }
        fprintf(out, "%-3d %-8s %-6s /%-23s %3d %5u %7u %9u %-10s %10s %5.0f %5u %4u %6u\n", x->id, x->meter->name,
                x->kind, x->path, x->szx, 1u << (x->szx + 4), x->blocks, x->bytes, x->outcome, dur, rate,
                x->coap_retransmissions, x->rerequests, x->datagrams_sent - x->datagrams_delivered);
    }
    fprintf(out, "air: %" G_GUINT64_FORMAT " frames (%" G_GUINT64_FORMAT " ACKs, %" G_GUINT64_FORMAT
                 " data requests, %" G_GUINT64_FORMAT " MAC retries, %" G_GUINT64_FORMAT
                 " fragments), %" G_GUINT64_FORMAT " datagrams, %" G_GUINT64_FORMAT " lost\n",
            a->frames, a->acks, a->data_requests, a->mac_retries, a->fragment_frames, a->datagrams,
            a->datagrams - a->datagrams_delivered);
    if (sniffer_truth_missed(t->sniffer))
        fprintf(out, "sniffer: %" G_GUINT64_FORMAT " of those frames not captured\n", sniffer_truth_missed(t->sniffer));
}
