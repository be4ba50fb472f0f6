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
#include "truth_pair.h"
#include "backhaul.h"
#include "coap_msg.h"
#include "truth_json.h"

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
    GPtrArray  *msgs;            /* pair_msg_t*, in the order they were sent */
    GHashTable *by_dg;           /* datagram id -> its pair_msg_t* */
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
    pt->by_dg = g_hash_table_new(g_direct_hash, g_direct_equal);
    return pt;
}

void pair_truth_free(pair_truth_t *pt)
{
    if (!pt)
        return;
    g_ptr_array_unref(pt->msgs);
    g_hash_table_destroy(pt->by_dg);
    g_free(pt);
}

/* The message dg carries; NULL without a pair truth. */
static pair_msg_t *msg_of(const pair_truth_t *pt, const datagram_t *dg)
{
    return pt ? g_hash_table_lookup(pt->by_dg, GINT_TO_POINTER(dg->id)) : NULL;
}

static pair_msg_t *new_msg(pair_truth_t *pt, const datagram_t *dg, gboolean up, const node_t *node, gint64 us)
{
    pair_msg_t *m = g_new0(pair_msg_t, 1);

    m->up = up;
    m->node = node;
    m->coap = g_byte_array_ref(dg->msg.coap);
    m->xfer_id = dg->msg.xfer ? dg->msg.xfer : -1;
    m->sent_us = us;
    m->first_air_us = m->last_copy_us = m->gw_us = NO_TIME;
    m->last_copy_hop = -1;
    m->n_hops = dg->n_path - 1;
    g_ptr_array_add(pt->msgs, m);
    g_hash_table_insert(pt->by_dg, GINT_TO_POINTER(dg->id), m);
    return m;
}

void pair_truth_up(pair_truth_t *pt, const datagram_t *dg, gint64 us)
{
    if (pt)
        new_msg(pt, dg, TRUE, dg->path[0], us);
}

void pair_truth_down(pair_truth_t *pt, const datagram_t *dg, gint64 us)
{
    if (pt)
        new_msg(pt, dg, FALSE, dg->path[dg->n_path - 1], us)->gw_us = us;
}

void pair_truth_frame(pair_truth_t *pt, const datagram_t *dg, gint64 us)
{
    pair_msg_t *m = msg_of(pt, dg);

    if (m && !m->any_frame) {
        m->any_frame = TRUE;
        m->first_air_us = us;
    }
}

void pair_truth_copy(pair_truth_t *pt, const datagram_t *dg, int hop, gint64 us)
{
    pair_msg_t *m = msg_of(pt, dg);

    if (m && hop > m->last_copy_hop) {
        m->last_copy_hop = hop;
        m->last_copy_us = us;
    }
}

void pair_truth_delivered(pair_truth_t *pt, const datagram_t *dg)
{
    pair_msg_t *m = msg_of(pt, dg);

    if (m)
        m->delivered = TRUE;
}

void pair_truth_backhaul_lost(pair_truth_t *pt, const datagram_t *dg)
{
    pair_msg_t *m = msg_of(pt, dg);

    if (m)
        m->backhaul_lost = TRUE;
}

void pair_truth_at_gateway(pair_truth_t *pt, const datagram_t *dg, gint64 us)
{
    pair_msg_t *m = msg_of(pt, dg);

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

static void put_us(JsonBuilder *b, const char *key, gint64 us)
{
    tj_int_or_null(b, key, us, us != NO_TIME);
}

static void put_s(JsonBuilder *b, const char *key, gint64 from, gint64 to)
{
    if (from == NO_TIME || to == NO_TIME)
        tj_null(b, key);
    else
        tj_fixed6(b, key, (double)(to - from) / 1e6);
}

static void write_msg(JsonBuilder *b, const pair_msg_t *m, int round, const sim_params_t *p)
{
    coap_rx_t c;
    gboolean ok = coap_msg_decode(m->coap->data, m->coap->len, &c);

    json_builder_begin_object(b);
    tj_str(b, "direction", m->up ? "up" : "down");
    tj_str(b, "node", m->node->name);
    tj_ip6(b, "ipv6", m->node->ipv6);
    tj_int(b, "mid", ok ? c.mid : 0);
    tj_int(b, "type", ok ? (int)c.type : -1);
    tj_int(b, "code", ok ? c.code : 0);
    tj_hex(b, "token", c.token, ok ? c.tkl : 0);
    tj_int(b, "bytes", m->coap->len);
    tj_int(b, "round", round);
    tj_int_or_null(b, "transfer", m->xfer_id, m->xfer_id >= 0);
    tj_str(b, "lost", lost_where(m));
    tj_str(b, "on_air", on_air_state(m));
    tj_int(b, "hops", m->n_hops);
    put_us(b, "sent_us", m->sent_us);
    put_us(b, "radio_first_us", m->first_air_us);
    put_us(b, "radio_last_us", m->last_copy_us);
    put_us(b, "gateway_true_us", m->gw_us);
    put_us(b, "gateway_stamp_us", m->gw_us == NO_TIME ? NO_TIME : backhaul_gateway_clock(p, m->gw_us));
    put_s(b, "radio_s", m->first_air_us, m->last_copy_us);
    if (m->up)
        put_s(b, "backhaul_s", m->last_copy_hop == m->n_hops - 1 ? m->last_copy_us : NO_TIME, m->gw_us);
    else
        put_s(b, "backhaul_s", m->gw_us, m->first_air_us);
    json_builder_end_object(b);
}

void pair_truth_write(const pair_truth_t *pt, JsonBuilder *b, const sim_params_t *p, const char *gateway_capture)
{
    GHashTable *rounds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char *base = g_path_get_basename(gateway_capture);

    json_builder_set_member_name(b, "pair");
    json_builder_begin_object(b);
    tj_str(b, "gateway_capture", base);
    json_builder_set_member_name(b, "gateway_clock");
    json_builder_begin_object(b);
    tj_fixed6(b, "offset_ms", p->gw_clock_offset_ms);
    tj_fixed6(b, "drift_ppm", p->gw_clock_drift_ppm);
    tj_int(b, "reference_us", p->start_epoch_us);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "backhaul");
    json_builder_begin_object(b);
    tj_fixed6(b, "loss", p->backhaul_loss);
    tj_fixed6(b, "delay_ms", p->backhaul_delay_ms);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "messages");
    json_builder_begin_array(b);
    g_free(base);
    for (guint i = 0; i < pt->msgs->len; i++) {
        const pair_msg_t *m = g_ptr_array_index(pt->msgs, i);
        /* The round: this message's rank among the transmissions of its MID, node and direction. */
        char *key = g_strdup_printf("%d|%s|%02x%02x", m->up, m->node->name, m->coap->len > 3 ? m->coap->data[2] : 0,
                                    m->coap->len > 3 ? m->coap->data[3] : 0);
        int round = GPOINTER_TO_INT(g_hash_table_lookup(rounds, key)) + 1;
        g_hash_table_replace(rounds, key, GINT_TO_POINTER(round));
        write_msg(b, m, round, p);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_hash_table_destroy(rounds);
}
