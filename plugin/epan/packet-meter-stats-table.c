/* packet-meter-stats-table.c: the OTA statistics as a stat_tap_table, so the
 * GUI has them under Statistics -> "Meter block-wise transfers" (and tshark
 * has them as `-z meter,ota_table[,FILTER]`). One row per transfer, the same
 * numbers as `-z meter,ota` (packet-meter-stats.c): the session tracker's
 * first-pass records, finalized; the "meter_ota" tap only tells which
 * transfers have frames that pass the display filter.
 *
 * The cli_string "meter,ota_table" sorts after "meter,ota", and tshark tries
 * the registered strings from the last to the first, so `-z meter,ota` and
 * `-z meter,ota,tsv` keep reaching packet-meter-stats.c. It keeps its comma
 * because the GUI's `wireshark -z` splits the argument at the first two
 * commas to find the dialog.
 *
 * When the rows get their numbers: a row is filled when its transfer first
 * shows up, from what the tracker has then. On a later pass (the GUI's
 * retap, tshark -2) that is final: the dissector finalizes the tracker on
 * every later pass. In tshark's single pass the tracker is still being fed,
 * and a stat_tap_table has no draw hook of its own; so the table's packet
 * function registers a second, packet-less listener on the same tap, once.
 * Listeners are drawn newest first, so its draw (finalize, refill every row)
 * runs before tshark prints the table. (pinfo->fd->visited cannot tell the
 * passes apart: it is set before the taps run.) It refreshes once per
 * arming; the next table init or the file's cleanup removes it, so it never
 * outlives the file whose tracker it reads.
 *
 * In the GUI (Wireshark's SimpleStatisticsDialog, the same in 4.0, 4.4 and
 * 4.6) the dialog registers its listener, retaps the frames read so far,
 * draws once and removes the listener: during a live capture its rows are
 * the transfers as of its opening or of the last Apply (a retap is a later
 * pass, so they are final for those frames), and nothing redraws them on
 * the GUI's tap timer. It has no action for a double-click either: the
 * "First frame" column is the number for Go to Packet.
 *
 * Rows are kept sorted by transfer id by moving row contents, never the row
 * arrays the GUI's items point to; rows dropped by a reset go to a pool and
 * are reused, so an item of another open dialog never points at freed memory.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <epan/packet.h>
#include <epan/tap.h>
#include <epan/stat_tap_ui.h>
#include "meter-session.h"
#include "packet-meter-stats-table.h"
#include "duration_text.h"
#include "utc_text.h"
#include "verdict.h"


#define TABLE_NAME "Transfers"

/* The columns the GUI's dialog shows in its default width (587 pixels,
 * which a plugin cannot change) come first: which transfer and where it
 * starts (the dialog cannot go to a frame: the number is for Go to Packet),
 * how fast, how many repeats. */
enum {
    COL_TRANSFER, COL_FIRST_FRAME, COL_PATH, COL_BLOCKS, COL_RATE, COL_RETX, COL_REREQ, COL_PROGRESS,
    COL_COMPLETE, COL_DURATION, COL_BYTES, COL_BLOCK_SIZE, COL_KIND, COL_VERIFIED, COL_METER, COL_GATEWAY,
    COL_START, COL_MAC_RETRIES, COL_FRAGMENTED, COL_INCOMPLETE, COL_FRAGS_LOST, COL_VANTAGE, COL_POLL,
    COL_UNSEEN, COL_ETA, COL_VERDICT, COL_WHY,
    /* Last, in this order: a missing value is a TABLE_ITEM_NONE cell, which
     * tshark's table printer takes as the end of the row. The tracker only
     * has turn-arounds when it has round-trip times. */
    COL_RTT_MEDIAN, COL_RTT_P95, COL_TURN_MEDIAN, COL_TURN_P95,
    N_COLS
};

/* Numbers with a fraction are text rounded for reading, with their unit:
 * Wireshark 4.0's dialog prints every float cell with 6 decimals whatever
 * the format says. The text is right-aligned in a field of fixed width, so
 * the dialog's sort (strcmp on text cells) still sorts by value. The full
 * precision is in -z meter,ota,tsv. */
