/* tshark_runner.c: one tshark per capture, its standard output read line by
 * line as it comes (never the whole capture as text), its standard error
 * kept in a temporary file and turned into a message when it failed; what
 * failed is told by tshark's exit status, not by its words (one exception:
 * a plugin it could not load, which it reports and goes on without).
 * Nothing else is asked of tshark: what the Wireshark it was built for has
 * is known when the analyser is built.
 *
 * Plugins: tshark loads WIRESHARK_PLUGIN_DIR instead of the global plugin
 * folder, plus the user's personal folder, except when run as root, when it
 * ignores both and loads only the global folder.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <signal.h>
#include <pcap/pcap.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include "children.h"
#include "compression.h"
#include "tshark_runner.h"

#ifndef WS_GLOBAL_PLUGIN_DIR
#define WS_GLOBAL_PLUGIN_DIR "/usr/lib/x86_64-linux-gnu/wireshark/plugins/4.0"
#endif
#ifndef WS_PLUGIN_VERSION
#define WS_PLUGIN_VERSION "4.0"
#endif

#define ERR_DOMAIN g_quark_from_static_string("meterscope-tshark")

static char *global_plugin(void)
{
    return g_build_filename(WS_GLOBAL_PLUGIN_DIR, "epan", "meterscope.so", NULL);
}

static char *personal_plugin(void)
{
    return g_build_filename(g_get_home_dir(), ".local", "lib", "wireshark", "plugins", WS_PLUGIN_VERSION, "epan",
                            "meterscope.so", NULL);
}

/* The plugin built next to this program, when this program runs from the
 * build tree. */
static char *build_tree_plugin(void)
{
#if defined(METERSCOPE_BUILD_DIR) && defined(METERSCOPE_BUILD_PLUGIN)
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    gboolean in_tree = exe && g_str_has_prefix(exe, METERSCOPE_BUILD_DIR "/");
    g_free(exe);
    if (in_tree && g_file_test(METERSCOPE_BUILD_PLUGIN, G_FILE_TEST_IS_REGULAR))
        return g_strdup(METERSCOPE_BUILD_PLUGIN);
#endif
    return NULL;
}

static gboolean same_contents(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    gsize nx = 0, ny = 0;
    gboolean same = g_file_get_contents(a, &x, &nx, NULL) && g_file_get_contents(b, &y, &ny, NULL) && nx == ny &&
                    memcmp(x, y, nx) == 0;

    g_free(x);
    g_free(y);
    return same;
}

static gboolean find_tshark(ms_tshark_t *t, const char *tshark_path, GError **err)
{
    const char *want = tshark_path ? tshark_path : g_getenv("TSHARK");

    t->tshark = want && *want ? (strchr(want, '/') ? g_strdup(want) : g_find_program_in_path(want))
                              : g_find_program_in_path("tshark");
    if (t->tshark && g_file_test(t->tshark, G_FILE_TEST_IS_EXECUTABLE))
        return TRUE;
    g_set_error(err, ERR_DOMAIN, 0,
                "tshark not found%s%s: install it (apt-get install tshark) or give its path with --tshark",
                want ? " at " : " in PATH", want ? want : "");
    return FALSE;
}

/* The runs' own folder, for tshark's environment (a tshark run as root
 * ignores both variables, so none is made then):
 * - plugins/X.Y/epan/meterscope.so, a link to the chosen plugin, for
 *   WIRESHARK_PLUGIN_DIR, when tshark would not find it itself;
 * - data/, empty, for WIRESHARK_DATA_DIR. tshark reads its data files as it
 *   starts (manuf, services, wka, enterprises.tsv, the XML dissector's
 *   DTDs, init.lua, ...): on 4.0 half of the instructions it spends before
 *   the first frame (857 M of them against 421 M without), 0.21 s against
 *   0.13 s, and 27 MB. The statistics need none of them: -n resolves no
 *   names, and no dissector on the way from 802.15.4, ZEP or Ethernet to
 *   CoAP reads one. */
