/* SPDX-License-Identifier: BSD-3-Clause */
/* xchg.c - a sparse exchange of byte buffers (xchg.h) */
#include <stdlib.h>

#include "xchg.h"

#define XCHG_TAG 7502

/* take one message that arrived */
static int xchg_take(const MPI_Status *st, MPI_Comm comm, xchg_take_fn take, void *arg)
{
    int len = 0;
    MPI_Get_count(st, MPI_BYTE, &len);
    char *buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf)
        MPI_Abort(comm, 1);
    MPI_Recv(buf, len, MPI_BYTE, st->MPI_SOURCE, XCHG_TAG, comm, MPI_STATUS_IGNORE);
    int rc = take(st->MPI_SOURCE, buf, len, arg);
    free(buf);
    return rc;
}

/* Synchronous sends complete only once received; a process whose sends all
 * completed joins a non-blocking collective, and when that completes
 * everything sent has arrived.  The dense MPI_Alltoall of counts this
 * replaced moved N^2 messages: 0.7 s of SCR_Init at 64 ranks on 16
 * simulated nodes (bench/README.md).  The closing collective keeps a fast
 * process's next exchange from reaching one still here.  Both are sums,
 * not barriers: Open MPI's barriers talk to other peers than its sums,
 * and over TCP every peer it ever talked to stays connected and is polled
 * at every progress call; the application's own sums have connected the
 * sums' peers already (bench/README.md: two more sockets a rank slowed its
 * collectives by 4-7 %). */
static int xchg_run(MPI_Comm comm, int n, const int *dest, const char *const *buf,
                    const int *len, xchg_take_fn take, void *arg, int close)
{
    int rc = 0, done = 0;
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(n > 0 ? n : 1));
    if (!req)
        MPI_Abort(comm, 1);
    for (int i = 0; i < n; i++)
        MPI_Issend(buf[i], len[i], MPI_BYTE, dest[i], XCHG_TAG, comm, &req[i]);
    MPI_Request bar = MPI_REQUEST_NULL;
    int one = 1, all = 0;
    while (!done) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, XCHG_TAG, comm, &flag, &st);
        if (flag && xchg_take(&st, comm, take, arg) < 0)
            rc = -1;
        if (bar == MPI_REQUEST_NULL) {
            int sent = 0;
            MPI_Testall(n, req, &sent, MPI_STATUSES_IGNORE);
            if (sent)
                MPI_Iallreduce(&one, &all, 1, MPI_INT, MPI_SUM, comm, &bar);
        } else {
            MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        }
    }
    if (close)
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, comm);
    free(req);
    return rc;
}

int xchg_bytes(MPI_Comm comm, int n, const int *dest, const char *const *buf,
               const int *len, xchg_take_fn take, void *arg)
{
    return xchg_run(comm, n, dest, buf, len, take, arg, 1);
}

int xchg_bytes_open(MPI_Comm comm, int n, const int *dest, const char *const *buf,
                    const int *len, xchg_take_fn take, void *arg)
{
    return xchg_run(comm, n, dest, buf, len, take, arg, 0);
}
