/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree_mpi.c - bcast, point-to-point, exchange and allgather of kvtrees */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvtree_mpi.h"

#define KVTREE_TAG 7501

static void *kvtree_packed(const kvtree_t *t, int *len)
{
    size_t n = kvtree_pack_size(t);
    if (n > INT_MAX)
        return NULL;
    void *buf = malloc(n);
    if (buf) {
        kvtree_pack(buf, t);
        *len = (int)n;
    }
    return buf;
}

static int kvtree_merge_packed(kvtree_t *t, const void *buf, int len)
{
    return kvtree_unpack(buf, (size_t)len, t, NULL) == len ? 0 : -1;
}

int kvtree_bcast(kvtree_t *t, int root, MPI_Comm comm)
{
    int rank, len = 0, rc = 0;
    MPI_Comm_rank(comm, &rank);
    void *buf = NULL;
    if (rank == root && !(buf = kvtree_packed(t, &len)))
        len = -1;
    MPI_Bcast(&len, 1, MPI_INT, root, comm);
    if (len < 0)
        return -1;
    if (rank != root && !(buf = malloc((size_t)len + 1)))
        MPI_Abort(comm, 1); /* the collective cannot continue one process short */
    MPI_Bcast(buf, len, MPI_BYTE, root, comm);
    if (rank != root)
        rc = kvtree_merge_packed(t, buf, len);
    free(buf);
    return rc;
}

int kvtree_send(const kvtree_t *t, int dest, MPI_Comm comm)
{
    return kvtree_sendrecv(t, dest, NULL, MPI_PROC_NULL, comm);
}

int kvtree_recv(kvtree_t *t, int src, MPI_Comm comm)
{
    return kvtree_sendrecv(NULL, MPI_PROC_NULL, t, src, comm);
}

int kvtree_sendrecv(const kvtree_t *send, int dest, kvtree_t *recv, int src,
                    MPI_Comm comm)
{
    int slen = 0, rlen = 0, rc = 0;
    void *sbuf = NULL, *rbuf = NULL;
    if (dest != MPI_PROC_NULL && !(sbuf = kvtree_packed(send, &slen)))
        slen = -1;
    MPI_Sendrecv(&slen, 1, MPI_INT, dest, KVTREE_TAG, &rlen, 1, MPI_INT, src, KVTREE_TAG,
                 comm, MPI_STATUS_IGNORE);
    if (src != MPI_PROC_NULL && rlen > 0 && !(rbuf = malloc((size_t)rlen)))
        MPI_Abort(comm, 1);
    MPI_Sendrecv(sbuf, slen > 0 ? slen : 0, MPI_BYTE, slen >= 0 ? dest : MPI_PROC_NULL,
                 KVTREE_TAG, rbuf, rlen > 0 ? rlen : 0, MPI_BYTE,
                 rlen >= 0 ? src : MPI_PROC_NULL, KVTREE_TAG, comm, MPI_STATUS_IGNORE);
    if (src != MPI_PROC_NULL &&
        (rlen < 0 || (rlen > 0 && kvtree_merge_packed(recv, rbuf, rlen) < 0)))
        rc = -1;
    if (slen < 0)
        rc = -1;
    free(sbuf);
    free(rbuf);
    return rc;
}

/* pack the tree for each destination, recording lengths and offsets */
static char *exchange_pack(const kvtree_t *send, int ranks, int *counts, int *displs)
{
    size_t total = 0;
    memset(counts, 0, sizeof(int) * (size_t)ranks);
    for (kvtree_elem_t *e = kvtree_first(send); e; e = kvtree_elem_next(e)) {
        int r;
        if (kvtree_elem_key_int(e, &r) < 0 || r < 0 || r >= ranks)
            return NULL;
        size_t n = kvtree_pack_size(kvtree_elem_tree(e));
        if (n > INT_MAX || total + n > INT_MAX)
            return NULL;
        counts[r] = (int)n;
        total += n;
    }
    char *buf = malloc(total ? total : 1);
    if (!buf)
        return NULL;
    int off = 0;
    for (int r = 0; r < ranks; r++) {
        displs[r] = off;
        if (counts[r] > 0)
            kvtree_pack(buf + off, kvtree_getf(send, "%d", r));
        off += counts[r];
    }
    return buf;
}

/* each process's packed tree from a gathered buffer into "<rank>" of into;
 * with skip_empty, processes that sent nothing get no entry */
static int kvtree_mpi_unpack(kvtree_t *into, const char *buf, const int *counts,
                             const int *displs, int ranks, int skip_empty)
{
    int rc = 0;
    for (int r = 0; r < ranks; r++) {
        if (skip_empty && counts[r] == 0)
            continue;
        kvtree_t *sub = kvtree_setf(into, NULL, "%d", r);
        if (!sub || kvtree_merge_packed(sub, buf + displs[r], counts[r]) < 0)
            rc = -1;
    }
    return rc;
}

int kvtree_exchange(const kvtree_t *send, kvtree_t *recv, MPI_Comm comm)
{
    int ranks, ok = 1, all_ok;
    MPI_Comm_size(comm, &ranks);
    int *sc = calloc((size_t)ranks * 4, sizeof(int));
    int *sd = sc + ranks, *rc = sc + 2 * ranks, *rd = sc + 3 * ranks;
    char *sbuf = sc ? exchange_pack(send, ranks, sc, sd) : NULL;
    ok = sbuf != NULL;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        free(sbuf);
        free(sc);
        return -1;
    }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
    size_t total = 0;
    for (int r = 0; r < ranks; r++) {
        rd[r] = (int)total;
        total += (size_t)rc[r];
    }
    char *rbuf = malloc(total ? total : 1);
    if (!rbuf)
        MPI_Abort(comm, 1);
    MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm);
    int status = kvtree_mpi_unpack(recv, rbuf, rc, rd, ranks, 1);
    free(rbuf);
    free(sbuf);
    free(sc);
    return status;
}

int kvtree_allgather(const kvtree_t *t, kvtree_t *all, MPI_Comm comm)
{
    int ranks, len = 0;
    MPI_Comm_size(comm, &ranks);
    void *buf = kvtree_packed(t, &len);
    if (!buf)
        len = -1;
    int *counts = malloc(sizeof(int) * 2 * (size_t)ranks);
    if (!counts)
        MPI_Abort(comm, 1);
    int *displs = counts + ranks;
    MPI_Allgather(&len, 1, MPI_INT, counts, 1, MPI_INT, comm);
    size_t total = 0;
    int bad = 0;
    for (int r = 0; r < ranks; r++) {
        bad |= counts[r] < 0;
        displs[r] = (int)total;
        total += counts[r] > 0 ? (size_t)counts[r] : 0;
    }
    if (bad || total > INT_MAX) {
        free(buf);
        free(counts);
        return -1;
    }
    char *rbuf = malloc(total ? total : 1);
    if (!rbuf)
        MPI_Abort(comm, 1);
    MPI_Allgatherv(buf, len, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, comm);
    int rc = kvtree_mpi_unpack(all, rbuf, counts, displs, ranks, 0);
    free(rbuf);
    free(buf);
    free(counts);
    return rc;
}
