/* meter_app.c: the meter's CoAP client and task script.
 *
 * One exchange is open at a time, as on the real meter. A CON request is
 * retransmitted with the same Message ID after ACK_TIMEOUT * [1, ACK_RANDOM_FACTOR],
 * doubling, MAX_RETRANSMIT times (RFC 7252 4.2); when the exchange has
 * failed the same block is requested again with a new Message ID; after
 * max_rerequests of those the meter pauses and resumes the transfer later.
 * Between a block's response and the next request the meter writes the block
 * to SPI flash (its turn-around).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "meter_app.h"
#include "coap_msg.h"
#include "events.h"
#include "mac.h"
#include "mesh.h"
#include "payloads.h"

typedef enum { TASK_CONFIG, TASK_HISTORY, TASK_FIRMWARE, TASK_DONE } task_t;

struct meter_app {
    node_t      *n;
    world_t     *w;
    const catalogue_t *cat;      /* what the cloud serves: its config, the images */
    gboolean     background;
    task_t       script[4];
    int          step;
    gboolean     done;

    /* CoAP client */
    guint16      first_mid;      /* where a reboot starts the Message IDs again */
    guint16      next_mid;
    guint32      next_token;
    guint8       xfer_token[4];  /* the task's token (TOKEN_PER_TRANSFER / FIRST_ONLY) */
    guint8       xfer_tkl;
    guint8       token[8];       /* the open request's token as sent */
    guint8       tkl;
    GByteArray  *req;            /* the open request as sent (for retransmission) */
    guint16      req_mid;
    gboolean     open;           /* an exchange is waiting for its response */
    gboolean     separate;       /* empty ACK seen: waiting for a separate response */
    int          retransmits;
    gint64       timeout_us;
    guint        timer_gen;
    int          rerequests;     /* of the current block */
    int          resumes;
    int          downloads;      /* firmware downloads begun */
    GArray      *old_mids;       /* earlier MIDs of this transfer: late responses */

    /* The task at hand */
    char         path[64];
    char         query[32];
    int          xfer;           /* the transfer's id (events.h), 0: none */
    int          szx;            /* block size in use */
    guint32      offset;         /* contiguous bytes done */
    guint32      blocks;
    gboolean     fallback_done;
    GByteArray  *upload;         /* history pack for POST */
    senml_sample_t samples[64];
    guint        n_samples;
};

static void send_current(meter_app_t *a);
static void next_task(meter_app_t *a);

/* ---- set-up ---- */

static void make_history(meter_app_t *a)
{
    const sim_params_t *p = &a->w->p;
    guint n = (guint)CLAMP(a->background ? p->bg_history_samples : p->history_samples, 1, 64);
    double t0 = (double)(p->start_epoch_us / 1000000) - 900.0 * n;
    double v = 12000.0 + 37.0 * a->n->idx;

    for (guint i = 0; i < n; i++) {
        a->samples[i].time = t0 + 900.0 * i;
        v += 0.5 + (double)((a->n->idx * 7 + i * 13) % 10) / 4.0;
        a->samples[i].value = v;
    }
    a->n_samples = n;
}

static void deliver(node_t *n, const app_msg_t *msg, const datagram_t *dg);

meter_app_t *meter_app_new(node_t *n, const catalogue_t *cat, gboolean background)
{
    meter_app_t *a = g_new0(meter_app_t, 1);
    const sim_params_t *p = &n->w->p;
    int k = 0;

    a->n = n;
    a->w = n->w;
    a->cat = cat;
    a->background = background;
    a->next_mid = a->first_mid = (guint16)g_rand_int(a->w->rng);
    a->next_token = g_rand_int(a->w->rng);
    a->old_mids = g_array_new(FALSE, FALSE, sizeof(guint16));
    if (p->do_config || background)
        a->script[k++] = TASK_CONFIG;
    if (p->do_history || background)
        a->script[k++] = TASK_HISTORY;
    if (p->do_firmware && (!background || (p->bg_ota_every > 0 && n->idx % p->bg_ota_every == 0)))
        a->script[k++] = TASK_FIRMWARE;
    a->script[k] = TASK_DONE;
    make_history(a);
    sim_emit(a->w, history, n, a->samples, a->n_samples);
    n->app = a;
    n->deliver = deliver;
    return a;
}

void meter_app_free(meter_app_t *a)
{
    if (!a)
        return;
    if (a->req)
        g_byte_array_unref(a->req);
    if (a->upload)
        g_byte_array_unref(a->upload);
    g_array_free(a->old_mids, TRUE);
    g_free(a);
}