static stat_tap_table_item ota_table_fields[N_COLS] = {
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Transfer", "%u" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "First frame", "%u" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Path", "%s" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Blocks", "%u" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Rate", "%s" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Retx", "%u" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Re-requests", "%u" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Progress", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Complete", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Duration", "%s" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Bytes", "%u" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Block size", "%u" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Kind", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Verified", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Meter", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Gateway", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Start (UTC)", "%s" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "MAC retries", "%u" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Fragmented datagrams", "%u" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Incomplete datagrams", "%u" },
    { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Fragments lost", "%u" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Seen at", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Sleepy poll", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Not visible", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "At this rate, more", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Verdict", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Why", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "RTT median", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "RTT p95", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Turn-around median", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Turn-around p95", "%s" },
};

static GPtrArray *spare_rows;           /* stat_tap_table_item_type[N_COLS], contents freed */
static void      *refresher;         /* its tapdata (the table ui) while registered */
static gboolean   refresh_armed;      /* rows were added since its last draw */

/* ---- cells ---- */

static void set_uint(stat_tap_table_item_type *c, guint v)
{
    c->type = TABLE_ITEM_UINT;
    c->value.uint_value = v;
}

static void set_str(stat_tap_table_item_type *c, char *owned)
{
    c->type = TABLE_ITEM_STRING;
    c->value.string_value = owned;
}

/* A number as text for reading: "%*.*f" then the unit (see the table). */
static void set_reading(stat_tap_table_item_type *c, int width, int decimals, double v, const char *unit)
{
    set_str(c, g_strdup_printf("%*.*f %s", width, decimals, v, unit));
}

/* The widths fit a radio's rates (31250 B/s at most), percentages and a
 * day in seconds; a longer number only sorts out of place. */
static void set_rate(stat_tap_table_item_type *c, double v)    { set_reading(c, 7, 1, v, "B/s"); }
static void set_percent(stat_tap_table_item_type *c, double v) { set_reading(c, 5, 1, v, "%"); }
static void set_long_s(stat_tap_table_item_type *c, double v)  { set_reading(c, 7, 1, v, "s"); }

/* A round trip or turn-around to the millisecond, or an empty cell when the
 * tracker has none (< 0); its NULL text sorts it before every number. */
static void set_short_s(stat_tap_table_item_type *c, double v)
{
    if (v < 0) {
        c->type = TABLE_ITEM_NONE;
        c->value.string_value = NULL;
        return;
    }
    set_reading(c, 6, 3, v, "s");
}

/* How much of the image has come, when its size is known. */
static void set_progress(stat_tap_table_item_type *c, const meter_transfer_record_t *s)
{
    if (s->size_hint > 0)
        set_percent(c, MIN(100.0, 100.0 * s->bytes / s->size_hint));
    else
        set_str(c, g_strdup("-"));
}

static void clear_row(stat_tap_table_item_type *row)
{
    for (guint c = 0; c < N_COLS; c++)
        if (row[c].type == TABLE_ITEM_STRING)
            g_free((char *)row[c].value.string_value);
    memset(row, 0, N_COLS * sizeof(*row));
}

/* "1h12m (55m-1h35m)": what an incomplete transfer of known size would
 * still take at its rate so far; "-" otherwise. */
static char *eta_text(const meter_transfer_record_t *s)
{
    if (s->eta_s < 0)
        return g_strdup("-");
    char *e = duration_text(s->eta_s, DURATION_FORECAST), *lo = duration_text(s->eta_low_s, DURATION_FORECAST),
         *hi = duration_text(s->eta_high_s, DURATION_FORECAST);
    char *text = g_strdup_printf("%s (%s-%s)", e, lo, hi);
    g_free(e);
    g_free(lo);
    g_free(hi);
    return text;
}

/* Fills a cleared row with transfer id's record s. The record is the one
 * the last finalize made: a row filled before one (tshark's single pass)
 * is filled again by the refresher before it is drawn. */
