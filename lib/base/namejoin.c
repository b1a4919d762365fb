/* SPDX-License-Identifier: BSD-3-Clause */
/* namejoin.c - a join of file names spread over a job's ranks */
#include <stdio.h>
#include <stdlib.h>

#include "kvtree_mpi.h"
#include "namejoin.h"
#include "nameset.h"

int namejoin_hits(MPI_Comm comm, const kvtree_t *mine, kvtree_t *const *theirs, int k,
                  int *hit)
{
    int ranks;
    MPI_Comm_size(comm, &ranks);
    kvtree_t *send = kvtree_new(), *recv = kvtree_new(), *got = kvtree_new();
    int *local = calloc((size_t)k + 1, sizeof(int));
    if (!local)
        MPI_Abort(comm, 1);
    nameset_route(send, mine, "N", ranks);
    for (int i = 0; i < k; i++) {
        char tag[16];
        snprintf(tag, sizeof(tag), "%d", i);
        nameset_route(send, theirs[i], tag, ranks);
    }
    int rc = kvtree_exchange(send, recv, comm);
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e))
        kvtree_merge(got, kvtree_elem_tree(e));
    for (int i = 0; i < k; i++) {
        char tag[16];
        snprintf(tag, sizeof(tag), "%d", i);
        local[i] = nameset_meets(got, "N", tag);
    }
    if (k > 0)
        MPI_Allreduce(local, hit, k, MPI_INT, MPI_LOR, comm);
    free(local);
    kvtree_delete(&send);
    kvtree_delete(&recv);
    kvtree_delete(&got);
    return rc;
}