static int meter_index(const meter_app_t *a)
{
    for (int i = 0; i < SIM_MAX_METERS; i++)
        if (a->w->meters[i] == a->n)
            return i;
    return 0;
}

/* ---- requests and the retransmission timer ---- */

static void timer_fired(gpointer obj, gpointer arg);

static void arm_timer(meter_app_t *a, gint64 delay_us)
{
    a->timer_gen++;
    world_at(a->w, world_now(a->w) + delay_us, timer_fired, a, GUINT_TO_POINTER(a->timer_gen));
}

static void transmit(meter_app_t *a, gboolean retransmission)
{
    app_msg_t m = { 0 };

    m.coap = g_byte_array_ref(a->req);
    m.xfer = a->xfer;
    m.is_retransmission = retransmission;
    if (a->xfer)
        sim_emit(a->w, xfer_count, a->xfer, retransmission ? XFER_RETRANSMISSION : XFER_REQUEST);
    mesh_send_up(a->w, a->n, &m);
}

/* Builds and sends the request for the task's current position with a new
 * Message ID. */
static void new_request(meter_app_t *a, coap_msg_t *m)
{
    const sim_params_t *p = &a->w->p;

    m->type = COAP_CON;
    m->mid = p->same_mid >= 0 && !a->background ? (guint16)p->same_mid : a->next_mid++;
    gboolean first_block = !(m->block2.present && m->block2.num > 0) &&
                           !(m->block1.present && m->block1.num > 0);
    if (p->token_mode == TOKEN_PER_REQUEST || a->xfer_tkl == 0) {
        guint32 t = a->next_token++;
        memcpy(a->xfer_token, &t, 4);
        a->xfer_tkl = 4;
    }
    /* OpenThread sends follow-up blocks without a token. */
    m->tkl = (p->token_mode == TOKEN_FIRST_ONLY && !first_block) ? 0 : a->xfer_tkl;
    memcpy(m->token, a->xfer_token, m->tkl);
    a->tkl = m->tkl;
    memcpy(a->token, m->token, m->tkl);
    if (a->req) {
        g_array_append_val(a->old_mids, a->req_mid);
        g_byte_array_unref(a->req);
    }
    a->req = coap_msg_encode(m);
    a->req_mid = m->mid;
    a->open = TRUE;
    a->separate = FALSE;
    a->retransmits = 0;
    a->timeout_us = (gint64)(1e6 * p->ack_timeout_s * world_uniform(a->w, 1.0, p->ack_random_factor));
    transmit(a, FALSE);
    arm_timer(a, a->timeout_us);
}

static void pause_or_abort(meter_app_t *a);

static void exchange_failed(meter_app_t *a)
{
    const sim_params_t *p = &a->w->p;

    a->open = FALSE;
    if (a->rerequests < p->max_rerequests) {
        a->rerequests++;
        if (a->xfer)
            sim_emit(a->w, xfer_count, a->xfer, XFER_REREQUEST);
        send_current(a);
        return;
    }
    pause_or_abort(a);
}

static void timer_fired(gpointer obj, gpointer arg)
{
    meter_app_t *a = obj;
    const sim_params_t *p = &a->w->p;

    if (GPOINTER_TO_UINT(arg) != a->timer_gen || !a->open || a->w->stop)
        return;
    if (a->separate || a->retransmits >= p->max_retransmit) {
        exchange_failed(a);
        return;
    }
    a->retransmits++;
    a->timeout_us *= 2;
    transmit(a, TRUE);
    arm_timer(a, a->timeout_us);
}

/* ---- tasks ---- */

/* dg: the datagram of the final response, when the transfer completed. */
static void finish_xfer(meter_app_t *a, const char *outcome, const datagram_t *dg)
{
    if (a->xfer)
        sim_emit(a->w, xfer_end, a->xfer, outcome, dg);
    a->xfer = 0;
    g_array_set_size(a->old_mids, 0);
}

static void resume(gpointer obj, gpointer arg)
{
    meter_app_t *a = obj;
    (void)arg;

    if (a->w->stop)
        return;
    a->rerequests = 0;
    if (a->xfer)
        sim_emit(a->w, xfer_count, a->xfer, XFER_RESUME);
    mac_set_fast_poll(a->n, TRUE);
    send_current(a);
}

