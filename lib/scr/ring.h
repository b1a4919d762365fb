/* ring.h - XOR reduce-scatter over a ring of neighbours.
 *
 * The redundancy pipelines (XOR, Reed-Solomon encode and recovery) add up
 * every process's products in GF(2^8), which is XOR, and leave each process
 * its own block.  Open MPI's MPI_Reduce_scatter over TCP ran two to three
 * times slower than plain neighbour exchanges of the same bytes
 * (bench/README.md), so the pipelines use this schedule: in n-1 steps each
 * process passes a running sum to its right neighbour and adds its own
 * contribution to the one arriving from its left.  Every process talks to
 * two neighbours only and every block crosses each link at most once.
 */
#ifndef SCR_RING_H
#define SCR_RING_H

#include <mpi.h>
#include <stddef.h>

typedef struct {
    unsigned char *buf[3]; /* [0] receives; [1] and [2] take turns as the sum */
} ring_t;

/* room for blocks of up to cap bytes; returns 0 or -1 (out of memory) */
int ring_init(ring_t *r, size_t cap);
void ring_free(ring_t *r);

/* send holds the comm-size blocks back to back, counts[i] bytes for process
 * i (each at most cap); recv gets the XOR of every process's block of mine.
 * Collective over comm. */
void ring_xor_reduce_scatter(ring_t *r, const unsigned char *send, const size_t *counts,
                             unsigned char *recv, MPI_Comm comm);

#endif
