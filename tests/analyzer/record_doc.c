/* record_doc.c: docs/analyser.md's table of the transfer columns, from
 * common/transfer_record.h.
 *   record_doc --check FILE   exit 1 if FILE's table is not the generated one
 *   record_doc --write FILE   replace it (cmake --build build --target record-doc)
 *   record_doc --json         the records' columns, for the Python tests' reader check
 * The table sits between the two marker lines below, which FILE keeps.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "transfer_record.h"

#define BEGIN_MARK "<!-- generated from common/transfer_record.h: cmake --build build --target record-doc -->\n"
#define END_MARK "<!-- end of the generated table -->\n"

static char *table(void)
{
    GString *t = g_string_new("| column | meaning |\n|---|---|\n");

    for (guint i = 0; i < meter_transfer_schema.n_columns; i++) {
        const meter_column_t *col = &meter_transfer_schema.columns[i];
        char **parts = g_strsplit(col->meaning, "|", -1);
        char *meaning = g_strjoinv("\\|", parts);
        g_string_append_printf(t, "| `%s` | %s |\n", col->name, meaning);
        g_free(meaning);
        g_strfreev(parts);
    }
    return g_string_free(t, FALSE);
}

static const char *const type_names[] = { "U32", "I64", "DBL", "STR", "BOOL" };

static void print_json(void)
{
    const meter_record_schema_t *schemas[] = { &meter_transfer_schema, &meter_progress_schema, &meter_counts_schema };

    printf("{\"version\": \"%s\"", METER_RECORD_VERSION);
    for (guint k = 0; k < G_N_ELEMENTS(schemas); k++) {
        printf(", \"%s\": [", schemas[k]->tag);
        for (guint i = 0; i < schemas[k]->n_columns; i++) {
            const meter_column_t *col = &schemas[k]->columns[i];
            printf("%s[\"%s\", \"%s\", %s]", i ? ", " : "", col->name, type_names[col->type],
                   col->optional ? "true" : "false");
        }
        printf("]");
    }
    printf("}\n");
}

int main(int argc, char **argv)
{
    char *text = NULL, *begin, *end;
    GError *err = NULL;

    if (argc == 2 && strcmp(argv[1], "--json") == 0) {
        print_json();
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--check") != 0 && strcmp(argv[1], "--write") != 0)) {
        fprintf(stderr, "usage: record_doc --check|--write FILE, or record_doc --json\n");
        return 2;
    }
    if (!g_file_get_contents(argv[2], &text, NULL, &err)) {
        fprintf(stderr, "record_doc: %s\n", err->message);
        return 2;
    }
    begin = strstr(text, BEGIN_MARK);
    end = begin ? strstr(begin, END_MARK) : NULL;
    if (!end) {
        fprintf(stderr, "record_doc: %s has no line %s followed by %s", argv[2], BEGIN_MARK, END_MARK);
        return 2;
    }
    begin += strlen(BEGIN_MARK);
    char *want = table();
    gboolean same = (gsize)(end - begin) == strlen(want) && strncmp(begin, want, strlen(want)) == 0;
    int status = 0;
    if (strcmp(argv[1], "--check") == 0) {
        if (!same) {
            fprintf(stderr, "record_doc: the column table in %s is not the one common/transfer_record.h gives; "
                            "regenerate it: cmake --build build --target record-doc\n", argv[2]);
            status = 1;
        }
    } else if (!same) {
        char *out = g_strdup_printf("%.*s%s%s", (int)(begin - text), text, want, end);
        if (!g_file_set_contents(argv[2], out, -1, &err)) {
            fprintf(stderr, "record_doc: %s\n", err->message);
            status = 2;
        }
        g_free(out);
    }
    g_free(want);
    g_free(text);
    return status;
}
