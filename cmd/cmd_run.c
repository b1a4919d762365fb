/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_run.c - `scr run` (also scr_srun), `scr prerun`, `scr postrun`
 * (guide 2.23-2.25, 2.33): launch the application, relaunch it inside the
 * allocation after a failure without the nodes that failed, then make sure
 * the newest checkpoint reaches the prefix.
 *
 * A run uses the node count of the user's -N, else the job's nodes minus
 * SCR_SPARES (set by `--scr-spares=N`), on the first healthy nodes in the
 * job's order; the rest wait as spares for a relaunch.  Without either, the
 * launcher gets every healthy node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_job.h"
#include "halt.h"
#include "kvtree.h"
#include "launch.h"
#include "lifecycle.h"
#include "log.h"
#include "pfs.h"
#include "units.h"

/* SCR_START_TIMEOUT: a launch has started once this run's SCR_Init has
 * rewritten the prefix's nodes.scr (rank 0 does, every run).  The file is
 * compared with itself before the launch, not with the clock: a parallel
 * file system's clock need not be this node's. */
typedef struct {
    char path[4400];
    struct stat before;
    int existed;
} run_start_t;

static void run_start_init(run_start_t *s, const char *prefix)
{
    pfs_meta_path(prefix, "nodes.scr", s->path, sizeof(s->path));
    s->existed = stat(s->path, &s->before) == 0;
}

static int run_started(void *arg)
{
    const run_start_t *s = arg;
    struct stat st;
    if (stat(s->path, &st) < 0)
        return 0;
    return !s->existed || st.st_ino != s->before.st_ino ||
           st.st_mtim.tv_sec != s->before.st_mtim.tv_sec ||
           st.st_mtim.tv_nsec != s->before.st_mtim.tv_nsec;
}

/* the deadline's seconds (0: none), or -1 after saying what is wrong */
static double run_start_timeout(void)
{
    const char *v = getenv("SCR_START_TIMEOUT");
    double secs = 0;
    if (v && *v && (units_parse_double(v, &secs) < 0 || secs < 0)) {
        fprintf(stderr, "scr run: SCR_START_TIMEOUT=%s: not a number of seconds\n", v);
        return -1;
    }
    return secs;
}

/* a halt condition that holds now, with its reason in buf.  Before the
 * first launch, SCR_FINALIZE_CALLED is an earlier run's (a job script may
 * run `scr run` twice); after a launch of ours it says ours finished. */
static int run_halted(const cmd_job_t *j, int launched, char *buf, size_t len)
{
    kvtree_t *t = kvtree_new();
    int held = 0;
    const char *hs = getenv("SCR_HALT_SECONDS");
    if (halt_read(j->o.prefix, t, NULL) == 0)
        held = halt_check(t, time(NULL), 0, hs ? atol(hs) : 0,
                          launched ? 0 : HALT_IGNORE_FINISHED, buf, len) > 0;
    kvtree_delete(&t);
    return held;
}

/* An earlier run's SCR_FINALIZE_CALLED is cleared before each launch, as
 * SCR_Init clears it: a run that dies before its SCR_Init (at MPI_Init)
 * would otherwise leave it standing, and the check after the run would take
 * it for this run's and not relaunch. */
static void run_clear_finished(const cmd_job_t *j)
{
    scr_error_t err;
    if (halt_clear_finished(j->o.prefix, NULL, 0, &err) < 0)
        fprintf(stderr, "scr run: cannot clear SCR_FINALIZE_CALLED in %s: %s\n",
                j->o.prefix, err.text);
}

int cmd_prerun(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_job_t j;
    if (cmd_job_init(&j, "prerun", 0) < 0)
        return 1;
    char reason[256];
    int rc = 0;
    if (access(j.o.prefix, W_OK | X_OK) < 0) {
        fprintf(stderr, "scr prerun: prefix %s is not writable\n", j.o.prefix);
        rc = 1;
    } else if (run_halted(&j, 0, reason, sizeof(reason))) {
        fprintf(stderr, "scr prerun: halt condition holds (%s); not launching\n", reason);
        rc = 3;
    }
    cmd_job_free(&j);
    return rc;
}

/* nodes the next run may use; 0 if enough remain */
static int run_plan(cmd_job_t *j, int needed, nodelist_t **live)
{
    cmd_job_check_nodes(j);
    *live = nodelist_minus(j->nodes, j->down);
    int have = nodelist_count(*live);
    if (needed > 0 && have < needed) {
        char *down = nodelist_compress(j->down);
        fprintf(stderr,
                "scr run: %d healthy nodes left (down: %s), %d needed; not relaunching\n",
                have, down, needed);
        free(down);
        return -1;
    }
    return 0;
}

static int run_needed(const cmd_job_t *j)
{
    const char *env = getenv("SCR_MIN_NODES");
    if (env && *env)
        return atoi(env);
    char path[4200];
    kvtree_t *t = kvtree_new();
    int n = 0;
    pfs_meta_path(j->o.prefix, "nodes.scr", path, sizeof(path));
    if (kvtree_read_file(path, t, NULL) == 0)
        kvtree_util_get_int(t, "NODES", &n);
    kvtree_delete(&t);
    return n;
}

