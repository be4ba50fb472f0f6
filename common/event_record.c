/* event_record.c: the E record's column table; the writer and the cell
 * parser are transfer_record.c's.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "event_record.h"

#define EVENT_COLUMN(name, type, optional, meaning) \
    { #name, METER_COL_##type, G_STRUCT_OFFSET(meter_event_record_t, name), EVENT_COL_##optional, meaning },
#define EVENT_COL_REQ FALSE
#define EVENT_COL_OPT TRUE
static const meter_column_t event_columns[] = { METER_EVENT_COLUMNS(EVENT_COLUMN) };

const meter_record_schema_t meter_event_schema = { "E", event_columns, G_N_ELEMENTS(event_columns),
                                                   sizeof(meter_event_record_t) };

void meter_event_write_header(GString *out)
{
    g_string_append(out, "# " METER_EVENT_VERSION "\n#E");
    for (guint i = 0; i < meter_event_schema.n_columns; i++)
        g_string_append_printf(out, "\t%s", event_columns[i].name);
    g_string_append_c(out, '\n');
}
