/* tshark_runner.h: runs tshark with the meterscope plugin on one capture
 * and streams its "-z meter,ota,tsv" records into an ms_capture_t.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TSHARK_RUNNER_H
#define TSHARK_RUNNER_H

#include <gio/gio.h>
#include "transfer.h"

typedef struct {
    char      *tshark;           /* the program */
    char      *plugin;           /* the meterscope.so tshark will load */
    char      *run_dir;          /* the runs' own folder (tshark_runner.c); NULL as root */
    char      *plugin_env_dir;   /* WIRESHARK_PLUGIN_DIR for it; NULL: tshark finds it itself */
    char      *data_env_dir;     /* WIRESHARK_DATA_DIR: an empty folder; NULL as root */
    GPtrArray *prefs;            /* "-o" preference strings */
    char      *tap;              /* "meter,ota,tsv[,FILTER]" */
    gboolean   two_pass;      /* -2: a display filter sees fields that later frames set */
} ms_tshark_t;

typedef enum { RUN_OK, RUN_INPUT_ERROR, RUN_USAGE_ERROR, RUN_TSHARK_ERROR } ms_run_status_t;

/* Finds tshark (tshark_path, else $TSHARK, else PATH) and a plugin tshark
 * will load (plugin_path, else $METERSCOPE_PLUGIN, the build tree, the
 * installed copies). On failure *err says what to do. */
gboolean ms_tshark_setup(ms_tshark_t *t, const char *tshark_path, const char *plugin_path,
                         const char *display_filter, GError **err);
void     ms_tshark_cleanup(ms_tshark_t *t);

/* Every tshark the analyser starts gets this environment: its plugin and
 * data folders (tshark_runner.c). */
void     ms_tshark_environment(const ms_tshark_t *t, GSubprocessLauncher *l);

/* Checks that file is a readable pcap or pcapng capture; *message says why not. */
gboolean ms_capture_file_ok(const char *file, char **message);

/* Runs tshark on file into out. *pid is set while tshark runs (for progress),
 * 0 otherwise. *message: the error (RUN_*_ERROR) or a warning with partial
 * results (RUN_INPUT_ERROR with out filled, e.g. a truncated file). */
ms_run_status_t ms_tshark_run(const ms_tshark_t *t, const char *file, ms_capture_t *out, volatile gint *pid,
                              char **message);

/* tshark's command line for file ("-": its standard input), with the taps
 * (NULL-terminated, may be NULL) before t's own; free with g_ptr_array_free(, TRUE)
 * (the strings are t's and the caller's). */
GPtrArray *ms_tshark_argv(const ms_tshark_t *t, const char *file, const char *const *taps);
/* tshark's command line for a run of stock fields (-T fields, a line of
 * tab-separated fields per frame, every occurrence joined by ","): prefs
 * (NULL-terminated) before t's own; freed as ms_tshark_argv's. */
GPtrArray *ms_tshark_fields_argv(const ms_tshark_t *t, const char *file, const char *const *prefs,
                                 const char *const *fields);
/* Starts argv (built above) from l, with t's environment (ms_children_spawn). */
GSubprocess *ms_tshark_spawn(const ms_tshark_t *t, GSubprocessLauncher *l, const GPtrArray *argv, GError **err);
/* Once its output has been fed into out: waits for the tshark p (spawned
 * with ms_tshark_spawn, its standard error in errpath) and says how it
 * went, as ms_tshark_run does. */
ms_run_status_t ms_tshark_wait(const ms_tshark_t *t, const char *file, GSubprocess *p, const char *errpath,
                               ms_capture_t *out, char **message);

/* How a run ended. */
typedef struct {
    int   code;        /* its exit status; -1 when it did not exit */
    int   term_sig;    /* the signal that ended it, else 0 */
    char *errors;      /* its standard error, its noise left out (ms_tshark_errors) */
} ms_tshark_exit_t;

/* What a run's standard output goes to, and what its end means. */
typedef struct {
    void (*line)(void *data, const char *line);   /* each line of its output */
    void (*finish)(void *data);                   /* the output ended (before the wait) */
    /* The run's status from its end; *message: its error or warning. */
    ms_run_status_t (*classify)(const ms_tshark_t *t, void *data, const ms_tshark_exit_t *x, char **message);
    void *data;
} ms_tshark_reader_t;

/* Runs argv (built above), its output line by line into r, its standard
 * error kept aside for r->classify. *pid (may be NULL) as ms_tshark_run's;
 * *message also when tshark could not be started. */
ms_run_status_t ms_tshark_stream(const ms_tshark_t *t, const GPtrArray *argv, const ms_tshark_reader_t *r,
                                 volatile gint *pid, char **message);
/* What tshark wrote to its error file at path, its noise left out, as one line. */
char *ms_tshark_errors(const char *path);

#endif
