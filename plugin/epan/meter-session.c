/* meter-session.c: the per-file session (meter-session.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <epan/prefs.h>
#include "ws_compat.h"
#include "meter-proto.h"
#include "meter-session.h"

struct meter_session {
    ota_track_t *tracker;
    ota_clock_t *clock;       /* the frames' times, as the tracker takes them */
    /* Per-frame records by frame number: cheaper than per-packet proto data,
     * which would add an entry to every frame of the capture. */
    GPtrArray   *frames;
};

static guint pref_stall_s = 10;
/* What the capture's timestamps mark: read from the frame-ACK gaps, or as
 * the user says (for exact times on a capture stamped at frame starts
 * whose first messages come before any ACK that tells). */
static gint pref_timestamps = OTA_STAMP_UNKNOWN;
static const enum_val_t timestamps_vals[] = {
    { "auto", "Read from the gaps between frames and their ACKs", OTA_STAMP_UNKNOWN },
    { "end", "The end of each frame (most radios)", OTA_STAMP_END },
    { "start", "The start of each frame (its SFD)", OTA_STAMP_START },
    { "host", "Arrival at the host (a few ms late)", OTA_STAMP_HOST },
    { NULL, NULL, 0 },
};

static meter_session_t *current;

static void session_cleanup(void)
{
    if (current) {
        g_ptr_array_free(current->frames, TRUE);
        ota_clock_free(current->clock);
    }
    g_free(current);
    current = NULL;
}

meter_session_t *meter_session_current(void)
{
    if (!current) {
        current = g_new0(meter_session_t, 1);
        current->tracker = ota_track_new(wmem_file_scope());
        current->clock = ota_clock_new();
        if (pref_timestamps != OTA_STAMP_UNKNOWN)
            ota_track_fix_time_base(current->tracker, (ota_stamp_kind_t)pref_timestamps);
        current->frames = g_ptr_array_new();
    }
    return current;
}

ota_track_t *meter_session_tracker(meter_session_t *s)
{
    return s->tracker;
}

ota_clock_t *meter_session_clock(meter_session_t *s)
{
    return s->clock;
}

double meter_session_stall_seconds(const meter_session_t *s _U_)
{
    return pref_stall_s;
}

void meter_session_finalize(meter_session_t *s)
{
    ota_track_finalize(s->tracker, meter_session_stall_seconds(s));
}

gpointer meter_session_frame(const meter_session_t *s, guint32 num)
{
    return num < s->frames->len ? g_ptr_array_index(s->frames, num) : NULL;
}

void meter_session_set_frame(meter_session_t *s, guint32 num, gpointer record)
{
    if (num >= s->frames->len)
        g_ptr_array_set_size(s->frames, MAX(num + 1, s->frames->len * 2));
    g_ptr_array_index(s->frames, num) = record;
}

void meter_session_register(void)
{
    prefs_register_uint_preference(meter_module, "ota.stall_seconds", "Stall threshold (s)",
        "A transfer with no message for longer than this gets a stall expert info", 10, &pref_stall_s);
    prefs_register_enum_preference(meter_module, "ota.timestamps", "Timestamps mark",
        "The instant each frame's timestamp marks. Times are taken at the frame's end; auto reads the "
        "instant from the gaps between frames and their ACKs", &pref_timestamps, timestamps_vals, FALSE);
    /* The session is the file's: a new file (or a reload) starts afresh. */
    register_init_routine(session_cleanup);
    register_cleanup_routine(session_cleanup);
}
