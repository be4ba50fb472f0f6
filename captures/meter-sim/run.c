/* run.c: builds one run from the bottom up (the network's nodes, then what
 * acts on them, the truth that listens, the cloud's content and the
 * applications), so that no part has to know the parts above it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run.h"
#include "backhaul.h"
#include "catalogue.h"
#include "channel.h"
#include "events.h"
#include "gateway_app.h"
#include "mac.h"
#include "mesh.h"
#include "meter_app.h"
#include "mle.h"
#include "sniffer.h"
#include "world.h"

struct run {
    world_t       *w;
    truth_t       *truth;
    catalogue_t   *catalogue;
    gateway_app_t *gateway;
};

run_t *run_new(const sim_params_t *p, capture_writer_t *cap, capture_writer_t *gw_cap, const char *gw_path,
               GError **err)
{
    run_t *r = g_new0(run_t, 1);
    world_t *w = world_new(p, cap, err);

    if (!w) {
        g_free(r);
        return NULL;
    }
    r->w = w;
    w->gw_cap = gw_cap;
    w->channel = channel_new();
    w->sniffer = sniffer_new(p);
    w->backhaul = backhaul_new(&w->p);
    mesh_init(w);
    r->truth = truth_new(w);
    w->listener = truth_listener(r->truth);
    if (gw_cap)
        truth_set_gateway_capture(r->truth, gw_path);
    r->catalogue = catalogue_new(w, err);
    if (!r->catalogue) {
        run_free(r);
        return NULL;
    }
    truth_set_firmware_pubkey(r->truth, catalogue_image(r->catalogue, catalogue_main_image_path())->pubkey);
    r->gateway = gateway_app_new(w, r->catalogue);
    for (guint i = 0; i < w->nodes->len; i++) {
        node_t *n = g_ptr_array_index(w->nodes, i);
        /* Everyone introduces itself in the first 200 ms, before any data. */
        mle_start(n, (gint64)(i * 200000 / w->nodes->len));
        if (n->role == ROLE_METER || n->role == ROLE_BACKGROUND)
            meter_app_new(n, r->catalogue, n->role == ROLE_BACKGROUND);
        if (n->sleepy)
            mac_start_polling(n);
    }
    return r;
}

void run_execute(run_t *r)
{
    world_t *w = r->w;
    gint64 limit = (gint64)(w->p.max_duration_s * 1e6);
    gint64 tail_end = -1;

    for (guint i = 0; i < w->nodes->len; i++) {
        node_t *n = g_ptr_array_index(w->nodes, i);
        if (n->app)
            meter_app_start(n->app, 1000000);
    }
    while (event_queue_run_next(w->eq, tail_end >= 0 ? tail_end : limit)) {
        /* Once every meter is done, let the air settle for two seconds. */
        if (tail_end < 0 && meter_apps_all_done(w))
            tail_end = world_now(w) + 2000000;
    }
    w->stop = TRUE;
    sim_emit(w, run_end, world_now(w));
}

truth_t *run_truth(run_t *r)
{
    return r->truth;
}

void run_free(run_t *r)
{
    world_t *w;

    if (!r)
        return;
    w = r->w;
    for (guint i = 0; i < w->nodes->len; i++)
        meter_app_free(((node_t *)g_ptr_array_index(w->nodes, i))->app);
    gateway_app_free(r->gateway);
    catalogue_free(r->catalogue);
    truth_free(r->truth);
    channel_free(w->channel);
    sniffer_free(w->sniffer);
    backhaul_free(w->backhaul);
    world_free(w);
    g_free(r);
}
