/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_job.c - the job seen by run/postrun/down-nodes/scavenge/index/status */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_job.h"
#include "io.h"
#include "lifecycle.h"
#include "pfs.h"
#include "scavenge.h"

int cmd_job_init(cmd_job_t *j, const char *cmdname, int nodes)
{
    char uid[32], cwd[4096];
    char *argv[] = {(char *)cmdname, "--uid", uid, NULL};
    scr_error_t err;
    memset(j, 0, sizeof(*j));
    /* the job's user: the scheduler's word, else whoever runs the command */
    const char *ju = getenv("SLURM_JOB_UID");
    if (!ju || !*ju)
        ju = getenv("FLUX_JOB_USERID");
    snprintf(uid, sizeof(uid), "%s", ju && *ju ? ju : "");
    if (!uid[0])
        snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
    if (!getenv("SLURM_JOB_ID") && !getenv("FLUX_JOB_ID") && !getenv("SCR_JOB_ID"))
        setenv("SCR_JOB_ID", "defjobid", 0); /* the library's default too */
    if (jobopts_parse(&j->o, 3, argv, &err) < 0) {
        fprintf(stderr, "scr %s: %s\n", cmdname, err.text);
        return -1;
    }
    if (!j->o.prefix[0]) {
        if (!getcwd(cwd, sizeof(cwd))) {
            fprintf(stderr, "scr %s: current directory: %s\n", cmdname, strerror(errno));
            return -1;
        }
        snprintf(j->o.prefix, sizeof(j->o.prefix), "%s", cwd);
    }
    if (!nodes)
        return 0;
    /* the job's nodes: only for commands that launch or judge nodes (not for
     * the per-node ones, which would each ask the scheduler again) */
    j->sched = sched_get(NULL);
    j->launcher = launch_get(NULL);
    if (!j->launcher) {
        fprintf(stderr, "scr %s: SCR_LAUNCHER=%s is not srun, flux or mpirun\n", cmdname,
                getenv("SCR_LAUNCHER"));
        return -1;
    }
    j->nodes = nodelist_new();
    j->down = nodelist_new();
    j->reasons = kvtree_new();
    if (j->sched->job_nodes(j->o.jobid, j->nodes, &err) < 0)
        nodelist_append(j->nodes, j->o.host);
    char dir[4200];
    jobopts_job_dir(&j->o, j->o.cntl_base, dir, sizeof(dir));
    snprintf(j->downfile, sizeof(j->downfile), "%s/downnodes.scr", dir);
    kvtree_read_file(j->downfile, j->reasons, NULL);
    for (kvtree_elem_t *e = kvtree_first(j->reasons); e; e = kvtree_elem_next(e))
        nodelist_append(j->down, kvtree_elem_key(e));
    return 0;
}

static void cmd_job_mark_down(cmd_job_t *j, const char *host, const char *reason,
                              int down)
{
    if (!down || nodelist_find(j->down, host) >= 0)
        return;
    nodelist_append(j->down, host);
    if (!kvtree_get(j->reasons, host))
        kvtree_util_set_str(j->reasons, host, reason);
}

void cmd_job_free(cmd_job_t *j)
{
    nodelist_delete(&j->nodes);
    nodelist_delete(&j->down);
    kvtree_delete(&j->reasons);
    jobopts_free(&j->o);
}

/* run `scr node-check` on nodes; hosts that answered join ok */
static void cmd_job_probe_some(cmd_job_t *j, const char *self, const nodelist_t *nodes,
                               nodelist_t *ok)
{
    char *args[] = {(char *)self, "node-check", NULL};
    argv_t cmd = {0};
    j->launcher->per_node(j->launcher, &cmd, nodes, 2, args);
    char *out = NULL;
    launch_run_said(cmd.argv, &out, "scr: node check");
    argv_free(&cmd);
    for (char *line = out, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "scr-node-ok ", 12) == 0)
            nodelist_append(ok, line + 12);
    }
    free(out);
}

/* one round of checks: every candidate at once, or each alone */
static void cmd_job_probe_round(cmd_job_t *j, const char *self, const nodelist_t *cand,
                                nodelist_t *ok)
{
    if (!j->launcher->all_or_nothing)
        cmd_job_probe_some(j, self, cand, ok);
    /* one launch over every node fails whole when the scheduler has just
     * taken one of them away (srun: "Requested node configuration is not
     * available"): then ask each node alone, so one lost node cannot hide
     * the health of the others */
    int alone = j->launcher->all_or_nothing ||
                (nodelist_count(ok) == 0 && nodelist_count(cand) > 1);
    for (int i = 0; alone && i < nodelist_count(cand); i++) {
        nodelist_t *one = nodelist_new();
        nodelist_append(one, nodelist_nth(cand, i));
        cmd_job_probe_some(j, self, one, ok);
        nodelist_delete(&one);
    }
}

