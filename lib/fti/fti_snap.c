/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_snap.c - FTI_Snapshot's schedule: levels due by minutes, counted in
 * calls */
#include <math.h>
#include <string.h>

#include "fti.h"
#include "fti_snap.h"

void fti_snap_init(fti_snap_t *s, const fti_conf_t *c)
{
    memset(s, 0, sizeof(*s));
    for (int i = 1; i <= 4; i++) {
        s->interval[i] = c->ckpt_l[i];
        s->due[i] = 1;
    }
    s->dcp_l4 = c->dcp_l4;
    s->due_dcp = 1;
    s->fast_forward = c->fast_forward > 0 ? c->fast_forward : 1;
    s->max_sync = c->max_sync_intv > 0 ? c->max_sync_intv : 512;
    s->sync_every = 1;
    s->per_minute = 1;
}

/* the mean time between calls over every process, and from it the calls
 * per minute; rank 0 decides so everyone has the same numbers */
static void snap_measure(fti_snap_t *s, long call, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double mine = s->busy / (double)(call - 1), sum = 0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    double got[2] = {0, 0}; /* mean, calls per minute */
    if (rank == 0) {
        double mean = sum / size, per = 1;
        if (mean > 0 && mean <= 60)
            per = fmin(rint(60.0 / mean), 1e9);
        per = ceil(per / (double)s->fast_forward);
        got[0] = mean;
        got[1] = per < 1 ? 1 : per;
    }
    MPI_Bcast(got, 2, MPI_DOUBLE, 0, comm);
    s->mean = got[0];
    s->per_minute = (long)got[1];
    long next = s->last_tick + s->per_minute + (s->last_tick == 0 ? 1 : 0);
    if (next >= call)
        s->next_tick = next;
    if (s->sync_every < s->per_minute / 2 && s->sync_every < s->max_sync)
        s->sync_every *= 2;
}

/* a minute has passed: the highest level whose interval came */
static int snap_tick(fti_snap_t *s, long call)
{
    if (s->mean > 60)
        s->minutes = (long)(s->mean * (double)(call - 1) / 60.0);
    else
        s->minutes++;
    int level = 0;
    for (int i = 1; i <= 4; i++) {
        if (i == 4 && s->dcp_l4 > 0 && s->minutes >= s->due_dcp * s->dcp_l4) {
            level = FTI_L4_DCP;
            s->due_dcp++;
        }
        if (s->interval[i] > 0 && s->minutes >= s->due[i] * s->interval[i]) {
            level = i;
            s->due[i]++;
        }
    }
    s->last_tick = s->next_tick;
    s->next_tick += s->per_minute;
    return level;
}

int fti_snap_due(fti_snap_t *s, double now, MPI_Comm comm)
{
    long call = ++s->calls;
    if (call > 1)
        s->busy += now - s->last;
    s->last = now;
    if (call > 1 && (call - 1) % s->sync_every == 0)
        snap_measure(s, call, comm);
    return call == s->next_tick ? snap_tick(s, call) : 0;
}
