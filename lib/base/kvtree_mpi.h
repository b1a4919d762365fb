/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree_mpi.h - moving kvtrees between MPI processes (guide 2.3.2).
 *
 * Trees travel in the packed format of guide 2.3.4.  The exchange is a
 * general sparse all-to-all: each process names the ranks it sends to, and
 * learns from whom it received without knowing in advance.
 */
#ifndef SCR_KVTREE_MPI_H
#define SCR_KVTREE_MPI_H

#include <mpi.h>

#include "kvtree.h"

/* root's t is merged into t on every other process */
int kvtree_bcast(kvtree_t *t, int root, MPI_Comm comm);
int kvtree_send(const kvtree_t *t, int dest, MPI_Comm comm);
int kvtree_recv(kvtree_t *t, int src, MPI_Comm comm);
/* send to dest and receive from src at once (either may be MPI_PROC_NULL) */
int kvtree_sendrecv(const kvtree_t *send, int dest, kvtree_t *recv, int src,
                    MPI_Comm comm);
/* send: "<rank>" -> tree for that rank; recv gets "<rank>" -> tree received */
int kvtree_exchange(const kvtree_t *send, kvtree_t *recv, MPI_Comm comm);
/* every process's tree, as "<rank>" -> tree, on every process */
int kvtree_allgather(const kvtree_t *t, kvtree_t *all, MPI_Comm comm);

#endif
