/* SPDX-License-Identifier: BSD-3-Clause */
/* smoke.c - MPI smoke test for the simulated-node harness.
 *
 * Run with 8 ranks on 4 nodes: checks that there are 4 distinct host names
 * with 2 ranks each, that ranks on one node share /tmp and /dev/shm, and that
 * a file written to /tmp or /dev/shm on one node is invisible on the others.
 * With SMOKE_QUIT_EARLY=R, rank R exits 0 without MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOSTLEN 64

static int fail(int rank, const char *msg, const char *detail)
{
    fprintf(stderr, "smoke: rank %d: %s %s\n", rank, msg, detail);
    return 1;
}

/* 1 if path exists */
static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

int main(int argc, char **argv)
{
    int rank, size, nodes_want = argc > 1 ? atoi(argv[1]) : 4, errs = 0, total;
    char host[HOSTLEN] = "", *all;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, HOSTLEN - 1);
    all = calloc((size_t)size, HOSTLEN);
    MPI_Allgather(host, HOSTLEN, MPI_CHAR, all, HOSTLEN, MPI_CHAR, MPI_COMM_WORLD);
    /* SMOKE_QUIT_EARLY=R: rank R leaves with status 0 and no MPI_Finalize,
     * which the launch must report (tests/sim/exitguard.c) */
    const char *quit = getenv("SMOKE_QUIT_EARLY");
    if (quit && atoi(quit) == rank)
        exit(0);

    int distinct = 0, mine = 0;
    for (int i = 0; i < size; i++) {
        int first = 1;
        for (int j = 0; j < i; j++)
            first &= strcmp(all + i * HOSTLEN, all + j * HOSTLEN) != 0;
        distinct += first;
        mine += strcmp(all + i * HOSTLEN, host) == 0;
    }
    if (distinct != nodes_want)
        errs += fail(rank, "wrong number of distinct hosts", host);
    if (mine != size / nodes_want)
        errs += fail(rank, "wrong number of ranks on", host);

    /* the lowest rank on each node writes a marker in /tmp and /dev/shm */
    int leader = 1;
    for (int j = 0; j < rank; j++)
        leader &= strcmp(all + j * HOSTLEN, host) != 0;
    char path[256];
    if (leader) {
        const char *dirs[2] = {"/tmp", "/dev/shm"};
        for (int d = 0; d < 2; d++) {
            snprintf(path, sizeof(path), "%s/smoke-%s", dirs[d], host);
            FILE *fp = fopen(path, "w");
            if (!fp || fclose(fp) != 0)
                errs += fail(rank, "cannot write", path);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
        const char *h = all + i * HOSTLEN;
        int same = strcmp(h, host) == 0;
        snprintf(path, sizeof(path), "/tmp/smoke-%s", h);
        if (exists(path) != same)
            errs +=
                fail(rank, same ? "cannot see own node's" : "sees other node's", path);
        snprintf(path, sizeof(path), "/dev/shm/smoke-%s", h);
        if (exists(path) != same)
            errs +=
                fail(rank, same ? "cannot see own node's" : "sees other node's", path);
    }
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("smoke: %d ranks on %d hosts, %d errors\n", size, distinct, total);
    free(all);
    MPI_Finalize();
    return total ? 1 : 0;
}
