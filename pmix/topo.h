/* SPDX-License-Identifier: BSD-3-Clause */
/* topo.h - where this process runs: node name, local rank and size, node
 * count, and a communicator of the processes on the same node.
 *
 * PMIx is asked first (PMIX_HOSTNAME, PMIX_LOCAL_RANK, PMIX_LOCAL_SIZE,
 * PMIX_NUM_NODES).  Per-rank PMIX_NODEID is not used: Slurm 22.05 reports it
 * wrong.  Without PMIx (e.g. MPICH) the same facts come from gethostname and
 * a rendezvous of the ranks by host name.  When comm is the whole job, the
 * node communicator is made from PMIx's list of the node's ranks
 * (PMIX_LOCAL_PEERS), checked to share one host name, with no message
 * between nodes; otherwise, or when any rank's list is missing or wrong,
 * from the rendezvous.  Either way "node" means the same thing to everyone.
 */
#ifndef SCR_TOPO_H
#define SCR_TOPO_H

#include <mpi.h>

#include "groupidx.h"

typedef struct {
    char hostname[256];
    int local_rank;
    int local_size;
    int num_nodes;
    groupidx_t node;       /* this node's ranks in comm as a group (no list):
                              its size, this rank's row, the nodes in comm */
    MPI_Comm comm_node;    /* processes on this node */
    const char *source;    /* "pmix" or "mpi" */
    const char *node_from; /* how comm_node was made, for the log */
    char *nodes;           /* comm the whole job: its nodes as PMIx lists them ("n1,n2"),
                              malloc'd; else NULL */
} topo_t;

/* Collective over comm; use_pmix = 0 skips PMIx (SCR_TOPOLOGY=mpi); whole
 * says comm holds the whole job, whose node counts PMIx gives (for a
 * smaller communicator they come from comm itself).  Returns 0, or -1 with
 * a message in err. */
int topo_create(MPI_Comm comm, int use_pmix, int whole, topo_t *topo, char *err,
                int errlen);
void topo_free(topo_t *topo);

#endif
