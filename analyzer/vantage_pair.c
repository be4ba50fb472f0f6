/* vantage_pair.c: pairing a radio and a gateway capture (vantage_pair.h).
 *
 * The same transmission is the same UDP payload between the same addresses
 * and ports (vantage_read.c's key). A message sent once and seen once at
 * each end pairs without any clock: those pairs align the clocks. Then,
 * message by message, the rounds of each end are matched in order, the
 * most pairs first and the shortest delays among them, delays no less than
 * the alignment's bound below zero.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vantage_pair.h"
#include "vantage_transfers.h"

#define NO_SHORT 0xffffu
/* The longest a message may take from one end to the other: a CoAP
 * message's EXCHANGE_LIFETIME (RFC 7252 4.8.2) and then some. */
#define MAX_DELAY_S 300.0
/* A first fragment on the air belongs to a message the gateway sent if it
 * came within this after the gateway sent it (vantage_read.c's window). */
#define PARTIAL_WINDOW_S 60.0
/* IPv6 and UDP headers: a datagram_size is the CoAP message plus these. */
#define IP6_UDP_HEADERS 48

const char *ms_fate_name(ms_fate_t f)
{
    static const char *const names[MS_FATE_COUNT] = { "delivered", "lost_radio", "lost_backhaul", "not_in_radio",
                                                      "not_in_gateway" };
    return f < MS_FATE_COUNT ? names[f] : "?";
}

void ms_pair_clear(ms_pair_t *p)
{
    if (p->msgs)
        g_array_unref(p->msgs);
    if (p->transfers)
        g_array_unref(p->transfers);
    memset(p, 0, sizeof(*p));
}

/* The gateway's address in a capture: the one most requests go to (the
 * meters are CoAP clients, the gateway their server), else the one in the
 * most messages. Each capture has its own: a NAT or a relay between them
 * changes addresses, which is why messages pair by their bytes alone. */
static gboolean gateway_address(const ms_vantage_t *g, char *out, gsize n)
{
    GHashTable *count[2] = { g_hash_table_new(g_str_hash, g_str_equal), g_hash_table_new(g_str_hash, g_str_equal) };
    guint best[2] = { 0, 0 };
    char any[48] = "";

    for (guint i = 0; i < g->rounds->len; i++) {
        const ms_round_t *r = g_ptr_array_index(g->rounds, i);
        gboolean request = r->code >= 1 && r->code < 32;
        const char *a[2] = { r->src, r->dst };
        for (int k = 0; k < 2; k++) {
            int which = request && k == 1 ? 0 : 1;
            for (int w = which; w < 2; w++) {
                guint c = GPOINTER_TO_UINT(g_hash_table_lookup(count[w], a[k])) + 1;
                g_hash_table_insert(count[w], (gpointer)a[k], GUINT_TO_POINTER(c));
                if (c > best[w]) {
                    best[w] = c;
                    g_strlcpy(w == 0 ? out : any, a[k], w == 0 ? n : sizeof(any));
                }
            }
        }
    }
    if (!best[0] && best[1])
        g_strlcpy(out, any, n);
    g_hash_table_destroy(count[0]);
    g_hash_table_destroy(count[1]);
    return best[1] > 0;
}

/* The rounds of each message of a capture: "u" or "d" (towards its
 * gateway address, or from it) and the digest of the bytes. Messages
 * between other addresses (Thread nodes among themselves) are left out. */
static GHashTable *rounds_by_key(const ms_vantage_t *v, const char *gw)
{
    GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);

    for (guint i = 0; i < v->rounds->len; i++) {
        ms_round_t *r = g_ptr_array_index(v->rounds, i);
        gboolean up = strcmp(r->dst, gw) == 0;
        if (!up && strcmp(r->src, gw) != 0)
            continue;
        const char *digest = strrchr(r->key, '|');
        char *key = g_strdup_printf("%c%s", up ? 'u' : 'd', digest ? digest : r->key);
        GPtrArray *a = g_hash_table_lookup(h, key);
        if (!a) {
            a = g_ptr_array_new();
            g_hash_table_insert(h, key, a);
        } else {
            g_free(key);
        }
        g_ptr_array_add(a, r);
    }
    return h;
}

static const ms_copy_t *earliest_copy(const ms_round_t *r)
{
    const ms_copy_t *e = NULL;

    for (guint i = 0; i < r->n_copies; i++)
        if (!e || r->copies[i].complete_s < e->complete_s)
            e = &r->copies[i];
    return e;
}

