/* SPDX-License-Identifier: BSD-3-Clause */
/* flow.c - sliding window of writers with rank 0 as gatekeeper */
#include <stdlib.h>

#include "flow.h"

#define FLOW_TAG_GO 7701
#define FLOW_TAG_DONE 7702

/* go-aheads until width processes are at work or none are left */
static void flow_fill(MPI_Comm comm, int ranks, int width, int ok, int *next, int *active)
{
    while (*next < ranks && *active < width) {
        MPI_Send(&ok, 1, MPI_INT, (*next)++, FLOW_TAG_GO, comm);
        (*active)++;
    }
}

/* rank 0: the first width-1 others start with it; its own work runs
 * before it waits for them, so their places refill after it is done */
static int flow_gatekeeper(MPI_Comm comm, int ranks, int width, flow_work_fn work,
                           void *arg)
{
    int next = 1, active = 0, ok = 1;
    flow_fill(comm, ranks, width - 1, ok, &next, &active);
    ok = work(arg) == 0;
    flow_fill(comm, ranks, width, ok, &next, &active);
    while (active > 0) {
        int done;
        MPI_Status st;
        MPI_Recv(&done, 1, MPI_INT, MPI_ANY_SOURCE, FLOW_TAG_DONE, comm, &st);
        active--;
        ok = ok && done;
        flow_fill(comm, ranks, width, ok, &next, &active);
    }
    return ok;
}

int flow_run(MPI_Comm comm, int width, flow_work_fn work, void *arg)
{
    int rank, ranks, ok = 1, all;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    if (width < 1)
        width = 1;
    if (rank == 0) {
        ok = flow_gatekeeper(comm, ranks, width, work, arg);
    } else {
        int go;
        MPI_Recv(&go, 1, MPI_INT, 0, FLOW_TAG_GO, comm, MPI_STATUS_IGNORE);
        ok = go ? work(arg) == 0 : 0;
        MPI_Send(&ok, 1, MPI_INT, 0, FLOW_TAG_DONE, comm);
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}
