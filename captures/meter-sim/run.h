/* run.h: one run of the simulation: the network of the scenario's
 * parameters, its applications, and the truth listening to it, wired
 * together; run until every meter is done; then its truth to write.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RUN_H
#define RUN_H
#include <glib.h>
#include "capture_writer.h"
#include "scenario.h"
#include "truth.h"

typedef struct run run_t;

/* The radio capture goes to cap; with gw_cap (p->gateway_pair), the
 * gateway's Ethernet capture too, written to the file gw_path. */
run_t   *run_new(const sim_params_t *p, capture_writer_t *cap, capture_writer_t *gw_cap, const char *gw_path,
                 GError **err);
void     run_execute(run_t *r);
truth_t *run_truth(run_t *r);
void     run_free(run_t *r);

#endif
