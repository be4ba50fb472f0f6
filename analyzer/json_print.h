/* json_print.h: a built JSON document written out, the way every JSON
 * output of the analyser writes it (the report, the pairing report, the
 * live view's event lines).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef JSON_PRINT_H
#define JSON_PRINT_H
#include <stdio.h>
#include <json-glib/json-glib.h>

/* Writes b's document and a newline to out: indented when pretty, else on
 * one line (a JSON line). b stays the caller's. */
void ms_json_print(FILE *out, JsonBuilder *b, gboolean pretty);

#endif