static void pause_or_abort(meter_app_t *a)
{
    const sim_params_t *p = &a->w->p;

    if (a->xfer && a->resumes < p->max_resumes) {
        a->resumes++;
        mac_set_fast_poll(a->n, FALSE);
        world_at(a->w, world_now(a->w) + (gint64)(p->resume_after_s * 1e6), resume, a, NULL);
        return;
    }
    finish_xfer(a, "aborted", NULL);
    next_task(a);
}

/* A block-wise transfer of size bytes (an image with its SHA-256, or the
 * history pack) begins at block size szx. */
static void start_block_transfer(meter_app_t *a, const char *kind, const char *method, int szx, guint32 size,
                                 const guint8 *sha256)
{
    a->szx = szx;
    a->offset = 0;
    a->blocks = 0;
    a->rerequests = 0;
    a->resumes = 0;
    a->xfer_tkl = 0;
    a->xfer = ++a->w->next_xfer_id;
    xfer_info_t x = { .id = a->xfer, .meter = a->n, .background = a->background, .kind = kind, .method = method,
                      .path = a->path, .query = a->query, .szx = szx, .resource_size = size, .sha256 = sha256 };
    sim_emit(a->w, xfer_begin, &x);
}

static void begin_task(gpointer obj, gpointer arg)
{
    meter_app_t *a = obj;
    const sim_params_t *p = &a->w->p;
    meter_config_t cfg;
    (void)arg;

    if (a->w->stop)
        return;
    catalogue_config_for(a->cat, a->n, &cfg);
    g_snprintf(a->query, sizeof(a->query), "tok=%s", cfg.auth_token);
    a->rerequests = 0;
    a->xfer_tkl = 0;
    switch (a->script[a->step]) {
    case TASK_CONFIG:
        g_strlcpy(a->path, "meter/cfg", sizeof(a->path));
        break;
    case TASK_HISTORY: {
        senml_pack_t pack = { .eui64 = a->n->ext, .samples = a->samples, .n_samples = a->n_samples };
        g_strlcpy(pack.name, "energy", sizeof(pack.name));
        g_strlcpy(pack.unit, "Wh", sizeof(pack.unit));
        g_strlcpy(a->path, cfg.history_path, sizeof(a->path));
        if (a->upload)
            g_byte_array_unref(a->upload);
        a->upload = payload_senml_encode(&pack);
        if (a->upload->len > coap_block_size((guint8)p->his_szx))
            start_block_transfer(a, "block1", "POST", p->his_szx, a->upload->len, NULL);
        break;
    }
    case TASK_FIRMWARE: {
        const char *img_path = a->background ? catalogue_background_image_path()
                                             : catalogue_main_image_path();
        const mcuboot_image_t *img = catalogue_image(a->cat, img_path);
        int szx = a->background ? p->bg_ota_szx : p->fw_szx[meter_index(a)];
        g_strlcpy(a->path, img_path, sizeof(a->path));
        if (a->downloads++ && p->reboot_mids && !a->background)
            a->next_mid = a->first_mid;
        start_block_transfer(a, "block2", "GET", szx, img->image->len, img->sha256);
        break;
    }
    case TASK_DONE:
        a->done = TRUE;
        mac_set_fast_poll(a->n, FALSE);
        return;
    }
    mac_set_fast_poll(a->n, TRUE);
    send_current(a);
}

static void next_task(meter_app_t *a)
{
    const sim_params_t *p = &a->w->p;
    gint64 gap = 2000000;

    a->open = FALSE;
    a->timer_gen++;
    mac_set_fast_poll(a->n, FALSE);
    if (a->script[a->step] == TASK_FIRMWARE && !a->background && a->downloads < p->downloads) {
        /* The same image again, later (the step stays). */
        world_at(a->w, world_now(a->w) + (gint64)(p->download_interval_s * 1e6), begin_task, a, NULL);
        return;
    }
    a->step++;
    if (a->script[a->step] == TASK_DONE && a->background && !meter_apps_all_done(a->w)) {
        /* Background nodes keep uploading history until the meters finish. */
        a->step = 0;
        while (a->script[a->step] != TASK_HISTORY && a->script[a->step] != TASK_DONE)
            a->step++;
        gap = (gint64)(p->bg_upload_interval_s * world_uniform(a->w, 0.5, 1.5) * 1e6);
    }
    world_at(a->w, world_now(a->w) + gap, begin_task, a, NULL);
}

void meter_app_start(meter_app_t *a, gint64 at_us)
{
    gint64 jitter = a->background ? (gint64)(world_uniform(a->w, 0, 5) * 1e6) : 0;

    world_at(a->w, at_us + jitter + meter_index(a) * 150000, begin_task, a, NULL);
}

