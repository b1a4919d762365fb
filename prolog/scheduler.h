/* SPDX-License-Identifier: BSD-3-Clause */
/* scheduler.h - what SCR's node tools ask the resource manager, behind one
 * interface so the prolog, epilog and `scr run` work the same under Slurm,
 * Flux or nothing at all.
 *
 * "none" knows only the environment: SCR_JOB_NODES (a host list) for the
 * job's nodes, SCR_DOWN_NODES for nodes known down; it never calls a job
 * ended (so nothing is purged) and cannot drain a node.
 */
#ifndef SCR_SCHEDULER_H
#define SCR_SCHEDULER_H

#include "error.h"
#include "nodelist.h"
#include "kvtree.h"

typedef struct {
    const char *name;
    /* the nodes allocated to jobid */
    int (*job_nodes)(const char *jobid, nodelist_t *nodes, scr_error_t *err);
    /* which of nodes the scheduler considers unusable (down, drained,
     * failing, not responding); reasons gains <host> -> reason */
    int (*down_nodes)(const nodelist_t *nodes, nodelist_t *down, kvtree_t *reasons,
                      scr_error_t *err);
    /* 0 only when jobid has certainly ended (its directories may go) */
    int (*job_alive)(const char *jobid, void *arg);
    /* take host out of service with reason */
    int (*drain)(const char *host, const char *reason, scr_error_t *err);
} sched_t;

/* by name ("slurm", "none"), or NULL: detected from the environment
 * (SLURM_JOB_ID -> slurm when built with Slurm, FLUX_JOB_ID -> flux, else
 * none) */
const sched_t *sched_get(const char *name);

extern const sched_t sched_none;
/* Flux needs no library: the flux command (flux-plugin/sched_flux.c) */
extern const sched_t sched_flux;
#ifdef SCR_HAVE_SLURM
extern const sched_t sched_slurm;
#endif

#endif
