/* SPDX-License-Identifier: BSD-3-Clause */
/* report_interval.c - the interval `scr report` would choose (report_interval.h) */
#include <stdlib.h>

#include "interval.h"
#include "report_interval.h"
#include "report_text.h"

/* the median of the job's complete checkpoints' seconds (restarts 0), or
 * of the SCR_Init of its runs that restarted (1); -1 when there is none */
static double interval_median(const rep_job_t *j, int restarts)
{
    int n = restarts ? j->nruns : j->ndsets, k = 0;
    double *v = malloc(sizeof(double) * (size_t)(n + 1));
    if (!v)
        return -1;
    for (int i = 0; restarts && i < n; i++)
        if (j->runs[i].restart_id >= 0 && j->runs[i].init_secs > 0)
            v[k++] = j->runs[i].init_secs;
    for (int i = 0; !restarts && i < n; i++) {
        const rep_dset_t *d = &j->dsets[i];
        if (d->state == REP_COMPLETE && d->secs > 0 &&
            (d->flags < 0 || (d->flags & REP_FLAG_CHECKPOINT)))
            v[k++] = d->secs;
    }
    rep_dist_t dist;
    rep_dist(v, k, &dist);
    free(v);
    return k ? dist.med : -1;
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
    double cost = interval_median(j, 0), restart = interval_median(j, 1);
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
    double tau = interval_optimal(cost, mtbf);
    double waste = interval_waste(tau, cost, restart > 0 ? restart : cost, mtbf);
    char t[32], c[32], m[32], r[32];
    report_fmt_secs(tau, t, sizeof(t));
    report_fmt_secs(cost, c, sizeof(c));
    report_fmt_secs(mtbf, m, sizeof(m));
    report_fmt_secs(restart > 0 ? restart : cost, r, sizeof(r));
    fprintf(out,
            "  %-12s %s of computing between checkpoints (Daly: checkpoint %s, restart "
            "%s%s, job MTBF %s%s): %.1f %% of the time lost\n",
            "interval", t, c, r, restart > 0 ? "" : " taken as a checkpoint's", m,
            job_mtbf > 0 ? ""
            : nodes > 0  ? " over its nodes"
                         : "",
            100 * waste);
}
