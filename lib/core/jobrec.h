/* SPDX-License-Identifier: BSD-3-Clause */
/* jobrec.h - what a run of the library leaves on each of its nodes for the
 * tools that act after it: the job epilog (Slurm, Flux), `scr postrun` and
 * `scr scavenge`.
 *
 *   <cntl_dir>/job.scrinfo    PREFIX <the prefix the run used>
 *                             NODES  <the run's nodes, compressed host list>
 *                             FLUSH_DIRECT 0  (only when the run set
 *                                    SCR_FLUSH_DIRECT=0: the scavenge then
 *                                    writes through the page cache too)
 *                             STORE  <base> ... every store (cache base) a
 *                                    run of the job used on this node
 *
 * A batch script may set SCR_PREFIX itself (or the application may, with
 * SCR_Config or a config file), so the prefix known when the job was
 * submitted is not always the one its checkpoints belong to.  Each node's
 * first rank writes the record at SCR_Init; the newest run wins.  NODES
 * tells the epilogs which nodes take part in the scavenge of that prefix
 * (a spare that never ran the application has no record and no cache).
 * STORE tells the epilog every cache it must scavenge from and remove: a
 * config file may name stores the scheduler's plugin was never told about.
 * Stores accumulate over the job's runs (a later run may use others).
 */
#ifndef SCR_JOBREC_H
#define SCR_JOBREC_H

#include <stddef.h>

#include "error.h"
#include "nodelist.h"

#define JOBREC_FILE "job.scrinfo"

/* record prefix, nodes and the run's SCR_FLUSH_DIRECT, keeping the stores
 * already recorded */
int jobrec_write(const char *cntldir, const char *prefix, const char *nodes, int direct,
                 scr_error_t *err);
/* add the n store bases (absolute directories) to the record */
int jobrec_add_stores(const char *cntldir, const char *const *bases, int n,
                      scr_error_t *err);

/* 1 with the recorded prefix (and *nodes if nodes is not NULL, NULL when the
 * record has none), 0 when no run recorded one, -1 with err for a damaged
 * record or one whose prefix is not an absolute, normal directory name */
int jobrec_read(const char *cntldir, char *prefix, size_t len, nodelist_t **nodes,
                scr_error_t *err);

/* 0 if the newest run set SCR_FLUSH_DIRECT=0, else 1 (also without a
 * record: the scavenge copies past the prefix's page cache as flushes do) */
int jobrec_read_direct(const char *cntldir);

/* The recorded stores: *bases (malloc'd, free with jobrec_free_stores) gets
 * them; returns how many (0 without a record), or -1 with err for a damaged
 * record or a store that is not an absolute, reduced directory name. */
int jobrec_read_stores(const char *cntldir, char ***bases, scr_error_t *err);
void jobrec_free_stores(char **bases, int n);

#endif
