/* report_pair.c: writes the pairing of two vantage points (report_pair.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <json-glib/json-glib.h>
#include "json_print.h"
#include "report_pair.h"

static const char *const dir_names[2] = { "up", "down" };

static const char *node_of(const ms_pair_msg_t *m)
{
    const ms_round_t *r = m->radio ? m->radio : m->gateway;

    if (!r)
        return "";
    return m->dir == MS_UP ? r->src : r->dst;
}

static const ms_round_t *round_of(const ms_pair_msg_t *m)
{
    return m->radio ? m->radio : m->gateway;
}

static void add_us(JsonBuilder *b, const char *name, double s)
{
    json_builder_set_member_name(b, name);
    if (isnan(s))
        json_builder_add_null_value(b);
    else
        json_builder_add_int_value(b, (gint64)llround(s * 1e6));
}

static void add_s(JsonBuilder *b, const char *name, double s)
{
    json_builder_set_member_name(b, name);
    if (!isfinite(s))
        json_builder_add_null_value(b);
    else
        json_builder_add_double_value(b, round(s * 1e6) / 1e6);
}

static void add_int(JsonBuilder *b, const char *name, gint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

static void add_str(JsonBuilder *b, const char *name, const char *v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_string_value(b, v);
}

static void add_direction(JsonBuilder *b, const ms_pair_transfer_t *t, int d)
{
    json_builder_set_member_name(b, dir_names[d]);
    json_builder_begin_object(b);
    add_int(b, "messages", t->messages[d]);
    for (int f = 0; f < MS_FATE_COUNT; f++)
        add_int(b, ms_fate_name(f), t->fate[d][f]);
    add_int(b, "late", t->late[d]);
    add_int(b, "backhaul_legs", t->backhaul_n[d]);
    add_s(b, "backhaul_median_s", t->backhaul_median_s[d]);
    add_s(b, "backhaul_max_s", t->backhaul_n[d] ? t->backhaul_max_s[d] : NAN);
    add_s(b, "backhaul_sum_s", t->backhaul_sum_s[d]);
    json_builder_end_object(b);
}

static void add_vantage(JsonBuilder *b, const ms_vantage_t *v)
{
    json_builder_begin_object(b);
    add_str(b, "name", v->name);
    add_str(b, "file", v->file);
    add_int(b, "frames", v->frames);
    add_int(b, "transmissions", v->rounds->len);
    json_builder_end_object(b);
}

static void write_json(FILE *out, const ms_vantage_t *radio, const ms_vantage_t *gateway, const ms_pair_t *p)
{
    JsonBuilder *b = json_builder_new();

    json_builder_begin_object(b);
    add_str(b, "format", "meterscope-pair");
    add_int(b, "version", MS_PAIR_REPORT_VERSION);
    json_builder_set_member_name(b, "vantages");
    json_builder_begin_array(b);
    add_vantage(b, radio);
    add_vantage(b, gateway);
    json_builder_end_array(b);
    add_str(b, "gateway", p->gateway_addr);
    json_builder_set_member_name(b, "clock");
    json_builder_begin_object(b);
    add_us(b, "reference_us", p->clock.t0);
    add_s(b, "offset_s", p->clock.offset_s);
    json_builder_set_member_name(b, "drift_ppm");
    json_builder_add_double_value(b, round(p->clock.drift_ppm * 1e3) / 1e3);
    add_s(b, "bound_s", p->clock.bound_s);
    json_builder_set_member_name(b, "drift_bound_ppm");
    if (isfinite(p->clock.drift_bound_ppm))
        json_builder_add_double_value(b, round(p->clock.drift_bound_ppm * 1e3) / 1e3);
    else
        json_builder_add_null_value(b);
    add_s(b, "span_s", p->clock.span_s);
    add_int(b, "points_up", p->clock.up);
    add_int(b, "points_down", p->clock.down);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "transfers");
    json_builder_begin_array(b);
    for (guint i = 0; i < p->transfers->len; i++) {
        const ms_pair_transfer_t *t = &g_array_index(p->transfers, ms_pair_transfer_t, i);
        json_builder_begin_object(b);
        add_int(b, "transfer", i + 1);
        add_str(b, "node", t->node);
        add_str(b, "path", t->path);
        json_builder_set_member_name(b, "blockwise");
        json_builder_add_boolean_value(b, t->blockwise);
        add_us(b, "first_us", t->first_s);
        add_us(b, "last_us", t->last_s);
        add_direction(b, t, MS_UP);
        add_direction(b, t, MS_DOWN);
        add_int(b, "ambiguous", t->ambiguous);
        add_int(b, "exchanges", t->exchanges);
        add_s(b, "network_s", t->network_s);
        add_s(b, "backhaul_up_s", t->exchange_backhaul_s[MS_UP]);
        add_s(b, "gateway_s", t->gateway_s);
        add_s(b, "backhaul_down_s", t->exchange_backhaul_s[MS_DOWN]);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "messages");
    json_builder_begin_array(b);
    for (guint i = 0; i < p->msgs->len; i++) {
        const ms_pair_msg_t *m = &g_array_index(p->msgs, ms_pair_msg_t, i);
        const ms_round_t *r = round_of(m);
        json_builder_begin_object(b);
        add_str(b, "direction", dir_names[m->dir]);
        add_str(b, "node", node_of(m));
        json_builder_set_member_name(b, "mid");
        r ? json_builder_add_int_value(b, r->mid) : json_builder_add_null_value(b);
        json_builder_set_member_name(b, "code");
        r ? json_builder_add_int_value(b, r->code) : json_builder_add_null_value(b);
        json_builder_set_member_name(b, "type");
        r ? json_builder_add_int_value(b, r->type) : json_builder_add_null_value(b);
        add_str(b, "token", r ? r->token : "");
        add_int(b, "bytes", r ? r->bytes : m->partial->size - 48);
        add_int(b, "round", m->round);
        json_builder_set_member_name(b, "transfer");
        m->transfer >= 0 ? json_builder_add_int_value(b, m->transfer + 1) : json_builder_add_null_value(b);
        add_str(b, "fate", ms_fate_name(m->fate));
        json_builder_set_member_name(b, "late");
        json_builder_add_boolean_value(b, m->late);
        json_builder_set_member_name(b, "ambiguous");
        json_builder_add_boolean_value(b, m->ambiguous);
        json_builder_set_member_name(b, "partial");
        json_builder_add_boolean_value(b, m->partial != NULL);
        add_us(b, "radio_first_us", m->radio_first_s);
        add_us(b, "radio_last_us", m->radio_last_s);
        add_int(b, "radio_frame", m->radio ? m->radio->first_frame : m->partial ? m->partial->frame : 0);
        add_int(b, "radio_copies", m->radio ? m->radio->n_copies : 0);
        add_int(b, "mac_retries", m->radio ? m->radio->mac_retries : 0);
        add_us(b, "gateway_us", m->gateway_s);
        add_us(b, "gateway_aligned_us", m->gateway_aligned_s);
        add_int(b, "gateway_frame", m->gateway ? m->gateway->first_frame : 0);
        add_s(b, "radio_leg_s", m->radio_leg_s);
        add_s(b, "backhaul_leg_s", m->backhaul_leg_s);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    ms_json_print(out, b, TRUE);
    g_object_unref(b);
}

static void csv_s(FILE *out, double s, int digits)
{
    if (isfinite(s))
        fprintf(out, ",%.*f", digits, s);
    else
        fputc(',', out);
}

static void csv_us(FILE *out, double s)
{
    if (isnan(s))
        fputc(',', out);
    else
        fprintf(out, ",%" G_GINT64_FORMAT, (gint64)llround(s * 1e6));
}

static void write_csv(FILE *out, const ms_pair_t *p)
{
    fputs("direction,node,mid,type,code,token,bytes,round,transfer,fate,late,ambiguous,partial,radio_first_us,radio_last_us,"
          "radio_frame,gateway_us,gateway_aligned_us,gateway_frame,radio_leg_s,backhaul_leg_s,clock_bound_s\n", out);
    for (guint i = 0; i < p->msgs->len; i++) {
        const ms_pair_msg_t *m = &g_array_index(p->msgs, ms_pair_msg_t, i);
        const ms_round_t *r = round_of(m);
        fprintf(out, "%s,%s,", dir_names[m->dir], node_of(m));
        if (r)
            fprintf(out, "%u,%u,%u,%s,%u", r->mid, r->type, r->code, r->token, r->bytes);
        else
            fprintf(out, ",,,,%u", m->partial->size - 48);
        fprintf(out, ",%u,", m->round);
        if (m->transfer >= 0)
            fprintf(out, "%d", m->transfer + 1);
        fprintf(out, ",%s,%s,%s,%s", ms_fate_name(m->fate), m->late ? "true" : "false",
                m->ambiguous ? "true" : "false", m->partial ? "true" : "false");
        csv_us(out, m->radio_first_s);
        csv_us(out, m->radio_last_s);
        fprintf(out, ",%u", m->radio ? m->radio->first_frame : m->partial ? m->partial->frame : 0);
        csv_us(out, m->gateway_s);
        csv_us(out, m->gateway_aligned_s);
        fprintf(out, ",%u", m->gateway ? m->gateway->first_frame : 0);
        csv_s(out, m->radio_leg_s, 6);
        csv_s(out, m->backhaul_leg_s, 6);
        csv_s(out, p->clock.bound_s, 6);
        fputc('\n', out);
    }
}

static void ms_text(char *buf, gsize n, double s)
{
    if (isfinite(s))
        g_snprintf(buf, n, "%.1f ms", s * 1e3);
    else
        g_strlcpy(buf, "-", n);
}

static void write_table(FILE *out, const ms_vantage_t *radio, const ms_vantage_t *gateway, const ms_pair_t *p)
{
    char a[32], b[32];

    fprintf(out, "radio:   %s (%u frames, %u CoAP transmissions)\n", radio->file, radio->frames, radio->rounds->len);
    fprintf(out, "gateway: %s (%u frames, %u CoAP transmissions), gateway %s\n", gateway->file, gateway->frames,
            gateway->rounds->len, p->gateway_addr);
    fprintf(out, "clocks:  gateway = radio %+.6f s, drift %+.3f ppm (+-%.0f); legs within +-%.1f ms (from %u "
            "messages up, %u down, over %.0f s)\n\n", p->clock.offset_s, p->clock.drift_ppm,
            isfinite(p->clock.drift_bound_ppm) ? p->clock.drift_bound_ppm : 0.0, p->clock.bound_s * 1e3, p->clock.up,
            p->clock.down, p->clock.span_s);
    fprintf(out, "%-3s %-32s %-22s %-4s %5s %5s %6s %8s %6s %6s %5s %10s %10s\n", "#", "node", "path", "dir", "msgs",
            "deliv", "radio", "backhaul", "!radio", "!gw", "late", "bh median", "bh max");
    for (guint i = 0; i < p->transfers->len; i++) {
        const ms_pair_transfer_t *t = &g_array_index(p->transfers, ms_pair_transfer_t, i);
        char num[16];
        g_snprintf(num, sizeof(num), "%u", i + 1);
        for (int d = 0; d < 2; d++) {
            ms_text(a, sizeof(a), t->backhaul_median_s[d]);
            ms_text(b, sizeof(b), t->backhaul_n[d] ? t->backhaul_max_s[d] : NAN);
            fprintf(out, "%-3s %-32s %-22s %-4s %5u %5u %6u %8u %6u %6u %5u %10s %10s\n", d ? "" : num,
                    d ? "" : t->node, d ? "" : t->path, dir_names[d], t->messages[d], t->fate[d][MS_FATE_DELIVERED],
                    t->fate[d][MS_FATE_LOST_RADIO], t->fate[d][MS_FATE_LOST_BACKHAUL], t->fate[d][MS_FATE_NOT_IN_RADIO],
                    t->fate[d][MS_FATE_NOT_IN_GATEWAY], t->late[d], a, b);
        }
    }
    guint ambiguous = 0;
    for (guint i = 0; i < p->transfers->len; i++)
        ambiguous += g_array_index(p->transfers, ms_pair_transfer_t, i).ambiguous;
    if (ambiguous)
        fprintf(out, "\n%u transmissions paired where another of the same bytes was as plausible (the clocks' bound "
                "is near the time between them): their legs and lateness may belong to the other\n", ambiguous);
    fputs("\nlost: radio = died on the air; backhaul = between the border router and the gateway (or in the border "
          "router);\n!radio, !gw = not in that capture (its sniffer or tap missed it). bh = backhaul leg.\n\n", out);
    fprintf(out, "%-3s %9s %12s %12s %12s %12s\n", "#", "exchanges", "network", "backhaul up", "gateway",
            "backhaul down");
    for (guint i = 0; i < p->transfers->len; i++) {
        const ms_pair_transfer_t *t = &g_array_index(p->transfers, ms_pair_transfer_t, i);
        if (!t->exchanges)
            continue;
        fprintf(out, "%-3u %9u %10.3f s %10.3f s %10.3f s %10.3f s\n", i + 1, t->exchanges, t->network_s,
                t->exchange_backhaul_s[MS_UP], t->gateway_s, t->exchange_backhaul_s[MS_DOWN]);
    }
    fputs("(network: the answered exchanges' round trips as the radio sees them, split into the backhaul legs and "
          "the gateway's own time)\n", out);
}

void ms_report_pair(FILE *out, ms_format_t fmt, const ms_vantage_t *radio, const ms_vantage_t *gateway,
                    const ms_pair_t *p)
{
    if (fmt == FMT_JSON)
        write_json(out, radio, gateway, p);
    else if (fmt == FMT_CSV)
        write_csv(out, p);
    else
        write_table(out, radio, gateway, p);
}
