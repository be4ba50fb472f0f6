/* ws_compat.h: every difference between the Wireshark versions meterscope
 * builds against, in one place. The rest of the plugin is written for the
 * newest API and includes this header instead of repeating version checks.
 *
 * Measured on 4.0 (Debian 12), 4.4 (Debian 13) and 4.6 (Debian unstable);
 * the thresholds are those releases. 4.2 is not tested: it takes the 4.0
 * branch of each choice below, which compiles wherever the old name still
 * exists.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef METER_WS_COMPAT_H
#define METER_WS_COMPAT_H

#include <stdbool.h>
#include <ws_version.h>
#include <epan/packet.h>
#include <wiretap/wtap.h>   /* wtap_rec: only forward-declared by 4.4's epan headers */

#define METER_WS_AT_LEAST(major, minor) \
    (WIRESHARK_VERSION_MAJOR > (major) || \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))

/* 4.4 deprecates tvb_get_guint8 for tvb_get_uint8, which 4.0 lacks. */
#if !METER_WS_AT_LEAST(4, 4)
#define tvb_get_uint8 tvb_get_guint8
#endif

/* Boolean preferences point at a C bool from 4.4 on, at a gboolean before:
 * the wrong one is a type error (gcc 14) or a 1-byte write into an int. */
#if METER_WS_AT_LEAST(4, 4)
typedef bool meter_pref_bool_t;
#else
typedef gboolean meter_pref_bool_t;
#endif

/* A wmem callback says whether to stay registered: a C bool from 4.4 on. */
#if METER_WS_AT_LEAST(4, 4)
typedef bool meter_wmem_cb_result_t;
#else
typedef gboolean meter_wmem_cb_result_t;
#endif

/* A frame's named data source (the 802.15.4 decrypted payload, say):
 * 4.6 removed get_data_source_tvb_by_name. NULL when there is none. */
static inline tvbuff_t *meter_data_source_tvb(packet_info *pinfo, const char *name)
{
#if METER_WS_AT_LEAST(4, 5)
    struct data_source *src = get_data_source_by_name(pinfo, name);
    return src ? get_data_source_tvb(src) : NULL;
#else
    return get_data_source_tvb_by_name(pinfo, name);
#endif
}

/* Marks a frame that a reassembled item was built from, so that saving the
 * displayed frames keeps it: 4.0 takes the packet_info, 4.4 its frame_data. */
static inline void meter_mark_frame_depended_upon(packet_info *pinfo, guint32 frame)
{
#if METER_WS_AT_LEAST(4, 4)
    mark_frame_as_depended_upon(pinfo->fd, frame);
#else
    mark_frame_as_depended_upon(pinfo, frame);
#endif
}

/* A "-z" statistic's init callback returns whether it started from 4.6 on.
 * METER_STAT_INIT_DONE ends such a callback on every version. */
#if METER_WS_AT_LEAST(4, 5)
typedef bool meter_stat_init_result_t;
#define METER_STAT_INIT_DONE return true
#else
typedef void meter_stat_init_result_t;
#define METER_STAT_INIT_DONE return
#endif

/* Turns a stock heuristic off unless the user's profile or the command line
 * turns it back on. Its default changes too where it has one (4.4 on), so
 * that the Enabled Protocols dialog saves a choice to turn it on. Nothing
 * happens when this Wireshark has no such heuristic. */
static inline void meter_heuristic_off_by_default(const char *short_name)
{
    heur_dtbl_entry_t *h = find_heur_dissector_by_unique_short_name(short_name);
    if (!h)
        return;
    h->enabled = FALSE;
#if METER_WS_AT_LEAST(4, 4)
    h->enabled_by_default = FALSE;
#endif
}

#endif
