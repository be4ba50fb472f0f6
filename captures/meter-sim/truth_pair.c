/* truth_pair.c: the per-message truth of a radio and a gateway capture of
 * the same run.
 *
 * The legs are measured between the stamps the two captures can show, in
 * the true time: a message's radio leg from the end of its first frame on
 * the air to the moment its last copy (the one on the hop furthest along
 * its path that it reached) was complete on air; its backhaul leg, upwards,
 * from that moment to its arrival at the gateway, downwards, from its
 * departure from the gateway to the end of its first frame on the air. So
 * the backhaul leg holds the border router's own time (for a sleepy meter's
 * parent, its poll wait too), the Internet and the gateway's NIC.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <arpa/inet.h>
#include "truth_pair.h"
#include "truth.h"
#include "backhaul.h"
#include "coap_msg.h"

#define NO_TIME G_MININT64

typedef struct {
    gboolean      up;
    const node_t *node;          /* the Thread end of the message */
    GByteArray   *coap;
    int           xfer_id;       /* -1: no transfer */
    int           n_hops;
    gint64        sent_us;       /* handed to the radio (up) or sent by the gateway (down) */
    gint64        first_air_us;  /* end of its first frame on the air */
    gint64        last_copy_us;  /* its furthest copy complete on air */
    int           last_copy_hop;
    gboolean      any_frame;
    gboolean      delivered;     /* reached its last mesh node */
    gboolean      backhaul_lost;
    gint64        gw_us;         /* at the gateway (true time) */
} pair_msg_t;

struct pair_truth {
    GPtrArray *msgs;
};

static void pair_msg_free(gpointer p)
{
    pair_msg_t *m = p;

    g_byte_array_unref(m->coap);
    g_free(m);
}

pair_truth_t *pair_truth_new(void)
{
    pair_truth_t *pt = g_new0(pair_truth_t, 1);

    pt->msgs = g_ptr_array_new_with_free_func(pair_msg_free);
    return pt;
}

void pair_truth_free(pair_truth_t *pt)
{
    if (!pt)
        return;
    g_ptr_array_unref(pt->msgs);
    g_free(pt);
}

static pair_msg_t *new_msg(pair_truth_t *pt, datagram_t *dg, gboolean up, const node_t *node, gint64 us)
{
    pair_msg_t *m = g_new0(pair_msg_t, 1);

    m->up = up;
    m->node = node;
    m->coap = g_byte_array_ref(dg->msg.coap);
    m->xfer_id = dg->msg.xfer ? dg->msg.xfer->id : -1;
    m->sent_us = us;
    m->first_air_us = m->last_copy_us = m->gw_us = NO_TIME;
    m->last_copy_hop = -1;
    g_ptr_array_add(pt->msgs, m);
    dg->pair_rec = m;
    return m;
}

void pair_truth_up(pair_truth_t *pt, datagram_t *dg, gint64 us)
{
    pair_msg_t *m = new_msg(pt, dg, TRUE, dg->path[0], us);

    m->n_hops = dg->n_path - 1;
}

void pair_truth_down(pair_truth_t *pt, datagram_t *dg, gint64 us)
{
    pair_msg_t *m = new_msg(pt, dg, FALSE, dg->path[dg->n_path - 1], us);

    m->n_hops = dg->n_path - 1;
    m->gw_us = us;
}

void pair_truth_frame(datagram_t *dg, gint64 us)
{
    pair_msg_t *m = dg->pair_rec;

    if (m && !m->any_frame) {
        m->any_frame = TRUE;
        m->first_air_us = us;
    }
}

void pair_truth_copy(datagram_t *dg, int hop, gint64 us)
{
    pair_msg_t *m = dg->pair_rec;

    if (m && hop > m->last_copy_hop) {
        m->last_copy_hop = hop;
        m->last_copy_us = us;
    }
}

void pair_truth_delivered(const datagram_t *dg)
{
    pair_msg_t *m = dg->pair_rec;

    if (m)
        m->delivered = TRUE;
}

void pair_truth_backhaul_lost(const datagram_t *dg)
{
    pair_msg_t *m = dg->pair_rec;

    if (m)
        m->backhaul_lost = TRUE;
}

void pair_truth_at_gateway(const datagram_t *dg, gint64 us)
{
    pair_msg_t *m = dg->pair_rec;

    if (m)
        m->gw_us = us;
}

/* Where the message died, by the stage that dropped it. */
static const char *lost_where(const pair_msg_t *m)
{
    if (m->backhaul_lost)
        return "backhaul";
    if (m->up)
        return !m->delivered ? "radio" : m->gw_us == NO_TIME ? "in_flight" : NULL;
    if (m->delivered)
        return NULL;
    /* The border router had it and put no whole copy on the air (channel access failed). */
    return m->last_copy_hop < 0 && !m->any_frame ? "border_router" : "radio";
}

