/* SPDX-License-Identifier: BSD-3-Clause */
/* report_sum.c - counts and distributions over jobs */
#include <stdlib.h>
#include <string.h>

#include "report_sum.h"

double rep_dset_mbps(const rep_dset_t *d)
{
    if (d->state != REP_COMPLETE || d->secs <= 0 || d->bytes < 0)
        return -1;
    return (double)d->bytes / d->secs / 1e6;
}

double rep_flush_mbps(const rep_flush_t *f)
{
    if (f->state != REP_COMPLETE)
        return -1;
    if (f->mbps >= 0)
        return f->mbps;
    return f->secs > 0 && f->bytes >= 0 ? (double)f->bytes / f->secs / 1e6 : -1;
}

static void sum_scheme(rep_sum_t *s, const char *name)
{
    const char *n = name[0] ? name : "unknown";
    for (int i = 0; i < s->nschemes; i++)
        if (strcmp(s->schemes[i].name, n) == 0) {
            s->schemes[i].n++;
            return;
        }
    if (s->nschemes < REP_MAX_SCHEMES) {
        snprintf(s->schemes[s->nschemes].name, sizeof(s->schemes[0].name), "%s", n);
        s->schemes[s->nschemes++].n = 1;
    }
}

/* values of every job's checkpoints and flushes, for the distributions */
typedef struct {
    double *secs, *mbps, *bytes, *fsecs, *fmbps;
    int nsecs, nmbps, nbytes, nfsecs, nfmbps;
} sum_vals_t;

static void sum_dsets(const rep_job_t *j, rep_sum_t *s, sum_vals_t *v)
{
    for (int i = 0; i < j->ndsets; i++) {
        const rep_dset_t *d = &j->dsets[i];
        if (d->flags >= 0 && !(d->flags & REP_FLAG_CHECKPOINT)) {
            s->outputs += d->state == REP_COMPLETE;
            continue;
        }
        s->ckpt[d->state]++;
        if (d->state != REP_COMPLETE)
            continue;
        sum_scheme(s, d->scheme);
        if (d->secs >= 0)
            v->secs[v->nsecs++] = d->secs;
        if (d->bytes >= 0) {
            v->bytes[v->nbytes++] = (double)d->bytes;
            s->ckpt_total += d->bytes;
        }
        if (rep_dset_mbps(d) >= 0)
            v->mbps[v->nmbps++] = rep_dset_mbps(d);
    }
}

static void sum_flushes(const rep_job_t *j, rep_sum_t *s, sum_vals_t *v)
{
    for (int i = 0; i < j->nflushes; i++) {
        const rep_flush_t *f = &j->flushes[i];
        s->flush[f->state]++;
        if (f->state != REP_COMPLETE)
            continue;
        if (f->secs >= 0)
            v->fsecs[v->nfsecs++] = f->secs;
        if (f->bytes >= 0)
            s->flush_total += f->bytes;
        if (rep_flush_mbps(f) >= 0)
            v->fmbps[v->nfmbps++] = rep_flush_mbps(f);
    }
}

static void sum_marks(const rep_job_t *j, rep_sum_t *s)
{
    for (int i = 0; i < j->nmarks; i++) {
        const rep_mark_t *m = &j->marks[i];
        s->marks[m->kind]++;
        if (m->kind != REP_MARK_RESTART)
            continue;
        s->restarts++;
        s->from_prefix += !strcmp(m->from, "prefix");
        s->from_rebuild += !strcmp(m->from, "rebuild");
        s->from_cache += !strcmp(m->from, "cache");
    }
}

int rep_sum(const rep_job_t *jobs, int n, rep_sum_t *s)
{
    memset(s, 0, sizeof(*s));
    size_t nd = 1, nf = 1;
    for (int k = 0; k < n; k++)
        nd += (size_t)jobs[k].ndsets, nf += (size_t)jobs[k].nflushes;
    sum_vals_t v = {calloc(nd, sizeof(double)),
                    calloc(nd, sizeof(double)),
                    calloc(nd, sizeof(double)),
                    calloc(nf, sizeof(double)),
                    calloc(nf, sizeof(double)),
                    0,
                    0,
                    0,
                    0,
                    0};
    int rc = v.secs && v.mbps && v.bytes && v.fsecs && v.fmbps ? 0 : -1;
    for (int k = 0; rc == 0 && k < n; k++) {
        const rep_job_t *j = &jobs[k];
        s->jobs++;
        s->runs += j->nruns;
        s->relaunches += j->nruns > 1 ? j->nruns - 1 : 0;
        for (int i = 0; i < j->nruns; i++)
            s->failed_runs += j->runs[i].ended < 0;
        sum_dsets(j, s, &v);
        sum_flushes(j, s, &v);
        sum_marks(j, s);
    }
    rep_dist(v.secs, v.nsecs, &s->ckpt_secs);
    rep_dist(v.mbps, v.nmbps, &s->ckpt_mbps);
    rep_dist(v.bytes, v.nbytes, &s->ckpt_bytes);
    rep_dist(v.fsecs, v.nfsecs, &s->flush_secs);
    rep_dist(v.fmbps, v.nfmbps, &s->flush_mbps);
    free(v.secs);
    free(v.mbps);
    free(v.bytes);
    free(v.fsecs);
    free(v.fmbps);
    return rc;
}
