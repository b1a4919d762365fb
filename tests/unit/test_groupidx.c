/* SPDX-License-Identifier: BSD-3-Clause */
/* test_groupidx.c - group indices from hashed names (groupidx.h): at rank
 * 0 every rank's group by first appearance, at every rank its own, and
 * their count everywhere; one name for all; the same answers when the hash
 * makes every name collide, or two of them (the names are then gathered
 * whole).  Run under mpirun with any number of processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "groupidx.h"

static uint64_t hash_none(const char *name)
{
    (void)name;
    return 42;
}

/* the first character only: "a..." names collide, "b..." ones too */
static uint64_t hash_first(const char *name)
{
    return (unsigned char)name[0];
}

/* rank r is in group (r / 2), named so that a hash of the first character
 * joins groups 0 and 1 (both "a..."); want[r] is r / 2 */
static int check(MPI_Comm comm, groupidx_hash_fn hash, int same)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    char name[64];
    if (same)
        snprintf(name, sizeof(name), "WORLD");
    else
        snprintf(name, sizeof(name), "%c-host%d", rank / 2 < 2 ? 'a' : 'b', rank / 2);
    int *idx = rank == 0 ? malloc(sizeof(int) * (size_t)ranks) : NULL, bad = 0, mine = -1;
    int n = hash ? groupidx_build_hashed(comm, name, idx, &mine, hash)
                 : groupidx_build(comm, name, idx, &mine);
    for (int r = 0; rank == 0 && r < ranks; r++)
        bad |= idx[r] != (same ? 0 : r / 2);
    bad |= mine != (same ? 0 : rank / 2);
    bad |= n != (same ? 1 : (ranks + 1) / 2);
    free(idx);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, fails = 0, t = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const struct {
        groupidx_hash_fn hash;
        int same;
        const char *what;
    } cases[] = {
        {NULL, 0, "two ranks a group, numbered by first appearance"},
        {NULL, 1, "one name for all: one group"},
        {hash_none, 0, "every name colliding: the names gathered whole"},
        {hash_first, 0, "two names colliding: the names gathered whole"},
        {hash_none, 1, "one name, one hash: no collision"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int bad = check(MPI_COMM_WORLD, cases[c].hash, cases[c].same);
        if (rank == 0)
            printf("%s %d - %s\n", bad ? "not ok" : "ok", ++t, cases[c].what);
        fails += bad;
    }
    if (rank == 0)
        printf("1..%d\n", t);
    MPI_Finalize();
    return fails ? 1 : 0;
}
