/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.c - groups of ranks by name, met at a home process per name
 * (groupidx.h, rdv.h) */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "groupidx.h"
#include "rdv.h"

uint64_t groupidx_hash(const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

void groupidx_build_hashed(MPI_Comm comm, const char *name, int want_members,
                           groupidx_t *gi, groupidx_hash_fn hash)
{
    memset(gi, 0, sizeof(*gi));
    size_t len = strnlen(name, GROUPIDX_NAME - 1);
    rdv_peers_t p;
    rdv_find(comm, name, (int)len, hash(name), want_members, &p);
    gi->size = p.count;
    gi->row = p.row;
    gi->first = p.first;
    gi->members = p.members;
    gi->ngroups = p.keys;
}

void groupidx_build(MPI_Comm comm, const char *name, int want_members, groupidx_t *gi)
{
    groupidx_build_hashed(comm, name, want_members, gi, groupidx_hash);
}

static int groupidx_int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* this rank's index in its sorted list, or -1 if the list is not of
 * distinct ranks of comm holding it */
static int groupidx_list_row(MPI_Comm comm, int *members, int n)
{
    int rank, ranks, row = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    if (!members || n < 1)
        return -1;
    qsort(members, (size_t)n, sizeof(int), groupidx_int_cmp);
    for (int i = 0; i < n; i++) {
        if (members[i] < 0 || members[i] >= ranks || (i && members[i] == members[i - 1]))
            return -1;
        if (members[i] == rank)
            row = i;
    }
    return row;
}

int groupidx_from_list(MPI_Comm comm, int *members, int n, groupidx_t *gi)
{
    memset(gi, 0, sizeof(*gi));
    int row = groupidx_list_row(comm, members, n);
    /* how many lists are bad, and how many groups (their first ranks) */
    int v[2] = {row < 0, row == 0}, sum[2];
    MPI_Allreduce(v, sum, 2, MPI_INT, MPI_SUM, comm);
    if (sum[0]) {
        free(members);
        return -1;
    }
    gi->size = n;
    gi->row = row;
    gi->first = members[0];
    gi->members = members;
    gi->ngroups = sum[1];
    return 0;
}

int groupidx_parse_ranks(const char *list, int **ranks)
{
    int n = 1;
    for (const char *c = list; *c; c++)
        n += *c == ',';
    int *r = malloc(sizeof(int) * (size_t)n);
    if (!r)
        return -1;
    const char *at = list;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        long v = strtol(at, &end, 10);
        /* digits only: strtol would take " 3" and "-3" too */
        if (*at < '0' || *at > '9' || errno || v > INT_MAX ||
            *end != (i + 1 < n ? ',' : '\0')) {
            free(r);
            return -1;
        }
        r[i] = (int)v;
        at = end + 1;
    }
    *ranks = r;
    return n;
}

/* all[r] (ranks in row r) and below[r] (those of lower rank), r < rows,
 * and in all[rows] the ranks whose row is past them */
static void groupidx_count(MPI_Comm comm, const groupidx_t *gi, int rows, int *v,
                           int *all, int *below)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(v, 0, sizeof(int) * (size_t)(rows + 1));
    v[gi->row < rows ? gi->row : rows] = 1;
    MPI_Allreduce(v, all, rows + 1, MPI_INT, MPI_SUM, comm);
    MPI_Exscan(v, below, rows + 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) /* MPI_Exscan leaves rank 0's undefined */
        memset(below, 0, sizeof(int) * (size_t)(rows + 1));
}

int groupidx_rows(MPI_Comm comm, const groupidx_t *gi, int first_rows, int max_rows,
                  int *count, int *pos, int *nrows)
{
    int rows = first_rows, shortest = -1;
    size_t n = (size_t)(max_rows > first_rows ? max_rows : first_rows) + 1;
    int *v = malloc(sizeof(int) * 3 * n);
    if (!v)
        return -2; /* the others wait in the collective: the caller ends the job */
    int *all = v + n, *below = v + 2 * n;
    groupidx_count(comm, gi, rows, v, all, below);
    if (all[rows] > 0) { /* a group longer than first_rows */
        MPI_Allreduce(&gi->size, &rows, 1, MPI_INT, MPI_MAX, comm);
        if (rows <= max_rows)
            groupidx_count(comm, gi, rows, v, all, below);
    }
    if (rows <= max_rows) {
        *count = all[gi->row];
        *pos = below[gi->row];
        for (int r = 0; r < rows && all[r] > 0; r++) /* rows shrink: r-th needs > r */
            shortest = all[r];
    }
    free(v);
    *nrows = rows;
    return shortest;
}

void groupidx_free(groupidx_t *gi)
{
    free(gi->members);
    gi->members = NULL;
}
