/* SPDX-License-Identifier: BSD-3-Clause */
/* job_submit_scr.c - the Slurm job_submit plugin job_submit/scr: what a job
 * submitted with --scr=on needs from slurmctld, so that `sbatch --scr=on`
 * needs no other flag.
 *
 *  - The job keeps running when one of its nodes fails (kill_on_node_fail=0,
 *    what --no-kill does), so `scr run` can relaunch inside it.
 *  - --scr-spares=N adds N nodes to the job's node count (minimum and
 *    maximum); the job sees SCR_SPARES=N (set by the SPANK plugin) and
 *    `scr run` keeps those nodes as spares.
 *  - A bad --scr or --scr-spares value is refused with the line the SPANK
 *    plugin prints for it, so a client that bypassed the SPANK plugin cannot
 *    get a job queued that the nodes would treat differently.
 *
 * The options arrive in the job's control environment (spank_job_env):
 * Slurm's copy of each SPANK option given at submission
 * (_SLURM_SPANK_OPTION_scr_scr, _SLURM_SPANK_OPTION_scr_scr_spares; the
 * prolog and the job's steps read the same copy), and SCR_ENABLE=1, which
 * the SPANK plugin adds for every job it turns on (default=on included).
 * A job with neither is left exactly as it came.
 *
 * slurm.conf: JobSubmitPlugins=scr, with this file in a PluginDir directory.
 * Only public Slurm types are used; the user message is allocated with
 * libslurm's slurm_xstrdup because slurmctld frees it with xfree.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/spank.h> /* slurm_info(), slurm_error(): libslurm's log */

#include "job_submit_parts.h"
#include "scr_opts.h"

const char plugin_name[] = "SCR: --scr=on jobs survive node failures, --scr-spares";
const char plugin_type[] = "job_submit/scr";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* exported by libslurm (slurmctld's copy), not declared in its headers */
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **item);

/* the name Slurm gives the copy of SPANK option OPT of the plugin scr */
#define SCR_OPTION_ENV(opt) "_SLURM_SPANK_OPTION_scr_" opt

struct job_record; /* slurmctld's; job_modify only passes it through */

int init(void)
{
    slurm_info("%s: loaded", plugin_type);
    return job_submit_parts_start() == 0 ? SLURM_SUCCESS : SLURM_ERROR;
}

void fini(void)
{
    job_submit_parts_stop();
}

/* the value of NAME in the job control environment, or NULL */
static const char *js_env(const job_desc_msg_t *jd, const char *name)
{
    size_t len = strlen(name);
    for (uint32_t i = 0; jd->spank_job_env && i < jd->spank_job_env_size; i++) {
        const char *e = jd->spank_job_env[i];
        if (e && strncmp(e, name, len) == 0 && e[len] == '=')
            return e + len + 1;
    }
    return NULL;
}

/* add text to the message slurmctld shows the submitting user (after what
 * another job_submit plugin may have put there) */
static void js_tell(char **err_msg, const char *text)
{
    if (!err_msg)
        return;
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s%s%s", *err_msg ? *err_msg : "", *err_msg ? "\n" : "",
             text);
    if (*err_msg)
        slurm_xfree((void **)err_msg);
    *err_msg = slurm_xstrdup(buf);
}

static int js_refuse(char **err_msg, uint32_t uid, int rc, const char *text)
{
    slurm_info("%s: refused a job of uid %u: %s", plugin_type, uid, text);
    js_tell(err_msg, text);
    return rc;
}

/* is SCR on for the job: the --scr option if given, else what the SPANK
 * plugin decided (SCR_ENABLE); -1 with msg for a bad value */
static int js_scr_on(const job_desc_msg_t *jd, char *msg, size_t len)
{
    const char *opt = js_env(jd, SCR_OPTION_ENV("scr"));
    const char *enable = js_env(jd, "SCR_ENABLE");
    if (opt)
        return scr_opts_onoff(opt, msg, len);
    return enable ? scr_opts_onoff(enable, msg, len) : 0;
}

