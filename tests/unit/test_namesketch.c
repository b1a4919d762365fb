/* SPDX-License-Identifier: BSD-3-Clause */
/* test_namesketch.c - names no other rank holds, from bucket sums
 * (namesketch.h): a file per rank comes out unique, a name two ranks or
 * every rank hold comes out maybe shared on each of them, more names than
 * the buckets allow are all maybe shared, and a rank that cannot list its
 * names makes every rank fail; the sketch says "crowded" (the join is
 * needed) wherever two ranks hold a name, never where no rank has a
 * maybe-shared name, and not for a file per rank.  Run under mpirun with
 * any number of processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "namesketch.h"

#define MAXN 5000

static char *names_buf[MAXN];

/* n names "<prefix><rank>.<i>", and the shared one at index 0 if given */
static const char *const *make_names(int rank, int n, const char *prefix,
                                     const char *shared)
{
    for (int i = 0; i < n; i++) {
        free(names_buf[i]);
        names_buf[i] = malloc(64);
        if (i == 0 && shared)
            snprintf(names_buf[i], 64, "%s", shared);
        else
            snprintf(names_buf[i], 64, "%s%d.%d", prefix, rank, i);
    }
    return (const char *const *)names_buf;
}

/* per rank: n names, the first shared by the ranks holders says; want
 * the count of maybe-shared names and which (0: none, 1: the first only,
 * n: all) */
static int check(int n, int (*holds)(int rank, int ranks), int ranks_share, int want_all)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int mine = holds && holds(rank, ranks);
    const char *const *names =
        make_names(rank, n, "ckpt.1/rank_", mine ? "ckpt.1/shared.bin" : NULL);
    unsigned char *shared = malloc((size_t)n);
    int crowded = -1;
    int got = namesketch_shared(MPI_COMM_WORLD, names, n, shared, &crowded);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int want = want_all || (i == 0 && mine && ranks_share >= 2);
        bad |= shared[i] != want;
    }
    int want_got = want_all ? n : (mine && ranks_share >= 2);
    bad |= got != want_got;
    /* the join is left out only where no name can be two ranks': never
     * when two ranks hold one or any rank has a maybe-shared name, and
     * always (the usual case) for a file per rank, whose few names land
     * in buckets of their own with these hashes */
    if (want_all || (holds && ranks_share >= 2))
        bad |= crowded != 1;
    else if (n == 1)
        bad |= crowded != 0;
    bad |= crowded == 0 && got != 0;
    int lo, hi;
    MPI_Allreduce(&crowded, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&crowded, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bad |= lo != hi || (lo != 0 && lo != 1);
    free(shared);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any;
}

static int first_and_last(int rank, int ranks)
{
    return rank == 0 || rank == ranks - 1;
}

static int every(int rank, int ranks)
{
    (void)rank;
    (void)ranks;
    return 1;
}

/* rank 0 cannot list its names: -1 and every name maybe shared everywhere */
static int check_unlisted(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *const *names = make_names(rank, 3, "f", NULL);
    unsigned char shared[3] = {0, 0, 0};
    int crowded = 0;
    int got =
        namesketch_shared(MPI_COMM_WORLD, names, rank == 0 ? -1 : 3, shared, &crowded);
    int bad = got != -1 || crowded != 1 ||
              (rank != 0 && (!shared[0] || !shared[1] || !shared[2]));
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks, fails = 0, t = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int pair = ranks > 1 ? 2 : 1;
    struct {
        int n;
        int (*holds)(int, int);
        int share, all;
        const char *what;
    } cases[] = {
        {1, NULL, 0, 0, "a file per rank: unique"},
        {40, NULL, 0, 0, "forty files per rank: unique"},
        {3, first_and_last, pair, 0,
         "a name of the first and last rank: maybe shared there"},
        {3, every, ranks, 0, "a name every rank holds: maybe shared on each"},
        {0, NULL, 0, 0, "a rank with no names takes part"},
        {MAXN, NULL, 0, 1, "more names than the buckets allow: all maybe shared"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int bad = check(cases[c].n, cases[c].holds, cases[c].share, cases[c].all);
        if (rank == 0)
            printf("%s %d - %s\n", bad ? "not ok" : "ok", ++t, cases[c].what);
        fails += bad;
    }
    int bad = check_unlisted();
    if (rank == 0)
        printf("%s %d - a rank that cannot list its names fails every rank\n",
               bad ? "not ok" : "ok", ++t);
    fails += bad;
    for (int i = 0; i < MAXN; i++)
        free(names_buf[i]);
    if (rank == 0)
        printf("1..%d\n", t);
    MPI_Finalize();
    return fails ? 1 : 0;
}