/* Sends the request for where the current task stands. */
static void send_current(meter_app_t *a)
{
    const sim_params_t *p = &a->w->p;
    coap_msg_t m;

    coap_msg_init(&m);
    m.uri_path = a->path;
    m.uri_query = a->query;
    switch (a->script[a->step]) {
    case TASK_CONFIG:
        m.code = COAP_GET;
        break;
    case TASK_HISTORY:
        m.code = COAP_POST;
        m.content_format = COAP_CF_SENML_CBOR;
        if (a->xfer) {
            guint32 size = coap_block_size((guint8)a->szx);
            guint32 len = MIN(size, a->upload->len - a->offset);
            m.block1.present = TRUE;
            m.block1.num = a->offset / size;
            m.block1.szx = (guint8)a->szx;
            m.block1.more = a->offset + len < a->upload->len;
            m.payload = a->upload->data + a->offset;
            m.payload_len = len;
        } else {
            m.payload = a->upload->data;
            m.payload_len = a->upload->len;
        }
        break;
    case TASK_FIRMWARE:
        m.code = COAP_GET;
        m.block2.present = TRUE;
        m.block2.szx = (guint8)a->szx;
        m.block2.num = a->szx == 7 ? 0 : a->offset / coap_block_size((guint8)a->szx);
        m.block2.more = p->m_bit_in_requests && m.block2.num > 0;
        break;
    case TASK_DONE:
        return;
    }
    new_request(a, &m);
}

/* Flash time for a block: programming per byte, plus a sector erase when the
 * block starts a new sector. */
static gint64 turnaround_us(meter_app_t *a, guint32 offset, gsize len)
{
    const sim_params_t *p = &a->w->p;
    double us = p->turnaround_ms * 1000;

    if (a->script[a->step] == TASK_FIRMWARE && len > 0) {
        guint32 sector = (guint32)MAX(p->sector_size, 1);
        us += (double)len * p->flash_us_per_byte;
        if (offset % sector == 0 || offset / sector != (offset + (guint32)len - 1) / sector)
            us += p->erase_ms * 1000;
    }
    return (gint64)us;
}

/* Pacing between the meter's block requests (not the background's). */
static gint64 block_gap_us(const meter_app_t *a)
{
    return a->background ? 0 : (gint64)(a->w->p.block_gap_ms * 1000);
}

static void continue_later(gpointer obj, gpointer arg)
{
    meter_app_t *a = obj;
    (void)arg;

    if (!a->w->stop)
        send_current(a);
}

/* A new transfer at a legal block size after the gateway refused an edge SZX. */
static void fall_back(meter_app_t *a, const char *outcome, int szx)
{
    const mcuboot_image_t *img = catalogue_image(a->cat, a->path);

    finish_xfer(a, outcome, NULL);
    a->fallback_done = TRUE;
    start_block_transfer(a, "block2", "GET", szx, img->image->len, img->sha256);
    world_at(a->w, world_now(a->w) + turnaround_us(a, 1, 0), continue_later, a, NULL);
}

static void firmware_response(meter_app_t *a, const coap_rx_t *r, const datagram_t *dg)
{
    guint32 size, offset;

    if (r->code >= COAP_CODE(4, 0) || !r->block2.present) {
        sim_emit(a->w, xfer_count, a->xfer, XFER_ERROR_RESPONSE);
        if (!a->fallback_done && (a->szx == 7 || a->szx == 0)) {
            fall_back(a, "error", a->szx == 7 ? 6 : 1);
            return;
        }
        finish_xfer(a, "error", NULL);
        next_task(a);
        return;
    }
    size = coap_block_size(r->block2.szx);
    offset = r->block2.num * size;
    if (r->block2.more && r->payload_len != size) {
        /* A block of the wrong length cannot be written: ask again. */
        sim_emit(a->w, xfer_count, a->xfer, XFER_ERROR_RESPONSE);
        if (a->szx == 0 && !a->fallback_done && a->rerequests >= a->w->p.max_rerequests) {
            fall_back(a, "error", 1);
            return;
        }
        exchange_failed(a);
        return;
    }
    if (r->block2.szx < a->szx) {
        a->szx = r->block2.szx;
        sim_emit(a->w, renegotiated, a->xfer, a->szx);
    }
    if (offset == a->offset) {
        sim_emit(a->w, block_taken, a->xfer, offset, (guint32)r->payload_len);
        a->offset += (guint32)r->payload_len;
        a->blocks++;
    }
    a->rerequests = 0;
    a->resumes = 0;
    if (!r->block2.more) {
        finish_xfer(a, "complete", dg);
        next_task(a);
        return;
    }
    world_at(a->w, world_now(a->w) + turnaround_us(a, offset, r->payload_len) + block_gap_us(a), continue_later,
             a, NULL);
}

