/* SPDX-License-Identifier: BSD-3-Clause */
/* topo.c - node topology from PMIx, else from MPI and gethostname */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scr_build.h"
#include "groupidx.h"
#include "rdv.h"
#include "topo.h"

/* MPI_Comm_create_group's tag for the node communicator */
#define TOPO_NODE_TAG 7518

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

/* the node communicator: ranks sharing a host name share a node; the
 * counts come from it unless PMIx gave them for the communicator (PMIx
 * speaks of the whole job, which a communicator of SCR_Init_comm is not).
 * The node's ranks make it among themselves from their list (groupidx.h):
 * MPI_Comm_split would have every process gather every rank's color and
 * key (Open MPI 4.1). */
static int topo_split(MPI_Comm comm, int counts, topo_t *topo)
{
    groupidx_t gi;
    groupidx_build(comm, topo->hostname, 1, &gi);
    int rc = rdv_comm_create(comm, gi.members, gi.size, TOPO_NODE_TAG, &topo->comm_node);
    groupidx_free(&gi);
    topo->node = gi; /* the list freed: desc.c needs the counts only */
    if (rc < 0)
        return -1;
    if (counts) {
        topo->local_rank = gi.row;
        topo->local_size = gi.size;
        topo->num_nodes = gi.ngroups;
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
