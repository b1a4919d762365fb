/* SPDX-License-Identifier: BSD-3-Clause */
/* namesketch.c - names no other rank holds, from bucket sums (namesketch.h) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "namesketch.h"
#include "nameset.h"

/* buckets for total names, the same on every rank; 0 when they would
 * crowd.  A bucket's count stays within 16 bits: total <= 4096. */
static int namesketch_buckets(uint64_t total)
{
    if (total > NAMESKETCH_MAX_NAMES)
        return 0;
    int m = NAMESKETCH_MIN_BUCKETS;
    while ((uint64_t)m < 256 * total && m < NAMESKETCH_MAX_BUCKETS)
        m *= 2;
    return m;
}

static int namesketch_all_shared(int n, unsigned char *shared, int rc)
{
    if (n > 0)
        memset(shared, 1, (size_t)n);
    return rc < 0 ? -1 : n;
}

/* 1 if any bucket's sum is above 1: a name there may be two ranks' */
static int namesketch_crowded(const uint16_t *all, int m)
{
    for (int b = 0; b < m; b++)
        if (all[b] > 1)
            return 1;
    return 0;
}

int namesketch_shared(MPI_Comm comm, const char *const *names, int n,
                      unsigned char *shared, int *crowded)
{
    int dummy;
    if (!crowded)
        crowded = &dummy;
    *crowded = 1;
    /* the names in all, and whether a rank is out of memory */
    uint64_t v[2] = {n > 0 ? (uint64_t)n : 0, 0}, sum[2];
    int m = NAMESKETCH_MAX_BUCKETS;
    uint16_t *mine = malloc(sizeof(uint16_t) * 2 * (size_t)m);
    v[1] = mine == NULL || n < 0;
    MPI_Allreduce(v, sum, 2, MPI_UINT64_T, MPI_SUM, comm);
    m = namesketch_buckets(sum[0]);
    if (!sum[1] && sum[0] == 0) { /* no names anywhere: nothing to sum */
        free(mine);
        *crowded = 0;
        return 0;
    }
    if (sum[1] || m == 0) {
        free(mine);
        return namesketch_all_shared(n, shared, sum[1] ? -1 : 0);
    }
    uint16_t *all = mine + m;
    memset(mine, 0, sizeof(uint16_t) * (size_t)m);
    for (int i = 0; i < n; i++)
        mine[nameset_owner(names[i], m)]++;
    MPI_Allreduce(mine, all, m, MPI_UINT16_T, MPI_SUM, comm);
    *crowded = namesketch_crowded(all, m);
    int maybe = 0;
    for (int i = 0; i < n; i++) {
        int b = nameset_owner(names[i], m);
        /* only this rank's names in the bucket: no other rank holds it */
        shared[i] = all[b] != mine[b];
        maybe += shared[i];
    }
    free(mine);
    return maybe;
}