static void history_response(meter_app_t *a, const coap_rx_t *r, const datagram_t *dg)
{
    if (!a->xfer) {
        next_task(a);
        return;
    }
    if (r->code == COAP_CONTINUE) {
        guint32 size = coap_block_size((guint8)a->szx);
        guint32 len = MIN(size, a->upload->len - a->offset);
        sim_emit(a->w, block_taken, a->xfer, a->offset, len);
        a->offset += len;
        a->blocks++;
        a->rerequests = 0;
        world_at(a->w, world_now(a->w) + turnaround_us(a, a->offset, 0), continue_later, a, NULL);
        return;
    }
    if (r->code == COAP_CHANGED) {
        sim_emit(a->w, block_taken, a->xfer, a->offset, a->upload->len - a->offset);
        a->blocks++;
        finish_xfer(a, "complete", dg);
    } else {
        sim_emit(a->w, xfer_count, a->xfer, XFER_ERROR_RESPONSE);
        finish_xfer(a, "error", NULL);
    }
    next_task(a);
}

static void send_empty_ack(meter_app_t *a, guint16 mid, int xfer)
{
    coap_msg_t m;
    app_msg_t out = { 0 };

    coap_msg_init(&m);
    m.type = COAP_ACK;
    m.code = COAP_EMPTY;
    m.mid = mid;
    out.coap = coap_msg_encode(&m);
    out.xfer = xfer;
    mesh_send_up(a->w, a->n, &out);
}

static gboolean is_old_mid(const meter_app_t *a, guint16 mid)
{
    for (guint i = 0; i < a->old_mids->len; i++)
        if (g_array_index(a->old_mids, guint16, i) == mid)
            return TRUE;
    return FALSE;
}

/* A complete datagram for the meter arrived (dg keeps its capture times). */
static void deliver(node_t *n, const app_msg_t *msg, const datagram_t *dg)
{
    meter_app_t *a = n->app;
    coap_rx_t r;
    gboolean mine;

    if (!a || !coap_msg_decode(msg->coap->data, msg->coap->len, &r))
        return;
    /* The meter already ACKed every fragment at the MAC layer, but while it
     * is busy with flash it may still drop the datagram. */
    if (g_rand_double(a->w->rng) < a->w->p.busy_drop) {
        if (msg->xfer)
            sim_emit(a->w, xfer_count, msg->xfer, XFER_DROPPED);
        return;
    }
    if (r.type == COAP_CON) {
        /* A separate response: acknowledge it whatever it is. */
        send_empty_ack(a, r.mid, msg->xfer);
        mine = a->open && a->separate && r.tkl == a->tkl && memcmp(r.token, a->token, r.tkl) == 0;
    } else {
        mine = a->open && r.mid == a->req_mid;
        if (mine && r.code == COAP_EMPTY) {
            a->separate = TRUE;
            if (a->xfer)
                sim_emit(a->w, xfer_count, a->xfer, XFER_SEPARATE_RESPONSE);
            arm_timer(a, 4 * (gint64)(a->w->p.ack_timeout_s * 1e6));
            return;
        }
    }
    if (!mine) {
        if (msg->xfer && (is_old_mid(a, r.mid) || r.type == COAP_CON || r.mid == a->req_mid))
            sim_emit(a->w, xfer_count, msg->xfer, XFER_DUPLICATE_RESPONSE);
        return;
    }
    a->open = FALSE;
    a->timer_gen++;
    sim_emit(a->w, response_taken, dg);
    switch (a->script[a->step]) {
    case TASK_CONFIG: {
        meter_config_t cfg;
        catalogue_config_for(a->cat, a->n, &cfg);
        sim_emit(a->w, config_taken, a->n, &cfg);
        next_task(a);
        break;
    }
    case TASK_HISTORY:
        history_response(a, &r, dg);
        break;
    case TASK_FIRMWARE:
        firmware_response(a, &r, dg);
        break;
    case TASK_DONE:
        break;
    }
}

gboolean meter_apps_all_done(world_t *w)
{
    for (int i = 0; i < w->p.n_meters; i++) {
        meter_app_t *a = w->meters[i]->app;
        if (a && !a->done)
            return FALSE;
    }
    return TRUE;
}
