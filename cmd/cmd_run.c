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

/* What scr run watches a launch by, on the prefix (launch_deadline_t).
 * SCR_START_TIMEOUT: a launch has started once this run's SCR_Init has
 * rewritten nodes.scr (rank 0 does, every run).  SCR_WATCHDOG: a run shows
 * progress each time flush.scr changes (rank 0 marks each dataset there as
 * it completes, and again as a flush starts and ends), as LLNL SCR's
 * watchdog reads it.  Each file is compared with itself before the launch,
 * not with the clock: a parallel file system's clock need not be this
 * node's. */
typedef struct {
    char path[4400];
    struct stat st;
    int exists;
} run_file_t;

typedef struct {
    run_file_t nodes, flush;
    int pfs; /* flush.scr's newest dataset is on its way to the prefix */
} run_watch_t;

static void run_file_init(run_file_t *f, const char *prefix, const char *name)
{
    pfs_meta_path(prefix, name, f->path, sizeof(f->path));
    f->exists = stat(f->path, &f->st) == 0;
}

/* 1 when f changed since run_file_init or the last 1, remembering it */
static int run_file_changed(run_file_t *f)
{
    struct stat st;
    if (stat(f->path, &st) < 0)
        return 0;
    int changed = !f->exists || st.st_ino != f->st.st_ino ||
                  st.st_size != f->st.st_size ||
                  st.st_mtim.tv_sec != f->st.st_mtim.tv_sec ||
                  st.st_mtim.tv_nsec != f->st.st_mtim.tv_nsec;
    f->st = st;
    f->exists = 1;
    return changed;
}

static int run_started(void *arg)
{
    run_watch_t *w = arg;
    return run_file_changed(&w->nodes);
}

static int run_progress(void *arg, int *pfs)
{
    run_watch_t *w = arg;
    if (!run_file_changed(&w->flush))
        return 0;
    kvtree_t *t = kvtree_new();
    if (kvtree_read_with_lock(w->flush.path, t, NULL) == 0)
        w->pfs = flushfile_newest_on_pfs(t);
    *pfs = w->pfs;
    kvtree_delete(&t);
    return 1;
}

/* seconds from the environment variable name (0 when unset), or -1 after
 * saying what is wrong */
static double run_seconds(const char *name)
{
    const char *v = getenv(name);
    double secs = 0;
    if (v && *v && (units_parse_double(v, &secs) < 0 || secs < 0)) {
        fprintf(stderr, "scr run: %s=%s: not a number of seconds\n", name, v);
        return -1;
    }
    return secs;
}

/* the watch of every launch from the environment; -1 after saying what is
 * wrong.  As in LLNL SCR, SCR_WATCHDOG=1 turns the watchdog on;
 * SCR_WATCHDOG_TIMEOUT_PFS defaults to SCR_WATCHDOG_TIMEOUT. */
static int run_watch_config(launch_deadline_t *dl)
{
    memset(dl, 0, sizeof(*dl));
    dl->secs = run_seconds("SCR_START_TIMEOUT");
    dl->watch = run_seconds("SCR_WATCHDOG_TIMEOUT");
    dl->watch_pfs = run_seconds("SCR_WATCHDOG_TIMEOUT_PFS");
    if (dl->secs < 0 || dl->watch < 0 || dl->watch_pfs < 0)
        return -1;
    const char *on = getenv("SCR_WATCHDOG");
    if (!on || atoi(on) == 0) {
        if (dl->watch > 0 || dl->watch_pfs > 0)
            printf("scr run: SCR_WATCHDOG_TIMEOUT is set but SCR_WATCHDOG is not 1: no "
                   "watchdog\n");
        dl->watch = dl->watch_pfs = 0;
    } else if (dl->watch <= 0) {
        fprintf(stderr,
                "scr run: SCR_WATCHDOG=%s needs SCR_WATCHDOG_TIMEOUT (seconds a "
                "run may go without completing a dataset)\n",
                on);
        return -1;
    }
    dl->started = run_started;
    dl->progress = run_progress;
    return 0;
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
    launch_deadline_t dl;
    if (want < 0 || run_watch_config(&dl) < 0) {
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
        run_watch_t watch;
        run_file_init(&watch.nodes, j.o.prefix, "nodes.scr");
        run_file_init(&watch.flush, j.o.prefix, "flush.scr");
        watch.pfs = 0;
        dl.arg = &watch;
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
        if (stopped == LAUNCH_NO_START)
            printf("scr run: run %d did not reach SCR_Init within %g s "
                   "(SCR_START_TIMEOUT); stopped it\n",
                   attempt, dl.secs);
        else if (stopped == LAUNCH_NO_PROGRESS) {
            int on_pfs;
            double limit = launch_watch_limit(&dl, watch.pfs, &on_pfs);
            printf("scr run: run %d completed no dataset for %g s "
                   "(SCR_WATCHDOG_TIMEOUT%s); stopped it\n",
                   attempt, limit, on_pfs ? "_PFS" : "");
        } else
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