/* raise the job's node count by spares; a refusal's code with msg */
static int js_add_spares(job_desc_msg_t *jd, int spares, char *msg, size_t len)
{
    if (jd->min_nodes == NO_VAL || jd->min_nodes == 0) {
        snprintf(msg, len,
                 "--scr-spares=%d needs a node count (-N): the spares are nodes "
                 "beyond it",
                 spares);
        return ESLURM_JOB_MISSING_SIZE_SPECIFICATION;
    }
    if ((uint64_t)jd->min_nodes + (uint64_t)spares >= NO_VAL) {
        snprintf(msg, len, "--scr-spares=%d: more nodes than Slurm can count", spares);
        return ESLURM_INVALID_NODE_COUNT;
    }
    uint32_t run = jd->min_nodes, all = run + (uint32_t)spares;
    char part[128] = "";
    uint32_t max = job_submit_parts_max(jd->partition, part, sizeof(part));
    if (max > 0 && all > max) {
        snprintf(msg, len,
                 "--scr-spares=%d: %u nodes to run on and %d spare%s are %u, more than "
                 "partition %s has for a job (%u)",
                 spares, run, spares, spares == 1 ? "" : "s", all, part, max);
        return ESLURM_INVALID_NODE_COUNT;
    }
    jd->min_nodes = all;
    /* a maximum (-N4-6, or -N4 = 4-4) grows with it; none stays none */
    if (jd->max_nodes != NO_VAL && jd->max_nodes != 0 && jd->max_nodes != INFINITE &&
        (uint64_t)jd->max_nodes + (uint64_t)spares < NO_VAL)
        jd->max_nodes += (uint32_t)spares;
    /* for the submitter: sbatch prints it when it prints the job id, so
     * the job's size in squeue is no surprise */
    snprintf(msg, len,
             "--scr-spares=%d: the job asks for %u nodes, %u to run on and %d spare%s",
             spares, jd->min_nodes, run, spares, spares == 1 ? "" : "s");
    return SLURM_SUCCESS;
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
    char msg[512];
    const char *spares_s = js_env(job_desc, SCR_OPTION_ENV("scr_spares"));
    int on = js_scr_on(job_desc, msg, sizeof(msg)), spares = -1;
    if (on < 0)
        return js_refuse(err_msg, submit_uid, ESLURM_NOT_SUPPORTED, msg);
    if (spares_s && (spares = scr_opts_spares(spares_s, msg, sizeof(msg))) < 0)
        return js_refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT, msg);
    /* a job that asks for spares expects to survive a node failure:
     * without --scr=on it would get neither, so it is refused (=0 too: the
     * rule is simpler to state) */
    if (!on && spares >= 0) {
        scr_opts_spares_need_scr(spares_s, msg, sizeof(msg));
        return js_refuse(err_msg, submit_uid, ESLURM_NOT_SUPPORTED, msg);
    }
    if (!on)
        return SLURM_SUCCESS;
    job_desc->kill_on_node_fail = 0;
    if (spares <= 0) {
        slurm_info("%s: uid %u: --scr=on: the job is not killed when a node fails",
                   plugin_type, submit_uid);
        return SLURM_SUCCESS;
    }
    int rc = js_add_spares(job_desc, spares, msg, sizeof(msg));
    if (rc != SLURM_SUCCESS)
        return js_refuse(err_msg, submit_uid, rc, msg);
    slurm_info("%s: uid %u: --scr=on: the job is not killed when a node fails; %s",
               plugin_type, submit_uid, msg);
    js_tell(err_msg, msg);
    return SLURM_SUCCESS;
}

/* an update of a job (scontrol update) is left alone: the spares were added
 * at submission and a user who changes the node count now means it */
int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid)
{
    (void)job_desc;
    (void)job_ptr;
    (void)submit_uid;
    return SLURM_SUCCESS;
}
