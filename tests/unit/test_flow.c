/* SPDX-License-Identifier: BSD-3-Clause */
/* test_flow.c - the flush/fetch window: every process works once, no more
 * than width at a time, rank 0 inside the first window (not alone before
 * it), and after a failure later processes skip their work and everyone
 * gets the same verdict.  Run under mpirun with any number of processes;
 * the processes share a scratch directory to record what ran. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "flow.h"

typedef struct {
    const char *dir;
    int test, rank, fail_rank, wait_for_1;
} job_t;

static void path_of(char *buf, size_t len, const job_t *j, const char *what, int rank)
{
    snprintf(buf, len, "%s/%d.%s.%d", j->dir, j->test, what, rank);
}

/* the shared count of processes at work, and its high-water mark */
static void tally(const job_t *j, int delta)
{
    char p[512];
    int now = 0, max = 0;
    path_of(p, sizeof(p), j, "tally", 0);
    int fd = open(p, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || flock(fd, LOCK_EX) < 0)
        exit(2);
    FILE *fp = fdopen(fd, "r+");
    if (fscanf(fp, "%d %d", &now, &max) != 2)
        now = max = 0;
    now += delta;
    max = now > max ? now : max;
    rewind(fp);
    fprintf(fp, "%d %d\n", now, max);
    fflush(fp);
    fclose(fp); /* drops the lock */
}

static int exists(const char *p)
{
    return access(p, F_OK) == 0;
}

static int work(void *arg)
{
    const job_t *j = arg;
    char p[512];
    path_of(p, sizeof(p), j, "ran", j->rank);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        exit(3); /* ran twice */
    close(fd);
    tally(j, 1);
    /* "in" once counted: rank 0 leaves only after rank 1 is in, so both are
     * counted at once whatever the scheduler does */
    path_of(p, sizeof(p), j, "in", j->rank);
    if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0)
        exit(3);
    close(fd);
    struct timespec ms = {0, 1000000};
    if (j->wait_for_1) { /* rank 1 must be at work while rank 0 is */
        path_of(p, sizeof(p), j, "in", 1);
        for (int i = 0; i < 20000 && !exists(p); i++)
            nanosleep(&ms, NULL);
    }
    for (int i = 0; i < 30; i++)
        nanosleep(&ms, NULL);
    tally(j, -1);
    if (j->wait_for_1 && !exists(p))
        return -1;
    return j->rank == j->fail_rank ? -1 : 0;
}

static int ran(const job_t *j, int rank)
{
    char p[512];
    path_of(p, sizeof(p), j, "ran", rank);
    return exists(p);
}

static int high_water(const job_t *j)
{
    char p[512];
    int now = 0, max = -1;
    path_of(p, sizeof(p), j, "tally", 0);
    FILE *fp = fopen(p, "r");
    if (fp && fscanf(fp, "%d %d", &now, &max) != 2)
        max = -1;
    if (fp)
        fclose(fp);
    return max;
}

/* run one case; rank 0 reports whether verdict and records match */
static int run_case(const char *dir, int test, int width, int fail_rank, const char *what)
{
    int me, n, good = 1, all;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    job_t j = {dir, test, me, fail_rank, me == 0 && n > 1 && width > 1};
    int verdict = flow_run(MPI_COMM_WORLD, width, work, &j);
    int want = fail_rank < 0 || fail_rank >= n ? 1 : 0;
    if (verdict != want)
        good = 0;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0) {
        int runs = 0, max = high_water(&j);
        for (int r = 0; r < n; r++)
            runs += ran(&j, r);
        /* with width 1 the order is rank order, so a failure at f leaves
         * exactly ranks 0..f at work; otherwise everyone works */
        int want_runs = width == 1 && want == 0 ? fail_rank + 1 : n;
        int want_max = width < n ? width : n;
        if (!all || runs != want_runs || max > want_max ||
            (width > 1 && n > 1 && max < 2))
            all = 0;
        printf(
            "%s - %s (np %d: verdict ok on all %d, ran %d of %d, at most %d at once)\n",
            all ? "ok" : "not ok", what, n, all, runs, want_runs, max);
    }
    MPI_Bcast(&all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return !all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n, fails = 0;
    char dir[] = "/tmp/test_flow.XXXXXX";
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (me == 0 && !mkdtemp(dir))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
    fails += run_case(dir, 1, 256, -1, "a wide window: all work, rank 0 with the others");
    fails += run_case(dir, 2, 2, -1, "width 2: everyone once, never more than 2 at once");
    fails += run_case(dir, 3, 1, -1, "width 1: one at a time");
    fails += run_case(dir, 4, 1, 0, "width 1, rank 0 fails: the rest skip");
    if (n > 2)
        fails += run_case(dir, 5, 1, 1, "width 1, rank 1 fails: later ranks skip");
    fails += run_case(dir, 6, 256, n - 1, "a wide window, the last rank fails: all hear");
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "test_flow: cannot remove %s\n", dir);
        printf("1..%d\n", n > 2 ? 6 : 5);
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
