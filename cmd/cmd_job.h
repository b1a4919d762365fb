/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_job.h - the job as the node-level subcommands see it (run, postrun,
 * down-nodes, scavenge, index, status): settings, scheduler, launcher, the
 * job's nodes and the nodes known down.  A node once down stays down for the
 * allocation: the list is kept in the control directory of the node running
 * `scr run` (downnodes.scr, host -> reason).
 */
#ifndef SCR_CMD_JOB_H
#define SCR_CMD_JOB_H

#include "nodelist.h"
#include "jobopts.h"
#include "kvtree.h"
#include "launch.h"
#include "scheduler.h"

typedef struct {
    jobopts_t o;
    const sched_t *sched;
    const launcher_t *launcher;
    nodelist_t *nodes, *down;
    kvtree_t *reasons;
    char downfile[4400];
} cmd_job_t;

/* settings from the environment (prefix: SCR_PREFIX or the current
 * directory); with nodes, also the scheduler, the launcher, the job's nodes
 * and the saved down list.  One-line message naming the command on failure */
int cmd_job_init(cmd_job_t *j, const char *cmdname, int nodes);
void cmd_job_free(cmd_job_t *j);
/* refresh down: the saved list, the scheduler's view, health checks of the
 * rest (one `scr node-check` per node through the launcher); saves it */
void cmd_job_check_nodes(cmd_job_t *j);
/* scavenge the newest checkpoint from the live nodes if it is not on the
 * prefix (the recorded one), then index it */
int cmd_job_postrun(cmd_job_t *j);

#endif