static gboolean run_folder(ms_tshark_t *t, gboolean with_plugin, GError **err)
{
    char *dir = g_dir_make_tmp("meterscope-XXXXXX", err);
    if (!dir)
        return FALSE;
    t->run_dir = dir;
    char *data = g_build_filename(dir, "data", NULL);
    char *epan = g_build_filename(dir, "plugins", WS_PLUGIN_VERSION, "epan", NULL);
    char *link = g_build_filename(epan, "meterscope.so", NULL);
    char *target = g_canonicalize_filename(t->plugin, NULL);
    gboolean ok = g_mkdir(data, 0700) == 0 &&
                  (!with_plugin || (g_mkdir_with_parents(epan, 0700) == 0 && symlink(target, link) == 0));

    if (!ok)
        g_set_error(err, ERR_DOMAIN, 0, "cannot prepare a folder for tshark in %s: %s", dir, g_strerror(errno));
    t->data_env_dir = data;
    if (with_plugin)
        t->plugin_env_dir = g_build_filename(dir, "plugins", NULL);
    g_free(epan);
    g_free(link);
    g_free(target);
    return ok;
}

void ms_tshark_environment(const ms_tshark_t *t, GSubprocessLauncher *l)
{
    if (t->plugin_env_dir)
        g_subprocess_launcher_setenv(l, "WIRESHARK_PLUGIN_DIR", t->plugin_env_dir, TRUE);
    if (t->data_env_dir)
        g_subprocess_launcher_setenv(l, "WIRESHARK_DATA_DIR", t->data_env_dir, TRUE);
}

/* Wireshark plugins are ELF shared objects: anything else is no plugin,
 * said before tshark is run (it would only warn that it could not load it,
 * and load a personal copy instead if there is one). NULL, or why not. */
static char *not_a_plugin(const char *path)
{
    static const guint8 elf[4] = { 0x7f, 'E', 'L', 'F' };
    guint8 head[4] = { 0 };
    FILE *f = g_fopen(path, "rb");

    if (!f)
        return g_strdup_printf("cannot read the plugin %s: %s", path, g_strerror(errno));
    gboolean elf_file = fread(head, 1, sizeof(head), f) == sizeof(head) && memcmp(head, elf, sizeof(elf)) == 0;
    fclose(f);
    return elf_file ? NULL
                    : g_strdup_printf("%s is not a Wireshark plugin (not a shared object): give the meterscope.so "
                                      "built for this tshark with --plugin", path);
}

