/* test_tsv_properties.c: the analyser's reader of tshark's `-z meter,ota,tsv`
 * output against outputs no plugin prints, in every build (no clang, no
 * libFuzzer): the fuzz target's seeds (real outputs of the committed
 * captures, fuzz/corpus/tsv_reader) and regressions replayed, then
 * mutated: cut anywhere, lines dropped, swapped and doubled, cells
 * replaced with NaN, infinities, negative and huge numbers, numbers beyond
 * 64 bits, letters, 64 KiB of text, bytes that are not UTF-8; cells
 * removed and added, a line of 64 Ki cells, CR LF line ends, a NUL, the
 * header of another version. Each mutant goes through the fuzz target's
 * entry point (fuzz/fuzz_tsv_reader.c), which aborts on a crash, a NaN, an
 * infinity or a negative duration or rate in a report, a record kept that
 * breaks the format's promises, or a refusal without a printable reason.
 *
 * What the harness knows of its own mutations is checked too: a numeric
 * cell made a value no number column holds, or the output cut before its
 * C record, is refused, and the message names the column; real outputs
 * are read whole.
 *
 * TSV_PROPERTY_ROUNDS (default 300) sets the mutants per seed,
 * TSV_PROPERTY_SEED (default 1) the seed; a failure names both and the
 * mutant's number.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "transfer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    char  *name;
    char  *text;
    gsize  len;
} seed_t;

static GPtrArray *read_dir(const char *dir)
{
    GPtrArray *files = g_ptr_array_new();
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;

    while (d && (name = g_dir_read_name(d))) {
        seed_t *s = g_new0(seed_t, 1);
        s->name = g_build_filename(dir, name, NULL);
        g_assert_true(g_file_get_contents(s->name, &s->text, &s->len, NULL));
        g_ptr_array_add(files, s);
    }
    if (d)
        g_dir_close(d);
    return files;
}

static void free_seeds(GPtrArray *seeds)
{
    for (guint i = 0; i < seeds->len; i++) {
        seed_t *s = g_ptr_array_index(seeds, i);
        g_free(s->name);
        g_free(s->text);
        g_free(s);
    }
    g_ptr_array_free(seeds, TRUE);
}

static ms_capture_t *read_text(const char *text, gsize len)
{
    ms_capture_t *c = ms_capture_new("test.pcap");

    ms_capture_feed_text(c, text, len);
    ms_capture_finish(c);
    return c;
}

/* The seeds are what the plugin printed for the committed captures: read
 * whole, every transfer kept, through the oracle; the regressions (inputs
 * that once broke something) through the oracle. */
static void test_corpus(void)
{
    GPtrArray *seeds = read_dir(TSV_CORPUS_DIR);
    guint transfers = 0;

    g_assert_cmpuint(seeds->len, >=, 3);
    for (guint i = 0; i < seeds->len; i++) {
        seed_t *s = g_ptr_array_index(seeds, i);
        ms_capture_t *c = read_text(s->text, s->len);
        g_test_message("%s: %s", s->name, c->format_error ? c->format_error : "read");
        g_assert_null(c->format_error);
        g_assert_true(c->header_seen && c->counts_seen);
        transfers += c->transfers->len;
        ms_capture_free(c);
        LLVMFuzzerTestOneInput((const uint8_t *)s->text, s->len);
    }
    g_assert_cmpuint(transfers, >, 0);
    free_seeds(seeds);
    GPtrArray *regressions = read_dir(TSV_REGRESSIONS_DIR);
    for (guint i = 0; i < regressions->len; i++) {
        seed_t *s = g_ptr_array_index(regressions, i);
        LLVMFuzzerTestOneInput((const uint8_t *)s->text, s->len);
    }
    free_seeds(regressions);
}

/* ---- mutations ---------------------------------------------------------- */

/* Values for a replaced cell. The first N_NEVER_NUMBERS are held by no
 * number column (U32, I64, DBL, BOOL): a numeric cell made one of them
 * must be refused. */
#define N_NEVER_NUMBERS 14
static const char *const cell_values[] = {
    "", "nan", "NaN", "inf", "-inf", "1e999", "12abc", " 1", "1 ", "0x10", "1,5", "--1", "\xff\xfe", "1\r",
    /* held by some columns, not others */
    "-1", "-1.000000", "1e308", "1e19", "99999999999999999999", "-9223372036854775809", "4294967296",
    "-0.000000", "0", "2", "0.000001", "9223372036854775807", "a\001b", "block", "rerequest",
};

typedef struct {
    GRand    *rand;
    gboolean  single;             /* one mutation: the harness knows what it must get */
    gboolean  refusal_expected;
    char     *must_name;          /* ... a text the refusal must hold */
    gboolean  acceptance_expected;
} mutant_t;

static guint pick(mutant_t *m, guint n)
{
    return n ? (guint)g_rand_int_range(m->rand, 0, (gint32)n) : 0;
}

static void expect_refusal(mutant_t *m, const char *must_name)
{
    if (m->single && !m->refusal_expected) {
        m->refusal_expected = TRUE;
        m->must_name = g_strdup(must_name);
    }
}

