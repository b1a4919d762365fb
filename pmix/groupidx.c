/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.c - groups of ranks by name, met at a home process per name
 * (groupidx.h, rdv.h) */
#include <stdlib.h>
#include <string.h>

#include "groupidx.h"
#include "rdv.h"

#define GROUPIDX_TAG 7517

static uint64_t groupidx_fnv1a(const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* the groups' indices: the lowest ranks count themselves in rank order
 * and tell their group's other members */
static void groupidx_number(MPI_Comm comm, int rank, groupidx_t *gi)
{
    int lead = gi->first == rank, below = 0;
    MPI_Exscan(&lead, &below, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        below = 0; /* MPI_Exscan leaves rank 0's undefined */
    if (!lead) {
        MPI_Recv(&gi->index, 1, MPI_INT, gi->first, GROUPIDX_TAG, comm,
                 MPI_STATUS_IGNORE);
        return;
    }
    gi->index = below;
    for (int i = 1; i < gi->size; i++)
        MPI_Send(&gi->index, 1, MPI_INT, gi->members[i], GROUPIDX_TAG, comm);
}

int groupidx_build_hashed(MPI_Comm comm, const char *name, int want_members,
                          groupidx_t *gi, groupidx_hash_fn hash)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(gi, 0, sizeof(*gi));
    gi->index = -1;
    size_t len = strnlen(name, GROUPIDX_NAME - 1);
    rdv_peers_t p;
    rdv_find(comm, name, (int)len, hash(name), want_members, &p);
    gi->size = p.count;
    gi->row = p.row;
    gi->first = p.first;
    gi->members = p.members;
    int lead = gi->first == rank;
    MPI_Allreduce(&lead, &gi->ngroups, 1, MPI_INT, MPI_SUM, comm);
    if (want_members)
        groupidx_number(comm, rank, gi);
    return 0;
}

int groupidx_build(MPI_Comm comm, const char *name, int want_members, groupidx_t *gi)
{
    return groupidx_build_hashed(comm, name, want_members, gi, groupidx_fnv1a);
}

void groupidx_free(groupidx_t *gi)
{
    free(gi->members);
    gi->members = NULL;
}
