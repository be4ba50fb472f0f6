/* truth_write.c: the truth's two outputs: FILE.truth.json, built with
 * json-glib (docs/ground-truth.md says what every member means), and the
 * summary table meter-sim prints.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "truth_internal.h"
#include "sniffer.h"
#include "truth_json.h"

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

/* A transfer's times as this capture shows them: on the air, or at the gateway. */
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

static void node_id(JsonBuilder *b, const node_t *n)
{
    char txt[20];

    g_snprintf(txt, sizeof(txt), "%016" G_GINT64_MODIFIER "x", n->ext);
    tj_str(b, "ext", txt);
    g_snprintf(txt, sizeof(txt), "0x%04x", n->rloc16);
    tj_str(b, "short", txt);
}

static void write_xfer(JsonBuilder *b, const truth_t *t, const truth_xfer_t *x)
{
    gint64 first, last, activity, end;
    char *path = g_strconcat("/", x->path, NULL);

    xfer_times(t, x, &first, &last, &activity);
    end = last >= 0 ? last : activity;
    json_builder_begin_object(b);
    tj_int(b, "id", x->id);
    tj_bool(b, "background", x->background);
    tj_str(b, "kind", x->kind);
    tj_str(b, "method", x->method);
    json_builder_set_member_name(b, "meter");
    json_builder_begin_object(b);
    tj_str(b, "name", x->meter->name);
    node_id(b, x->meter);
    tj_ip6(b, "ipv6", x->meter->ipv6);
    json_builder_end_object(b);
    tj_ip6(b, "gateway", t->w->gateway_ip6);
    tj_str(b, "uri_path", path);
    tj_str(b, "uri_query", x->query);
    tj_int(b, "szx_requested", x->szx_requested);
    tj_int(b, "szx", x->szx);
    tj_int(b, "block_size", 1 << (x->szx + 4));
    tj_bool(b, "renegotiated", x->renegotiated);
    tj_int(b, "resource_size", x->resource_size);
    tj_hex(b, "sha256", x->has_sha256 ? x->sha256 : NULL, 32);
    tj_int(b, "blocks", x->blocks);
    tj_int(b, "bytes", x->bytes);
    tj_str(b, "outcome", x->outcome);
    tj_bool(b, "complete", strcmp(x->outcome, "complete") == 0);
    tj_time(b, "first_request", first);
    tj_time(b, "last_response", last);
    tj_time(b, "last_activity", activity);
    if (first >= 0 && end > first) {
        tj_fixed6(b, "duration_s", (double)(end - first) / 1e6);
        tj_fixed6(b, "effective_rate_Bps", x->bytes / ((double)(end - first) / 1e6));
    } else {
        tj_null(b, "duration_s");
        tj_null(b, "effective_rate_Bps");
    }
    tj_int(b, "requests", x->requests);
    tj_int(b, "coap_retransmissions", x->coap_retransmissions);
    tj_int(b, "gateway_retransmissions", x->gateway_retransmissions);
    tj_int(b, "rerequests", x->rerequests);
    tj_int(b, "resumes", x->resumes);
    tj_int(b, "separate_responses", x->separate_responses);
    tj_int(b, "duplicate_responses", x->duplicate_responses);
    tj_int(b, "error_responses", x->error_responses);
    tj_int(b, "dropped_by_meter", x->dropped_by_meter);
    tj_int(b, "mac_retries", x->mac_retries);
    tj_int(b, "datagrams_sent", x->datagrams_sent);
    tj_int(b, "datagrams_fragmented", x->datagrams_fragmented);
    tj_int(b, "datagrams_lost", x->datagrams_sent - x->datagrams_delivered);
    tj_int(b, "fragments_sent", x->fragments_sent);
    tj_int(b, "fragments_unacked", x->fragments_unacked);
    on_air_write(t->on_air, b, x, t->w->p.link == CAPTURE_GATEWAY);
    sniffer_truth_write_xfer(t->sniffer, b, x, t->on_air);
    json_builder_end_object(b);
    g_free(path);
}