/* `scr node-check` on every candidate; the ones that do not answer are down */
static void cmd_job_probe(cmd_job_t *j, const nodelist_t *cand)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0 || nodelist_count(cand) == 0)
        return;
    self[n] = '\0';
    nodelist_t *ok = nodelist_new();
    /* Right after a node died, the scheduler may refuse every new step
     * until it has settled: a check that no node answered is asked again
     * (three tries, 2 s apart) before the node list is kept as it is. */
    for (int attempt = 0; attempt < 3 && nodelist_count(ok) == 0; attempt++) {
        if (attempt > 0) {
            fprintf(stderr, "scr: the node health check answered from no node; "
                            "asking again in 2 s\n");
            sleep(2);
        }
        cmd_job_probe_round(j, self, cand, ok);
    }
    if (nodelist_count(ok) == 0) {
        fprintf(stderr, "scr: the node health check answered from no node; "
                        "keeping the node list as it is\n");
    } else {
        /* one sorted comparison: a search of ok per candidate was quadratic
         * in the job's nodes (bench/scr-model) */
        nodelist_t *failed = nodelist_minus(cand, ok);
        for (int i = 0; i < nodelist_count(failed); i++)
            cmd_job_mark_down(j, nodelist_nth(failed, i), "failed the SCR health check",
                              1);
        nodelist_delete(&failed);
    }
    nodelist_delete(&ok);
}

/* the scheduler's down nodes join j->down */
static void cmd_job_sched_down(cmd_job_t *j)
{
    scr_error_t err;
    nodelist_t *sd = nodelist_new();
    if (j->sched->down_nodes(j->nodes, sd, j->reasons, &err) < 0)
        fprintf(stderr, "scr: %s\n", err.text);
    for (int i = 0; i < nodelist_count(sd); i++)
        if (nodelist_find(j->down, nodelist_nth(sd, i)) < 0)
            nodelist_append(j->down, nodelist_nth(sd, i));
    nodelist_delete(&sd);
}

void cmd_job_check_nodes(cmd_job_t *j)
{
    scr_error_t err;
    const char *excl = getenv("SCR_EXCLUDE_NODES");
    nodelist_t *ex = excl && *excl ? nodelist_from_str(excl, &err) : NULL;
    if (excl && *excl && !ex)
        fprintf(stderr, "scr: SCR_EXCLUDE_NODES: %s\n", err.text);
    nodelist_t *out = nodelist_intersect(ex, j->nodes); /* none without ex */
    for (int i = 0; i < nodelist_count(out); i++)
        cmd_job_mark_down(j, nodelist_nth(out, i), "SCR_EXCLUDE_NODES", 1);
    nodelist_delete(&out);
    nodelist_delete(&ex);
    cmd_job_sched_down(j);
    nodelist_t *cand = nodelist_minus(j->nodes, j->down);
    if (!getenv("SCR_NO_HEALTH_CHECK")) {
        cmd_job_probe(j, cand);
        /* a node lost with the run may be declared down only while the
         * probes run (Slurm waits SlurmdTimeout): ask again */
        cmd_job_sched_down(j);
    }
    nodelist_delete(&cand);
    char *dir = strdup(j->downfile);
    *strrchr(dir, '/') = '\0';
    if (io_mkdir_p(dir, 0700, NULL) == 0 && kvtree_size(j->reasons) > 0)
        kvtree_write_file(j->downfile, j->reasons, NULL);
    free(dir);
}

/* what postrun's scavenge came to: the verdict of the node the scavenges
 * elected to index; when nobody was (a node's scavenge did not run), the
 * newest dataset copied is indexed here, and the verdict recorded, so that
 * no epilog waits for one */
static int cmd_job_postrun_index(cmd_job_t *j, int id)
{
    int vid = -1, ok = 0, rc;
    if (scavenge_job_verdict(j->o.prefix, j->o.jobid, &vid, &ok) == 0) {
        if (ok && vid != id)
            printf("scr postrun: dataset %d could not be completed; the older dataset %d "
                   "was scavenged and indexed\n",
                   id, vid);
        else
            printf("scr postrun: dataset %d %s\n", vid,
                   ok ? "scavenged and indexed" : "could not be completed");
        return ok ? 0 : -1;
    }
    rc = lifecycle_index(&j->o, id, 0);
    scavenge_mark(j->o.prefix, j->o.jobid, j->o.host, "INDEXED", id, NULL, NULL, NULL);
    scavenge_verdict(j->o.prefix, j->o.jobid, 0, id, rc == 0, NULL);
    printf("scr postrun: dataset %d %s\n", id,
           rc == 0 ? "scavenged and indexed" : "could not be completed");
    return rc;
}

/* every live node scavenges, knowing which nodes live: the partner copies of
 * ranks on a lost node are copied too, and the last node to finish indexes */
int cmd_job_postrun(cmd_job_t *j)
{
    char self[4096];
    jobopts_start_clock(&j->o); /* the index event's secs= count from here */
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    nodelist_t *live = nodelist_minus(j->nodes, j->down);
    char *livestr = nodelist_compress(live);
    if (!livestr) {
        nodelist_delete(&live);
        return -1;
    }
    /* an earlier postrun of this job (a second `scr run`) elected its
     * indexer and recorded its verdict: those are not this one's */
    lifecycle_use_recorded(&j->o, NULL);
    scavenge_marks_remove(j->o.prefix, j->o.jobid);
    char *args[] = {self, "scavenge", "--live", livestr, NULL};
    argv_t cmd = {0};
    j->launcher->per_node(j->launcher, &cmd, live, 4, args);
    printf("scr postrun: scavenging from %d nodes\n", nodelist_count(live));
    fflush(stdout);
    launch_run_said(cmd.argv, NULL, "scr postrun");
    argv_free(&cmd);
    nodelist_delete(&live);
    free(livestr);
    int id = scavenge_job_newest(j->o.prefix, j->o.jobid);
    if (id < 0) {
        printf("scr postrun: the newest checkpoint is already on %s\n", j->o.prefix);
        return 0;
    }
    return cmd_job_postrun_index(j, id);
}
