/* SPDX-License-Identifier: BSD-3-Clause */
/* test_groupidx.c - groups of ranks by name met at a home process
 * (groupidx.h, rdv.h): every rank's group size, index in its group, lowest
 * rank and the number of groups; with members its group's list.  Blocks of two, names
 * dealt round robin, one name for all, names that differ only in their last byte, and the
 * same answers when a hash sends every name to one home or makes two names collide. Ranks
 * without a key take part and get nothing.  Run under mpirun with any number of
 * processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groupidx.h"
#include "rdv.h"

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

enum { BLOCKS, DEALT, SAME, LONG };

/* rank's group under a layout, and the group's lowest rank and size */
static int layout_group(int layout, int rank, int ranks, int *first, int *size)
{
    switch (layout) {
    case BLOCKS:
    case LONG:
        *first = rank - rank % 2;
        *size = *first + 1 < ranks ? 2 : 1;
        return rank / 2;
    case DEALT:
        *first = rank % 3;
        *size = (ranks - *first + 2) / 3;
        return rank % 3;
    default:
        *first = 0;
        *size = ranks;
        return 0;
    }
}

static void layout_name(int layout, int rank, char *name, size_t len)
{
    int g = layout_group(layout, rank, 1 << 30, &(int){0}, &(int){0});
    if (layout == SAME)
        snprintf(name, len, "WORLD");
    else if (layout == LONG) /* 510 'x', then the group */
        snprintf(name, len, "%0510d%c", 0, 'a' + g % 26);
    else
        snprintf(name, len, "%c-host%d", g < 2 ? 'a' : 'b', g);
}

static int check(MPI_Comm comm, groupidx_hash_fn hash, int layout, int want)
{
    int rank, ranks, first, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    char name[GROUPIDX_NAME];
    layout_name(layout, rank, name, sizeof(name));
    layout_group(layout, rank, ranks, &first, &size);
    int groups = layout == SAME    ? 1
                 : layout == DEALT ? (ranks < 3 ? ranks : 3)
                                   : (ranks + 1) / 2;
    if (layout == LONG && ranks > 52)
        return 0; /* 26 letters: more groups would share names */
    groupidx_t gi;
    if (hash)
        groupidx_build_hashed(comm, name, want, &gi, hash);
    else
        groupidx_build(comm, name, want, &gi);
    int bad = gi.ngroups != groups || gi.size != size || gi.first != first;
    bad = bad || (gi.members != NULL) != want;
    for (int i = 0; !bad && want && i < size; i++) /* members: first, and on */
        bad = gi.members[i] != first + i * (layout == DEALT ? 3 : 1);
    bad = bad || gi.row != (layout == DEALT ? rank / 3 : rank - first);
    groupidx_free(&gi);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
    return any;
}

/* rows of blocks of two (row r % 2, place r / 2) or of names dealt
 * round robin (row r / 3, place r % 3), counted in first_rows and again
 * when longer, or refused past max_rows */
static int check_rows(MPI_Comm comm, int layout, int first_rows, int max_rows)
{
    int rank, ranks, count = -1, pos = -1, nrows = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    char name[GROUPIDX_NAME];
    layout_name(layout, rank, name, sizeof(name));
    groupidx_t gi;
    groupidx_build(comm, name, 0, &gi);
    int shortest = groupidx_rows(comm, &gi, first_rows, max_rows, &count, &pos, &nrows);
    int bad;
    int rows = layout == DEALT ? (ranks + 2) / 3 : (ranks > 1 ? 2 : 1);
    if (rows > max_rows)
        return shortest != -1;
    if (layout == DEALT) {
        int last = ranks - 3 * (rows - 1); /* ranks in the last row */
        bad = nrows != (rows > first_rows ? rows : first_rows) ||
              count != (rank / 3 == rows - 1 ? last : 3) || pos != rank % 3 ||
              shortest != last;
    } else {
        bad = nrows != (rows > first_rows ? rows : first_rows) ||
              count != (rank % 2 ? ranks / 2 : (ranks + 1) / 2) || pos != rank / 2 ||
              shortest != (ranks > 1 ? ranks / 2 : 1);
    }
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
    return any;
}

/* even ranks give one key, odd ranks none */
static int check_keyless(MPI_Comm comm)
{
    int rank, ranks, bad;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    rdv_peers_t p;
    int even = rank % 2 == 0;
    rdv_find(comm, even ? "k" : NULL, 1, 7, 1, &p);
    if (even)
        bad = p.count != (ranks + 1) / 2 || p.row != rank / 2 || p.first != 0 ||
              p.members[p.count - 1] != (ranks - 1) / 2 * 2;
    else
        bad = p.count != 0 || p.members != NULL;
    bad = bad || p.keys != 1;
    rdv_peers_free(&p);
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
        int layout;
        const char *what;
    } cases[] = {
        {NULL, BLOCKS, "two ranks a group"},
        {NULL, DEALT, "three names dealt round robin"},
        {NULL, SAME, "one name for all: one group"},
        {NULL, LONG, "511-byte names differing in the last byte"},
        {hash_none, BLOCKS, "every name at one home"},
        {hash_first, BLOCKS, "two names of one hash stay two groups"},
        {hash_none, DEALT, "names dealt, at one home"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (int want = 0; want < 2; want++) {
            int bad = check(MPI_COMM_WORLD, cases[c].hash, cases[c].layout, want);
            if (rank == 0)
                printf("%s %d - %s, %s\n", bad ? "not ok" : "ok", ++t, cases[c].what,
                       want ? "with the members and index" : "counts only");
            fails += bad;
        }
    static const struct {
        int layout, first, max;
        const char *what;
    } rows[] = {
        {BLOCKS, 64, 4096, "rows of blocks of two"},
        {BLOCKS, 1, 4096, "rows of blocks of two, counted again past the first"},
        {DEALT, 64, 4096, "rows of names dealt round robin"},
        {DEALT, 1, 4096, "rows of names dealt, counted again past the first"},
        {DEALT, 1, 1, "a group longer than the rows allowed: refused"},
    };
    for (size_t c = 0; c < sizeof(rows) / sizeof(rows[0]); c++) {
        int bad = check_rows(MPI_COMM_WORLD, rows[c].layout, rows[c].first, rows[c].max);
        if (rank == 0)
            printf("%s %d - %s\n", bad ? "not ok" : "ok", ++t, rows[c].what);
        fails += bad;
    }
    int bad = check_keyless(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %d - ranks without a key take part, get nothing, and count the key\n",
               bad ? "not ok" : "ok", ++t);
    fails += bad;
    if (rank == 0)
        printf("1..%d\n", t);
    MPI_Finalize();
    return fails ? 1 : 0;
}
