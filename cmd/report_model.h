/* SPDX-License-Identifier: BSD-3-Clause */
/* report_model.h - what happened to each job, rebuilt from its event log
 * lines (report_log.h), for the text summary and the HTML page of
 * `scr report`.
 *
 * A job (job=) has runs: one per SCR_Init, from its RUN_START (minus
 * init_secs when the line has it) to its RUN_END.  A run with no RUN_END
 * before the job's next SCR_Init, or before the log ends, failed (killed,
 * a lost node, ...); a dataset it had started and not completed was
 * interrupted.  The events of an SCR_Init come before its RUN_START
 * (REBUILD, FETCH, HALT at=init), so they wait for it; a restart came from
 * the prefix when that init fetched the dataset, from a rebuild when the
 * init rebuilt lost ranks of it, else from the cache as it was.
 *
 * Events the model does not know are counted, not fatal; numbers missing
 * from a line (an older SCR, a torn write) are left unknown (-1).
 */
#ifndef SCR_REPORT_MODEL_H
#define SCR_REPORT_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "report_log.h"

#define REP_FLAG_CHECKPOINT 1
#define REP_FLAG_OUTPUT 2

typedef enum {
    REP_OPEN = 0,    /* started, no end seen yet */
    REP_COMPLETE,    /* ended ok=1 */
    REP_INVALID,     /* ended ok=0 */
    REP_INTERRUPTED, /* its run died before the end */
} rep_state_t;

typedef struct {
    int id;
    char name[64];
    int flags;       /* REP_FLAG_*, -1 unknown */
    char scheme[16]; /* SINGLE, PARTNER, XOR, RS; "" unknown */
    double t0, t1;   /* start and end (unix seconds) */
    double secs;     /* -1 unknown */
    int64_t bytes;   /* -1 unknown */
    int run;         /* index in the job's runs, -1 none */
    rep_state_t state;
    int flushed; /* a flush of it completed */
} rep_dset_t;

typedef struct {
    int id;
    char mode[8];              /* sync, async, "" */
    double t0, t1, secs, mbps; /* secs, mbps -1 unknown */
    int64_t bytes;
    int run;
    rep_state_t state;
} rep_flush_t;

typedef struct {
    double t0, t1;    /* t1: RUN_END, else the run's last event */
    double init_secs; /* SCR_Init's share, -1 unknown */
    int ranks, nodes; /* -1 unknown */
    int restart_id;   /* dataset offered at init, -1 none */
    int ended;        /* 1 RUN_END seen, -1 failed, 0 still open */
    char host[64];    /* rank 0's */
} rep_run_t;

typedef enum {
    REP_MARK_RESTART = 0,
    REP_MARK_FAILURE,
    REP_MARK_HALT,
    REP_MARK_FETCH,
    REP_MARK_REBUILD,
    REP_MARK_SCAVENGE,
    REP_MARK_INDEX,
    REP_MARK_KINDS
} rep_mark_kind_t;

typedef struct {
    rep_mark_kind_t kind;
    double t;
    int run;  /* -1: outside any run (the epilog) */
    int dset; /* -1 none */
    int ok;
    char from[8];      /* restart: cache, rebuild, prefix */
    int64_t bytes;     /* fetch, scavenge; -1 unknown */
    int files, failed; /* scavenge, index; -1 unknown */
    char text[200];    /* one line for people */
} rep_mark_t;

typedef struct {
    char id[64], user[64];
    double t0, t1; /* first and last event */
    long events;
    rep_run_t *runs;
    int nruns;
    rep_dset_t *dsets;
    int ndsets;
    rep_flush_t *flushes;
    int nflushes;
    rep_mark_t *marks;
    int nmarks;
    int pending_from; /* marks from here on wait for the next RUN_START */
} rep_job_t;

typedef struct {
    rep_job_t *jobs; /* in the order of their first event */
    int njobs;
    rlog_stats_t stats;
    long events;          /* lines that were events */
    long unknown;         /* events of a kind the model does not use */
    const char *only_job; /* NULL: every job */
    double mtbf_node;     /* seconds, 0: not given (scr report --mtbf, SCR_MTBF) */
    double mtbf_job;      /* the job's (SCR_MTBF_JOB), wins over mtbf_node */
} rep_t;

/* Read a log into r (zeroed first; only_job NULL for all jobs).  Returns 0,
 * or -1 when out of memory. */
int rep_load(FILE *fp, const char *only_job, rep_t *r);
/* the same for one event at a time (rep_load's callback; for tests) */
int rep_add_event(const rlog_event_t *ev, void *r);
/* close what is still open once the whole log is in */
void rep_finish(rep_t *r);
void rep_free(rep_t *r);

/* how many marks of a kind a job has */
int rep_count_marks(const rep_job_t *j, rep_mark_kind_t kind);
const char *rep_mark_name(rep_mark_kind_t kind);
const char *rep_state_name(rep_state_t state);

/* min, median, max of n values (v is sorted in place); n 0 gives zeros */
typedef struct {
    int n;
    double min, med, max;
} rep_dist_t;
void rep_dist(double *v, int n, rep_dist_t *d);

#endif
