/* SPDX-License-Identifier: BSD-3-Clause */
/* lifecycle.h - what the job prolog and epilog do on one node, shared by
 * scr-prolog/scr-epilog, the SPANK plugin (which runs those) and the Flux
 * shell plugin.
 *
 * prolog (root): health-check every cache base and the control base (a
 * failure drains the node through the scheduler, reason "scr: ..."), remove
 * the user's directories of jobs that have ended (as the user), create this
 * job's directories 0700 owned by the user.
 *
 * epilog (root; all user data work as the user): scavenge this node's part
 * of the newest checkpoint not yet on the prefix, PARTNER second round, one
 * node (elected) indexes the dataset; when it cannot be completed, the same
 * for the newest older checkpoint in cache, and so on (scavenge.h); then
 * remove the job's directories in every cache base, every store its runs
 * recorded (jobrec.h) and the control base.
 * Scavenge problems are reported but do not fail the epilog: a healthy node
 * must not be drained because a user's dataset is incomplete.
 */
#ifndef SCR_LIFECYCLE_H
#define SCR_LIFECYCLE_H

#include "jobopts.h"
#include "scheduler.h"

int lifecycle_prolog(const jobopts_t *o, const sched_t *sched);
int lifecycle_epilog(const jobopts_t *o, const sched_t *sched);

/* the epilog's user part (also `scr scavenge`): scavenge id (or pick one if
 * id < 0) and mark; with live, index when elected.  *indexed: 1 indexed,
 * -1 indexing failed, 0 not this node's job. */
int lifecycle_scavenge(const jobopts_t *o, int id, const nodelist_t *live, int *indexed);
/* the epilog's work once running as the job's user (the Flux shell plugin
 * calls it directly: job shells already are the user): scavenge, index
 * when elected among live, remove the job's directories */
int lifecycle_epilog_as_user(const jobopts_t *o, const nodelist_t *live);
/* The prefix the job's newest run on this node used (jobrec.h) replaces
 * o->prefix, which is only what was known when the job was submitted: a job
 * script or the application may set SCR_PREFIX later.  *nodes (if nodes is
 * not NULL) gets the run's nodes.  Says so when the prefix changes, warns
 * about a damaged record.  Returns 1 when a record was used, else 0. */
int lifecycle_use_recorded(jobopts_t *o, nodelist_t **nodes);
/* index dataset id of the prefix (scan, rebuild, summary, index); flags:
 * DSINDEX_* (dsindex.h) */
int lifecycle_index(const jobopts_t *o, int id, int flags);

/* main() of scr-prolog / scr-epilog: parse, pick the scheduler, run fn.
 * Exit 0, 1 (fn failed: the node is unfit), 2 (usage). */
typedef int (*lifecycle_fn)(const jobopts_t *o, const sched_t *sched);
int lifecycle_main(int argc, char **argv, const char *name, const char *usage,
                   lifecycle_fn fn);

#endif
