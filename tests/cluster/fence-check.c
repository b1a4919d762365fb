/* SPDX-License-Identifier: BSD-3-Clause */
/* fence-check.c - is a PMIx fence of the whole job a barrier across nodes?
 * Open MPI's MPI_Init ends with a fence that collects no data; a rank's
 * PML registers its message callbacks before it, so a peer that leaves
 * that fence early can send a message the rank cannot take yet (a call
 * through a NULL callback at MPI_Init).  test-slurm.sh runs this under
 * srun --mpi=pmix to check the test cluster's fences hold every rank.
 *
 * usage: fence-check [SECONDS]
 *   rank 0 sleeps SECONDS (default 1) before each fence; every rank prints
 *   "fence DATA rank R enter T exit T" with wall-clock seconds, once for a
 *   fence that collects no data and once for one that does.  A barrier
 *   lets no rank out before rank 0 came in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* one fence of the whole namespace; collect says whether it gathers data */
static int fence_once(const pmix_proc_t *me, int collect, double delay)
{
    pmix_info_t info;
    bool flag = collect;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    if (me->rank == 0)
        usleep((useconds_t)(delay * 1e6));
    double enter = now();
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    double leave = now();
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "fence-check: rank %u: PMIx_Fence: %s\n", me->rank,
                PMIx_Error_string(rc));
        return -1;
    }
    printf("fence %s rank %u enter %.3f exit %.3f\n", collect ? "data" : "nodata",
           me->rank, enter, leave);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    double delay = argc > 1 ? atof(argv[1]) : 1.0;
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "fence-check: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    int bad = fence_once(&me, 0, delay) < 0 || fence_once(&me, 1, delay) < 0;
    PMIx_Finalize(NULL, 0);
    return bad;
}