static const ms_copy_t *latest_copy(const ms_round_t *r)
{
    const ms_copy_t *e = NULL;

    for (guint i = 0; i < r->n_copies; i++)
        if (!e || r->copies[i].complete_s > e->complete_s)
            e = &r->copies[i];
    return e;
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The link addresses the radio capture shows: each Thread node's (the
 * sender of its messages' first copies) and the border router's (the
 * sender of the gateway's messages' first copies). */
typedef struct {
    GHashTable *short_of;      /* IPv6 address -> short + 1 */
    GHashTable *addr_of;       /* short + 1 -> IPv6 address */
    guint16     br;
} links_t;

static void learn_links(const ms_vantage_t *radio, const char *gw, links_t *l)
{
    GHashTable *br_votes = g_hash_table_new(g_direct_hash, g_direct_equal);
    guint best = 0;

    l->short_of = g_hash_table_new(g_str_hash, g_str_equal);
    l->addr_of = g_hash_table_new(g_direct_hash, g_direct_equal);
    l->br = NO_SHORT;
    for (guint i = 0; i < radio->rounds->len; i++) {
        const ms_round_t *r = g_ptr_array_index(radio->rounds, i);
        const ms_copy_t *c = earliest_copy(r);
        if (!c || c->src16 == NO_SHORT)
            continue;
        gpointer s = GUINT_TO_POINTER((guint)c->src16 + 1);
        if (strcmp(r->dst, gw) == 0) {
            if (!g_hash_table_contains(l->short_of, r->src)) {
                g_hash_table_insert(l->short_of, (gpointer)r->src, s);
                g_hash_table_insert(l->addr_of, s, (gpointer)r->src);
            }
        } else if (strcmp(r->src, gw) == 0) {
            guint v = GPOINTER_TO_UINT(g_hash_table_lookup(br_votes, s)) + 1;
            g_hash_table_insert(br_votes, s, GUINT_TO_POINTER(v));
            if (v > best) {
                best = v;
                l->br = c->src16;
            }
        }
    }
    g_hash_table_destroy(br_votes);
}

static guint16 short_of(const links_t *l, const char *addr)
{
    guint v = GPOINTER_TO_UINT(g_hash_table_lookup(l->short_of, addr));

    return v ? (guint16)(v - 1) : NO_SHORT;
}

/* A copy of r on the link into dst (NO_SHORT: its furthest copy); NULL none. */
static const ms_copy_t *copy_into(const ms_round_t *r, guint16 dst)
{
    if (dst == NO_SHORT)
        return latest_copy(r);
    for (guint i = 0; i < r->n_copies; i++)
        if (r->copies[i].dst16 == dst && r->copies[i].acked)
            return &r->copies[i];
    for (guint i = 0; i < r->n_copies; i++)
        if (r->copies[i].dst16 == dst)
            return &r->copies[i];
    return NULL;
}

/* A gateway stamp on the radio clock: t_radio = t_gw - offset(t_radio),
 * one step of the fixed point is exact to drift squared. */
static double aligned(const ms_clock_fit_t *fit, double gw)
{
    double t = gw - fit->offset_s;

    return gw - ms_clock_offset_at(fit, t);
}

static double msg_time(const ms_pair_msg_t *m)
{
    return !isnan(m->radio_first_s) ? m->radio_first_s : m->gateway_aligned_s;
}

static int by_msg_time(const void *a, const void *b)
{
    double x = msg_time(a), y = msg_time(b);

    return (x > y) - (x < y);
}

static ms_pair_msg_t blank_msg(int dir)
{
    ms_pair_msg_t m = { 0 };

    m.dir = dir;
    m.radio_first_s = m.radio_last_s = m.gateway_s = m.gateway_aligned_s = NAN;
    m.radio_leg_s = m.backhaul_leg_s = NAN;
    m.transfer = -1;
    return m;
}

/* Matches one message's rounds at the two ends in order (first in, first
 * out): the most pairs, then the delays nearest the typical one of their
 * direction (that of the messages seen once at each end). Where a round
 * could be either of two (the same bytes sent again while the first was
 * still on its way), that is the likelier. */
typedef struct {
    double typical, low, high;   /* median, least and most delay of the messages seen once at each end */
} delays_t;

static void match_rounds(GPtrArray *R, GPtrArray *G, gboolean up, const ms_clock_fit_t *fit, const delays_t *dl,
                         GArray *out)
{
    double typical = dl->typical;
    guint n = R ? R->len : 0, m = G ? G->len : 0;
    double *score = g_new0(double, (n + 1) * (m + 1));
    const double big = 1e6, tol = fit->bound_s + 1e-3;
#define S(i, j) score[(i) * (m + 1) + (j)]
#define DELAY(i, j) (up ? aligned(fit, ((ms_round_t *)G->pdata[j])->first_s) - ((ms_round_t *)R->pdata[i])->last_s \
                        : ((ms_round_t *)R->pdata[i])->first_s - aligned(fit, ((ms_round_t *)G->pdata[j])->first_s))
    for (guint i = 1; i <= n; i++)
        for (guint j = 1; j <= m; j++) {
            double best = MAX(S(i - 1, j), S(i, j - 1)), d = DELAY(i - 1, j - 1);
            if (d >= -tol && d <= MAX_DELAY_S)
                best = MAX(best, S(i - 1, j - 1) + big - fabs(d - typical));
            S(i, j) = best;
        }
    gboolean *r_used = g_new0(gboolean, n + 1), *g_used = g_new0(gboolean, m + 1);
    guint first = out->len;
    for (guint i = n, j = m; i > 0 && j > 0;) {
        double d = DELAY(i - 1, j - 1);
        if (S(i, j) == S(i - 1, j))
            i--;
        else if (S(i, j) == S(i, j - 1))
            j--;
        else {
            ms_pair_msg_t p = blank_msg(up ? MS_UP : MS_DOWN);
            p.radio = R->pdata[i - 1];
            p.gateway = G->pdata[j - 1];
            (void)d;
            g_array_append_val(out, p);
            r_used[i - 1] = g_used[j - 1] = TRUE;
            i--, j--;
        }
    }
#undef S
#undef DELAY
    for (guint i = 0; i < n; i++)
        if (!r_used[i]) {
            ms_pair_msg_t p = blank_msg(up ? MS_UP : MS_DOWN);
            p.radio = R->pdata[i];
            g_array_append_val(out, p);
        }
    for (guint j = 0; j < m; j++)
        if (!g_used[j]) {
            ms_pair_msg_t p = blank_msg(up ? MS_UP : MS_DOWN);
            p.gateway = G->pdata[j];
            g_array_append_val(out, p);
        }
    for (guint k = first; k < out->len; k++) {
        ms_pair_msg_t *p = &g_array_index(out, ms_pair_msg_t, k);
        if (p->radio) {
            p->radio_first_s = p->radio->first_s;
            p->radio_last_s = p->radio->last_s;
        }
        if (p->gateway) {
            p->gateway_s = p->gateway->first_s;
            p->gateway_aligned_s = aligned(fit, p->gateway_s);
        }
    }
    /* Rounds in time order, numbered. */
    qsort(&g_array_index(out, ms_pair_msg_t, first), out->len - first, sizeof(ms_pair_msg_t), by_msg_time);
    for (guint k = first; k < out->len; k++)
        g_array_index(out, ms_pair_msg_t, k).round = k - first + 1;
    g_free(score);
    g_free(r_used);
    g_free(g_used);
}