static gboolean starts(const char *line, const char *const *prefixes, guint n)
{
    for (guint i = 0; i < n; i++)
        if (g_str_has_prefix(line, prefixes[i]))
            return TRUE;
    return FALSE;
}

static char *huge(char ch, gsize n)
{
    char *s = g_malloc(n + 1);
    memset(s, ch, n);
    s[n] = '\0';
    return s;
}

/* The column a cell of a record line is, from the "#T" line naming them. */
static const meter_column_t *column_of(char **lines, const char *tag, guint cell)
{
    const meter_record_schema_t *schemas[] = { &meter_transfer_schema, &meter_progress_schema, &meter_counts_schema };
    char *names_tag = g_strdup_printf("#%s", tag);
    const meter_column_t *col = NULL;

    for (guint i = 0; lines[i] && !col; i++) {
        if (!g_str_has_prefix(lines[i], names_tag) || lines[i][strlen(names_tag)] != '\t')
            continue;
        char **cells = g_strsplit_set(lines[i], "\t", -1);
        if (cells[0] && strcmp(cells[0], names_tag) == 0 && cell < g_strv_length(cells))
            for (guint s = 0; s < G_N_ELEMENTS(schemas); s++)
                for (guint k = 0; strcmp(schemas[s]->tag, tag) == 0 && k < schemas[s]->n_columns; k++)
                    if (strcmp(schemas[s]->columns[k].name, cells[cell]) == 0)
                        col = &schemas[s]->columns[k];
        g_strfreev(cells);
    }
    g_free(names_tag);
    return col;
}

/* One record line's cell replaced; a numeric cell made a value no number
 * column holds is refused, naming the column. */
static void replace_cell(mutant_t *m, char **lines, guint n)
{
    guint at = pick(m, n);
    char **cells = g_strsplit_set(lines[at], "\t", -1);
    guint n_cells = g_strv_length(cells);
    if (n_cells < 2) {
        g_strfreev(cells);
        return;
    }
    guint cell = 1 + pick(m, n_cells - 1), v = pick(m, G_N_ELEMENTS(cell_values) + 2);
    gboolean never_number = v < N_NEVER_NUMBERS || v >= G_N_ELEMENTS(cell_values);
    char *value = v == G_N_ELEMENTS(cell_values) ? huge('A', 1 << 16)        /* 64 KiB of text */
                  : v > G_N_ELEMENTS(cell_values) ? huge('9', 400)           /* 10^400 */
                  : g_strdup(cell_values[v]);
    gboolean record = strlen(cells[0]) == 1 && strchr("TPC", cells[0][0]);
    const meter_column_t *col = record ? column_of(lines, cells[0], cell) : NULL;

    if (col && col->type != METER_COL_STR && never_number) {
        char *want = g_strdup_printf("in column %s of a %s record", col->name, cells[0]);
        expect_refusal(m, want);
        g_free(want);
    }
    g_free(cells[cell]);
    cells[cell] = value;
    g_free(lines[at]);
    lines[at] = g_strjoinv("\t", cells);
    g_strfreev(cells);
}

