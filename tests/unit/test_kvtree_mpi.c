/* SPDX-License-Identifier: BSD-3-Clause */
/* test_kvtree_mpi.c - kvtree_exchange (a sparse exchange, NBX): each
 * process gets exactly what was sent to it, from whom, over many rounds in
 * a row with shifting patterns (a fast process's next round must never be
 * taken for this one's), with sends to itself and processes sent nothing;
 * a destination that is no rank of the communicator, on one process, fails
 * the exchange on every process, which then goes on */
#include <mpi.h>
#include <stdio.h>

#include "kvtree.h"
#include "kvtree_mpi.h"

/* in round k, r sends to (r + d) % n for d in 1..k % 3 (and to itself
 * when r + k is even); the value names sender, receiver and round */
static int sends_to(int r, int to, int n, int k)
{
    if (to == r)
        return (r + k) % 2 == 0;
    for (int d = 1; d <= k % 3; d++)
        if ((r + d) % n == to)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int k = 0; k < 40; k++) {
        kvtree_t *send = kvtree_new(), *recv = kvtree_new();
        for (int to = 0; to < n; to++)
            if (sends_to(rank, to, n, k))
                kvtree_setf(send, NULL, "%d MSG %d.%d.%d", to, rank, to, k);
        if (kvtree_exchange(send, recv, MPI_COMM_WORLD) < 0)
            bad++;
        for (int from = 0; from < n; from++) {
            int want = sends_to(from, rank, n, k);
            int got = kvtree_getf(recv, "%d MSG %d.%d.%d", from, from, rank, k) != NULL;
            int any = kvtree_getf(recv, "%d", from) != NULL;
            if (want != got || any != want)
                bad++;
        }
        kvtree_delete(&send);
        kvtree_delete(&recv);
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("1..2\n%s 1 - kvtree_exchange on %d processes, 40 rounds: %d wrong\n",
               all ? "not ok" : "ok", n, all);
    }
    /* the last process names rank n; the next exchange still works */
    kvtree_t *send = kvtree_new(), *recv = kvtree_new();
    kvtree_setf(send, NULL, "%d MSG x", rank == n - 1 ? n : rank);
    int failed = kvtree_exchange(send, recv, MPI_COMM_WORLD) < 0;
    kvtree_delete(&send);
    send = kvtree_new();
    kvtree_setf(send, NULL, "%d MSG y", rank);
    int again = kvtree_exchange(send, recv, MPI_COMM_WORLD) == 0 &&
                kvtree_getf(recv, "%d MSG y", rank) != NULL;
    int mine = !failed || !again, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s 2 - a destination out of range fails every process's exchange\n",
               any ? "not ok" : "ok");
    all += any;
    kvtree_delete(&send);
    kvtree_delete(&recv);
    MPI_Finalize();
    return all ? 1 : 0;
}
