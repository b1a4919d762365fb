/* jobrec.h - what a run of the library leaves on each of its nodes for the
 * tools that act after it: the job epilog (Slurm, Flux), `scr postrun` and
 * `scr scavenge`.
 *
 *   <cntl_dir>/job.scrinfo    PREFIX <the prefix the run used>
 *                             NODES  <the run's nodes, compressed host list>
 *
 * A batch script may set SCR_PREFIX itself (or the application may, with
 * SCR_Config or a config file), so the prefix known when the job was
 * submitted is not always the one its checkpoints belong to.  Each node's
 * first rank writes the record at SCR_Init; the newest run wins.  NODES
 * tells the epilogs which nodes take part in the scavenge of that prefix
 * (a spare that never ran the application has no record and no cache).
 */
#ifndef SCR_JOBREC_H
#define SCR_JOBREC_H

#include <stddef.h>

#include "error.h"
#include "nodelist.h"

#define JOBREC_FILE "job.scrinfo"

int jobrec_write(const char *cntldir, const char *prefix, const char *nodes,
                 scr_error_t *err);

/* 1 with the recorded prefix (and *nodes if nodes is not NULL, NULL when the
 * record has none), 0 when no run recorded one, -1 with err for a damaged
 * record or one whose prefix is not an absolute, normal directory name */
int jobrec_read(const char *cntldir, char *prefix, size_t len, nodelist_t **nodes,
                scr_error_t *err);

#endif
