/* test_tshark_runner.c: analyzer/tshark_runner.c without tshark: the two
 * command lines it builds (the report's taps, the --vantage reader's
 * fields) word for word, and a run through ms_tshark_stream of a shell
 * standing in for tshark: every output line to the reader, its end before
 * the status, the exit code and standard error handed to the reader's
 * classification, and a program that cannot start.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <glib.h>
#include "tshark_runner.h"

static int failures;

static void check(gboolean ok, const char *what)
{
    if (!ok) {
        g_printerr("FAIL: %s\n", what);
        failures++;
    }
}

static char *joined(GPtrArray *argv)
{
    char *s = g_strjoinv(" ", (char **)argv->pdata);

    g_ptr_array_free(argv, TRUE);
    return s;
}

static void setup(ms_tshark_t *t, const char *tshark)
{
    memset(t, 0, sizeof(*t));
    t->tshark = g_strdup(tshark);
    t->prefs = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(t->prefs, g_strdup("a.b:1"));
    g_ptr_array_add(t->prefs, g_strdup("c.d:2"));
    t->tap = g_strdup("meter,ota,tsv");
}

static void test_argv(void)
{
    static const char *const taps[] = { "meter,ota,events", NULL };
    static const char *const prefs[] = { "wpan.802154_ack_tracking:TRUE", NULL };
    static const char *const fields[] = { "frame.number", "udp.payload", NULL };
    ms_tshark_t t;

    setup(&t, "/usr/bin/tshark");
    char *s = joined(ms_tshark_argv(&t, "f.pcap", NULL));
    check(strcmp(s, "/usr/bin/tshark -n -r f.pcap -o a.b:1 -o c.d:2 -q -z meter,ota,tsv") == 0, "report argv");
    g_free(s);
    t.two_pass = TRUE;
    s = joined(ms_tshark_argv(&t, "-", taps));
    check(strcmp(s, "/usr/bin/tshark -n -r - -o a.b:1 -o c.d:2 -2 -q -z meter,ota,events -z meter,ota,tsv") == 0,
          "live argv with two passes");
    g_free(s);
    /* The GeoIP preferences are there for a 4.0 build only. */
    s = joined(ms_tshark_fields_argv(&t, "r.pcap", prefs, fields));
    const char *layout = " -o a.b:1 -o c.d:2 -T fields -E separator=/t -E occurrence=a -E aggregator=, -E quote=n "
                         "-e frame.number -e udp.payload";
    char *without = g_strconcat("/usr/bin/tshark -n -r r.pcap -o wpan.802154_ack_tracking:TRUE", layout, NULL);
    char *with = g_strconcat("/usr/bin/tshark -n -r r.pcap -o wpan.802154_ack_tracking:TRUE "
                             "-o ip.use_geoip:FALSE -o ipv6.use_geoip:FALSE", layout, NULL);
    check(strcmp(s, without) == 0 || strcmp(s, with) == 0, "fields argv");
    g_free(s);
    g_free(without);
    g_free(with);
    ms_tshark_cleanup(&t);
}

typedef struct {
    GString *lines;
    gboolean finished, finished_first;
    int      code;
    char    *errors;
} seen_t;

static void on_line(void *data, const char *line)
{
    seen_t *s = data;

    g_string_append_printf(s->lines, "%s|", line);
}

static void on_finish(void *data)
{
    ((seen_t *)data)->finished = TRUE;
}

static ms_run_status_t on_end(const ms_tshark_t *t, void *data, const ms_tshark_exit_t *x, char **message)
{
    seen_t *s = data;

    (void)t;
    s->finished_first = s->finished;
    s->code = x->code;
    s->errors = g_strdup(x->errors);
    *message = g_strdup_printf("exit %d", x->code);
    return x->code ? RUN_INPUT_ERROR : RUN_OK;
}

static void test_stream(void)
{
    ms_tshark_t t;
    seen_t s = { g_string_new(NULL), FALSE, FALSE, -2, NULL };
    const ms_tshark_reader_t r = { on_line, on_finish, on_end, &s };
    char *message = NULL;
    volatile gint pid = -1;

    setup(&t, "/bin/sh");
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, "/bin/sh");
    g_ptr_array_add(argv, "-c");
    g_ptr_array_add(argv, "printf 'one\\ntwo\\n'; echo 'it went wrong' >&2; exit 3");
    g_ptr_array_add(argv, NULL);
    ms_run_status_t status = ms_tshark_stream(&t, argv, &r, &pid, &message);
    check(status == RUN_INPUT_ERROR, "the reader's status");
    check(strcmp(s.lines->str, "one|two|") == 0, "every line to the reader");
    check(s.finished_first, "the output's end before the status");
    check(s.code == 3, "the exit code");
    check(s.errors && strcmp(s.errors, "it went wrong") == 0, "standard error");
    check(message && strcmp(message, "exit 3") == 0, "the reader's message");
    check(pid == 0, "no pid once it ended");
    g_free(message);
    g_free(s.errors);
    g_ptr_array_free(argv, TRUE);

    /* A program that does not exist: never started, said. */
    argv = g_ptr_array_new();
    g_ptr_array_add(argv, "/nonexistent/tshark");
    g_ptr_array_add(argv, NULL);
    g_string_truncate(s.lines, 0);
    status = ms_tshark_stream(&t, argv, &r, NULL, &message);
    check(status == RUN_TSHARK_ERROR, "not started: a tshark error");
    check(message && g_str_has_prefix(message, "cannot run /bin/sh: "), "not started: the message");
    check(s.lines->len == 0, "not started: no line");
    g_free(message);
    g_ptr_array_free(argv, TRUE);
    g_string_free(s.lines, TRUE);
    ms_tshark_cleanup(&t);
}

int main(void)
{
    test_argv();
    test_stream();
    if (failures)
        return 1;
    g_print("tshark_runner: all checks passed\n");
    return 0;
}
