/* SPDX-License-Identifier: BSD-3-Clause */
/* scheduler.c - scheduler lookup and the environment-only scheduler */
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"

static int none_job_nodes(const char *jobid, nodelist_t *nodes, scr_error_t *err)
{
    (void)jobid;
    const char *env = getenv("SCR_JOB_NODES");
    if (!env || !*env)
        return errprintf(err, "the job's nodes are unknown (set SCR_JOB_NODES)");
    return nodelist_expand(nodes, env, err);
}

static int none_down_nodes(const nodelist_t *nodes, nodelist_t *down, kvtree_t *reasons,
                           scr_error_t *err)
{
    const char *env = getenv("SCR_DOWN_NODES");
    if (!env || !*env)
        return 0;
    nodelist_t *all = nodelist_from_str(env, err);
    if (!all)
        return -1;
    for (int i = 0; i < nodelist_count(all); i++)
        if (nodelist_find(nodes, nodelist_nth(all, i)) >= 0) {
            nodelist_append(down, nodelist_nth(all, i));
            if (reasons)
                kvtree_util_set_str(reasons, nodelist_nth(all, i), "SCR_DOWN_NODES");
        }
    nodelist_delete(&all);
    return 0;
}

static int none_job_alive(const char *jobid, void *arg)
{
    (void)jobid;
    (void)arg;
    return 1;
}

static int none_drain(const char *host, const char *reason, scr_error_t *err)
{
    (void)reason;
    return errprintf(err, "no scheduler to drain %s", host);
}

const sched_t sched_none = {"none", none_job_nodes, none_down_nodes, none_job_alive,
                            none_drain};

const sched_t *sched_get(const char *name)
{
#ifdef SCR_HAVE_SLURM
    if (name ? strcmp(name, "slurm") == 0 : getenv("SLURM_JOB_ID") != NULL)
        return &sched_slurm;
#endif
    if (name ? strcmp(name, "flux") == 0
             : getenv("FLUX_JOB_ID") != NULL || getenv("FLUX_URI") != NULL)
        return &sched_flux;
    if (!name || strcmp(name, "none") == 0)
        return &sched_none;
    return NULL;
}