/* the nodes a run uses (0: every healthy one, the launcher decides), or -1
 * when SCR_SPARES is bad; *user tells whether the user's -N said it */
static int run_want(const cmd_job_t *j, int uargc, char **uargv, int *user)
{
    int n = launch_user_nodes(j->launcher, uargc, uargv);
    *user = n > 0;
    const char *env = getenv("SCR_SPARES");
    if (n > 0 || !env || !*env)
        return n;
    char *end;
    long spares = strtol(env, &end, 10);
    int all = nodelist_count(j->nodes);
    if (*end || end == env || spares < 0) {
        fprintf(stderr, "scr run: SCR_SPARES=%s is not a number of nodes\n", env);
        return -1;
    }
    if (spares >= all) {
        fprintf(stderr,
                "scr run: SCR_SPARES=%s leaves none of the job's %d nodes to run on\n",
                env, all);
        return -1;
    }
    return all - (int)spares;
}

/* the first n of live, in the job's order */
static nodelist_t *run_pick(const nodelist_t *live, int n)
{
    nodelist_t *use = nodelist_new();
    for (int i = 0; i < nodelist_count(live) && i < n; i++)
        nodelist_append(use, nodelist_nth(live, i));
    return use;
}

int cmd_run(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--") == 0)
        first = 2;
    if (argc <= first)
        return cmd_usage("run");
    cmd_job_t j;
    if (cmd_job_init(&j, "run", 1) < 0)
        return 1;
    const char *runs_env = getenv("SCR_RUNS");
    int runs = runs_env && *runs_env ? atoi(runs_env) : 1, rc = 1, attempt, user_n;
    int want = run_want(&j, argc - first, argv + first, &user_n);
    char reason[256];
    double start_secs = run_start_timeout();
    if (want < 0 || start_secs < 0) {
        cmd_job_free(&j);
        return 1;
    }
    /* the decision's time: from scr run's start or the last run's end to
     * the launch (the halt check, the node probes, the plan) */
    double decide0 = scr_now();
    for (attempt = 1; runs < 0 || attempt <= runs; attempt++) {
        nodelist_t *live = NULL, *use = NULL;
        if (run_halted(&j, attempt > 1, reason, sizeof(reason))) {
            printf("scr run: halt condition holds (%s); not launching\n", reason);
            break;
        }
        run_clear_finished(&j);
        /* the first run needs what SCR_MIN_NODES says; later ones also
         * what the last run used */
        const char *min = getenv("SCR_MIN_NODES");
        int needed = attempt > 1 || (min && *min) ? run_needed(&j) : 0;
        /* a count the user gave is a must; the one from the spares too,
         * unless SCR_MIN_NODES allows fewer */
        if (want > needed && (user_n || !(min && *min)))
            needed = want;
        if (run_plan(&j, needed, &live) < 0) {
            nodelist_delete(&live);
            break;
        }
        if (want > 0)
            use = run_pick(live, want);
        launch_where_t where = {use ? use : live, j.down, use != NULL, !user_n,
                                attempt > 1};
        argv_t cmd = {0};
        j.launcher->app(j.launcher, &cmd, &where, argc - first, argv + first);
        char *hosts = nodelist_compress(where.nodes);
        printf("scr run: run %d on %s (decided in %.2f s)\n", attempt, hosts,
               scr_now() - decide0);
        fflush(stdout);
        free(hosts);
        run_start_t st;
        run_start_init(&st, j.o.prefix);
        launch_deadline_t dl = {start_secs, run_started, &st};
        int stopped;
        rc = launch_run_deadline(cmd.argv, &dl, &stopped);
        decide0 = scr_now();
        argv_free(&cmd);
        nodelist_delete(&use);
        nodelist_delete(&live);
        /* the halt file that tells whether the run finished is in its prefix */
        lifecycle_use_recorded(&j.o, NULL);
        if (rc == 0) {
            printf("scr run: run %d succeeded\n", attempt);
            break;
        }
        if (stopped)
            printf("scr run: run %d did not reach SCR_Init within %g s "
                   "(SCR_START_TIMEOUT); stopped it\n",
                   attempt, start_secs);
        else
            printf("scr run: run %d exited with status %d\n", attempt, rc);
        fflush(stdout);
    }
    if (runs >= 0 && attempt > runs && rc != 0)
        printf("scr run: SCR_RUNS=%d runs used up\n", runs);
    cmd_job_postrun(&j);
    cmd_job_free(&j);
    return rc;
}

int cmd_postrun(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_job_t j;
    if (cmd_job_init(&j, "postrun", 1) < 0)
        return 1;
    cmd_job_check_nodes(&j);
    int rc = cmd_job_postrun(&j);
    cmd_job_free(&j);
    return rc < 0 ? 1 : 0;
}
