/* ota_clock.h: a capture's timestamps as the tracker's times (UNIX
 * microseconds), frame by frame in frame order on the first pass.
 *
 * The tracker's times lie between 1970 and the end of 9999 (what its
 * microseconds, GLib's dates and the reports' ISO 8601 text all hold) and
 * never go back from one frame to the next by more than a frame's time on
 * the air, so that no duration, round trip, turn-around or gap it takes
 * between two frames is more than that off (the tracker clamps what is
 * left at 0). A stamp outside that range, or earlier than the latest stamp
 * before it by more (a clock set back, captures appended out of order), is
 * not used for timing: the frame is timed at the latest time so far. The
 * clock keeps which frames that was, so later passes show the same
 * (docs/ota-sessions.md, "Timestamps").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef OTA_CLOCK_H
#define OTA_CLOCK_H

#include <glib.h>

#define OTA_CLOCK_MAX_S  G_GINT64_CONSTANT(253402300799)          /* 9999-12-31T23:59:59Z */
#define OTA_CLOCK_MAX_US (OTA_CLOCK_MAX_S * 1000000 + 999999)
/* The longest 802.15.4 frame's time on the air (127-byte PSDU and the
 * 6-byte PHY header at 32 us a byte): frames stamped at their start but
 * written in the order they ended (two that overlapped on the air, seen by
 * a simulated or a merged capture) go back by less than that. */
#define OTA_CLOCK_OVERLAP_US 4256

typedef enum {
    OTA_CLOCK_OK = 0,
    OTA_CLOCK_ZERO,           /* stamped 0 (1970-01-01T00:00:00Z): the capture may carry no times */
    OTA_CLOCK_EARLIER,        /* earlier than an earlier frame's by more than OTA_CLOCK_OVERLAP_US:
                                 timed at the latest time so far */
    OTA_CLOCK_OUT_OF_RANGE,   /* before 1970 or after 9999: timed at the latest time so far */
} ota_clock_status_t;

typedef struct ota_clock ota_clock_t;

ota_clock_t *ota_clock_new(void);
void         ota_clock_free(ota_clock_t *c);
/* A stamp (seconds, and nanoseconds that need not lie within the second)
 * in microseconds, rounded down; FALSE (us untouched) outside the range. */
gboolean     ota_clock_us(gint64 secs, gint64 nsecs, gint64 *us);
/* The time of frame `frame`, the next one in frame order, stamped so;
 * *status (if not NULL) says why it is not the stamp. */
gint64       ota_clock_next(ota_clock_t *c, guint32 frame, gint64 secs, gint64 nsecs, ota_clock_status_t *status);
/* On any pass: what ota_clock_next() said of that frame. */
ota_clock_status_t ota_clock_status(const ota_clock_t *c, guint32 frame, gint64 secs, gint64 nsecs);
/* How many frames had each status so far. */
guint32      ota_clock_count(const ota_clock_t *c, ota_clock_status_t status);

#endif
