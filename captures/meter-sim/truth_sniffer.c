/* truth_sniffer.c: counts of the frames the sniffer did not capture.
 *
 * A frame belongs to a transfer when it carries a fragment of one of the
 * transfer's datagrams, or acknowledges one; the meter's Data Requests and
 * their ACKs belong to the transfer during which they went on the air
 * (from its first request complete on air to its last activity), since a
 * meter has one exchange open at a time.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "truth_sniffer.h"
#include "truth_json.h"

typedef struct {
    guint64 data_frames, acks, data_requests, broadcasts;
} missed_counts_t;

/* A missed Data Request of node, or (is_ack) a missed ACK of one. */
typedef struct {
    const node_t *node;
    gint64        end_us;
    gboolean      is_ack;
} missed_poll_t;

struct sniffer_truth {
    missed_counts_t all;
    GHashTable     *by_xfer;     /* transfer id -> missed_counts_t* (data frames and their ACKs) */
    GArray         *polls;       /* missed_poll_t */
};

sniffer_truth_t *sniffer_truth_new(void)
{
    sniffer_truth_t *st = g_new0(sniffer_truth_t, 1);

    st->by_xfer = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    st->polls = g_array_new(FALSE, FALSE, sizeof(missed_poll_t));
    return st;
}

void sniffer_truth_free(sniffer_truth_t *st)
{
    g_hash_table_destroy(st->by_xfer);
    g_array_free(st->polls, TRUE);
    g_free(st);
}

static missed_counts_t *xfer_counts(sniffer_truth_t *st, const datagram_t *dg)
{
    missed_counts_t *c;

    if (!dg || !dg->msg.xfer)
        return NULL;
    c = g_hash_table_lookup(st->by_xfer, GINT_TO_POINTER(dg->msg.xfer));
    if (!c) {
        c = g_new0(missed_counts_t, 1);
        g_hash_table_insert(st->by_xfer, GINT_TO_POINTER(dg->msg.xfer), c);
    }
    return c;
}

void sniffer_truth_frame_missed(sniffer_truth_t *st, const mac_tx_t *tx, gint64 end_us)
{
    missed_counts_t *c;

    if (tx->is_poll) {
        missed_poll_t mp = { tx->src, end_us, FALSE };
        st->all.data_requests++;
        g_array_append_val(st->polls, mp);
    } else if (!tx->dst) {
        st->all.broadcasts++;
    } else {
        st->all.data_frames++;
        if ((c = xfer_counts(st, tx->dg)))
            c->data_frames++;
    }
}

void sniffer_truth_ack_missed(sniffer_truth_t *st, const datagram_t *dg, const node_t *acked_sender,
                              gint64 end_us)
{
    missed_counts_t *c;

    st->all.acks++;
    if (!dg) {
        missed_poll_t mp = { acked_sender, end_us, TRUE };
        g_array_append_val(st->polls, mp);
    } else if ((c = xfer_counts(st, dg))) {
        c->acks++;
    }
}

void sniffer_truth_write_xfer(sniffer_truth_t *st, JsonBuilder *b, const truth_xfer_t *x, on_air_t *oa)
{
    const missed_counts_t *c = g_hash_table_lookup(st->by_xfer, GINT_TO_POINTER(x->id));
    guint64 data = c ? c->data_frames : 0, acks = c ? c->acks : 0, polls = 0;
    JsonBuilder *copies = json_builder_new();
    guint unreassemblable, n;

    for (guint i = 0; i < st->polls->len && x->air_first_request_us >= 0; i++) {
        const missed_poll_t *mp = &g_array_index(st->polls, missed_poll_t, i);
        if (mp->node != x->meter || mp->end_us < x->air_first_request_us || mp->end_us > x->air_last_activity_us)
            continue;
        if (mp->is_ack)
            acks++;
        else
            polls++;
    }
    /* The copies first: the counts before them are theirs. */
    json_builder_begin_array(copies);
    n = on_air_write_missed(oa, copies, x, &unreassemblable);
    json_builder_end_array(copies);
    json_builder_set_member_name(b, "not_captured");
    json_builder_begin_object(b);
    tj_int(b, "frames", data + acks + polls);
    tj_int(b, "data_frames", data);
    tj_int(b, "acks", acks);
    tj_int(b, "data_requests", polls);
    tj_int(b, "copies_affected", n);
    tj_int(b, "copies_unreassemblable", unreassemblable);
    json_builder_set_member_name(b, "copies");
    json_builder_add_value(b, json_builder_get_root(copies));
    json_builder_end_object(b);
    g_object_unref(copies);
}

guint64 sniffer_truth_missed(const sniffer_truth_t *st)
{
    return st->all.data_frames + st->all.acks + st->all.data_requests + st->all.broadcasts;
}

void sniffer_truth_write(sniffer_truth_t *st, JsonBuilder *b, const sim_params_t *p, guint64 frames,
                         guint64 records)
{
    const missed_counts_t *a = &st->all;

    json_builder_set_member_name(b, "sniffer");
    json_builder_begin_object(b);
    tj_str(b, "at", p->sniffer_at == SNIFFER_AT_BORDER_ROUTER ? "border_router" : "meter0");
    tj_exact(b, "miss", p->sniffer_miss);
    if (p->sniffer_burst > 0)
        tj_exact(b, "burst_mean_frames", p->sniffer_burst);
    else
        tj_null(b, "burst_mean_frames");
    tj_int(b, "near_hops", p->sniffer_near_hops);
    tj_exact(b, "far_miss", p->sniffer_far_miss);
    tj_int(b, "frames_on_air", frames);
    tj_int_or_null(b, "frames_captured", records, p->link != CAPTURE_GATEWAY);
    json_builder_set_member_name(b, "not_captured");
    json_builder_begin_object(b);
    tj_int(b, "frames", sniffer_truth_missed(st));
    tj_int(b, "data_frames", a->data_frames);
    tj_int(b, "acks", a->acks);
    tj_int(b, "data_requests", a->data_requests);
    tj_int(b, "broadcasts", a->broadcasts);
    json_builder_end_object(b);
    json_builder_end_object(b);
}
