/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.c - group indices from hashed names, numbered at one process
 * (groupidx.h) */
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

/* rank 0 indexes the width-byte strings every rank gives, into idx; the
 * count (or -1, out of memory at rank 0) on every rank */
static int groupidx_gather(MPI_Comm comm, const char *mine, size_t width, int *idx)
{
    int rank, ranks, n = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    char *all = rank == 0 ? malloc((size_t)ranks * width) : NULL;
    MPI_Gather(mine, (int)width, MPI_CHAR, all, (int)width, MPI_CHAR, 0, comm);
    if (rank == 0 && all && idx)
        n = names_index(all, ranks, width, idx);
    free(all);
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    return n;
}

/* rank 0 tells each rank its index, the first rank of it and how many
 * share it: mfm[0..2] */
static int groupidx_tell(MPI_Comm comm, const int *idx, int n, int *mfm)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    int *all = NULL, *first = NULL, *count = NULL, ok = 1;
    if (rank == 0) {
        all = malloc(sizeof(int) * 3 * (size_t)ranks);
        first = malloc(sizeof(int) * (size_t)n);
        count = calloc((size_t)n, sizeof(int));
        ok = all && first && count;
        for (int r = ranks - 1; ok && r >= 0; r--) {
            first[idx[r]] = r;
            count[idx[r]]++;
        }
        for (int r = 0; ok && r < ranks; r++) {
            all[3 * r] = idx[r];
            all[3 * r + 1] = first[idx[r]];
            all[3 * r + 2] = count[idx[r]];
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Scatter(all, 3, MPI_INT, mfm, 3, MPI_INT, 0, comm);
    free(all);
    free(first);
    free(count);
    return ok ? 0 : -1;
}

/* 1 on every rank when some rank's name differs from its group's first
 * rank's: each sends its name to the first rank of its index, which
 * knows how many come, and compares */
static int groupidx_collides(MPI_Comm comm, const char *name, const int *mfm)
{
    int rank, clash = 0, any;
    MPI_Comm_rank(comm, &rank);
    MPI_Request req = MPI_REQUEST_NULL;
    if (mfm[1] != rank)
        MPI_Isend(name, (int)strlen(name) + 1, MPI_CHAR, mfm[1], GROUPIDX_TAG, comm,
                  &req);
    for (int i = 1; mfm[1] == rank && i < mfm[2]; i++) {
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

int groupidx_build_hashed(MPI_Comm comm, const char *name, int *idx, int *mine,
                          groupidx_hash_fn hash)
{
    char hex[GROUPIDX_HEX];
    int mfm[3];
    snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)hash(name));
    int n = groupidx_gather(comm, hex, sizeof(hex), idx);
    if (n < 0 || groupidx_tell(comm, idx, n, mfm) < 0)
        return -1;
    if (groupidx_collides(comm, name, mfm)) {
        char whole[GROUPIDX_NAME] = "";
        snprintf(whole, sizeof(whole), "%s", name);
        n = groupidx_gather(comm, whole, sizeof(whole), idx);
        if (n < 0 || groupidx_tell(comm, idx, n, mfm) < 0)
            return -1;
    }
    *mine = mfm[0];
    return n;
}

int groupidx_build(MPI_Comm comm, const char *name, int *idx, int *mine)
{
    return groupidx_build_hashed(comm, name, idx, mine, groupidx_fnv1a);
}
