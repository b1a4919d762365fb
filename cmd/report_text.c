/* SPDX-License-Identifier: BSD-3-Clause */
/* report_text.c - the text summary of `scr report` */
#include <math.h>
#include <string.h>
#include <time.h>

#include "report_interval.h"
#include "report_sum.h"
#include "report_text.h"
#include "units.h"

#define TEXT_MAX_JOBS 3     /* more: one line per job and the totals */
#define TEXT_MAX_FAILURES 6 /* failure lines listed per job */
#define TEXT_MAX_ROWS 12    /* jobs listed one per line: the newest */

void report_fmt_time(double t, int date, char *buf, size_t len)
{
    time_t sec = (time_t)floor(t);
    struct tm tm;
    char hms[24];
    int ms = (int)((t - floor(t)) * 1000);
    localtime_r(&sec, &tm);
    strftime(hms, sizeof(hms), date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
    if (date)
        snprintf(buf, len, "%s", hms);
    else
        snprintf(buf, len, "%.12s.%03d", hms, ms < 0 ? 0 : ms > 999 ? 999 : ms);
}

void report_fmt_secs(double secs, char *buf, size_t len)
{
    if (secs < 10)
        snprintf(buf, len, "%.3f s", secs);
    else if (secs < 60)
        snprintf(buf, len, "%.1f s", secs);
    else if (secs < 3600)
        snprintf(buf, len, "%dm%02ds", (int)secs / 60, (int)secs % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(secs / 3600), (int)secs % 3600 / 60);
}

static void text_dist_secs(FILE *out, const char *label, const rep_dist_t *d)
{
    char a[32], b[32], c[32];
    if (d->n == 0)
        return;
    report_fmt_secs(d->min, a, sizeof(a));
    report_fmt_secs(d->med, b, sizeof(b));
    report_fmt_secs(d->max, c, sizeof(c));
    fprintf(out, "    %-10s min %s, median %s, max %s\n", label, a, b, c);
}

static void text_dist_mbps(FILE *out, const rep_dist_t *d)
{
    if (d->n > 0)
        fprintf(out, "    %-10s min %.1f, median %.1f, max %.1f MB/s\n", "bandwidth",
                d->min, d->med, d->max);
}

static void text_checkpoints(FILE *out, const rep_sum_t *s)
{
    char a[32], b[32], c[32], all[32];
    fprintf(out, "  %-12s %d complete, %d interrupted, %d invalid", "checkpoints",
            s->ckpt[REP_COMPLETE], s->ckpt[REP_INTERRUPTED], s->ckpt[REP_INVALID]);
    for (int i = 0; i < s->nschemes; i++)
        fprintf(out, "%s%s %d", i ? ", " : " (", s->schemes[i].name, s->schemes[i].n);
    fprintf(out, "%s\n", s->nschemes ? ")" : "");
    text_dist_secs(out, "duration", &s->ckpt_secs);
    if (s->ckpt_bytes.n > 0) {
        units_format_bytes((uint64_t)s->ckpt_bytes.min, a, sizeof(a));
        units_format_bytes((uint64_t)s->ckpt_bytes.med, b, sizeof(b));
        units_format_bytes((uint64_t)s->ckpt_bytes.max, c, sizeof(c));
        units_format_bytes((uint64_t)s->ckpt_total, all, sizeof(all));
        fprintf(out, "    %-10s min %s, median %s, max %s; %s in all\n", "size", a, b, c,
                all);
    }
    text_dist_mbps(out, &s->ckpt_mbps);
    if (s->outputs)
        fprintf(out, "  %-12s %d\n", "outputs", s->outputs);
}

static void text_flushes(FILE *out, const rep_sum_t *s)
{
    char all[32];
    units_format_bytes((uint64_t)s->flush_total, all, sizeof(all));
    fprintf(out, "  %-12s %d complete, %d failed, %d interrupted; %s in all\n", "flushes",
            s->flush[REP_COMPLETE], s->flush[REP_INVALID], s->flush[REP_INTERRUPTED],
            all);
    text_dist_secs(out, "duration", &s->flush_secs);
    text_dist_mbps(out, &s->flush_mbps);
}

/* the failures of one job, one line each */
static void text_failures(FILE *out, const rep_job_t *j)
{
    int shown = 0, all = rep_count_marks(j, REP_MARK_FAILURE);
    for (int i = 0; i < j->nmarks && shown < TEXT_MAX_FAILURES; i++) {
        const rep_mark_t *m = &j->marks[i];
        if (m->kind != REP_MARK_FAILURE)
            continue;
        char when[32];
        report_fmt_time(m->t, 0, when, sizeof(when));
        fprintf(out, "    %s  %s\n", when, m->text);
        shown++;
    }
    if (all > shown)
        fprintf(out, "    ... and %d more\n", all - shown);
}

static void text_block(FILE *out, const rep_job_t *jobs, int n)
{
    rep_sum_t s;
    if (rep_sum(jobs, n, &s) < 0) {
        fprintf(out, "  (out of memory)\n");
        return;
    }
    text_checkpoints(out, &s);
    text_flushes(out, &s);
    fprintf(out, "  %-12s %d (%d from cache, %d rebuilt, %d from the prefix)\n",
            "restarts", s.restarts, s.from_cache, s.from_rebuild, s.from_prefix);
    fprintf(out, "  %-12s %d\n", "failures", s.marks[REP_MARK_FAILURE]);
    if (n == 1)
        text_failures(out, jobs);
    if (s.marks[REP_MARK_HALT])
        fprintf(out, "  %-12s %d\n", "halts", s.marks[REP_MARK_HALT]);
    fprintf(out, "  %-12s %d (%d indexed)\n", "scavenges", s.marks[REP_MARK_SCAVENGE],
            s.marks[REP_MARK_INDEX]);
}

static void text_job(FILE *out, const rep_t *r, const rep_job_t *j)
{
    char t0[32], t1[32], len[32];
    int failed = 0;
    for (int i = 0; i < j->nruns; i++)
        failed += j->runs[i].ended < 0;
    report_fmt_time(j->t0, 1, t0, sizeof(t0));
    report_fmt_time(j->t1, 1, t1, sizeof(t1));
    report_fmt_secs(j->t1 - j->t0, len, sizeof(len));
    fprintf(out, "job %s (user %s): %d run%s, %d relaunch%s, %d failed; %s to %s (%s)\n",
            j->id, j->user, j->nruns, j->nruns == 1 ? "" : "s",
            j->nruns > 1 ? j->nruns - 1 : 0, j->nruns == 2 ? "" : "es", failed, t0,
            strlen(t1) > 11 && !strncmp(t0, t1, 11) ? t1 + 11 : t1, len);
    text_block(out, j, 1);
    report_interval(out, j, r->mtbf_node, r->mtbf_job);
}

/* many jobs: a line each, then the totals */
static void text_jobs(FILE *out, const rep_t *r)
{
    fprintf(out, "%-16s %-10s %-19s %5s %6s %6s %7s %8s %8s\n", "JOB", "USER", "START",
            "RUNS", "FAILED", "CKPTS", "FLUSHES", "RESTARTS", "FAILURES");
    int first = r->njobs > TEXT_MAX_ROWS ? r->njobs - TEXT_MAX_ROWS : 0;
    if (first > 0)
        fprintf(out, "(%d earlier jobs)\n", first);
    for (int i = first; i < r->njobs; i++) {
        const rep_job_t *j = &r->jobs[i];
        rep_sum_t s;
        char t0[32];
        if (rep_sum(j, 1, &s) < 0)
            continue;
        report_fmt_time(j->t0, 1, t0, sizeof(t0));
        fprintf(out, "%-16s %-10s %-19s %5d %6d %6d %7d %8d %8d\n", j->id, j->user, t0,
                s.runs, s.failed_runs, s.ckpt[REP_COMPLETE], s.flush[REP_COMPLETE],
                s.restarts, s.marks[REP_MARK_FAILURE]);
    }
    rep_sum_t s;
    if (rep_sum(r->jobs, r->njobs, &s) == 0)
        fprintf(out, "all %d jobs: %d runs, %d relaunches, %d failed\n", r->njobs, s.runs,
                s.relaunches, s.failed_runs);
    text_block(out, r->jobs, r->njobs);
    fprintf(out, "(scr report --job ID for one job's failures)\n");
}

void report_text(FILE *out, const rep_t *r, const char *path)
{
    fprintf(out, "scr report: %s: %ld event%s", path, r->events,
            r->events == 1 ? "" : "s");
    if (r->stats.bad)
        fprintf(out, ", %ld bad line%s skipped (first: line %ld)", r->stats.bad,
                r->stats.bad == 1 ? "" : "s", r->stats.first_bad);
    if (r->unknown)
        fprintf(out, ", %ld of kinds this report does not know", r->unknown);
    fprintf(out, "\n");
    if (r->njobs > TEXT_MAX_JOBS) {
        text_jobs(out, r);
        return;
    }
    for (int i = 0; i < r->njobs; i++)
        text_job(out, r, &r->jobs[i]);
}
