/* SPDX-License-Identifier: BSD-3-Clause */
/* namejoin.c - a join of file names spread over a job's ranks, in flat
 * records (nameset.h) */
#include <stdio.h>
#include <stdlib.h>

#include "namejoin.h"
#include "nameset.h"
#include "xchg.h"

static int namejoin_take(int src, const char *buf, int len, void *arg)
{
    (void)src;
    return nameset_take(arg, buf, (size_t)len);
}

int namejoin_hits(MPI_Comm comm, const kvtree_t *mine, kvtree_t *const *theirs, int k,
                  int *hit)
{
    int ranks, ok, all_ok, rc = -1;
    MPI_Comm_size(comm, &ranks);
    const kvtree_t **sets = malloc(sizeof(kvtree_t *) * ((size_t)k + 1));
    int *local = calloc((size_t)k + 1, sizeof(int));
    nameset_out_t out = {0};
    nameset_in_t in = {0};
    ok = sets && local;
    for (int i = 0; ok && i <= k; i++)
        sets[i] = i == 0 ? mine : theirs[i - 1];
    ok = ok && nameset_pack(sets, k + 1, ranks, &out) == 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (all_ok) {
        rc = xchg_bytes(comm, out.n, out.dest, (const char *const *)out.buf, out.len,
                        namejoin_take, &in);
        if (nameset_judge(&in, k + 1, local) < 0)
            rc = -1;
    }
    if (k > 0)
        MPI_Allreduce(local, hit, k, MPI_INT, MPI_LOR, comm);
    nameset_out_free(&out);
    nameset_in_free(&in);
    free(sets);
    free(local);
    return rc;
}
