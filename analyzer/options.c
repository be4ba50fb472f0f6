/* options.c: meterscope's options (options.h): GOption's entries, the
 * numeric options' ranges, and the checks of what goes together.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <string.h>
#include "number_option.h"
#include "options.h"
#include "pair_run.h"
#include "quoted.h"

void ms_options_init(ms_options_t *o)
{
    memset(o, 0, sizeof(*o));
    o->stall = -1;
    o->flash_us = 150;
}

void ms_options_clear(ms_options_t *o)
{
    char **texts[] = { &o->format, &o->output, &o->plot, &o->key, &o->meter,
                       &o->filter, &o->tshark, &o->plugin, &o->iface };

    for (guint i = 0; i < G_N_ELEMENTS(texts); i++)
        g_free(*texts[i]);
    g_strfreev(o->prefs);
    g_strfreev(o->files);
    g_strfreev(o->vantages);
    ms_options_init(o);
}

/* The numeric options and the ranges they accept (docs/analyser.md): a
 * whole one goes into an int, a real one into a double (offsets in
 * ms_options_t, as GOption's callback gets the record, not the field). */
static const struct {
    ms_number_option_t range;
    const char        *short_name;   /* "-j", or NULL */
    gboolean           whole;
    size_t             offset;
} number_options[] = {
    { { "--stall", 1, 86400, TRUE, "seconds" }, NULL, TRUE, offsetof(ms_options_t, stall) },
    { { "--jobs", 1, 1024, TRUE, "captures at once" }, "-j", TRUE, offsetof(ms_options_t, jobs) },
    { { "--flash-us-per-byte", 0, 10000, FALSE, "microseconds per byte" }, NULL, FALSE,
      offsetof(ms_options_t, flash_us) },
    { { "--live-restart-after", 1000, 1e12, TRUE, "frames" }, NULL, FALSE, offsetof(ms_options_t, restart_after) },
};

/* GOption's callback for each of them (name: "--stall" or "-j"; data: the record). */
static gboolean set_number_option(const char *name, const char *text, gpointer data, GError **err)
{
    for (guint i = 0; i < G_N_ELEMENTS(number_options); i++) {
        double v;
        if (strcmp(name, number_options[i].range.name) != 0 && g_strcmp0(name, number_options[i].short_name) != 0)
            continue;
        if (!ms_number_option_parse(&number_options[i].range, text, &v, err))
            return FALSE;
        char *field = (char *)data + number_options[i].offset;
        if (number_options[i].whole)
            *(int *)field = (int)v;
        else
            *(double *)field = v;
        return TRUE;
    }
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "%s is not a numeric option", name);
    return FALSE;
}

char *ms_options_parse(ms_options_t *o, int *argc, char ***argv)
{
    const GOptionEntry entries[] = {
        { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format, "Report format: table (default), csv or json; with --live also jsonl (the events as JSON lines, the report as JSON)", "FORMAT" },
        { "live", 0, 0, G_OPTION_ARG_NONE, &o->live, "Follow one capture as it is written (- for standard input, a FIFO, a growing file, or -i): a line per transfer on a terminal, else a JSON line per event; the report at the end of input or at Ctrl-C", NULL },
        { "live-restart-after", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "With --live: a new tshark takes over after this many frames, once no transfer is going on (at twice as many whatever), so that its memory starts again; the report then has a part per tshark (1000 to 1e12)", "FRAMES" },
        { "interface", 'i', 0, G_OPTION_ARG_STRING, &o->iface, "With --live: capture on this interface (through dumpcap, with its permissions)", "IFACE" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output, "Write the report to FILE (default: standard output)", "FILE" },
        { "plot", 0, 0, G_OPTION_ARG_FILENAME, &o->plot, "Write SVG plots into DIR", "DIR" },
        { "key", 'k', 0, G_OPTION_ARG_STRING, &o->key, "Thread network key (32 hex digits), for secured captures", "KEY" },
        { "meter", 'm', 0, G_OPTION_ARG_STRING, &o->meter, "Only the transfers of this meter (IPv6 address)", "ADDR" },
        { "display-filter", 'Y', 0, G_OPTION_ARG_STRING, &o->filter, "Only transfers with a frame matching this Wireshark display filter (tshark then reads each capture twice, -2, so that fields set by later frames match too)", "FILTER" },
        { "stall", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "A silence longer than this is a stall (1 to 86400, default 10)", "SECONDS" },
        { "jobs", 'j', 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "Captures analysed at once (1 to 1024, default: the number of cores)", "N" },
        { "pref", 'O', 0, G_OPTION_ARG_STRING_ARRAY, &o->prefs, "A Wireshark preference for tshark -o, e.g. 6lowpan.context0:fd00::/64 (repeatable)", "NAME:VALUE" },
        { "flash-us-per-byte", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)set_number_option, "The meter's flash write time per byte, for the block-size model (0 to 10000, default 150)", "US" },
        { "vantage", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->vantages, "Two captures of the same network, paired message by message: radio=FILE (the sniffer's) and gateway=FILE (the gateway's Ethernet); both given", "NAME=FILE" },
        { "tshark", 0, 0, G_OPTION_ARG_FILENAME, &o->tshark, "The tshark to run (default: $TSHARK, else tshark in PATH)", "PATH" },
        { "plugin", 0, 0, G_OPTION_ARG_FILENAME, &o->plugin, "The meterscope.so to load (default: $METERSCOPE_PLUGIN, the build tree, the installed one)", "PATH" },
        { "progress", 0, 0, G_OPTION_ARG_NONE, &o->progress, "Show a progress bar on standard error (default on a terminal)", NULL },
        { "no-progress", 0, 0, G_OPTION_ARG_NONE, &o->no_progress, "Never show the progress bar", NULL },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Print errors only (no progress, no notes)", NULL },
        { "version", 'V', 0, G_OPTION_ARG_NONE, &o->version, "Show the version and exit", NULL },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->files, NULL, "CAPTURE..." },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("- block-wise transfer reports from sniffer captures");
    /* The main group as g_option_context_add_main_entries makes it, but
     * with the record for the numeric options' callback. */
    GOptionGroup *group = g_option_group_new(NULL, NULL, NULL, o, NULL);
    GError *err = NULL;
    char *message = NULL;

    g_option_group_add_entries(group, entries);
    g_option_group_set_translation_domain(group, NULL);
    g_option_context_set_main_group(ctx, group);
    g_option_context_set_description(ctx,
        "Runs tshark with the meterscope plugin on each capture (pcap or pcapng, or compressed as the installed\n"
        "tshark reads it: gzip, zstd, lz4; the link-layer numbers\n"
        "need link type 195, 230, 283 or ZEP v2) and reports every CoAP block-wise transfer: blocks, bytes, rate, repeats, fragment loss,\n"
        "where the time went, and the block size to use (docs/field-guide.md).\n\n"
        "Exit status: 0 report written, 1 usage error, 2 input error (missing, unreadable, truncated\n"
        "or non-capture file; partial results are still printed), 3 tshark or plugin problem,\n"
        "128+N stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP: every tshark stopped, no report).\n"
        "With --live the first signal ends the input and the report is written; a second one stops as above.");
    if (!g_option_context_parse(ctx, argc, argv, &err)) {
        /* GOption's message names the argument as given: one line, cut. */
        char *printable = ms_printable(err->message, 200);
        message = g_strdup_printf("%s (try --help)", printable);
        g_free(printable);
        g_error_free(err);
    }
    g_option_context_free(ctx);
    return message;
}