static double pair_delay(const ms_clock_fit_t *fit, gboolean up, const ms_round_t *r, const ms_round_t *g)
{
    return up ? aligned(fit, g->first_s) - r->last_s : r->first_s - aligned(fit, g->first_s);
}

/* A pairing is ambiguous when another round of the same bytes, at either
 * end, would have taken a delay like those the delivered messages of its
 * direction took (widened by the clocks' bound): which one arrived is then
 * not known. */
static void flag_ambiguous(GArray *msgs, guint first, guint last, GPtrArray *R, GPtrArray *G, gboolean up,
                           const ms_clock_fit_t *fit, double low, double high)
{
    double tol = fit->bound_s + 1e-3;

    for (guint k = first; k < last; k++) {
        ms_pair_msg_t *p = &g_array_index(msgs, ms_pair_msg_t, k);
        if (!p->radio || !p->gateway)
            continue;
        for (guint q = 0; R && q < R->len; q++) {
            double d = pair_delay(fit, up, R->pdata[q], p->gateway);
            p->ambiguous |= R->pdata[q] != p->radio && d >= low - tol && d <= high + tol;
        }
        for (guint q = 0; G && q < G->len; q++) {
            double d = pair_delay(fit, up, p->radio, G->pdata[q]);
            p->ambiguous |= G->pdata[q] != p->gateway && d >= low - tol && d <= high + tol;
        }
    }
}

