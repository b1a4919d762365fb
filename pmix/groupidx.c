/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.c - failure group indices from hashed names (groupidx.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groupidx.h"
#include "nodelist.h"

#define GROUPIDX_HEX 17 /* 16 hex digits and the NUL */
#define GROUPIDX_TAG 7517

static uint64_t groupidx_fnv1a(const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* index the width-byte strings every rank gives; -1 on every rank when any
 * runs out of memory */
static int groupidx_gather(MPI_Comm comm, const char *mine, size_t width, int *idx)
{
    int ranks, n = -1, ok, all_ok;
    MPI_Comm_size(comm, &ranks);
    char *all = malloc((size_t)ranks * width);
    ok = all != NULL;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (all_ok) {
        MPI_Allgather(mine, (int)width, MPI_CHAR, all, (int)width, MPI_CHAR, comm);
        n = names_index(all, ranks, width, idx);
    }
    free(all);
    MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_MIN, comm);
    return n;
}

/* 1 on every rank when some rank's name differs from its group's first
 * rank's: each sends its name to the first rank of its index, which knows
 * from idx how many come, and compares */
static int groupidx_collides(MPI_Comm comm, const char *name, const int *idx)
{
    int rank, ranks, first = -1, members = 0, clash = 0, any;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    for (int r = 0; r < ranks; r++)
        if (idx[r] == idx[rank]) {
            first = first < 0 ? r : first;
            members++;
        }
    int len = (int)strlen(name) + 1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (first != rank)
        MPI_Isend(name, len, MPI_CHAR, first, GROUPIDX_TAG, comm, &req);
    for (int i = 1; first == rank && i < members; i++) {
        char other[GROUPIDX_NAME];
        MPI_Recv(other, (int)sizeof(other), MPI_CHAR, MPI_ANY_SOURCE, GROUPIDX_TAG, comm,
                 MPI_STATUS_IGNORE);
        other[sizeof(other) - 1] = '\0';
        clash |= strcmp(other, name) != 0;
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce(&clash, &any, 1, MPI_INT, MPI_LOR, comm);
    return any;
}

int groupidx_build_hashed(MPI_Comm comm, const char *name, int *idx,
                          groupidx_hash_fn hash)
{
    char hex[GROUPIDX_HEX];
    snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)hash(name));
    int n = groupidx_gather(comm, hex, sizeof(hex), idx);
    if (n < 0 || !groupidx_collides(comm, name, idx))
        return n;
    char whole[GROUPIDX_NAME] = "";
    snprintf(whole, sizeof(whole), "%s", name);
    return groupidx_gather(comm, whole, sizeof(whole), idx);
}

int groupidx_build(MPI_Comm comm, const char *name, int *idx)
{
    return groupidx_build_hashed(comm, name, idx, groupidx_fnv1a);
}
