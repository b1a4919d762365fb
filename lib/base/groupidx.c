/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.c - failure group indices from hashed names (groupidx.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groupidx.h"
#include "kvtree_mpi.h"
#include "nodelist.h"

#define GROUPIDX_HEX 17 /* 16 hex digits and the NUL */

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
 * rank's: names sent to the first rank of their index, compared there */
static int groupidx_collides(MPI_Comm comm, const char *name, const int *idx)
{
    int rank, ranks, first = -1, clash = 0, any;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    for (int r = 0; r < ranks && first < 0; r++)
        if (idx[r] == idx[rank])
            first = r;
    kvtree_t *send = kvtree_new(), *recv = kvtree_new();
    if (first != rank)
        kvtree_util_set_str(kvtree_setf(send, NULL, "%d", first), "NAME", name);
    if (kvtree_exchange(send, recv, comm) < 0)
        clash = 1;
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e)) {
        const char *v = kvtree_get_val(kvtree_elem_tree(e), "NAME");
        clash |= !v || strcmp(v, name) != 0;
    }
    kvtree_delete(&send);
    kvtree_delete(&recv);
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