/* Delivered, but its sender had sent it again meanwhile: late, not lost. */
static void mark_late(GArray *msgs, guint first, guint last)
{
    for (guint k = first; k < last; k++) {
        ms_pair_msg_t *p = &g_array_index(msgs, ms_pair_msg_t, k);
        if (p->fate != MS_FATE_DELIVERED)
            continue;
        double arrived = p->dir == MS_UP ? p->gateway_aligned_s : p->radio_last_s;
        double sent = p->dir == MS_UP ? p->radio_first_s : p->gateway_aligned_s;
        for (guint q = first; q < last; q++) {
            const ms_pair_msg_t *o = &g_array_index(msgs, ms_pair_msg_t, q);
            double o_sent = o->dir == MS_UP ? o->radio_first_s : o->gateway_aligned_s;
            if (q != k && o_sent > sent && o_sent < arrived)
                p->late = TRUE;
        }
    }
}

static void classify(ms_pair_msg_t *p, const links_t *l, gboolean ip_near)
{
    const ms_round_t *r = p->radio;

    /* Two IP captures: whatever lies between them is the backhaul. */
    if (ip_near) {
        p->fate = r && p->gateway ? MS_FATE_DELIVERED : MS_FATE_LOST_BACKHAUL;
        if (r && p->gateway)
            p->backhaul_leg_s = p->dir == MS_UP ? p->gateway_aligned_s - r->last_s : r->first_s - p->gateway_aligned_s;
        if (r && !p->gateway && p->dir == MS_DOWN)
            p->fate = MS_FATE_NOT_IN_GATEWAY;
        if (r)
            p->radio_leg_s = 0;
        return;
    }

    if (p->dir == MS_UP) {
        const ms_copy_t *into_br = r ? copy_into(r, l->br) : NULL;
        if (r && p->gateway) {
            p->fate = MS_FATE_DELIVERED;
            p->backhaul_leg_s = p->gateway_aligned_s - (into_br ? into_br->complete_s : r->last_s);
        } else if (r) {
            p->fate = into_br && into_br->acked ? MS_FATE_LOST_BACKHAUL : MS_FATE_LOST_RADIO;
        } else {
            p->fate = MS_FATE_NOT_IN_RADIO;
        }
    } else {
        const char *node = r ? r->dst : p->gateway->dst;
        const ms_copy_t *into = r ? copy_into(r, short_of(l, node)) : NULL;
        if (r && p->gateway) {
            p->fate = into && into->acked ? MS_FATE_DELIVERED : MS_FATE_LOST_RADIO;
            p->backhaul_leg_s = r->first_s - p->gateway_aligned_s;
        } else if (r) {
            p->fate = MS_FATE_NOT_IN_GATEWAY;
        } else {
            p->fate = MS_FATE_LOST_BACKHAUL;   /* unless a partial copy shows it on the air (below) */
        }
    }
    if (r)
        p->radio_leg_s = r->last_s - r->first_s;
}

/* The gateway's messages that never were complete on the air but whose
 * first fragment was: lost on the radio, not the backhaul. The meters'
 * own such datagrams are lost on the radio, unseen at the gateway. */
