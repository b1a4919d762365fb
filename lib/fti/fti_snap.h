/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_snap.h - when FTI_Snapshot checkpoints.
 *
 * FTI's configuration gives each level an interval in minutes (ckpt_l1 ..
 * ckpt_l4, dcp_l4 for differential level-4 checkpoints).  Asking the clock
 * at every call would need every process to agree on it each time, so, as
 * FTI does, the decision is made in iterations: every so many calls (1, 2,
 * 4, ... up to max_sync_intv) the processes measure the mean time between
 * calls together, which gives the calls per minute; each time that many
 * calls have passed a minute is counted, and the highest level whose
 * interval has come is due.  Every process reaches the same answer at the
 * same call.  fast_forward (1-10) divides the minute, for tests.
 */
#ifndef SCR_FTI_SNAP_H
#define SCR_FTI_SNAP_H

#include <mpi.h>

#include "fti_conf.h"

typedef struct {
    long interval[5]; /* minutes per level 1-4, <= 0 off */
    long dcp_l4;
    long fast_forward;
    long max_sync;
    long calls;      /* FTI_Snapshot calls so far */
    double last;     /* when the previous call came */
    double busy;     /* seconds between calls, summed */
    double mean;     /* mean seconds per call, over all processes */
    long sync_every; /* calls between measurements */
    long per_minute; /* calls per minute at the last measurement */
    long next_tick, last_tick;
    long minutes;
    long due[5], due_dcp; /* intervals of each level counted so far, + 1 */
} fti_snap_t;

void fti_snap_init(fti_snap_t *s, const fti_conf_t *c);

/* At each FTI_Snapshot call (collective over comm): the level due now, 1-4
 * or FTI_L4_DCP (8), or 0. */
int fti_snap_due(fti_snap_t *s, double now, MPI_Comm comm);

#endif
