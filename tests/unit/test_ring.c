/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ring.c - the ring XOR reduce-scatter gives every process what
 * MPI_Reduce_scatter with MPI_BXOR gives, for equal blocks, uneven and
 * empty blocks (recovery sends to the lost processes only), odd lengths
 * and unaligned tails.  Run under mpirun with any number of processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

static int check(MPI_Comm comm, const size_t *counts, int reps, const char *what)
{
    int me, n, bad = 0, any, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    size_t total = 0;
    int icounts[n];
    for (int i = 0; i < n; i++) {
        total += counts[i];
        icounts[i] = (int)counts[i];
    }
    unsigned char *send = malloc(total + 1), *want = malloc(counts[me] + 1),
                  *got = malloc(counts[me] + 1);
    srand(1234 + (unsigned)me);
    for (size_t i = 0; i < total; i++)
        send[i] = (unsigned char)rand();
    MPI_Reduce_scatter(send, want, icounts, MPI_BYTE, MPI_BXOR, comm);
    ring_t r;
    if (ring_init(&r) < 0)
        MPI_Abort(comm, 1);
    /* back to back with the same ring, as the pipelines call it: a later
     * call's messages must not match an earlier call's receives */
    for (int rep = 0; rep < reps && !bad; rep++) {
        unsigned char *scratch = malloc(total + 1);
        memcpy(scratch, send, total);
        memset(got, 0xa5, counts[me] + 1);
        ring_xor_reduce_scatter(&r, scratch, counts, got, comm);
        bad = memcmp(want, got, counts[me]) != 0 || got[counts[me]] != 0xa5;
        free(scratch);
    }
    ring_free(&r);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
    if (world == 0) /* the other half of a split reports through the exit status */
        printf("%s - %s\n", any ? "not ok" : "ok", what);
    free(send);
    free(want);
    free(got);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n, fails = 0, t = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t *c = calloc((size_t)n, sizeof(size_t));
    for (int i = 0; i < n; i++)
        c[i] = 1 << 16;
    fails += check(MPI_COMM_WORLD, c, 1, "equal 64 KiB blocks"), t++;
    for (int i = 0; i < n; i++)
        c[i] = 1000003 + (size_t)i * 8;
    fails +=
        check(MPI_COMM_WORLD, c, 3, "blocks of about 1 MB, odd sizes (unaligned tails)"),
        t++;
    for (int i = 0; i < n; i++)
        c[i] = i == n / 2 ? 300017 : 0;
    fails +=
        check(MPI_COMM_WORLD, c, 2, "one process receives, the rest nothing (recovery)"),
        t++;
    for (int i = 0; i < n; i++)
        c[i] = (size_t)(i % 3) * 4099;
    fails += check(MPI_COMM_WORLD, c, 1, "uneven and empty blocks"), t++;
    for (int i = 0; i < n; i++)
        c[i] = 1;
    fails += check(MPI_COMM_WORLD, c, 1, "one byte each"), t++;
    for (int i = 0; i < n; i++)
        c[i] = (4u << 20) + (size_t)i * 64;
    fails += check(MPI_COMM_WORLD, c, 3,
                   "4 MiB blocks: more segments than receives posted ahead"),
        t++;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    int hn;
    MPI_Comm_size(half, &hn);
    for (int i = 0; i < hn; i++)
        c[i] = 4096 * (size_t)(i + 1);
    fails += check(half, c, 2, "a sub-communicator (a set)"), t++;
    MPI_Comm_free(&half);
    if (me == 0)
        printf("1..%d\n", t);
    free(c);
    MPI_Finalize();
    return fails ? 1 : 0;
}