static void place_partials(const ms_vantage_t *radio, const links_t *l, double tol, GArray *msgs)
{
    gboolean *used = g_new0(gboolean, radio->partials->len + 1);

    /* Each first fragment the border router sent goes with the latest
     * message of its size the gateway sent before it that no capture shows
     * complete on the air. */
    for (guint i = 0; i < radio->partials->len; i++) {
        const ms_partial_t *f = &g_array_index(radio->partials, ms_partial_t, i);
        ms_pair_msg_t *best = NULL;
        if (f->src16 != l->br)
            continue;
        for (guint k = 0; k < msgs->len; k++) {
            ms_pair_msg_t *p = &g_array_index(msgs, ms_pair_msg_t, k);
            double after = f->time - p->gateway_aligned_s;
            if (p->dir != MS_DOWN || p->radio || p->partial || p->fate != MS_FATE_LOST_BACKHAUL ||
                f->size != p->gateway->bytes + IP6_UDP_HEADERS || after < -tol || after > PARTIAL_WINDOW_S)
                continue;
            if (!best || p->gateway_aligned_s > best->gateway_aligned_s)
                best = p;
        }
        if (!best)
            continue;
        used[i] = TRUE;
        best->partial = f;
        best->fate = MS_FATE_LOST_RADIO;
        best->radio_first_s = f->time;
        best->backhaul_leg_s = f->time - best->gateway_aligned_s;
    }
    for (guint i = 0; i < radio->partials->len; i++) {
        const ms_partial_t *f = &g_array_index(radio->partials, ms_partial_t, i);
        if (used[i] || !g_hash_table_contains(l->addr_of, GUINT_TO_POINTER((guint)f->src16 + 1)) ||
            f->src16 == l->br)
            continue;
        ms_pair_msg_t p = blank_msg(MS_UP);
        p.partial = f;
        p.fate = MS_FATE_LOST_RADIO;
        p.radio_first_s = f->time;
        p.round = 1;
        g_array_append_val(msgs, p);
    }
    g_free(used);
}

static const char *msg_node(const ms_pair_msg_t *p, const links_t *l)
{
    if (p->radio)
        return p->dir == MS_UP ? p->radio->src : p->radio->dst;
    if (p->gateway)
        return p->dir == MS_UP ? p->gateway->src : p->gateway->dst;
    return g_hash_table_lookup(l->addr_of, GUINT_TO_POINTER((guint)p->partial->src16 + 1));
}

/* One message's rounds at the two ends and where its messages went in msgs. */
typedef struct {
    GPtrArray *R, *G;
    gboolean   up;
    guint      first, last;
} key_span_t;

