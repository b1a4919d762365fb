/* SPDX-License-Identifier: BSD-3-Clause */
/* agree.c - the lowest failing rank of a communicator */
#include "agree.h"

int agree_first_failure(MPI_Comm comm, int failed)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int me = failed ? rank : size;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm);
    return first;
}