static const char *on_air_state(const pair_msg_t *m)
{
    return m->last_copy_hop >= 0 ? "complete" : m->any_frame ? "partial" : "none";
}

static void put_us(GString *s, const char *key, gint64 us)
{
    if (us == NO_TIME)
        g_string_append_printf(s, ", \"%s\": null", key);
    else
        g_string_append_printf(s, ", \"%s\": %" G_GINT64_FORMAT, key, us);
}

static void put_s(GString *s, const char *key, gint64 from, gint64 to)
{
    if (from == NO_TIME || to == NO_TIME)
        g_string_append_printf(s, ", \"%s\": null", key);
    else
        g_string_append_printf(s, ", \"%s\": %.6f", key, (double)(to - from) / 1e6);
}

static void write_msg(GString *s, const pair_msg_t *m, int round, const sim_params_t *p)
{
    coap_rx_t c;
    char ip[INET6_ADDRSTRLEN];
    const char *lost = lost_where(m);
    gboolean ok = coap_msg_decode(m->coap->data, m->coap->len, &c);

    inet_ntop(AF_INET6, m->node->ipv6, ip, sizeof(ip));
    g_string_append_printf(s, "      {\"direction\": \"%s\", \"node\": \"%s\", \"ipv6\": \"%s\", \"mid\": %u, "
                              "\"type\": %d, \"code\": %u, \"token\": \"",
                           m->up ? "up" : "down", m->node->name, ip, ok ? c.mid : 0, ok ? (int)c.type : -1,
                           ok ? c.code : 0);
    for (int i = 0; ok && i < c.tkl; i++)
        g_string_append_printf(s, "%02x", c.token[i]);
    g_string_append_printf(s, "\", \"bytes\": %u, \"round\": %d, \"transfer\": ", m->coap->len, round);
    if (m->xfer_id < 0)
        g_string_append(s, "null");
    else
        g_string_append_printf(s, "%d", m->xfer_id);
    g_string_append(s, ", \"lost\": ");
    if (lost)
        g_string_append_printf(s, "\"%s\"", lost);
    else
        g_string_append(s, "null");
    g_string_append_printf(s, ", \"on_air\": \"%s\", \"hops\": %d", on_air_state(m), m->n_hops);
    put_us(s, "sent_us", m->sent_us);
    put_us(s, "radio_first_us", m->first_air_us);
    put_us(s, "radio_last_us", m->last_copy_us);
    put_us(s, "gateway_true_us", m->gw_us);
    put_us(s, "gateway_stamp_us", m->gw_us == NO_TIME ? NO_TIME : backhaul_gateway_clock(p, m->gw_us));
    put_s(s, "radio_s", m->first_air_us, m->last_copy_us);
    if (m->up)
        put_s(s, "backhaul_s", m->last_copy_hop == m->n_hops - 1 ? m->last_copy_us : NO_TIME, m->gw_us);
    else
        put_s(s, "backhaul_s", m->gw_us, m->first_air_us);
    g_string_append(s, "}");
}

void pair_truth_write(const pair_truth_t *pt, GString *s, const sim_params_t *p, const char *gateway_capture)
{
    GHashTable *rounds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char *base = g_path_get_basename(gateway_capture);

    g_string_append_printf(s, "  \"pair\": {\"gateway_capture\": \"%s\", "
                              "\"gateway_clock\": {\"offset_ms\": %.6f, \"drift_ppm\": %.6f, \"reference_us\": %"
                              G_GINT64_FORMAT "},\n    \"backhaul\": {\"loss\": %.6f, \"delay_ms\": %.6f},\n"
                              "    \"messages\": [\n",
                           base, p->gw_clock_offset_ms, p->gw_clock_drift_ppm, p->start_epoch_us,
                           p->backhaul_loss, p->backhaul_delay_ms);
    g_free(base);
    for (guint i = 0; i < pt->msgs->len; i++) {
        const pair_msg_t *m = g_ptr_array_index(pt->msgs, i);
        /* The round: this message's rank among the transmissions of its MID, node and direction. */
        char *key = g_strdup_printf("%d|%s|%02x%02x", m->up, m->node->name, m->coap->len > 3 ? m->coap->data[2] : 0,
                                    m->coap->len > 3 ? m->coap->data[3] : 0);
        int round = GPOINTER_TO_INT(g_hash_table_lookup(rounds, key)) + 1;
        g_hash_table_replace(rounds, key, GINT_TO_POINTER(round));
        write_msg(s, m, round, p);
        g_string_append(s, i + 1 < pt->msgs->len ? ",\n" : "\n");
    }
    g_string_append(s, "    ]},\n");
    g_hash_table_destroy(rounds);
}