static void write_config(JsonBuilder *b, const config_entry_t *e)
{
    const meter_config_t *c = &e->cfg;

    json_builder_begin_object(b);
    tj_str(b, "meter", e->node->name);
    tj_str(b, "device_id", c->device_id);
    tj_int(b, "config_version", c->config_version);
    tj_int(b, "sample_interval", c->sample_interval);
    tj_int(b, "upload_interval", c->upload_interval);
    tj_str(b, "history_path", c->history_path);
    tj_int(b, "meter_kind", c->meter_kind);
    tj_exact(b, "pulse_factor", c->pulse_factor);
    tj_str(b, "unit", c->unit);
    tj_int(b, "utc_offset", c->utc_offset);
    json_builder_set_member_name(b, "firmware");
    json_builder_begin_object(b);
    tj_str(b, "version", c->fw_version);
    tj_str(b, "path", c->fw_path);
    tj_int(b, "size", c->fw_size);
    tj_hex(b, "sha256", c->fw_sha256, 32);
    json_builder_end_object(b);
    tj_int(b, "block_szx", c->block_szx);
    tj_int(b, "ack_timeout_ms", c->ack_timeout_ms);
    tj_str(b, "auth_token", c->auth_token);
    json_builder_set_member_name(b, "points");
    json_builder_begin_array(b);
    for (guint i = 0; i < c->n_points; i++) {
        json_builder_begin_object(b);
        tj_str(b, "name", c->points[i].name);
        tj_str(b, "point_id", c->points[i].point_id);
        tj_str(b, "unit", c->points[i].unit);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

/* A meter's SenML records resolved (RFC 8428): name = bn + n, time = bt + t. */
static void write_history(JsonBuilder *b, const truth_t *t, const node_t *n)
{
    const GArray *smp = g_hash_table_lookup(t->history, n);
    char name[64];

    g_snprintf(name, sizeof(name), "urn:dev:mac:%016" G_GINT64_MODIFIER "x:energy", n->ext);
    json_builder_begin_object(b);
    tj_str(b, "meter", n->name);
    json_builder_set_member_name(b, "records");
    json_builder_begin_array(b);
    for (guint i = 0; smp && i < smp->len; i++) {
        const senml_sample_t *s = &g_array_index(smp, senml_sample_t, i);
        json_builder_begin_object(b);
        tj_str(b, "name", name);
        tj_fixed6(b, "time", s->time);
        tj_exact(b, "value", s->value);
        tj_str(b, "unit", "Wh");
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

static void write_nodes(JsonBuilder *b, const truth_t *t)
{
    static const char *roles[] = { "border_router", "router", "meter", "background" };

    json_builder_set_member_name(b, "nodes");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->w->nodes->len; i++) {
        const node_t *n = g_ptr_array_index(t->w->nodes, i);
        json_builder_begin_object(b);
        tj_str(b, "name", n->name);
        tj_str(b, "role", roles[n->role]);
        node_id(b, n);
        tj_bool(b, "sleepy", n->sleepy);
        tj_bool(b, "hidden", n->hidden);
        tj_int(b, "sniffer_hops", sniffer_hops_to(t->w, n));
        tj_ip6(b, "ipv6", n->ipv6);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void write_counts(JsonBuilder *b, const truth_t *t)
{
    const air_counts_t *a = &t->air;

    json_builder_set_member_name(b, "air");
    json_builder_begin_object(b);
    tj_int(b, "frames", a->frames);
    tj_int(b, "acks", a->acks);
    tj_int(b, "data_requests", a->data_requests);
    tj_int(b, "broadcasts", a->broadcasts);
    tj_int(b, "fragment_frames", a->fragment_frames);
    tj_int(b, "mac_retries", a->mac_retries);
    tj_int(b, "frames_unacked", a->frames_unacked);
    tj_int(b, "datagrams", a->datagrams);
    tj_int(b, "datagrams_fragmented", a->datagrams_fragmented);
    tj_int(b, "datagrams_delivered", a->datagrams_delivered);
    tj_int(b, "reassembled_copies", a->reassembled);
    tj_int(b, "coap_messages", a->coap_messages);
    tj_int(b, "block2_responses", a->block2_responses);
    tj_int(b, "con_retransmissions", a->con_retransmissions);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "gateway_view");
    json_builder_begin_object(b);
    tj_int(b, "coap_messages", t->gw.coap_messages);
    tj_int(b, "block2_responses", t->gw.block2_responses);
    tj_int(b, "con_retransmissions", t->gw.con_retransmissions);
    json_builder_end_object(b);
}

static void write_header(JsonBuilder *b, const truth_t *t, const char *capture_path)
{
    const sim_params_t *p = &t->w->p;
    char *base = g_path_get_basename(capture_path);
    char pan[8];

    tj_str(b, "format", "meterscope-truth");
    tj_int(b, "version", 1);
    tj_str(b, "capture", base);
    tj_str(b, "link", kind_name(p->link));
    tj_int(b, "linktype", p->link == CAPTURE_ZEP || p->link == CAPTURE_GATEWAY ? 1 : (int)p->link);
    tj_str(b, "scenario", p->name);
    tj_str(b, "injected_cause", p->injected_cause);
    tj_int(b, "seed", (gint64)p->seed);
    tj_str(b, "timestamp", p->stamp == STAMP_START ? "start" : p->stamp == STAMP_HOST ? "host" : "end");
    tj_int(b, "channel", p->channel);
    g_snprintf(pan, sizeof(pan), "0x%04x", PAN_ID);
    tj_str(b, "pan_id", pan);
    tj_bool(b, "security", p->security);
    tj_hex(b, "network_key", p->network_key, 16);
    tj_hex(b, "firmware_pubkey", t->firmware_pubkey, 32);
    json_builder_set_member_name(b, "wireshark_prefs");
    json_builder_begin_array(b);
    tj_str(b, NULL, "6lowpan.context1:2001:db8:1::/64");
    if (p->security)
        tj_str(b, NULL, "uat:ieee802154_keys:\"00112233445566778899aabbccddeeff\",\"1\",\"Thread hash\"");
    json_builder_end_array(b);
    g_free(base);
}

gboolean truth_write_json(truth_t *t, const char *path, const char *capture_path, GError **err)
{
    const sim_params_t *p = &t->w->p;
    JsonBuilder *b = json_builder_new();
    guint64 records = capture_writer_count(t->w->cap);
    char *text;
    gsize len;
    gboolean ok;

    json_builder_begin_object(b);
    write_header(b, t, capture_path);
    write_nodes(b, t);
    json_builder_set_member_name(b, "transfers");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->xfers->len; i++)
        write_xfer(b, t, g_ptr_array_index(t->xfers, i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "config");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->configs->len; i++)
        write_config(b, &g_array_index(t->configs, config_entry_t, i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "history");
    json_builder_begin_array(b);
    for (int i = 0; p->do_history && i < p->n_meters; i++)
        write_history(b, t, t->w->meters[i]);
    json_builder_end_array(b);
    write_counts(b, t);
    sniffer_truth_write(t->sniffer, b, p, t->air.frames, records);
    if (t->pair)
        pair_truth_write(t->pair, b, p, t->gateway_capture);
    tj_int(b, "records", records);
    tj_int(b, "end_us", p->start_epoch_us + t->end_us);
    json_builder_end_object(b);
    text = tj_to_text(b, &len);
    ok = g_file_set_contents(path, text, (gssize)len, err);
    g_free(text);
    g_object_unref(b);
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
