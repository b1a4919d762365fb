/* SPDX-License-Identifier: BSD-3-Clause */
/* topo.c - node topology from PMIx, else from MPI and gethostname */
#include <stdint.h>
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

/* This node's ranks as PMIx lists them (PMIX_LOCAL_PEERS), when they are
 * ranks of comm: comm is the whole job and its ranks are PMIx's.  NULL
 * otherwise; *n its length. */
static int *pmix_node_ranks(const pmix_proc_t *me, MPI_Comm comm, int whole, int *n)
{
    int rank, *ranks = NULL;
    pmix_value_t *v = NULL;
    MPI_Comm_rank(comm, &rank);
    if (!whole || me->rank != (pmix_rank_t)rank ||
        pmix_get_value(me, 1, PMIX_LOCAL_PEERS, &v) < 0)
        return NULL;
    if (v->type == PMIX_STRING && v->data.string)
        *n = groupidx_parse_ranks(v->data.string, &ranks);
    PMIX_VALUE_RELEASE(v);
    return ranks;
}

/* fill hostname, local rank/size and node count from PMIx, and when comm
 * is the job (whole) the list of this node's ranks (*peers, *npeers) */
static int topo_from_pmix(topo_t *topo, MPI_Comm comm, int whole, int **peers,
                          int *npeers)
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
        *peers = pmix_node_ranks(&me, comm, whole, npeers);
        /* the job's nodes, where only the job's are listed */
        if (whole && PMIx_Resolve_nodes(me.nspace, &topo->nodes) != PMIX_SUCCESS)
            topo->nodes = NULL;
        rc = 0;
    }
    if (v)
        PMIX_VALUE_RELEASE(v);
    PMIx_Finalize(NULL, 0);
    return rc;
}
#else
static int topo_from_pmix(topo_t *topo, MPI_Comm comm, int whole, int **peers,
                          int *npeers)
{
    (void)topo;
    (void)comm;
    (void)whole;
    (void)peers;
    (void)npeers;
    return -1;
}
#endif

/* 1 if every rank of the node communicator has this host name */
static int topo_same_host(MPI_Comm node, const char *host)
{
    uint64_t h = groupidx_hash(host), v[2] = {h, ~h}, max[2];
    MPI_Allreduce(v, max, 2, MPI_UINT64_T, MPI_MAX, node);
    return max[0] == ~max[1]; /* the largest hash is the smallest */
}

/* The node communicator from each rank's list of its node's ranks
 * (PMIx's), which sends nothing between nodes.  A rendezvous sends each
 * rank's host name to a home rank elsewhere, and Open MPI's TCP transport
 * keeps every connection it ever opened and polls them all whenever it
 * progresses, which slowed the application's own collectives by 4-7 %
 * for two more sockets a rank (bench/README.md).  0, or -1 on every rank
 * (a list missing or wrong, or a node's ranks of two host names): the
 * caller meets by host name instead. */
static int topo_split_listed(MPI_Comm comm, int *peers, int npeers, topo_t *topo,
                             groupidx_t *gi)
{
    if (groupidx_from_list(comm, peers, npeers, gi) < 0)
        return -1;
    int bad = rdv_comm_create(comm, gi->members, gi->size, TOPO_NODE_TAG,
                              &topo->comm_node) < 0 ||
              !topo_same_host(topo->comm_node, topo->hostname);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
    if (!any)
        return 0;
    if (topo->comm_node != MPI_COMM_NULL)
        MPI_Comm_free(&topo->comm_node);
    groupidx_free(gi);
    return -1;
}

/* the node communicator: ranks sharing a host name share a node; the
 * counts come from it unless PMIx gave them for the communicator (PMIx
 * speaks of the whole job, which a communicator of SCR_Init_comm is not).
 * The node's ranks make it among themselves from their list: PMIx's when
 * listed (every rank has one to offer), else one met at a home rank
 * (groupidx.h).  MPI_Comm_split would have every process gather every
 * rank's color and key (Open MPI 4.1). */
static int topo_split(MPI_Comm comm, int counts, int listed, int *peers, int npeers,
                      topo_t *topo)
{
    groupidx_t gi;
    int rc = 0;
    topo->node_from = "PMIx's list of the node's ranks";
    if (!listed || topo_split_listed(comm, peers, npeers, topo, &gi) < 0) {
        /* the lists are freed */
        topo->node_from = listed ? "a rendezvous on host names (PMIx's lists of the "
                                   "nodes' ranks were missing or disagreed)"
                                 : "a rendezvous on host names";
        groupidx_build(comm, topo->hostname, 1, &gi);
        rc = rdv_comm_create(comm, gi.members, gi.size, TOPO_NODE_TAG, &topo->comm_node);
    }
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
    int *peers = NULL, npeers = 0;
    if (!use_pmix || topo_from_pmix(topo, comm, whole, &peers, &npeers) < 0) {
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
    /* the same on every rank: whether to try the lists */
    int listed = whole && all_ok;
    if (!listed) {
        free(peers);
        free(topo->nodes); /* the job's nodes, but the hosts are not PMIx's */
        topo->nodes = NULL;
    }
    if (topo_split(comm, !whole || strcmp(topo->source, "mpi") == 0, listed, peers,
                   npeers, topo) < 0) {
        snprintf(err, (size_t)errlen, "cannot build the node communicator");
        return -1;
    }
    return 0;
}

void topo_free(topo_t *topo)
{
    free(topo->nodes);
    topo->nodes = NULL;
    if (topo->comm_node != MPI_COMM_NULL)
        MPI_Comm_free(&topo->comm_node);
}
