/* SPDX-License-Identifier: BSD-3-Clause */
/* xchg.h - a sparse exchange of byte buffers between a communicator's
 * processes (NBX: Hoefler, Siebert and Lumsdaine, 2010).
 *
 * Each process sends to the destinations it names and takes what arrives,
 * without knowing in advance who sends to it, and holds nothing per rank of
 * the communicator.  kvtree_exchange moves trees with it; the name join
 * (namejoin.c) flat records.
 */
#ifndef SCR_XCHG_H
#define SCR_XCHG_H

#include <mpi.h>

/* one message that arrived: len bytes from src; 0, or -1 (counted) */
typedef int (*xchg_take_fn)(int src, const char *buf, int len, void *arg);

/* send len[i] bytes at buf[i] to dest[i], i < n (distinct destinations),
 * and hand every message that arrives to take.  Collective.  Returns 0, or
 * -1 when take failed for a message here (the exchange still completes). */
int xchg_bytes(MPI_Comm comm, int n, const int *dest, const char *const *buf,
               const int *len, xchg_take_fn take, void *arg);

/* the same without the closing barrier, for a caller whose next step on
 * comm is a collective of its own (rdv.c's sum of the keys): until every
 * process has passed one, a fast process's next exchange could reach one
 * still taking this exchange's messages */
int xchg_bytes_open(MPI_Comm comm, int n, const int *dest, const char *const *buf,
                    const int *len, xchg_take_fn take, void *arg);

#endif
