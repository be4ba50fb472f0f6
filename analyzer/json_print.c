/* json_print.c: one JSON document to a stream (json_print.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "json_print.h"

void ms_json_print(FILE *out, JsonBuilder *b, gboolean pretty)
{
    JsonGenerator *g = json_generator_new();
    JsonNode *root = json_builder_get_root(b);

    json_generator_set_root(g, root);
    json_generator_set_pretty(g, pretty);
    char *text = json_generator_to_data(g, NULL);
    fputs(text, out);
    fputc('\n', out);
    g_free(text);
    json_node_unref(root);
    g_object_unref(g);
}
