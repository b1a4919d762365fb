/* SPDX-License-Identifier: BSD-3-Clause */
/* report_interval.c - the interval `scr report` would choose (report_interval.h) */
#include <stdlib.h>

#include "interval.h"
#include "report_interval.h"
#include "report_text.h"

/* the median of v[0..k) (sorted in place, then freed); -1 when empty */
static double interval_median(double *v, int k)
{
    rep_dist_t dist;
    rep_dist(v, k, &dist);
    free(v);
    return k ? dist.med : -1;
}

/* the median seconds of the job's complete checkpoints; -1 for none */
static double interval_ckpt_cost(const rep_job_t *j)
{
    double *v = malloc(sizeof(double) * (size_t)(j->ndsets + 1));
    int k = 0;
    for (int i = 0; v && i < j->ndsets; i++) {
        const rep_dset_t *d = &j->dsets[i];
        if (d->state == REP_COMPLETE && d->secs > 0 &&
            (d->flags < 0 || (d->flags & REP_FLAG_CHECKPOINT)))
            v[k++] = d->secs;
    }
    return v ? interval_median(v, k) : -1;
}

/* the median SCR_Init of the job's runs that restarted; -1 for none */
static double interval_restart_cost(const rep_job_t *j)
{
    double *v = malloc(sizeof(double) * (size_t)(j->nruns + 1));
    int k = 0;
    for (int i = 0; v && i < j->nruns; i++)
        if (j->runs[i].restart_id >= 0 && j->runs[i].init_secs > 0)
            v[k++] = j->runs[i].init_secs;
    return v ? interval_median(v, k) : -1;
}

static int interval_nodes(const rep_job_t *j)
{
    for (int i = j->nruns - 1; i >= 0; i--)
        if (j->runs[i].nodes > 0)
            return j->runs[i].nodes;
    return -1;
}

void report_interval(FILE *out, const rep_job_t *j, double node_mtbf, double job_mtbf)
{
    double cost = interval_ckpt_cost(j), measured = interval_restart_cost(j);
    int nodes = interval_nodes(j);
    if (cost <= 0)
        return;
    double mtbf = job_mtbf > 0 ? job_mtbf : interval_job_mtbf(node_mtbf, nodes);
    if (!(mtbf > 0)) {
        fprintf(out,
                "  %-12s give one node's MTBF (scr report --mtbf 5y, or SCR_MTBF) "
                "for the optimal one\n",
                "interval");
        return;
    }
    /* without a restart in the log, one is taken to cost a checkpoint */
    double restart = measured > 0 ? measured : cost;
    double tau = interval_optimal(cost, mtbf);
    double waste = interval_waste(tau, cost, restart, mtbf);
    char t[32], c[32], m[32], r[32];
    report_fmt_secs(tau, t, sizeof(t));
    report_fmt_secs(cost, c, sizeof(c));
    report_fmt_secs(mtbf, m, sizeof(m));
    report_fmt_secs(restart, r, sizeof(r));
    fprintf(out,
            "  %-12s %s of computing between checkpoints (Daly: checkpoint %s, restart "
            "%s%s, job MTBF %s%s): %.1f %% of the time lost\n",
            "interval", t, c, r, measured > 0 ? "" : " taken as a checkpoint's", m,
            job_mtbf > 0 ? ""
            : nodes > 0  ? " over its nodes"
                         : "",
            100 * waste);
}