static void fill_row(stat_tap_table_item_type *row, guint32 id, const meter_transfer_record_t *s)
{
    set_uint(&row[COL_TRANSFER], id);
    set_uint(&row[COL_FIRST_FRAME], s->first_frame);
    set_str(&row[COL_PATH], g_strdup(s->path ? s->path : "/"));
    set_uint(&row[COL_BLOCKS], s->blocks);
    set_rate(&row[COL_RATE], s->rate_Bps);
    set_uint(&row[COL_RETX], s->retransmissions);
    set_uint(&row[COL_REREQ], s->rerequests);
    set_progress(&row[COL_PROGRESS], s);
    set_str(&row[COL_COMPLETE], g_strdup(s->complete ? "yes" : "no"));
    set_long_s(&row[COL_DURATION], s->duration_s);
    set_uint(&row[COL_BYTES], s->bytes);
    set_uint(&row[COL_BLOCK_SIZE], s->block_size);
    set_str(&row[COL_KIND], g_strdup(s->kind ? s->kind : "-"));
    set_str(&row[COL_VERIFIED], g_strdup(s->verified ? "yes" : "-"));
    set_str(&row[COL_METER], g_strdup(s->meter ? s->meter : "-"));
    set_str(&row[COL_GATEWAY], g_strdup(s->gateway ? s->gateway : "-"));
    set_str(&row[COL_START], utc_text(s->first_request_us));
    set_uint(&row[COL_MAC_RETRIES], s->mac_retries);
    set_uint(&row[COL_FRAGMENTED], s->datagrams_fragmented);
    set_uint(&row[COL_INCOMPLETE], s->datagrams_incomplete);
    set_uint(&row[COL_FRAGS_LOST], s->fragments_lost);
    set_str(&row[COL_VANTAGE], g_strdup(s->vantage ? s->vantage : "-"));
    set_long_s(&row[COL_POLL], s->time_poll_s);
    set_long_s(&row[COL_UNSEEN], s->time_unseen_s);
    set_str(&row[COL_ETA], eta_text(s));
    meter_verdict_t v;
    meter_verdict(s, &v);
    set_str(&row[COL_VERDICT], g_strdup(meter_verdict_cause_name(v.cause)));
    set_str(&row[COL_WHY], g_strdup(v.evidence));
    set_short_s(&row[COL_RTT_MEDIAN], s->rtt_first_median_s);
    set_short_s(&row[COL_RTT_P95], s->rtt_first_p95_s);
    set_short_s(&row[COL_TURN_MEDIAN], s->turnaround_median_s);
    set_short_s(&row[COL_TURN_P95], s->turnaround_p95_s);
}

/* ---- rows, sorted by transfer id ---- */

static guint32 row_id(const stat_tap_table *table, guint i)
{
    return table->elements[i][COL_TRANSFER].value.uint_value;
}

