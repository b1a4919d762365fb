/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree_mpi.c - bcast, point-to-point, exchange and allgather of kvtrees */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvtree_mpi.h"
#include "xchg.h"

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

/* the destinations of an exchange and their packed trees: only those a
 * process names (at 10^6 ranks, counts and offsets for every rank were 8
 * MiB and a pass over them per exchange) */
typedef struct {
    int n, *dest, *len;
    char **buf;
} exchange_out_t;

static void exchange_out_free(exchange_out_t *o)
{
    for (int i = 0; o->buf && i < o->n; i++)
        free(o->buf[i]);
    free(o->dest);
    free(o->len);
    free(o->buf);
}

static int exchange_pack(const kvtree_t *send, int ranks, exchange_out_t *o)
{
    size_t k = (size_t)kvtree_size(send);
    memset(o, 0, sizeof(*o));
    o->dest = malloc(sizeof(int) * (k + 1));
    o->len = malloc(sizeof(int) * (k + 1));
    o->buf = calloc(k + 1, sizeof(char *));
    if (!o->dest || !o->len || !o->buf)
        return -1;
    for (kvtree_elem_t *e = kvtree_first(send); e; e = kvtree_elem_next(e)) {
        int r;
        if (kvtree_elem_key_int(e, &r) < 0 || r < 0 || r >= ranks)
            return -1;
        o->dest[o->n] = r;
        if (!(o->buf[o->n] = kvtree_packed(kvtree_elem_tree(e), &o->len[o->n])))
            return -1;
        o->n++;
    }
    return 0;
}

/* each process's packed tree from a gathered buffer into "<rank>" of into */
static int kvtree_mpi_unpack(kvtree_t *into, const char *buf, const int *counts,
                             const int *displs, int ranks)
{
    int rc = 0;
    for (int r = 0; r < ranks; r++) {
        kvtree_t *sub = kvtree_setf(into, NULL, "%d", r);
        if (!sub || kvtree_merge_packed(sub, buf + displs[r], counts[r]) < 0)
            rc = -1;
    }
    return rc;
}

/* one message of an exchange into "<source>" of recv (xchg_take_fn) */
static int exchange_take(int src, const char *buf, int len, void *arg)
{
    kvtree_t *sub = kvtree_setf(arg, NULL, "%d", src);
    return sub && kvtree_merge_packed(sub, buf, len) == 0 ? 0 : -1;
}

int kvtree_exchange(const kvtree_t *send, kvtree_t *recv, MPI_Comm comm)
{
    int ranks, ok, all_ok;
    MPI_Comm_size(comm, &ranks);
    exchange_out_t o;
    ok = exchange_pack(send, ranks, &o) == 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    int rc = all_ok ? xchg_bytes(comm, o.n, o.dest, (const char *const *)o.buf, o.len,
                                 exchange_take, recv)
                    : -1;
    exchange_out_free(&o);
    return rc;
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
    int rc = kvtree_mpi_unpack(all, rbuf, counts, displs, ranks);
    free(rbuf);
    free(buf);
    free(counts);
    return rc;
}