static gboolean valid_key(const char *key)
{
    if (strlen(key) != 32)
        return FALSE;
    for (const char *p = key; *p; p++)
        if (!g_ascii_isxdigit(*p))
            return FALSE;
    return TRUE;
}

/* fmt's "%s" filled with text fit for a message (quoted.h). */
static char *quoting(const char *fmt, const char *text)
{
    char *quoted = ms_quoted(text);
    char *message = g_strdup_printf(fmt, quoted);

    g_free(quoted);
    return message;
}

/* The report formats by name; jsonl (JSON lines as it goes) only with --live. */
static const struct {
    const char *name;
    ms_format_t fmt;
    gboolean    live_only;
} formats[] = {
    { "table", FMT_TABLE, FALSE },
    { "csv", FMT_CSV, FALSE },
    { "json", FMT_JSON, FALSE },
    { "jsonl", FMT_JSON, TRUE },
};

static gboolean set_format(ms_options_t *o)
{
    if (!o->format) {
        o->fmt = FMT_TABLE;
        return TRUE;
    }
    for (guint i = 0; i < G_N_ELEMENTS(formats); i++)
        if (strcmp(o->format, formats[i].name) == 0 && (o->live || !formats[i].live_only)) {
            o->fmt = formats[i].fmt;
            return TRUE;
        }
    return FALSE;
}

char *ms_options_check(ms_options_t *o)
{
    if (!set_format(o))
        return quoting(o->live ? "unknown format '%s' (table, csv, json or jsonl)"
                               : "unknown format '%s' (table, csv or json; jsonl with --live)", o->format);
    guint n_files = o->files ? g_strv_length(o->files) : 0;
    if (o->vantages) {
        if (n_files)
            return g_strdup("with --vantage, give every capture as --vantage NAME=FILE, none on its own");
        if (o->plot || o->filter || o->meter)
            return g_strdup("--plot, --display-filter and --meter are not for --vantage (the pairing report)");
        if (o->live || o->iface || o->restart_after)
            return g_strdup("--live, -i and --live-restart-after are not for --vantage (the pairing report)");
        return ms_pair_check_args(o->vantages);
    }
    if (o->iface && !o->live)
        return g_strdup("-i wants --live");
    if (o->live && (n_files + (o->iface != NULL) != 1))
        return g_strdup("--live follows one capture: - (standard input), a file or FIFO, or -i IFACE");
    if (o->restart_after && !o->live)
        return g_strdup("--live-restart-after wants --live");
    if (o->live && o->filter)
        return g_strdup("--live cannot take --display-filter: it needs a second pass over the capture");
    if (!n_files && !o->live)
        return g_strdup("no capture file given (try --help)");
    if (o->key && !valid_key(o->key))
        return g_strdup("--key wants the Thread network key as 32 hex digits");
    if (o->meter && !g_hostname_is_ip_address(o->meter))
        return quoting("--meter wants the meter's IPv6 address, not '%s'", o->meter);
    return NULL;
}

void ms_options_tshark_prefs(const ms_options_t *o, ms_tshark_t *t)
{
    /* The report needs the statistics, not CoAP's display, and unless a
     * display filter makes tshark read the capture twice, no frame records
     * for a later pass (first, so that a -O of the user's comes later and
     * wins). */
    g_ptr_array_add(t->prefs, g_strdup("meter.coap_decode:FALSE"));
    if (!o->filter)
        g_ptr_array_add(t->prefs, g_strdup("meter.frame_records:FALSE"));
    for (guint i = 0; o->prefs && o->prefs[i]; i++)
        g_ptr_array_add(t->prefs, g_strdup(o->prefs[i]));
    if (o->key)
        g_ptr_array_add(t->prefs, g_strdup_printf("uat:ieee802154_keys:\"%s\",\"1\",\"Thread hash\"", o->key));
    if (o->stall > 0)
        g_ptr_array_add(t->prefs, g_strdup_printf("meter.ota.stall_seconds:%d", o->stall));
}