/* The index of the first row whose id is >= id. */
static guint row_search(const stat_tap_table *table, guint32 id)
{
    guint lo = 0, hi = table->num_elements;

    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (row_id(table, mid) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Makes room for a row at pos: a new row array at the end, the contents
 * from pos on moved one down. Returns the (cleared) row at pos. */
static stat_tap_table_item_type *row_insert(stat_tap_table *table, guint pos)
{
    guint n = table->num_elements;
    stat_tap_table_item_type *row;

    if (spare_rows && spare_rows->len)
        row = (stat_tap_table_item_type *)g_ptr_array_steal_index_fast(spare_rows, spare_rows->len - 1);
    else
        row = g_new0(stat_tap_table_item_type, N_COLS);
    table->elements = g_renew(stat_tap_table_item_type *, table->elements, n + 1);
    table->elements[n] = row;
    table->num_elements = n + 1;
    for (guint j = n; j > pos; j--)
        memcpy(table->elements[j], table->elements[j - 1], N_COLS * sizeof(stat_tap_table_item_type));
    memset(table->elements[pos], 0, N_COLS * sizeof(stat_tap_table_item_type));
    return table->elements[pos];
}

static stat_tap_table *the_table(stat_tap_table_ui *ui)
{
    if (!ui->tables || ui->tables->len == 0)
        return NULL;
    return g_array_index(ui->tables, stat_tap_table *, 0);
}

/* ---- the one-pass refresher ---- */

static void refresh_rows(void *tapdata)
{
    stat_tap_table_ui *ui = (stat_tap_table_ui *)tapdata;
    stat_tap_table *table = the_table(ui);
    ota_track_t *t;

    if (!refresh_armed || !table)
        return;
    refresh_armed = FALSE;
    t = meter_session_tracker(meter_session_current());
    meter_session_finalize(meter_session_current());
    for (guint i = 0; i < table->num_elements; i++) {
        guint32 id = row_id(table, i);
        const meter_transfer_record_t *s = ota_track_record(t, id);
        if (!s)
            continue;
        clear_row(table->elements[i]);
        fill_row(table->elements[i], id, s);
    }
}

static void refresher_finish(void *tapdata _U_)
{
    refresher = NULL;
    refresh_armed = FALSE;
}

/* From the table's packet function: the refresher is prepended to the
 * listener queue, which the running loop has already passed. */
static void arm_refresher(stat_tap_table_ui *ui)
{
    if (!refresher) {
        GString *err = register_tap_listener(ui->tap_name, ui, NULL, TL_REQUIRES_NOTHING, NULL, NULL,
                                             refresh_rows, refresher_finish);
        if (err) {
            g_string_free(err, TRUE);
            return;
        }
        refresher = ui;
    }
    refresh_armed = TRUE;
}

static void drop_refresher(void)
{
    if (refresher)
        remove_tap_listener(refresher);   /* calls refresher_finish */
}

/* The file is closing; tshark has drawn by then. */
static void ota_table_cleanup(void)
{
    refresh_armed = FALSE;
    drop_refresher();
}

/* ---- the stat_tap_table_ui callbacks ---- */

static void ota_table_reset(stat_tap_table *table)
{
    if (!spare_rows)
        spare_rows = g_ptr_array_new();
    for (guint i = 0; i < table->num_elements; i++) {
        clear_row(table->elements[i]);
        g_ptr_array_add(spare_rows, table->elements[i]);
        table->elements[i] = NULL;
    }
    table->num_elements = 0;
}

static void ota_table_init(stat_tap_table_ui *ui)
{
    stat_tap_table *table = stat_tap_find_table(ui, TABLE_NAME);

    drop_refresher();
    if (table) {
        ota_table_reset(table);
        return;
    }
    table = stat_tap_init_table(TABLE_NAME, N_COLS, 0, NULL);
    stat_tap_add_table(ui, table);
}

static tap_packet_status ota_table_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                          const void *data, tap_flags_t flags _U_)
{
    stat_data_t *sd = (stat_data_t *)tapdata;
    stat_tap_table *table = the_table(sd->stat_tap_data);
    const guint32 *ids = (const guint32 *)data;
    ota_track_t *t = meter_session_tracker(meter_session_current());
    gboolean added = FALSE;

    if (!table || !ids)
        return TAP_PACKET_DONT_REDRAW;
    arm_refresher(sd->stat_tap_data);
    for (guint i = 0; ids[i]; i++) {
        guint pos = row_search(table, ids[i]);
        if (pos < table->num_elements && row_id(table, pos) == ids[i])
            continue;
        const meter_transfer_record_t *s = ota_track_record(t, ids[i]);
        if (!s)
            continue;
        fill_row(row_insert(table, pos), ids[i], s);
        added = TRUE;
    }
    return added ? TAP_PACKET_REDRAW : TAP_PACKET_DONT_REDRAW;
}

static void ota_table_free_item(stat_tap_table *table _U_, guint row _U_, guint column _U_,
                                stat_tap_table_item_type *field_data)
{
    if (field_data->type == TABLE_ITEM_STRING) {
        g_free((char *)field_data->value.string_value);
        field_data->value.string_value = NULL;
        field_data->type = TABLE_ITEM_NONE;
    }
}

void proto_register_meter_stats_table(void)
{
    static tap_param ota_table_params[] = {
        { PARAM_FILTER, "filter", "Filter", NULL, TRUE },
    };
    /* REGISTER_PACKET_STAT_GROUP_UNSORTED: the Qt GUI puts that group
     * straight into the Statistics menu; it has no menu for
     * REGISTER_STAT_GROUP_GENERIC dialogs. */
    static stat_tap_table_ui ota_table_ui = {
        REGISTER_PACKET_STAT_GROUP_UNSORTED,
        "Meter block-wise transfers",
        "meter_ota",
        "meter,ota_table",
        ota_table_init,
        ota_table_packet,
        ota_table_reset,
        ota_table_free_item,
        NULL,
        N_COLS, ota_table_fields,
        G_N_ELEMENTS(ota_table_params), ota_table_params,
        NULL,
        0,
    };

    register_stat_tap_table_ui(&ota_table_ui);
    register_cleanup_routine(ota_table_cleanup);
}