static gboolean choose_plugin(ms_tshark_t *t, const char *plugin_path, GError **err)
{
    const char *want = plugin_path ? plugin_path : g_getenv("METERSCOPE_PLUGIN");
    char *global = global_plugin(), *personal = personal_plugin();
    gboolean ok = TRUE;
    char *why_not = NULL;

    if (want && *want)
        t->plugin = g_strdup(want);
    else if (!(t->plugin = build_tree_plugin()))
        t->plugin = g_strdup(g_file_test(personal, G_FILE_TEST_EXISTS) && geteuid() != 0 ? personal : global);
    if (!g_file_test(t->plugin, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(err, ERR_DOMAIN, 0,
                    "the meterscope plugin is not installed (looked for %s%s%s): build it and run "
                    "`cmake --install BUILD --component plugin`, or give its path with --plugin",
                    t->plugin, want ? "" : " and ", want ? "" : personal);
        ok = FALSE;
    } else if ((why_not = not_a_plugin(t->plugin))) {
        g_set_error_literal(err, ERR_DOMAIN, 0, why_not);
        ok = FALSE;
    } else if (geteuid() == 0) {
        /* Root's tshark loads the global folder only. */
        if (strcmp(t->plugin, global) != 0 && !same_contents(t->plugin, global)) {
            g_set_error(err, ERR_DOMAIN, 0,
                        "running as root, tshark ignores every plugin outside %s, so it would not load %s "
                        "(%s): run meterscope as a normal user, or install this plugin for everyone with "
                        "`cmake --install BUILD --component plugin` as root",
                        WS_GLOBAL_PLUGIN_DIR "/epan", t->plugin,
                        g_file_test(global, G_FILE_TEST_EXISTS) ? "the copy installed there differs"
                                                                : "none is installed there");
            ok = FALSE;
        }
    } else {
        ok = run_folder(t, strcmp(t->plugin, personal) != 0, err);
    }
    g_free(why_not);
    g_free(global);
    g_free(personal);
    return ok;
}

gboolean ms_tshark_setup(ms_tshark_t *t, const char *tshark_path, const char *plugin_path,
                         const char *display_filter, GError **err)
{
    if (!t->prefs)
        t->prefs = g_ptr_array_new_with_free_func(g_free);
    t->two_pass = display_filter && *display_filter;
    t->tap = t->two_pass ? g_strdup_printf("meter,ota,tsv,%s", display_filter) : g_strdup("meter,ota,tsv");
    return find_tshark(t, tshark_path, err) && choose_plugin(t, plugin_path, err);
}

/* The run folder and what run_folder put in it, nothing else. */
static void remove_run_folder(const ms_tshark_t *t)
{
    char *ver = g_build_filename(t->run_dir, "plugins", WS_PLUGIN_VERSION, NULL);
    char *epan = g_build_filename(ver, "epan", NULL);
    char *link = g_build_filename(epan, "meterscope.so", NULL);

    g_unlink(link);
    g_rmdir(epan);
    g_rmdir(ver);
    if (t->plugin_env_dir)
        g_rmdir(t->plugin_env_dir);
    if (t->data_env_dir)
        g_rmdir(t->data_env_dir);
    g_rmdir(t->run_dir);
    g_free(link);
    g_free(epan);
    g_free(ver);
}

void ms_tshark_cleanup(ms_tshark_t *t)
{
    if (t->run_dir)
        remove_run_folder(t);
    g_free(t->run_dir);
    g_free(t->plugin_env_dir);
    g_free(t->data_env_dir);
    g_free(t->tshark);
    g_free(t->plugin);
    g_free(t->tap);
    if (t->prefs)
        g_ptr_array_free(t->prefs, TRUE);
    memset(t, 0, sizeof(*t));
}

gboolean ms_capture_file_ok(const char *file, char **message)
{
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    GStatBuf st;
    FILE *f;
    guint8 magic[MS_COMPRESSION_MAGIC_MAX] = { 0 };
    size_t got;

    if (g_stat(file, &st) != 0) {
        *message = g_strdup_printf("%s: %s", file, g_strerror(errno));
        return FALSE;
    }
    if (!S_ISREG(st.st_mode)) {
        *message = g_strdup_printf("%s: not a regular file", file);
        return FALSE;
    }
    if (!(f = g_fopen(file, "rb"))) {
        *message = g_strdup_printf("%s: %s", file, g_strerror(errno));
        return FALSE;
    }
    got = fread(magic, 1, sizeof(magic), f);
    fclose(f);
    if (got == 0) {
        *message = g_strdup_printf("%s: empty file, not a capture", file);
        return FALSE;
    }
    /* pcapng: a Section Header Block (libpcap may refuse some valid ones,
     * e.g. several link types; tshark reads them). */
    if (got >= 4 && magic[0] == 0x0a && magic[1] == 0x0d && magic[2] == 0x0d && magic[3] == 0x0a)
        return TRUE;
    /* Compressed: libpcap cannot look inside, tshark may; it decides. */
    if (ms_compression_of(magic, got))
        return TRUE;
    pcap_t *p = pcap_open_offline(file, errbuf);
    if (!p) {
        *message = g_strdup_printf("%s: not a pcap or pcapng capture (%s)", file, errbuf);
        return FALSE;
    }
    pcap_close(p);
    return TRUE;
}

/* tshark's exit status for the runs made here (`-r FILE -q -z ...`): 4.4
 * and 4.6 name the codes in <ws_exit_codes.h> (WS_EXIT_*); 4.0 has
 * ui/exit_codes.h, where INVALID_OPTION is 1 and nearly every other code 2.
 * What 4.0.17 returns was tried by hand for each case below; for 4.4 and 4.6
 * it is read from those headers, and checked by analyzer.exit_codes in the
 * 4.4 and 4.6 chroots.
 * The analyser checks each file before (ms_capture_file_ok), so tshark meets
 * a file it cannot open only when it is compressed (not looked into here),
 * when libpcap accepts what wiretap refuses, or when the file changed
 * meanwhile. */
enum {
    /* WS_EXIT_INVALID_OPTION on every version: tshark refused its command
     * line, an -o preference, the -z argument (unknown when the plugin did
     * not load) or the tap's filter (the plugin's own exit(1) in
     * packet-meter-stats.c). Nothing was read. */
    TSHARK_REFUSED_OPTION = 1,
    /* A read error once the file was open (cut short, damaged record):
     * tshark still draws the taps, so the records of what it read came out.
     * 4.0 exits 2 as well when it cannot open the file (its INVALID_FILE). */
    TSHARK_READ_ERROR = 2,
    /* WS_EXIT_INVALID_FILE (4.2 and later): the file could not be opened. */
    TSHARK_CANNOT_OPEN = 3,
    /* WS_EXIT_READ_ERROR: 4.6 exits with it where 4.0 and 4.4 exit 2 (a
     * capture cut short, seen in the 4.6 chroot), the taps still drawn. */
    TSHARK_READ_ERROR_46 = 14,
};

/* The only text of tshark's matched here: lines of its standard error that
 * report no error, left out of the message. tshark 4.0, 4.4 and 4.6 all
 * print both (the strings are in their tshark and libwsutil). */
static const struct {
    const char *text;
    gboolean    line_start; /* TRUE: the line starts with it; FALSE: anywhere */
} tshark_noise[] = {
    { "Running as user", TRUE },                 /* tshark run as root */
    { "found in multiple directories", FALSE },  /* a plugin both personal and global */
};

static gboolean is_noise(const char *line)
{
    for (guint i = 0; i < G_N_ELEMENTS(tshark_noise); i++)
        if (tshark_noise[i].line_start ? g_str_has_prefix(line, tshark_noise[i].text)
                                       : strstr(line, tshark_noise[i].text) != NULL)
            return TRUE;
    return FALSE;
}

/* tshark's own words for a failure, without its noise. */
char *ms_tshark_errors(const char *path)
{
    char *text = NULL;
    GString *out = g_string_new(NULL);

    if (g_file_get_contents(path, &text, NULL, NULL)) {
        char **lines = g_strsplit(text, "\n", -1);
        for (guint i = 0; lines[i]; i++) {
            if (!*lines[i] || is_noise(lines[i]))
                continue;
            if (out->len)
                g_string_append(out, "; ");
            g_string_append(out, lines[i]);
        }
        g_strfreev(lines);
    }
    g_free(text);
    return g_string_free(out, FALSE);
}

/* tshark's own report that it could not load the plugin: every such line
 * of its plugin loader (wsutil/plugins.c, 4.0 to 4.6) names the file as
 * "plugin 'meterscope.so'", and only its "found in multiple directories"
 * warning (noise, left out of errors) says that one copy did load. With a
 * personal copy installed, tshark goes on in silence with that one when the
 * chosen one fails, so this is what tells: after the run, not by a run of
 * its own before. */
static gboolean plugin_not_loaded(const char *errors)
{
    return strstr(errors, "plugin 'meterscope.so'") != NULL;
}

static char *not_loaded(const ms_tshark_t *t, const char *errors)
{
    return g_strdup_printf("tshark (%s) did not load the meterscope plugin %s: check that it was built for this "
                           "tshark's version (%s)", t->tshark, t->plugin, errors);
}

static gboolean is_crash(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP ||
           sig == SIGSYS;
}

/* A tshark that died of a signal: crashed, or killed from outside (SIGKILL
 * is what the out-of-memory killer sends). */
static char *died(const char *file, int sig, const char *errors)
{
    return g_strdup_printf("%s: tshark %s (signal %d, %s) before it finished reading it%s%s%s", file,
                           is_crash(sig) ? "crashed" : "was killed", sig, g_strsignal(sig),
                           sig == SIGKILL ? "; the out-of-memory killer does that, see dmesg" : "",
                           *errors ? ": " : "", errors);
}

/* A file tshark could not open: if it is compressed, what with. */
static char *cannot_open(const char *file, const char *errors)
{
    const ms_compression_t *c = ms_compression_of_file(file);

    if (!c)
        return g_strdup_printf("%s: %s", file, errors);
    return g_strdup_printf("%s: this tshark could not read the %s-compressed file (%s): decompress it first (%s -d)",
                           file, c->name, errors, c->name);
}

static ms_run_status_t classify(const ms_tshark_t *t, const char *file, int status, int term_sig,
                                const char *errors, ms_capture_t *out, char **message)
{
    if (term_sig) {
        *message = died(file, term_sig, errors);
        return RUN_TSHARK_ERROR;
    }
    if (plugin_not_loaded(errors)) {
        *message = not_loaded(t, errors);
        return RUN_TSHARK_ERROR;
    }
    switch (status) {
    case TSHARK_READ_ERROR:
    case TSHARK_READ_ERROR_46:
    case TSHARK_CANNOT_OPEN:
        *message = out->header_seen ? g_strdup_printf("%s: %s (partial results)", file, errors)
                                    : cannot_open(file, errors);
        return RUN_INPUT_ERROR;
    case TSHARK_REFUSED_OPTION:
        *message = g_strdup(errors);
        return RUN_USAGE_ERROR;
    }
    if (status != 0 || (!out->header_seen && !out->format_error)) {
        *message = g_strdup_printf("tshark failed on %s (status %d)%s%s", file, status, *errors ? ": " : "", errors);
        return RUN_TSHARK_ERROR;
    }
    if (out->format_error) {
        *message = g_strdup_printf("%s: unexpected output from the plugin: %s", file, out->format_error);
        return RUN_TSHARK_ERROR;
    }
    return RUN_OK;
}

/* Every run's start: the program, no name resolution, the file ("-": its
 * standard input). */
static GPtrArray *argv_start(const ms_tshark_t *t, const char *file)
{
    GPtrArray *argv = g_ptr_array_new();

    g_ptr_array_add(argv, t->tshark);
    g_ptr_array_add(argv, "-n");
    g_ptr_array_add(argv, "-r");
    g_ptr_array_add(argv, (char *)file);
    return argv;
}

/* Each preference as "-o PREF". */
static void add_prefs(GPtrArray *argv, char *const *prefs, guint n)
{
    for (guint i = 0; i < n && prefs[i]; i++) {
        g_ptr_array_add(argv, "-o");
        g_ptr_array_add(argv, prefs[i]);
    }
}

GPtrArray *ms_tshark_argv(const ms_tshark_t *t, const char *file, const char *const *taps)
{
    GPtrArray *argv = argv_start(t, file);

    add_prefs(argv, (char *const *)t->prefs->pdata, t->prefs->len);
    /* With a filter, two passes: a frame's fields that only later frames
     * decide (meter.frag.incomplete, a retransmission's cause) are set in
     * the second, where the tap's filter is applied. */
    if (t->two_pass)
        g_ptr_array_add(argv, "-2");
    g_ptr_array_add(argv, "-q");
    for (guint i = 0; taps && taps[i]; i++) {
        g_ptr_array_add(argv, "-z");
        g_ptr_array_add(argv, (char *)taps[i]);
    }
    g_ptr_array_add(argv, "-z");
    g_ptr_array_add(argv, t->tap);
    g_ptr_array_add(argv, NULL);
    return argv;
}

GPtrArray *ms_tshark_fields_argv(const ms_tshark_t *t, const char *file, const char *const *prefs,
                                 const char *const *fields)
{
    static const char *const layout[] = { "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
                                          "-E", "aggregator=,", "-E", "quote=n", NULL };
    GPtrArray *argv = argv_start(t, file);

    add_prefs(argv, (char *const *)prefs, G_MAXUINT);
    /* GeoIP off: 4.0's MaxMind lookup of an IPv6 field crashes when its
     * resolver has no database (seen with -T fields and HOME unreadable);
     * 4.4 and later refuse those preferences as obsolete (4.2, not tried,
     * is taken to be as 4.4). The Wireshark this is built for tells. */
#if WS_HAS_GEOIP_PREFS
    static const char *const geoip_off[] = { "ip.use_geoip:FALSE", "ipv6.use_geoip:FALSE", NULL };
    add_prefs(argv, (char *const *)geoip_off, G_MAXUINT);
#endif
    add_prefs(argv, (char *const *)t->prefs->pdata, t->prefs->len);
    for (guint i = 0; layout[i]; i++)
        g_ptr_array_add(argv, (char *)layout[i]);
    for (guint i = 0; fields[i]; i++) {
        g_ptr_array_add(argv, "-e");
        g_ptr_array_add(argv, (char *)fields[i]);
    }
    g_ptr_array_add(argv, NULL);
    return argv;
}

GSubprocess *ms_tshark_spawn(const ms_tshark_t *t, GSubprocessLauncher *l, const GPtrArray *argv, GError **err)
{
    ms_tshark_environment(t, l);
    return ms_children_spawn(l, (const char *const *)argv->pdata, err);
}

/* A run's end: waits for p, then how it ended and what it said. */
static void wait_exit(GSubprocess *p, const char *errpath, ms_tshark_exit_t *x)
{
    g_subprocess_wait(p, NULL, NULL);
    ms_children_forget(p);
    x->code = g_subprocess_get_if_exited(p) ? g_subprocess_get_exit_status(p) : -1;
    x->term_sig = g_subprocess_get_if_signaled(p) ? g_subprocess_get_term_sig(p) : 0;
    x->errors = ms_tshark_errors(errpath);
}

ms_run_status_t ms_tshark_wait(const ms_tshark_t *t, const char *file, GSubprocess *p, const char *errpath,
                               ms_capture_t *out, char **message)
{
    ms_tshark_exit_t x;

    ms_capture_finish(out);
    wait_exit(p, errpath, &x);
    ms_run_status_t status = classify(t, file, x.code, x.term_sig, x.errors, out, message);
    g_free(x.errors);
    return status;
}

ms_run_status_t ms_tshark_stream(const ms_tshark_t *t, const GPtrArray *argv, const ms_tshark_reader_t *r,
                                 volatile gint *pid, char **message)
{
    GSubprocessLauncher *l = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE);
    GError *err = NULL;
    char *errpath = NULL;
    int errfd = g_file_open_tmp("meterscope-tshark-XXXXXX.err", &errpath, &err);
    ms_run_status_t status = RUN_TSHARK_ERROR;

    *message = NULL;
    if (errfd < 0)
        goto out;
    close(errfd);
    g_subprocess_launcher_set_stderr_file_path(l, errpath);
    GSubprocess *p = ms_tshark_spawn(t, l, argv, &err);
    if (!p)
        goto out;
    if (pid)
        g_atomic_int_set(pid, (gint)g_ascii_strtoll(g_subprocess_get_identifier(p), NULL, 10));
    GDataInputStream *in = g_data_input_stream_new(g_subprocess_get_stdout_pipe(p));
    char *line;
    while ((line = g_data_input_stream_read_line(in, NULL, NULL, &err))) {
        r->line(r->data, line);
        g_free(line);
    }
    g_object_unref(in);
    /* The output is read to its end before tshark is waited for. */
    r->finish(r->data);
    ms_tshark_exit_t x;
    wait_exit(p, errpath, &x);
    status = r->classify(t, r->data, &x, message);
    g_free(x.errors);
    if (pid)
        g_atomic_int_set(pid, 0);
    g_object_unref(p);
out:
    /* A read error shows only when the exit status told nothing. */
    if (err && !*message)
        *message = g_strdup_printf("cannot run %s: %s", t->tshark, err->message);
    g_clear_error(&err);
    if (errpath)
        g_unlink(errpath);
    g_free(errpath);
    g_object_unref(l);
    return status;
}

/* ms_tshark_run's reader: the plugin's records into a capture. */
typedef struct {
    const char   *file;
    ms_capture_t *out;
} capture_run_t;

static void capture_line(void *data, const char *line)
{
    ms_capture_feed(((capture_run_t *)data)->out, line);
}

static void capture_finish(void *data)
{
    ms_capture_finish(((capture_run_t *)data)->out);
}

static ms_run_status_t capture_status(const ms_tshark_t *t, void *data, const ms_tshark_exit_t *x, char **message)
{
    capture_run_t *c = data;

    return classify(t, c->file, x->code, x->term_sig, x->errors, c->out, message);
}

ms_run_status_t ms_tshark_run(const ms_tshark_t *t, const char *file, ms_capture_t *out, volatile gint *pid,
                              char **message)
{
    capture_run_t c = { file, out };
    const ms_tshark_reader_t r = { capture_line, capture_finish, capture_status, &c };
    GPtrArray *argv = ms_tshark_argv(t, file, NULL);
    ms_run_status_t status = ms_tshark_stream(t, argv, &r, pid, message);

    g_ptr_array_free(argv, TRUE);
    return status;
}
