/* SPDX-License-Identifier: BSD-3-Clause */
/* report_sum.h - the numbers `scr report` shows for one job or several:
 * counts of runs, checkpoints, flushes, restarts and failures, and the
 * min/median/max of checkpoint and flush durations and bandwidths.
 */
#ifndef SCR_REPORT_SUM_H
#define SCR_REPORT_SUM_H

#include "report_model.h"

#define REP_MAX_SCHEMES 8

typedef struct {
    int jobs, runs, relaunches, failed_runs;
    int ckpt[REP_INTERRUPTED + 1]; /* checkpoints by state */
    int outputs;                   /* output datasets (not checkpoints) */
    struct {
        char name[16];
        int n;
    } schemes[REP_MAX_SCHEMES]; /* complete checkpoints by scheme */
    int nschemes;
    rep_dist_t ckpt_secs, ckpt_mbps, ckpt_bytes;
    int64_t ckpt_total;
    int flush[REP_INTERRUPTED + 1]; /* flushes by state */
    rep_dist_t flush_secs, flush_mbps;
    int64_t flush_total;
    int restarts, from_cache, from_rebuild, from_prefix;
    int marks[REP_MARK_KINDS];
} rep_sum_t;

/* the sum over jobs[0..n-1].  Returns 0, or -1 when out of memory. */
int rep_sum(const rep_job_t *jobs, int n, rep_sum_t *s);

/* a checkpoint's or flush's bandwidth in MB/s (10^6), -1 when unknown */
double rep_dset_mbps(const rep_dset_t *d);
double rep_flush_mbps(const rep_flush_t *f);

#endif