/* The mutant's text from the seed's lines: one mutation, or three. */
static char *mutate(mutant_t *m, const seed_t *seed, gsize *len)
{
    /* Lines whose loss or damage is refused: the header, the C record,
     * the records that need every column, and the lines naming those
     * columns when such records follow. */
    static const char *const always[] = { "# ", "C\t" }, *const doubled_counts[] = { "T\t" },
                             *const needed[] = { "T\t", "P\t" };
    gboolean has_t = strstr(seed->text, "\nT\t") != NULL, has_p = strstr(seed->text, "\nP\t") != NULL;
#define NAMES_NEEDED(line) ((has_t && g_str_has_prefix(line, "#T\t")) || (has_p && g_str_has_prefix(line, "#P\t")))
    char **lines = g_strsplit_set(seed->text, "\n", -1);
    guint n = g_strv_length(lines), rounds = 1 + 2 * pick(m, 2);
    gboolean crlf = FALSE, other_version = FALSE;
    gsize cut = 0;

    m->single = rounds == 1;
    if (n && !*lines[n - 1]) {        /* after the seed's last newline */
        g_free(lines[--n]);
        lines[n] = NULL;
    }
    for (guint round = 0; round < rounds && n > 0; round++) {
        guint a = pick(m, n), b = pick(m, n);
        char *tmp;
        switch (pick(m, 12)) {
        case 0:   /* a line dropped: the header, a names line or the C record is missed */
            if (starts(lines[a], always, G_N_ELEMENTS(always)) || NAMES_NEEDED(lines[a]))
                expect_refusal(m, "");
            g_free(lines[a]);
            memmove(lines + a, lines + a + 1, (n - a) * sizeof(char *));
            n--;
            break;
        case 1:   /* two lines swapped */
            tmp = lines[a];
            lines[a] = lines[b];
            lines[b] = tmp;
            break;
        case 2:   /* a line doubled: a transfer's T record twice would count it twice */
            if (starts(lines[a], doubled_counts, G_N_ELEMENTS(doubled_counts)))
                expect_refusal(m, "a second T record of transfer");
            lines = g_renew(char *, lines, n + 2);
            memmove(lines + a + 1, lines + a, (n + 1 - a) * sizeof(char *));
            lines[a] = g_strdup(lines[a + 1]);
            n++;
            break;
        case 3:   /* the last cell removed: a T or P column missing (C columns may be) */
            tmp = strrchr(lines[a], '\t');
            if (tmp && (starts(lines[a], needed, G_N_ELEMENTS(needed)) || NAMES_NEEDED(lines[a])))
                expect_refusal(m, " missing from a ");
            if (tmp)
                *tmp = '\0';
            break;
        case 4:   /* cells added at the end: a newer plugin's columns, read past */
        case 5: { /* the same, 64 Ki empty cells */
            char *tail = pick(m, 2) ? g_strdup_printf("\textra\t%u", pick(m, 1000)) : huge('\t', 1 << 16);
            tmp = g_strconcat(lines[a], tail, NULL);
            if (m->single && a > 0)   /* the header line is one line exactly */
                m->acceptance_expected = TRUE;
            g_free(tail);
            g_free(lines[a]);
            lines[a] = tmp;
            break;
        }
        case 6:   /* CR LF: not the header line, a CR in every last cell */
            crlf = TRUE;
            expect_refusal(m, "");
            break;
        case 7:
            other_version = TRUE;
            expect_refusal(m, "the plugin printed 'meterscope-ota 9' records");
            break;
        case 8:   /* cut anywhere (once the text is joined) */
            cut = 1 + pick(m, (guint)MIN(seed->len, G_MAXINT32 - 1));
            break;
        default:
            replace_cell(m, lines, n);
        }
    }
#undef NAMES_NEEDED
    char *text = g_strjoinv(crlf ? "\r\n" : "\n", lines);
    g_strfreev(lines);
    *len = strlen(text);
    char *header = strstr(text, "# " METER_RECORD_VERSION);
    if (other_version && header)
        header[strlen("# meterscope-ota ")] = '9';
    if (cut && cut < *len) {
        /* Cut before the C record, after the header: refused once the
         * output ends. Or half the time a NUL at the cut: the line ends
         * there for the reader (as for tshark's stream), the rest is read. */
        char *c_record = strstr(text, "\nC\t");
        gboolean nul = g_rand_boolean(m->rand);
        if (!nul && c_record && header && cut <= (gsize)(c_record - text) &&
            cut >= (gsize)(header - text) + strlen("# " METER_RECORD_VERSION))
            expect_refusal(m, "");
        if (nul)
            text[cut] = '\0';
        else
            *len = cut;
    }
    return text;
}

static void test_mutations(void)
{
    const char *rounds_env = g_getenv("TSV_PROPERTY_ROUNDS"), *seed_env = g_getenv("TSV_PROPERTY_SEED");
    guint rounds = rounds_env ? (guint)g_ascii_strtoull(rounds_env, NULL, 10) : 300;
    guint32 seed = seed_env ? (guint32)g_ascii_strtoull(seed_env, NULL, 10) : 1;
    GPtrArray *seeds = read_dir(TSV_CORPUS_DIR);
    guint refused = 0, expected = 0, total = 0;

    for (guint i = 0; i < seeds->len; i++) {
        const seed_t *s = g_ptr_array_index(seeds, i);
        for (guint k = 0; k < rounds; k++, total++) {
            mutant_t m = { g_rand_new_with_seed(seed * 7919u + total), FALSE, FALSE, NULL, FALSE };
            gsize len;
            char *text = mutate(&m, s, &len);
            g_test_message("seed %u, mutant %u of %s", seed, total, s->name);
            LLVMFuzzerTestOneInput((const uint8_t *)text, len);
            ms_capture_t *c = read_text(text, len);
            if (m.refusal_expected) {
                expected++;
                if (!c->format_error || !strstr(c->format_error, m.must_name))
                    g_error("TSV_PROPERTY_SEED=%u, mutant %u of %s: want a refusal holding '%s', got %s", seed,
                            total, s->name, m.must_name, c->format_error ? c->format_error : "none");
            } else if (m.acceptance_expected && c->format_error) {
                g_error("TSV_PROPERTY_SEED=%u, mutant %u of %s: cells added at a line's end refused: %s", seed, total,
                        s->name, c->format_error);
            }
            refused += c->format_error != NULL;
            ms_capture_free(c);
            g_free(m.must_name);
            g_free(text);
            g_rand_free(m.rand);
        }
    }
    g_test_message("%u mutants, %u refused, %u of them known to the harness", total, refused, expected);
    /* The mutations reach the reader's refusals, and not only them. */
    g_assert_cmpuint(expected, >, total / 20);
    g_assert_cmpuint(refused, <, total);
    free_seeds(seeds);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tsv/corpus", test_corpus);
    g_test_add_func("/tsv/mutations", test_mutations);
    return g_test_run();
}
