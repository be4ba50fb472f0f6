/* vantage_transfers.c: the paired messages grouped into transfers, and
 * each transfer's counts, backhaul legs and split round trips
 * (vantage_transfers.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>
#include "vantage_transfers.h"

static double msg_time(const ms_pair_msg_t *m)
{
    return !isnan(m->radio_first_s) ? m->radio_first_s : m->gateway_aligned_s;
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static const ms_round_t *any_round(const ms_pair_msg_t *p)
{
    return p->radio ? p->radio : p->gateway;
}


/* Transfers as the protocol reference defines them: one node, one path,
 * from a request for block 0 on; answers go with the request they answer
 * (same Message ID, or same token for a separate response). */
static void build_transfers(ms_pair_t *out)
{
    GHashTable *current = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *by_mid = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *by_token = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *last_of_node = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTable *last_block = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

    for (guint k = 0; k < out->msgs->len; k++) {
        ms_pair_msg_t *p = &g_array_index(out->msgs, ms_pair_msg_t, k);
        const ms_round_t *r = any_round(p);
        const char *node = p->node;
        if (!node)
            continue;
        if (!r) {
            /* A datagram that never was complete: its node's transfer under way. */
            gpointer t = g_hash_table_lookup(last_of_node, node);
            p->transfer = t ? GPOINTER_TO_INT(t) - 1 : -1;
            continue;
        }
        char *mid = g_strdup_printf("%s|%u", node, r->mid), *tok = g_strdup_printf("%s|%s", node, r->token);
        gboolean request = r->code >= 1 && r->code < 32;
        const char *path = p->radio && *p->radio->path ? p->radio->path : p->gateway ? p->gateway->path : "";
        if (request && p->dir == MS_UP) {
            char *key = g_strdup_printf("%s|%s", node, path);
            gpointer cur = g_hash_table_lookup(current, key);
            gint64 prev_block = GPOINTER_TO_INT(g_hash_table_lookup(last_block, key)) - 1;
            if (!cur || (r->block == 0 && prev_block > 0)) {
                ms_pair_transfer_t t = { 0 };
                g_strlcpy(t.node, node, sizeof(t.node));
                g_strlcpy(t.path, path, sizeof(t.path));
                t.first_s = t.last_s = msg_time(p);
                g_array_append_val(out->transfers, t);
                cur = GINT_TO_POINTER(out->transfers->len);
                g_hash_table_replace(current, g_strdup(key), cur);
            }
            g_hash_table_replace(last_block, key, GINT_TO_POINTER((int)(r->block + 1)));
            if (r->block >= 0)
                g_array_index(out->transfers, ms_pair_transfer_t, GPOINTER_TO_INT(cur) - 1).blockwise = TRUE;
            p->transfer = GPOINTER_TO_INT(cur) - 1;
            g_hash_table_replace(by_mid, g_strdup(mid), cur);
            if (*r->token)
                g_hash_table_replace(by_token, g_strdup(tok), cur);
            g_hash_table_insert(last_of_node, (gpointer)node, cur);
        } else {
            gpointer t = g_hash_table_lookup(by_mid, mid);
            if (!t && *r->token)
                t = g_hash_table_lookup(by_token, tok);
            p->transfer = t ? GPOINTER_TO_INT(t) - 1 : -1;
        }
        g_free(mid);
        g_free(tok);
    }
    g_hash_table_destroy(current);
    g_hash_table_destroy(by_mid);
    g_hash_table_destroy(by_token);
    g_hash_table_destroy(last_of_node);
    g_hash_table_destroy(last_block);
}

static void transfer_stats(ms_pair_t *out)
{
    guint nt = out->transfers->len;
    GArray **legs = g_new0(GArray *, 2 * nt + 1);
    GHashTable *req_by_mid = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *req_by_token = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

    for (guint k = 0; k < out->msgs->len; k++) {
        const ms_pair_msg_t *p = &g_array_index(out->msgs, ms_pair_msg_t, k);
        if (p->transfer < 0)
            continue;
        ms_pair_transfer_t *t = &g_array_index(out->transfers, ms_pair_transfer_t, p->transfer);
        int d = p->dir;
        t->messages[d]++;
        t->fate[d][p->fate]++;
        t->late[d] += p->late;
        t->ambiguous += p->ambiguous;
        double tm = msg_time(p);
        t->first_s = MIN(t->first_s, tm);
        t->last_s = MAX(t->last_s, MAX(tm, isnan(p->radio_last_s) ? tm : p->radio_last_s));
        if (!isnan(p->backhaul_leg_s) && p->fate != MS_FATE_LOST_RADIO) {
            GArray **a = &legs[2 * p->transfer + d];
            if (!*a)
                *a = g_array_new(FALSE, FALSE, sizeof(double));
            g_array_append_val(*a, p->backhaul_leg_s);
            t->backhaul_sum_s[d] += p->backhaul_leg_s;
            t->backhaul_max_s[d] = t->backhaul_n[d] ? MAX(t->backhaul_max_s[d], p->backhaul_leg_s) : p->backhaul_leg_s;
            t->backhaul_n[d]++;
        }
        /* An answer on the air with its request's round at the gateway: the
         * round trip the radio capture sees, split at the gateway. The
         * messages are in time order: the request answered is the latest
         * delivered one with the answer's Message ID (piggy-backed) or
         * token (separate). */
        const ms_round_t *r = any_round(p);
        if (!r || !p->radio || !p->gateway)
            continue;
        char *mid = g_strdup_printf("%d|%s|%u", p->transfer, d == MS_UP ? r->src : r->dst, r->mid);
        char *tok = g_strdup_printf("%d|%s|%s", p->transfer, d == MS_UP ? r->src : r->dst, r->token);
        const ms_pair_msg_t *req = NULL;
        if (d == MS_UP && r->code >= 1 && r->code < 32) {
            g_hash_table_replace(req_by_mid, mid, (gpointer)p);
            g_hash_table_replace(req_by_token, tok, (gpointer)p);
            continue;
        }
        if (d == MS_DOWN && r->code >= 64)
            req = g_hash_table_lookup(r->type == 2 ? req_by_mid : req_by_token, r->type == 2 ? mid : tok);
        g_free(mid);
        g_free(tok);
        if (!req || req->gateway_s > p->gateway_s)
            continue;
        t->exchanges++;
        t->network_s += p->radio_first_s - req->radio_last_s;
        t->gateway_s += p->gateway_s - req->gateway_s;
        t->exchange_backhaul_s[MS_UP] += req->backhaul_leg_s;
        t->exchange_backhaul_s[MS_DOWN] += p->backhaul_leg_s;
    }
    for (guint i = 0; i < nt; i++) {
        ms_pair_transfer_t *t = &g_array_index(out->transfers, ms_pair_transfer_t, i);
        for (int d = 0; d < 2; d++) {
            GArray *a = legs[2 * i + d];
            t->backhaul_median_s[d] = NAN;
            if (!a)
                continue;
            g_array_sort(a, cmp_double);
            t->backhaul_median_s[d] = g_array_index(a, double, (a->len - 1) / 2);
            g_array_unref(a);
        }
    }
    g_free(legs);
    g_hash_table_destroy(req_by_mid);
    g_hash_table_destroy(req_by_token);
}


void ms_pair_transfers(ms_pair_t *out)
{
    build_transfers(out);
    transfer_stats(out);
}
