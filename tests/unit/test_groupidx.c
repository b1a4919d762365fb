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

/* each rank's block-of-two list (groupidx_from_list): the facts of
 * groupidx_build; broken on rank bad_rank (-1: none) by passing no list
 * (bad_kind 0), one that names another rank only (1), one that names it
 * twice (2) or one that names a rank outside comm (3): -1 everywhere */
static int check_list(MPI_Comm comm, int bad_rank, int bad_kind)
{
    int rank, ranks, first, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    layout_group(BLOCKS, rank, ranks, &first, &size);
    int *m = malloc(sizeof(int) * 2);
    m[0] = first + size - 1; /* in reverse: the list gets sorted */
    m[1] = first;
    int n = size;
    if (rank == bad_rank && bad_kind == 1)
        m[0] = (rank + 1) % ranks, n = 1;
    else if (rank == bad_rank && bad_kind == 2)
        m[0] = m[1] = rank, n = 2;
    else if (rank == bad_rank && bad_kind == 3)
        m[0] = ranks, m[1] = rank, n = 2;
    groupidx_t gi;
    int rc = groupidx_from_list(
        comm, rank == bad_rank && bad_kind == 0 ? (free(m), NULL) : m, n, &gi);
    int bad;
    if (bad_rank >= 0)
        bad = rc != -1 || gi.members != NULL;
    else
        bad = rc != 0 || gi.ngroups != (ranks + 1) / 2 || gi.size != size ||
              gi.first != first || gi.row != rank - first || gi.members[0] != first ||
              gi.members[size - 1] != first + size - 1;
    groupidx_free(&gi);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
    return any;
}

/* PMIx's lists of a node's ranks */
static int check_parse(void)
{
    int *r = NULL, bad = 0;
    bad |= groupidx_parse_ranks("0,1,5", &r) != 3 || r[0] != 0 || r[1] != 1 || r[2] != 5;
    free(r);
    r = NULL;
    bad |= groupidx_parse_ranks("7", &r) != 1 || r[0] != 7;
    free(r);
    static const char *const wrong[] = {"",   "1,,2", "a",  " 3",
                                        "-3", "1,",   "3x", "99999999999"};
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        r = NULL;
        bad |= groupidx_parse_ranks(wrong[i], &r) != -1 || r != NULL;
    }
    return bad;
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
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    static const struct {
        int bad_rank, kind;
        const char *what;
    } lists[] = {
        {-1, 0, "groups from the lists the ranks hold: the same facts"},
        {0, 0, "rank 0 without a list: refused on every rank"},
        {1, 1, "a list that names another rank only: refused on every rank"},
        {1, 2, "a list that names its rank twice: refused on every rank"},
        {0, 3, "a list that names a rank outside the communicator: refused"},
    };
    for (size_t c = 0; c < sizeof(lists) / sizeof(lists[0]); c++) {
        /* with one rank there is no rank 1, and no other rank to name */
        int skip = lists[c].bad_rank >= ranks || (lists[c].kind == 1 && ranks < 2);
        int bad = !skip && check_list(MPI_COMM_WORLD, lists[c].bad_rank, lists[c].kind);
        if (rank == 0)
            printf("%s %d - %s%s\n", bad ? "not ok" : "ok", ++t, lists[c].what,
                   skip ? " # SKIP one rank" : "");
        fails += bad;
    }
    int pbad = check_parse();
    if (rank == 0)
        printf("%s %d - lists of ranks parsed, malformed ones refused\n",
               pbad ? "not ok" : "ok", ++t);
    fails += pbad;
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
