/* truth.h: the ground truth of a run, written beside the capture as JSON:
 * per block-wise transfer the numbers the plugin and the analyser must find,
 * plus what a sniffer sees in the capture as a whole. The truth learns the
 * run by listening to its events (events.h) and keeps its own arithmetic.
 * Every definition is in docs/ground-truth.md.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TRUTH_H
#define TRUTH_H
#include <stdio.h>
#include "world.h"

typedef struct truth truth_t;

/* The truth of the run on w; reads w's nodes and parameters, and counts
 * its capture's records when it writes. */
truth_t *truth_new(const world_t *w);
void     truth_free(truth_t *t);
/* What to plug in as world_t.listener. */
const sim_listener_t *truth_listener(truth_t *t);
/* The gateway capture's path, for the pair section (--gateway-output). */
void     truth_set_gateway_capture(truth_t *t, const char *path);
/* The Ed25519 public key that signed the meters' firmware image. */
void     truth_set_firmware_pubkey(truth_t *t, const guint8 pubkey[32]);

/* FILE.truth.json (truth_write.c); capture_path names the capture in it. */
gboolean truth_write_json(truth_t *t, const char *path, const char *capture_path, GError **err);
/* A table of the meters' transfers and the air's counts, for people. */
void     truth_print_summary(truth_t *t, FILE *out);

#endif
