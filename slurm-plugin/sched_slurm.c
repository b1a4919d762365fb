/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_slurm.c - the scheduler interface (prolog/scheduler.h) over libslurm */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "scheduler.h"

static void slurm_api_init(void)
{
    static int done;
    if (!done)
        slurm_init(NULL);
    done = 1;
}

static int slurm_job_nodes(const char *jobid, nodelist_t *nodes, scr_error_t *err)
{
    job_info_msg_t *resp = NULL;
    slurm_api_init();
    if (slurm_load_job(&resp, (uint32_t)strtoul(jobid, NULL, 10), SHOW_ALL) != 0 ||
        !resp || resp->record_count < 1) {
        if (resp)
            slurm_free_job_info_msg(resp);
        return errprintf(err, "job %s: %s", jobid, slurm_strerror(slurm_get_errno()));
    }
    const char *list = resp->job_array[0].nodes;
    int rc = list ? nodelist_expand(nodes, list, err)
                  : errprintf(err, "job %s has no nodes", jobid);
    slurm_free_job_info_msg(resp);
    return rc;
}

static int slurm_down_nodes(const nodelist_t *nodes, nodelist_t *down, kvtree_t *reasons,
                            scr_error_t *err)
{
    node_info_msg_t *resp = NULL;
    slurm_api_init();
    if (slurm_load_node(0, &resp, SHOW_ALL) != 0 || !resp)
        return errprintf(err, "node states: %s", slurm_strerror(slurm_get_errno()));
    for (uint32_t i = 0; i < resp->record_count; i++) {
        node_info_t *n = &resp->node_array[i];
        if (!n->name || nodelist_find(nodes, n->name) < 0)
            continue;
        uint32_t base = n->node_state & NODE_STATE_BASE;
        int bad = base == NODE_STATE_DOWN || base == NODE_STATE_UNKNOWN ||
                  (n->node_state &
                   (NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND));
        if (!bad)
            continue;
        nodelist_append(down, n->name);
        if (reasons)
            kvtree_util_set_str(reasons, n->name,
                                n->reason ? n->reason
                                : (n->node_state & NODE_STATE_NO_RESPOND)
                                    ? "not responding"
                                    : "down");
    }
    slurm_free_node_info_msg(resp);
    return 0;
}

static int slurm_job_alive(const char *jobid, void *arg)
{
    (void)arg;
    char *end;
    unsigned long id = strtoul(jobid, &end, 10);
    if (!*jobid || *end)
        return 1; /* not a Slurm job id: not ours to judge */
    job_info_msg_t *resp = NULL;
    slurm_api_init();
    if (slurm_load_job(&resp, (uint32_t)id, SHOW_ALL) != 0) {
        /* gone from slurmctld's memory: certainly over */
        return slurm_get_errno() == ESLURM_INVALID_JOB_ID ? 0 : 1;
    }
    int alive = 1;
    if (resp && resp->record_count > 0) {
        uint32_t st = resp->job_array[0].job_state;
        alive = !((st & JOB_STATE_BASE) >= JOB_COMPLETE && !(st & JOB_COMPLETING));
    }
    slurm_free_job_info_msg(resp);
    return alive;
}

static int slurm_drain(const char *host, const char *reason, scr_error_t *err)
{
    update_node_msg_t msg;
    slurm_api_init();
    slurm_init_update_node_msg(&msg);
    msg.node_names = (char *)host;
    msg.node_state = NODE_STATE_DRAIN;
    msg.reason = (char *)reason;
    if (slurm_update_node(&msg) != 0)
        return errprintf(err, "drain %s: %s", host, slurm_strerror(slurm_get_errno()));
    return 0;
}

const sched_t sched_slurm = {"slurm", slurm_job_nodes, slurm_down_nodes, slurm_job_alive,
                             slurm_drain};
