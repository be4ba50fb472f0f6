/* packet-meter-events.c: `-z meter,ota,events`. The tap's per-packet
 * callback runs on the first pass, as each frame is read (tshark reads a
 * pipe frame by frame), and writes the frame's events at once, flushed:
 * a transfer started, took a block, had a request sent again, was stalled
 * (the silence is seen on the capture's clock, when the frame after it
 * comes), renegotiated its block size, got an error response, completed.
 * What it prints is the tracker's first-pass view; the final numbers are
 * -z meter,ota,tsv's, which the same run can print at its end.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include <epan/packet.h>
#include <epan/tap.h>
#include <epan/stat_tap_ui.h>
#include "ws_compat.h"
#include "meter-session.h"
#include "packet-meter-events.h"
#include "event_record.h"

static int meter_events_tap = -1;

/* A `frames` record every this many frames: how far tshark has read, for a
 * reader that must know (the analyser's --live-restart-after). */
#define FRAMES_EVERY 1000

/* What was said of each transfer already: its bytes, its end. */
typedef struct {
    guint32  bytes;
    gboolean completed;
} told_t;

typedef struct {
    GHashTable *told;     /* transfer id -> told_t */
    GString    *out;
} events_listener_t;

gboolean meter_events_wanted(void)
{
    return have_tap_listener(meter_events_tap);
}

void meter_events_queue(packet_info *pinfo, const meter_event_frame_t *f)
{
    tap_queue_packet(meter_events_tap, pinfo, f);
}

/* A request's method by name, a response's code as c.dd. */
static void code_text(char *buf, gsize len, guint8 code)
{
    static const char *const methods[] = { NULL, "GET", "POST", "PUT", "DELETE", "FETCH", "PATCH", "iPATCH" };

    if (code > 0 && code < G_N_ELEMENTS(methods))
        g_strlcpy(buf, methods[code], len);
    else
        g_snprintf(buf, len, "%u.%02u", coap_code_class(code), code & 31u);
}

static void emit(events_listener_t *l, meter_event_record_t *e, const char *event)
{
    e->event = event;
    meter_record_write(l->out, &meter_event_schema, e);
}

static void message_events(events_listener_t *l, guint32 frame, gint64 ts_us, const meter_event_msg_t *m,
                           double stall_s)
{
    ota_msg_view_t view, *r = &view;
    ota_result_view(m->result, &view);
    char code[16], *path = g_strdup_printf("/%s", r->path);
    told_t *told = g_hash_table_lookup(l->told, GUINT_TO_POINTER(r->transfer));
    meter_event_record_t e = {
        .frame = frame, .ts_us = ts_us, .transfer = r->transfer, .meter = r->meter, .path = path,
        .kind = r->upload ? "block1" : "block2", .offset = r->offset, .block_size = meter_block_size(r->szx),
        .bytes = r->bytes_so_far, .size_hint = r->size_hint, .code = code, .stall_s = -1, .image = m->image,
        .verified = r->verified,
    };

    code_text(code, sizeof code, r->code);
    if (!told) {
        told = g_new0(told_t, 1);
        g_hash_table_insert(l->told, GUINT_TO_POINTER(r->transfer), told);
        emit(l, &e, "start");
    }
    if (r->stall_us > (gint64)(stall_s * 1e6)) {
        e.stall_s = r->stall_us / 1e6;
        emit(l, &e, "stall");
        e.stall_s = -1;
    }
    if (r->retransmission)
        emit(l, &e, "retransmission");
    if (r->rerequest)
        emit(l, &e, "rerequest");
    if (r->renegotiation && !r->hop_copy)
        emit(l, &e, "renegotiation");
    if (!r->is_request && coap_code_is_error(r->code) && !r->hop_copy)
        emit(l, &e, "error");
    if (r->bytes_so_far > told->bytes) {
        told->bytes = r->bytes_so_far;
        emit(l, &e, "block");
    }
    if (!told->completed && r->final) {
        told->completed = TRUE;
        emit(l, &e, "complete");
    }
    g_free(path);
}

/* Taps run once the frame was dissected; with -2 (or a GUI retap) only on
 * the later pass, with the results the first pass left. */
static tap_packet_status events_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                       const void *data, tap_flags_t flags _U_)
{
    events_listener_t *l = (events_listener_t *)tapdata;
    const meter_event_frame_t *f = (const meter_event_frame_t *)data;
    double stall_s = meter_session_stall_seconds(meter_session_current());

    for (guint i = 0; i < f->n; i++)
        message_events(l, pinfo->num, f->ts_us, &f->msg[i], stall_s);
    if (l->out->len) {
        fputs(l->out->str, stdout);
        fflush(stdout);
        g_string_truncate(l->out, 0);
    }
    return TAP_PACKET_DONT_REDRAW;
}

/* Every frame goes through the stock "frame" tap. */
static tap_packet_status frames_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                       const void *data _U_, tap_flags_t flags _U_)
{
    events_listener_t *l = (events_listener_t *)tapdata;

    if (pinfo->num % FRAMES_EVERY)
        return TAP_PACKET_DONT_REDRAW;
    meter_event_record_t e = { .event = "frames", .frame = pinfo->num,
                               .ts_us = (gint64)pinfo->abs_ts.secs * 1000000 + pinfo->abs_ts.nsecs / 1000,
                               .meter = "", .path = "", .kind = "", .code = "", .size_hint = -1, .stall_s = -1 };
    meter_record_write(l->out, &meter_event_schema, &e);
    fputs(l->out->str, stdout);
    fflush(stdout);
    g_string_truncate(l->out, 0);
    return TAP_PACKET_DONT_REDRAW;
}

static void events_reset(void *tapdata)
{
    g_hash_table_remove_all(((events_listener_t *)tapdata)->told);
}

static void events_draw(void *tapdata _U_)
{
}

static void events_finish(void *tapdata)
{
    events_listener_t *l = (events_listener_t *)tapdata;

    g_hash_table_destroy(l->told);
    g_string_free(l->out, TRUE);
    g_free(l);
}

/* -z meter,ota,events: the header at once, so that a reader knows the version before the first frame. */
static meter_stat_init_result_t events_cli_init(const char *opt_arg, void *userdata _U_)
{
    events_listener_t *l = g_new0(events_listener_t, 1);
    GString *err;

    if (strcmp(opt_arg, "meter,ota,events") != 0) {
        fprintf(stderr, "tshark: -z meter,ota,events takes no filter or other argument: %s\n", opt_arg);
        g_free(l);
        exit(1);
    }
    l->told = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    l->out = g_string_new(NULL);
    err = register_tap_listener("meter_ota_events", l, NULL, TL_REQUIRES_NOTHING, events_reset, events_packet,
                                events_draw, events_finish);
    if (!err)
        err = register_tap_listener("frame", l, NULL, TL_REQUIRES_NOTHING, NULL, frames_packet, NULL, NULL);
    if (err) {
        fprintf(stderr, "tshark: -z meter,ota,events: %s\n", err->str);
        /* tshark exits: a listener registered already is not worth taking back. */
        exit(1);
    }
    meter_event_write_header(l->out);
    fputs(l->out->str, stdout);
    fflush(stdout);
    g_string_truncate(l->out, 0);
    METER_STAT_INIT_DONE;
}

static stat_tap_ui events_cli_ui = {
    REGISTER_STAT_GROUP_GENERIC, "Meter block-wise transfer events", "meter,ota,events", events_cli_init, 0, NULL,
};

void proto_register_meter_events(void)
{
    meter_events_tap = register_tap("meter_ota_events");
    register_stat_tap_ui(&events_cli_ui, NULL);
}