gboolean ms_pair_build(const ms_vantage_t *radio, const ms_vantage_t *gateway, ms_pair_t *out, char **why)
{
    memset(out, 0, sizeof(*out));
    *why = NULL;
    gboolean ip_near = strcmp(radio->name, "meter") == 0;
    if (!radio->radio && !ip_near) {
        *why = g_strdup_printf("%s (--vantage %s) holds no IEEE 802.15.4 frame: a radio vantage point is a sniffer's "
                               "capture (an IP capture on the meter's side is --vantage meter=FILE)",
                               radio->file, radio->name);
        return FALSE;
    }
    if (radio->radio && ip_near) {
        *why = g_strdup_printf("%s (--vantage meter) holds IEEE 802.15.4 frames: a sniffer's capture is "
                               "--vantage radio=FILE", radio->file);
        return FALSE;
    }
    if (gateway->radio) {
        *why = g_strdup_printf("%s (--vantage %s) holds IEEE 802.15.4 frames: a gateway vantage point is a capture on "
                               "the gateway's (or the cloud host's) Ethernet", gateway->file, gateway->name);
        return FALSE;
    }
    if (!gateway_address(gateway, out->gateway_addr, sizeof(out->gateway_addr))) {
        *why = g_strdup_printf("%s (--vantage %s) holds no CoAP message", gateway->file, gateway->name);
        return FALSE;
    }
    if (!radio->rounds->len) {
        *why = g_strdup_printf("%s (--vantage %s) holds no CoAP message (is a 6LoWPAN context or the key missing?)",
                               radio->file, radio->name);
        return FALSE;
    }
    char near_gw[48] = "";
    gateway_address(radio, near_gw, sizeof(near_gw));
    GHashTable *rk = rounds_by_key(radio, near_gw), *gk = rounds_by_key(gateway, out->gateway_addr);
    GArray *pts = g_array_new(FALSE, FALSE, sizeof(ms_clock_point_t));
    GHashTableIter it;
    gpointer key, val;

    g_hash_table_iter_init(&it, rk);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        GPtrArray *R = val, *G = g_hash_table_lookup(gk, key);
        if (R->len != 1 || !G || G->len != 1)
            continue;
        const ms_round_t *r = R->pdata[0], *g = G->pdata[0];
        gboolean up = ((const char *)key)[0] == 'u';
        ms_clock_point_t p = { up ? r->last_s : r->first_s, g->first_s - (up ? r->last_s : r->first_s), up };
        g_array_append_val(pts, p);
    }
    out->shared = pts->len;
    delays_t typical[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
    const char *fail = NULL;
    gboolean ok = pts->len > 0 && ms_clock_align((ms_clock_point_t *)pts->data, pts->len, &out->clock, &fail);
    if (!ok) {
        *why = pts->len ? g_strdup_printf("%s and %s: %s (%u messages seen once at each end, %u towards the gateway, "
                                          "%u from it)", radio->file, gateway->file, fail, pts->len,
                                          out->clock.up, out->clock.down)
                        : g_strdup_printf("%s and %s share no CoAP message: are they captures of the same network at "
                                          "the same time (and is the 6LoWPAN context given, -O)?",
                                          radio->file, gateway->file);
    }
    for (int d = 0; ok && d < 2; d++) {
        GArray *delays = g_array_new(FALSE, FALSE, sizeof(double));
        for (guint i = 0; i < pts->len; i++) {
            const ms_clock_point_t *q = &g_array_index(pts, ms_clock_point_t, i);
            double delay = (q->d - ms_clock_offset_at(&out->clock, q->t)) * (q->up ? 1 : -1);
            if ((d == MS_UP) == q->up)
                g_array_append_val(delays, delay);
        }
        g_array_sort(delays, cmp_double);
        if (delays->len) {
            typical[d].typical = g_array_index(delays, double, delays->len / 2);
            typical[d].low = g_array_index(delays, double, 0);
            typical[d].high = g_array_index(delays, double, delays->len - 1);
        }
        g_array_unref(delays);
    }
    g_array_unref(pts);
    if (ok) {
        links_t l;
        learn_links(radio, near_gw, &l);
        out->msgs = g_array_new(FALSE, FALSE, sizeof(ms_pair_msg_t));
        out->transfers = g_array_new(FALSE, FALSE, sizeof(ms_pair_transfer_t));
        GHashTable *keys = g_hash_table_new(g_str_hash, g_str_equal);
        GHashTable *sets[2] = { rk, gk };
        for (int s = 0; s < 2; s++) {
            g_hash_table_iter_init(&it, sets[s]);
            while (g_hash_table_iter_next(&it, &key, NULL))
                g_hash_table_add(keys, key);
        }
        GArray *spans = g_array_new(FALSE, FALSE, sizeof(key_span_t));
        double low[2] = { G_MAXDOUBLE, G_MAXDOUBLE }, high[2] = { -G_MAXDOUBLE, -G_MAXDOUBLE };
        g_hash_table_iter_init(&it, keys);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
            key_span_t sp = { g_hash_table_lookup(rk, key), g_hash_table_lookup(gk, key),
                              ((const char *)key)[0] == 'u', out->msgs->len, 0 };
            match_rounds(sp.R, sp.G, sp.up, &out->clock, &typical[sp.up ? MS_UP : MS_DOWN], out->msgs);
            sp.last = out->msgs->len;
            for (guint k = sp.first; k < sp.last; k++) {
                ms_pair_msg_t *p = &g_array_index(out->msgs, ms_pair_msg_t, k);
                classify(p, &l, ip_near);
                if (p->radio && p->gateway) {
                    double d = pair_delay(&out->clock, sp.up, p->radio, p->gateway);
                    low[!sp.up] = MIN(low[!sp.up], d);
                    high[!sp.up] = MAX(high[!sp.up], d);
                }
            }
            mark_late(out->msgs, sp.first, sp.last);
            g_array_append_val(spans, sp);
        }
        for (guint i = 0; i < spans->len; i++) {
            const key_span_t *sp = &g_array_index(spans, key_span_t, i);
            flag_ambiguous(out->msgs, sp->first, sp->last, sp->R, sp->G, sp->up, &out->clock, low[!sp->up],
                           high[!sp->up]);
        }
        g_array_unref(spans);
        g_hash_table_destroy(keys);
        place_partials(radio, &l, out->clock.bound_s + 1e-3, out->msgs);
        g_array_sort(out->msgs, by_msg_time);
        for (guint k = 0; k < out->msgs->len; k++) {
            ms_pair_msg_t *p = &g_array_index(out->msgs, ms_pair_msg_t, k);
            p->node = msg_node(p, &l);
        }
        ms_pair_transfers(out);
        g_hash_table_destroy(l.short_of);
        g_hash_table_destroy(l.addr_of);
    }
    g_hash_table_destroy(rk);
    g_hash_table_destroy(gk);
    return ok;
}
