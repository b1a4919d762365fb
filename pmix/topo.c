/* SPDX-License-Identifier: BSD-3-Clause */
/* topo.c - node topology from PMIx, else from MPI and gethostname */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scr_build.h"
#include "groupidx.h"
#include "topo.h"

#if SCR_HAVE_PMIX
#include <pmix.h>

static int pmix_get_value(const pmix_proc_t *me, int wildcard, const char *key,
                          pmix_value_t **val)
{
    pmix_proc_t proc;
    PMIX_PROC_CONSTRUCT(&proc);
    memcpy(proc.nspace, me->nspace, sizeof(proc.nspace));
    proc.rank = wildcard ? PMIX_RANK_WILDCARD : me->rank;
    return PMIx_Get(&proc, key, NULL, 0, val) == PMIX_SUCCESS ? 0 : -1;
}

static int pmix_get_uint(const pmix_proc_t *me, int wildcard, const char *key, int *out)
{
    pmix_value_t *v = NULL;
    if (pmix_get_value(me, wildcard, key, &v) < 0)
        return -1;
    int rc = 0;
    switch (v->type) {
    case PMIX_UINT16:
        *out = v->data.uint16;
        break;
    case PMIX_UINT32:
        *out = (int)v->data.uint32;
        break;
    case PMIX_INT:
        *out = v->data.integer;
        break;
    default:
        rc = -1;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* fill hostname, local rank/size and node count from PMIx */
static int topo_from_pmix(topo_t *topo)
{
    pmix_proc_t me;
    pmix_value_t *v = NULL;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return -1;
    int rc = -1;
    if (pmix_get_value(&me, 0, PMIX_HOSTNAME, &v) == 0 && v->type == PMIX_STRING &&
        v->data.string && strlen(v->data.string) < sizeof(topo->hostname) &&
        pmix_get_uint(&me, 0, PMIX_LOCAL_RANK, &topo->local_rank) == 0 &&
        pmix_get_uint(&me, 1, PMIX_LOCAL_SIZE, &topo->local_size) == 0 &&
        pmix_get_uint(&me, 1, PMIX_NUM_NODES, &topo->num_nodes) == 0) {
        strcpy(topo->hostname, v->data.string);
        rc = 0;
    }
    if (v)
        PMIX_VALUE_RELEASE(v);
    PMIx_Finalize(NULL, 0);
    return rc;
}
#else
static int topo_from_pmix(topo_t *topo)
{
    (void)topo;
    return -1;
}
#endif

/* split comm by host name: ranks sharing a name share a node; the counts
 * come from the split unless PMIx gave them for the communicator (PMIx
 * speaks of the whole job, which a communicator of SCR_Init_comm is not) */
static int topo_split(MPI_Comm comm, int counts, topo_t *topo)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* node index: order of first appearance among world ranks */
    int *idx = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL, mine = -1;
    int nodes = groupidx_build(comm, topo->hostname, idx, &mine);
    free(idx);
    if (nodes < 0)
        return -1;
    topo->node_index = mine;
    if (MPI_Comm_split(comm, mine, rank, &topo->comm_node) != MPI_SUCCESS)
        return -1;
    int lrank, lsize;
    MPI_Comm_rank(topo->comm_node, &lrank);
    MPI_Comm_size(topo->comm_node, &lsize);
    if (counts) {
        topo->local_rank = lrank;
        topo->local_size = lsize;
        topo->num_nodes = nodes;
    }
    return 0;
}

int topo_create(MPI_Comm comm, int use_pmix, int whole, topo_t *topo, char *err,
                int errlen)
{
    memset(topo, 0, sizeof(*topo));
    topo->comm_node = MPI_COMM_NULL;
    topo->source = "pmix";
    if (!use_pmix || topo_from_pmix(topo) < 0) {
        topo->source = "mpi";
        if (gethostname(topo->hostname, sizeof(topo->hostname) - 1) < 0)
            strcpy(topo->hostname, "unknown-host");
    }
    /* everyone must agree on the source, or node counts could disagree */
    int pmix_ok = strcmp(topo->source, "pmix") == 0, all_ok;
    MPI_Allreduce(&pmix_ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok && pmix_ok) {
        topo->source = "mpi";
        gethostname(topo->hostname, sizeof(topo->hostname) - 1);
    }
    if (topo_split(comm, !whole || strcmp(topo->source, "mpi") == 0, topo) < 0) {
        snprintf(err, (size_t)errlen, "cannot build the node communicator");
        return -1;
    }
    return 0;
}

void topo_free(topo_t *topo)
{
    if (topo->comm_node != MPI_COMM_NULL)
        MPI_Comm_free(&topo->comm_node);
}
