/* SPDX-License-Identifier: BSD-3-Clause */
/* ring.h - XOR reduce-scatter over a ring of neighbours.
 *
 * An XOR recovery adds up every survivor's symbols, which is XOR, and
 * leaves the lost process its block.  Open MPI's MPI_Reduce_scatter over
 * TCP ran two to three times slower than plain neighbour exchanges of the
 * same bytes (bench/README.md), so it uses this schedule: in n-1 steps each
 * process passes a running sum to its right neighbour and adds its own
 * contribution to the one arriving from its left.  Every process talks to
 * two neighbours only and every block crosses each link at most once.
 *
 * The steps are cut into segments that stream: a segment of step t is added
 * and passed on as soon as it arrives, while later segments are still on
 * the wire, so no process waits for a whole block before forwarding it.
 *
 * The encode, where every process has a block for every other, sends them
 * directly instead (ec_trade in ecpipe.h): the same bytes, without the
 * n - 1 forwarding hops per piece, each of which waited for a time slice
 * where ranks outnumber cores.
 */
#ifndef SCR_RING_H
#define SCR_RING_H

#include <mpi.h>
#include <stddef.h>

typedef struct {
    unsigned char *slot; /* RING_WINDOW receive segments */
    MPI_Request *reqs;   /* receives (one per slot), then the sends */
    size_t nreqs;
} ring_t;

/* returns 0 or -1 (out of memory) */
int ring_init(ring_t *r);
void ring_free(ring_t *r);

/* send holds the comm-size blocks back to back, counts[i] bytes for process
 * i; it is used as scratch and left holding partial sums.  recv gets the
 * XOR of every process's block of mine.  counts must be the same on every
 * process.  Collective over comm. */
void ring_xor_reduce_scatter(ring_t *r, unsigned char *send, const size_t *counts,
                             unsigned char *recv, MPI_Comm comm);

#endif
