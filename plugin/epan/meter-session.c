/* meter-session.c: the per-file session (meter-session.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ws_compat.h"
#include "meter-prefs.h"
#include "meter-session.h"

struct meter_session {
    ota_track_t *tracker;
    ota_clock_t *clock;       /* the frames' times, as the tracker takes them */
    /* The hook's per-frame records, in frame order, for the frames that have
     * one (most frames of a long capture, polls and ACKs, have none): 16
     * bytes a record, where an array by frame number costs 8 bytes a frame
     * and per-packet proto data some 40 bytes a record. In chunks, so that
     * a long capture does not leave up to half of one big array unused. */
    GPtrArray   *frames;     /* GArray chunks of frame_record_t, by ascending frame number */
    guint32      undecrypted_levels, undecrypted_key_id_modes;   /* bit sets (meter-session.h) */
    void        *parts[METER_PART_COUNT];   /* each decoder's state (meter_session_add_part) */
};

typedef struct {
    guint32  num;
    guint32  kind;       /* the caller's: what record is */
    meter_frame_record_t record;
} frame_record_t;

static meter_session_t *current;

static struct {
    meter_part_new_fn state_new;
    meter_part_free_fn state_free;
} parts[METER_PART_COUNT];

void meter_session_add_part(meter_part_t part, meter_part_new_fn state_new, meter_part_free_fn state_free)
{
    parts[part].state_new = state_new;
    parts[part].state_free = state_free;
}

void *meter_session_part(meter_session_t *s, meter_part_t part)
{
    return s->parts[part];
}

#define FRAME_CHUNK 8192

static void free_chunk(gpointer chunk)
{
    g_array_free((GArray *)chunk, TRUE);
}

static void session_cleanup(void)
{
    if (current) {
        for (guint i = 0; i < METER_PART_COUNT; i++)
            if (parts[i].state_free)
                parts[i].state_free(current->parts[i]);
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
        if (meter_prefs.ota_timestamps != OTA_STAMP_UNKNOWN)
            ota_track_fix_time_base(current->tracker, (ota_stamp_kind_t)meter_prefs.ota_timestamps);
        current->frames = g_ptr_array_new_with_free_func(free_chunk);
        for (guint i = 0; i < METER_PART_COUNT; i++)
            if (parts[i].state_new)
                current->parts[i] = parts[i].state_new();
    }
    return current;
}

void meter_session_note_undecrypted(meter_session_t *s, guint8 level, guint8 key_id_mode)
{
    s->undecrypted_levels |= 1u << (level & 7);
    s->undecrypted_key_id_modes |= 1u << (key_id_mode & 3);
}

void meter_session_undecrypted_suites(const meter_session_t *s, guint32 *levels, guint32 *key_id_modes)
{
    *levels = s->undecrypted_levels;
    *key_id_modes = s->undecrypted_key_id_modes;
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
    return meter_prefs.ota_stall_seconds;
}

static meter_frame_fn rebind_record;

/* The tracker's start copy took over: every record so far is rebound. */
static void follow_tracker(meter_session_t *s)
{
    if (!ota_track_rebound(s->tracker))
        return;
    for (guint c = 0; c < s->frames->len; c++) {
        GArray *chunk = (GArray *)g_ptr_array_index(s->frames, c);
        for (guint i = 0; i < chunk->len; i++) {
            frame_record_t *r = &g_array_index(chunk, frame_record_t, i);
            rebind_record(r->num, r->kind, &r->record, s->tracker);
        }
    }
    ota_track_rebind_done(s->tracker);
}

void meter_session_finalize(meter_session_t *s)
{
    ota_track_finalize(s->tracker, meter_session_stall_seconds(s));
    follow_tracker(s);
}

/* Where num is or would go within a chunk. */
static guint slot_in(const GArray *chunk, guint32 num)
{
    guint lo = 0, hi = chunk->len;

    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(chunk, frame_record_t, mid).num < num)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The chunk num is or would go in: the last whose first record is not after it. */
static GArray *chunk_for(const meter_session_t *s, guint32 num)
{
    guint lo = 0, hi = s->frames->len;

    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index((GArray *)g_ptr_array_index(s->frames, mid), frame_record_t, 0).num <= num)
            lo = mid + 1;
        else
            hi = mid;
    }
    return s->frames->len ? (GArray *)g_ptr_array_index(s->frames, lo ? lo - 1 : 0) : NULL;
}

gboolean meter_session_frame(const meter_session_t *s, guint32 num, guint32 *kind, meter_frame_record_t *record)
{
    GArray *chunk = chunk_for(s, num);
    guint i = chunk ? slot_in(chunk, num) : 0;

    if (!chunk || i >= chunk->len || g_array_index(chunk, frame_record_t, i).num != num)
        return FALSE;
    *kind = g_array_index(chunk, frame_record_t, i).kind;
    *record = g_array_index(chunk, frame_record_t, i).record;
    return TRUE;
}

void meter_session_set_frame(meter_session_t *s, guint32 num, guint32 kind, meter_frame_record_t record)
{
    frame_record_t r = { num, kind, record };
    GArray *last = s->frames->len ? (GArray *)g_ptr_array_index(s->frames, s->frames->len - 1) : NULL;

    /* The first pass comes in frame order: an append. */
    if (!last || g_array_index(last, frame_record_t, last->len - 1).num < num) {
        if (!last || last->len == FRAME_CHUNK) {
            last = g_array_sized_new(FALSE, FALSE, sizeof(frame_record_t), FRAME_CHUNK);
            g_ptr_array_add(s->frames, last);
        }
        g_array_append_val(last, r);
        return;
    }
    GArray *chunk = chunk_for(s, num);
    guint i = slot_in(chunk, num);
    if (i < chunk->len && g_array_index(chunk, frame_record_t, i).num == num)
        g_array_index(chunk, frame_record_t, i) = r;
    else
        g_array_insert_val(chunk, i, r);
}

void meter_session_frame_read(meter_session_t *s)
{
    follow_tracker(s);
}

void meter_session_register(meter_frame_fn rebind)
{
    rebind_record = rebind;
    /* The session is the file's, the parts' state with it: a new file (or a
     * reload) starts afresh. The one init and cleanup pair of the plugin. */
    register_init_routine(session_cleanup);
    register_cleanup_routine(session_cleanup);
}
