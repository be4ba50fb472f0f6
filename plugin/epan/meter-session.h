/* meter-session.h: the state of the capture file being read, in one object:
 * the session tracker (every exchange, transfer, datagram copy and frame of
 * link accounting), the frames' times as it takes them, and the hook's
 * per-frame records, and each decoder's own state (its part's slot). Made
 * on the first frame of a file, gone with the file.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_SESSION_H
#define METER_SESSION_H

#include <epan/packet.h>
#include "ota_track.h"
#include "ota_clock.h"

typedef struct meter_session meter_session_t;

typedef union meter_frame_record meter_frame_record_t;
typedef void (*meter_frame_fn)(guint32 num, guint32 kind, meter_frame_record_t *record, void *data);

/* The per-file life cycle. rebind is the hook's: it gives a record the
 * tracker's counterparts of what it names once the tracker's start copy
 * took over (core/ota_track.h); data is the tracker. */
void meter_session_register(meter_frame_fn rebind);

/* The decoders that keep state for the file (reassemblies, tables) keep it
 * in the session, one slot each, so that it is made and freed with the
 * session and with nothing else. A slot's type is its part's own. */
typedef enum {
    METER_PART_CFG_FIRMWARE,   /* meter-cfg-firmware.c */
    METER_PART_HIS,            /* packet-meter-his.c */
    METER_PART_FW,             /* packet-meter-fw.c */
    METER_PART_VANTAGE,        /* packet-meter-vantage.c */
    METER_PART_COUNT
} meter_part_t;
/* At registration: how a part's state is made (with the session, in file
 * scope) and freed (with the session, before file scope ends). */
typedef void *(*meter_part_new_fn)(void);
typedef void (*meter_part_free_fn)(void *state);
void  meter_session_add_part(meter_part_t part, meter_part_new_fn state_new, meter_part_free_fn state_free);
void *meter_session_part(meter_session_t *s, meter_part_t part);

/* The session of the file being read, made on first use. The hook passes it
 * on; taps, whose draw callbacks get no packet, ask for it here. */
meter_session_t *meter_session_current(void);
ota_track_t     *meter_session_tracker(meter_session_t *s);
/* The frames' times as the tracker takes them (core/ota_clock.h). */
ota_clock_t     *meter_session_clock(meter_session_t *s);
/* A silence longer than this (seconds) is a stall. */
double           meter_session_stall_seconds(const meter_session_t *s);
/* The security suites of the secured frames that stayed encrypted, as bit
 * sets: bit N of levels for 802.15.4 security level N, of key_id_modes for
 * key identifier mode N. The analyser names them in its hint. */
void             meter_session_note_undecrypted(meter_session_t *s, guint8 level, guint8 key_id_mode);
void             meter_session_undecrypted_suites(const meter_session_t *s, guint32 *levels, guint32 *key_id_modes);
/* Every transfer's numbers, as of the frames read so far (cheap when nothing changed). */
void             meter_session_finalize(meter_session_t *s);

/* The hook's record of a frame: a pointer, or a value that needs no
 * allocation; its kind, as the hook said, tells which. */
union meter_frame_record {
    gpointer ptr;
    guint64  value;
};
/* FALSE: the frame has none (most frames have none). */
gboolean         meter_session_frame(const meter_session_t *s, guint32 num, guint32 *kind,
                                     meter_frame_record_t *record);
void             meter_session_set_frame(meter_session_t *s, guint32 num, guint32 kind,
                                         meter_frame_record_t record);
/* After the tracker took a frame (ota_track_frame_done): the records kept
 * so far follow the tracker when its start copy took over. */
void             meter_session_frame_read(meter_session_t *s);

#endif
