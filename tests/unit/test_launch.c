/* SPDX-License-Identifier: BSD-3-Clause */
/* test_launch.c - launch_run and launch_run_said (cmd/launch.c): exit
 * statuses, captured output, and a wait that says what it waits for; the
 * srun command lines scr run builds; launch_run_deadline's watchdog: a
 * launch with no sign of progress is stopped after its timeout, not
 * before, counted from the last sign, with the longer timeout after a sign
 * that said the next may take the file system's time */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "launch.h"
#include "tap.h"
#include "units.h"

/* run f with stdout going to a file; returns what it printed (static) */
static const char *captured(int (*f)(void *), void *arg, int *rc)
{
    static char got[8192];
    char path[] = "/tmp/test_launch.XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    *rc = f(arg);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ssize_t n = pread(fd, got, sizeof(got) - 1, 0);
    got[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return got;
}

static char *sleeper[] = {"sh", "-c", "sleep 5.6; echo done-sleeping", NULL};

static int run_said(void *out)
{
    return launch_run_said(sleeper, out, "tester");
}

static int run_quiet(void *out)
{
    (void)out;
    return launch_run((char *[]){"sh", "-c", "exit 3", NULL}, NULL);
}

/* argv joined by blanks (static) */
static const char *joined(const argv_t *a)
{
    static char s[1024];
    s[0] = '\0';
    for (int i = 0; i < a->argc; i++)
        snprintf(s + strlen(s), sizeof(s) - strlen(s), "%s%s", i ? " " : "", a->argv[i]);
    return s;
}

/* a first run keeps Slurm's step sharing rules; a relaunch and scr's own
 * per-node steps share CPUs, which a step of the failed run can hold until
 * the job ends (slurm_ghost_note in launch.c) */
static void test_srun_lines(void)
{
    const launcher_t *l = launch_get("srun");
    nodelist_t *nodes = nodelist_from_str("node[1-2,4]", NULL), *none = nodelist_new();
    char *app[] = {"--mpi=pmix", "./app"};
    launch_where_t w = {nodes, none, 1, 1, 0};
    argv_t a = {0};
    l->app(l, &a, &w, 2, app);
    ok(strcmp(joined(&a), "srun --kill-on-bad-exit=1 --nodes=3 --nodelist=node[1-2,4] "
                          "--mpi=pmix ./app") == 0,
       "first run: %s", joined(&a));
    argv_free(&a);
    w.relaunch = 1;
    l->app(l, &a, &w, 2, app);
    ok(strstr(joined(&a), "srun --kill-on-bad-exit=1 --overlap --nodes=3 ") == joined(&a),
       "relaunch: %s", joined(&a));
    argv_free(&a);
    /* no spares: every live node, the lost one left out, with their count */
    nodelist_t *down = nodelist_from_str("node3", NULL);
    launch_where_t wx = {nodes, down, 0, 1, 1};
    l->app(l, &a, &wx, 2, app);
    ok(strcmp(joined(&a), "srun --kill-on-bad-exit=1 --overlap --nodes=3 --exclude=node3 "
                          "--mpi=pmix ./app") == 0,
       "relaunch without spares: %s", joined(&a));
    argv_free(&a);
    nodelist_delete(&down);
    char *check[] = {"scr", "node-check"};
    l->per_node(l, &a, nodes, 2, check);
    ok(strcmp(joined(&a), "srun --nodes=3 --ntasks=3 --ntasks-per-node=1 "
                          "--kill-on-bad-exit=0 --overlap --mpi=none "
                          "--nodelist=node[1-2,4] scr node-check") == 0,
       "per node: %s", joined(&a));
    argv_free(&a);
    nodelist_delete(&nodes);
    nodelist_delete(&none);
}

/* progress signs: every look until stop seconds after the launch, with
 * pfs as given; none after */
typedef struct {
    double t0, stop;
    int pfs, looks;
} signs_t;

static int signs(void *arg, int *pfs)
{
    signs_t *g = arg;
    g->looks++;
    if (scr_now() - g->t0 >= g->stop)
        return 0;
    *pfs = g->pfs;
    return 1;
}

/* a launch of `sleep 60` under a watchdog; returns its seconds */
static double watched(double watch, double watch_pfs, signs_t *g, int *stopped, int *rc)
{
    launch_deadline_t dl = {0, NULL, g, watch, watch_pfs, signs};
    g->t0 = scr_now();
    *rc = launch_run_deadline((char *[]){"sleep", "60", NULL}, &dl, stopped);
    return scr_now() - g->t0;
}

static void test_watchdog(void)
{
    int stopped, rc;
    signs_t g = {0, 0, 0, 0};
    double t = watched(1, 0, &g, &stopped, &rc);
    ok(stopped == LAUNCH_NO_PROGRESS && rc == 128 + 15 && t >= 1 && t < 30,
       "no sign: stopped by SIGTERM after the 1 s timeout (%.1f s, status %d)", t, rc);
    g = (signs_t){0, 2.5, 0, 0};
    t = watched(1, 0, &g, &stopped, &rc);
    /* looks a second apart see the last sign 1.5 s in at the earliest */
    ok(stopped == LAUNCH_NO_PROGRESS && t >= 2.5 && t < 30,
       "signs for 2.5 s: stopped 1 s after the last seen (%.1f s)", t);
    ok(g.looks >= 2 && g.looks <= 10, "asked once a second at most (%d looks)", g.looks);
    g = (signs_t){0, 0.5, 1, 0};
    t = watched(1, 3, &g, &stopped, &rc);
    ok(stopped == LAUNCH_NO_PROGRESS && t >= 3 && t < 30,
       "a sign for the file system: its 3 s timeout, not 1 s (%.1f s)", t);
    launch_deadline_t dl = {0, NULL, &g, 1, 0, signs};
    g = (signs_t){scr_now(), 0, 0, 0};
    rc = launch_run_deadline((char *[]){"true", NULL}, &dl, &stopped);
    ok(rc == 0 && stopped == LAUNCH_RAN, "a run that ends in time is not stopped");
}

int main(void)
{
    test_watchdog();
    test_srun_lines();
    int rc;
    char *out = NULL;
    const char *said = captured(run_said, &out, &rc);
    ok(rc == 0, "the step's exit status: %d", rc);
    ok(out && strcmp(out, "done-sleeping\n") == 0, "its output captured: %s",
       out ? out : "");
    ok(strstr(said,
              "tester: still waiting after 5 s for sh -c sleep 5.6; echo done-sleeping "
              "(pid ") != NULL,
       "a wait of 5 s says what it waits for: %s", said);
    ok(strstr(said, "after 10 s") == NULL, "once in 5.6 s");
    free(out);
    said = captured(run_quiet, NULL, &rc);
    ok(rc == 3 && said[0] == '\0', "launch_run is quiet and returns the status (%d)", rc);
    ok(launch_run((char *[]){"/nonexistent/prog", NULL}, NULL) == 127,
       "a missing program: 127");
    ok(launch_run((char *[]){"sh", "-c", "kill -9 $$", NULL}, NULL) == 137,
       "killed: 128+9");
    return done_testing();
}
