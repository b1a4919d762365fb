/* SPDX-License-Identifier: BSD-3-Clause */
/* report_model.c - jobs, runs, datasets, flushes and marks from event lines */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_model.h"
#include "units.h"

#define REP_PENDING -2 /* a mark of an SCR_Init whose RUN_START is to come */

/* room for one more element: the array doubles when n is a power of two */
static void *rep_push(void **arr, int *n, size_t size)
{
    if ((*n & (*n - 1)) == 0) {
        size_t cap = *n ? (size_t)*n * 2 : 1;
        void *p = realloc(*arr, cap * size);
        if (!p)
            return NULL;
        *arr = p;
    }
    char *e = (char *)*arr + (size_t)(*n)++ * size;
    memset(e, 0, size);
    return e;
}

static rep_job_t *rep_job(rep_t *r, const rlog_event_t *ev)
{
    const char *id = rlog_get(ev, "job"), *user = rlog_get(ev, "user");
    for (int i = r->njobs - 1; i >= 0; i--)
        if (strcmp(r->jobs[i].id, id) == 0)
            return &r->jobs[i];
    rep_job_t *j = rep_push((void **)&r->jobs, &r->njobs, sizeof(*j));
    if (!j)
        return NULL;
    snprintf(j->id, sizeof(j->id), "%s", id);
    snprintf(j->user, sizeof(j->user), "%s", user ? user : "?");
    j->t0 = j->t1 = ev->t;
    return j;
}

/* the run events belong to now: the newest, while it has not ended */
static int rep_cur_run(const rep_job_t *j)
{
    return j->nruns > 0 && !j->runs[j->nruns - 1].ended ? j->nruns - 1 : -1;
}

static rep_mark_t *rep_mark(rep_job_t *j, rep_mark_kind_t kind, double t, int run,
                            int dset)
{
    rep_mark_t *m = rep_push((void **)&j->marks, &j->nmarks, sizeof(*m));
    if (!m)
        return NULL;
    m->kind = kind;
    m->t = t;
    m->run = run;
    m->dset = dset;
    m->ok = 1;
    m->bytes = -1;
    m->files = m->failed = -1;
    return m;
}

/* a failure mark with its line of text */
static int rep_failure(rep_job_t *j, double t, int run, int dset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int rep_failure(rep_job_t *j, double t, int run, int dset, const char *fmt, ...)
{
    rep_mark_t *m = rep_mark(j, REP_MARK_FAILURE, t, run, dset);
    if (!m)
        return -1;
    m->ok = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof(m->text), fmt, ap);
    va_end(ap);
    return 0;
}

/* the newest dataset with this id (in state, or any state when state < 0) */
static rep_dset_t *rep_find_dset(rep_job_t *j, int id, int state)
{
    for (int i = j->ndsets - 1; i >= 0; i--)
        if (j->dsets[i].id == id && (state < 0 || (int)j->dsets[i].state == state))
            return &j->dsets[i];
    return NULL;
}

/* a run that never reached RUN_END: what it had open was interrupted */
static int rep_fail_run(rep_job_t *j, int run, const char *why)
{
    rep_run_t *ru = &j->runs[run];
    ru->ended = -1;
    char during[96] = "";
    for (int i = 0; i < j->ndsets; i++) {
        rep_dset_t *d = &j->dsets[i];
        if (d->run != run || d->state != REP_OPEN)
            continue;
        d->state = REP_INTERRUPTED;
        if (d->secs < 0) /* else its redundancy was still running */
            d->t1 = ru->t1;
        snprintf(during, sizeof(during), " during dataset %d (%s)", d->id, d->name);
    }
    for (int i = 0; i < j->nflushes; i++)
        if (j->flushes[i].run == run && j->flushes[i].state == REP_OPEN) {
            j->flushes[i].state = REP_INTERRUPTED;
            j->flushes[i].t1 = ru->t1;
        }
    return rep_failure(j, ru->t1, run, -1, "run %d failed%s: %s", run + 1, during, why);
}

/* an SCR_Init or the epilog began: a run still open died */
static int rep_close_open(rep_job_t *j, const char *why)
{
    int run = rep_cur_run(j);
    return run >= 0 ? rep_fail_run(j, run, why) : 0;
}

static int ev_int(const rlog_event_t *ev, const char *key, int dflt)
{
    int v = dflt;
    rlog_get_int(ev, key, &v);
    return v;
}

static double ev_double(const rlog_event_t *ev, const char *key, double dflt)
{
    double v = dflt;
    rlog_get_double(ev, key, &v);
    return v;
}

static int64_t ev_bytes(const rlog_event_t *ev, const char *key)
{
    uint64_t v;
    return rlog_get_u64(ev, key, &v) == 0 && v <= INT64_MAX ? (int64_t)v : -1;
}

static int on_run_start(rep_job_t *j, const rlog_event_t *ev)
{
    if (rep_close_open(j, "no RUN_END before the next SCR_Init") < 0)
        return -1;
    rep_run_t *ru = rep_push((void **)&j->runs, &j->nruns, sizeof(*ru));
    if (!ru)
        return -1;
    ru->init_secs = ev_double(ev, "init_secs", -1);
    ru->t0 = ev->t - (ru->init_secs > 0 ? ru->init_secs : 0);
    ru->t1 = ev->t;
    ru->ranks = ev_int(ev, "ranks", -1);
    ru->nodes = ev_int(ev, "nodes", -1);
    ru->restart_id = ev_int(ev, "restart", -1);
    snprintf(ru->host, sizeof(ru->host), "%s", rlog_get(ev, "host") ?: "?");
    for (int i = j->pending_from; i < j->nmarks; i++)
        if (j->marks[i].run == REP_PENDING)
            j->marks[i].run = j->nruns - 1;
    j->pending_from = j->nmarks;
    if (j->t0 > ru->t0)
        j->t0 = ru->t0;
    return 0;
}

static int on_run_end(rep_job_t *j, const rlog_event_t *ev)
{
    int run = rep_cur_run(j);
    if (run >= 0) {
        j->runs[run].ended = 1;
        j->runs[run].t1 = ev->t;
    }
    return 0;
}

static int on_dset_start(rep_job_t *j, const rlog_event_t *ev)
{
    rep_dset_t *d = rep_push((void **)&j->dsets, &j->ndsets, sizeof(*d));
    if (!d)
        return -1;
    d->id = ev_int(ev, "dset", -1);
    snprintf(d->name, sizeof(d->name), "%s", rlog_get(ev, "name") ?: "");
    d->flags = ev_int(ev, "flags", -1);
    snprintf(d->scheme, sizeof(d->scheme), "%s", rlog_get(ev, "type") ?: "");
    d->t0 = d->t1 = ev->t;
    d->secs = -1;
    d->bytes = -1;
    d->run = rep_cur_run(j);
    return 0;
}

static int on_dset_end(rep_job_t *j, const rlog_event_t *ev)
{
    int id = ev_int(ev, "dset", -1);
    rep_dset_t *d = rep_find_dset(j, id, REP_OPEN);
    double secs = ev_double(ev, "secs", -1);
    if (!d) { /* its start line is lost: place it by its duration */
        if (on_dset_start(j, ev) < 0)
            return -1;
        d = &j->dsets[j->ndsets - 1];
        d->t0 = ev->t - (secs > 0 ? secs : 0);
    }
    if (!d->name[0])
        snprintf(d->name, sizeof(d->name), "%s", rlog_get(ev, "name") ?: "");
    if (d->flags < 0)
        d->flags = ev_int(ev, "flags", -1);
    if (rlog_get(ev, "type"))
        snprintf(d->scheme, sizeof(d->scheme), "%s", rlog_get(ev, "type"));
    d->t1 = ev->t;
    d->secs = secs;
    d->bytes = ev_bytes(ev, "bytes");
    /* redundancy still running in the background: REDUNDANCY_END decides */
    const char *red = rlog_get(ev, "redundancy");
    int later = red && strcmp(red, "background") == 0;
    d->state = !ev_int(ev, "ok", 1) ? REP_INVALID : later ? REP_OPEN : REP_COMPLETE;
    if (d->state == REP_INVALID)
        return rep_failure(j, ev->t, d->run, id,
                           "dataset %d (%s) was invalid and not kept", id, d->name);
    return 0;
}

/* the background redundancy of a dataset whose DATASET_END came before */
static int on_red_end(rep_job_t *j, const rlog_event_t *ev)
{
    int id = ev_int(ev, "dset", -1);
    rep_dset_t *d = rep_find_dset(j, id, REP_OPEN);
    if (!d)
        return 0;
    if (rlog_get(ev, "type"))
        snprintf(d->scheme, sizeof(d->scheme), "%s", rlog_get(ev, "type"));
    if (ev_int(ev, "ok", 1)) {
        d->state = REP_COMPLETE;
        return 0;
    }
    d->state = REP_INVALID;
    return rep_failure(j, ev->t, d->run, id,
                       "redundancy of dataset %d (%s) failed in the background; not kept",
                       id, d->name);
}

static int on_flush_start(rep_job_t *j, const rlog_event_t *ev)
{
    rep_flush_t *f = rep_push((void **)&j->flushes, &j->nflushes, sizeof(*f));
    if (!f)
        return -1;
    f->id = ev_int(ev, "dset", -1);
    snprintf(f->mode, sizeof(f->mode), "%s", rlog_get(ev, "mode") ?: "");
    f->t0 = f->t1 = ev->t;
    f->secs = f->mbps = -1;
    f->bytes = -1;
    f->run = rep_cur_run(j);
    return 0;
}

static rep_flush_t *rep_open_flush(rep_job_t *j, int id)
{
    for (int i = j->nflushes - 1; i >= 0; i--)
        if (j->flushes[i].id == id && j->flushes[i].state == REP_OPEN)
            return &j->flushes[i];
    return NULL;
}

static int on_flush_end(rep_job_t *j, const rlog_event_t *ev)
{
    int id = ev_int(ev, "dset", -1);
    double secs = ev_double(ev, "secs", -1);
    rep_flush_t *f = rep_open_flush(j, id);
    if (!f) {
        if (on_flush_start(j, ev) < 0)
            return -1;
        f = &j->flushes[j->nflushes - 1];
        f->t0 = ev->t - (secs > 0 ? secs : 0);
    }
    f->t1 = ev->t;
    f->secs = secs;
    f->mbps = ev_double(ev, "mbps", -1);
    f->bytes = ev_bytes(ev, "bytes");
    f->state = ev_int(ev, "ok", 1) ? REP_COMPLETE : REP_INVALID;
    rep_dset_t *d = rep_find_dset(j, id, REP_COMPLETE);
    if (f->state == REP_COMPLETE && d)
        d->flushed = 1;
    if (f->state == REP_INVALID)
        return rep_failure(j, ev->t, f->run, id,
                           "flush of dataset %d failed; it stayed in cache", id);
    return 0;
}

/* where the restart's dataset came from: what this run's SCR_Init did */
static const char *rep_restart_from(const rep_job_t *j, int run, int id)
{
    const char *from = "cache";
    for (int i = 0; i < j->nmarks; i++) {
        const rep_mark_t *m = &j->marks[i];
        if (m->run != run || m->dset != id || !m->ok)
            continue;
        if (m->kind == REP_MARK_FETCH)
            return "prefix";
        if (m->kind == REP_MARK_REBUILD)
            from = "rebuild";
    }
    return from;
}

static int on_restart(rep_job_t *j, const rlog_event_t *ev)
{
    int run = rep_cur_run(j), id = ev_int(ev, "dset", -1);
    rep_mark_t *m = rep_mark(j, REP_MARK_RESTART, ev->t, run, id);
    if (!m)
        return -1;
    const char *from = rlog_get(ev, "from");
    snprintf(m->from, sizeof(m->from), "%s", from ? from : rep_restart_from(j, run, id));
    const rep_dset_t *d = rep_find_dset(j, id, REP_COMPLETE);
    const char *name = rlog_get(ev, "name") ?: (d ? d->name : "");
    snprintf(m->text, sizeof(m->text), "restart from dataset %d%s%s%s (%s%s)", id,
             name[0] ? " (" : "", name, name[0] ? ")" : "",
             !strcmp(m->from, "prefix")    ? "fetched from the prefix"
             : !strcmp(m->from, "rebuild") ? "rebuilt in cache"
                                           : "in cache",
             ev_int(ev, "mem", 0) ? ", memory checkpoint" : "");
    return 0;
}

static int on_fetch(rep_job_t *j, const rlog_event_t *ev)
{
    if (rep_close_open(j, "no RUN_END before the next SCR_Init") < 0)
        return -1;
    int id = ev_int(ev, "dset", -1), ok = ev_int(ev, "ok", 1);
    rep_mark_t *m =
        rep_mark(j, ok ? REP_MARK_FETCH : REP_MARK_FAILURE, ev->t, REP_PENDING, id);
    if (!m)
        return -1;
    m->ok = ok;
    m->bytes = ev_bytes(ev, "bytes");
    const char *dir = rlog_get(ev, "dir") ?: "?";
    if (ok)
        snprintf(m->text, sizeof(m->text),
                 "dataset %d fetched from the prefix (%s, %.3f s)", id, dir,
                 ev_double(ev, "secs", 0));
    else
        snprintf(m->text, sizeof(m->text),
                 "fetch of dataset %d (%s) failed: marked FAILED in the index", id, dir);
    return 0;
}

static int on_rebuild(rep_job_t *j, const rlog_event_t *ev)
{
    if (rep_close_open(j, "no RUN_END before the next SCR_Init") < 0)
        return -1;
    int id = ev_int(ev, "dset", -1), ok = ev_int(ev, "ok", 1);
    int lost = ev_int(ev, "lost_ranks", 0);
    if (ok && lost <= 0)
        return 0; /* checked in cache, nothing to do */
    /* a checkpoint its run never completed is discarded, not a failure
     * (older lines lack never_completed=: the dataset's own record says) */
    const rep_dset_t *d = rep_find_dset(j, id, -1);
    if (!ok && (ev_int(ev, "never_completed", 0) ||
                (d && (d->state == REP_INTERRUPTED || d->state == REP_OPEN))))
        return 0;
    rep_mark_t *m =
        rep_mark(j, ok ? REP_MARK_REBUILD : REP_MARK_FAILURE, ev->t, REP_PENDING, id);
    if (!m)
        return -1;
    m->ok = ok;
    if (ok)
        snprintf(m->text, sizeof(m->text),
                 "dataset %d: %d rank%s rebuilt in cache (%.3f s)", id, lost,
                 lost == 1 ? "" : "s", ev_double(ev, "secs", 0));
    else
        snprintf(m->text, sizeof(m->text), "dataset %d could not be rebuilt from cache",
                 id);
    return 0;
}

static int on_halt(rep_job_t *j, const rlog_event_t *ev)
{
    const char *at = rlog_get(ev, "at") ?: "";
    int init = strcmp(at, "init") == 0;
    if (init && rep_close_open(j, "no RUN_END before the next SCR_Init") < 0)
        return -1;
    rep_mark_t *m =
        rep_mark(j, REP_MARK_HALT, ev->t, init ? REP_PENDING : rep_cur_run(j), -1);
    if (!m)
        return -1;
    snprintf(m->text, sizeof(m->text), "halt at %s: %s", at[0] ? at : "?",
             rlog_get(ev, "reason") ?: "?");
    return 0;
}

static int on_crc(rep_job_t *j, const rlog_event_t *ev)
{
    if (ev_int(ev, "ok", 1))
        return 0;
    int id = ev_int(ev, "dset", -1);
    return rep_failure(j, ev->t, rep_cur_run(j), id, "CRC32 pass over dataset %d failed",
                       id);
}

static int on_scavenge(rep_job_t *j, const rlog_event_t *ev)
{
    if (rep_close_open(j, "no RUN_END before the job ended") < 0)
        return -1;
    int id = ev_int(ev, "dset", -1);
    rep_mark_t *m = rep_mark(j, REP_MARK_SCAVENGE, ev->t, -1, id);
    if (!m)
        return -1;
    m->files = ev_int(ev, "files", -1);
    m->failed = ev_int(ev, "failed", -1);
    m->bytes = ev_bytes(ev, "bytes");
    m->ok = m->failed <= 0;
    char size[32] = "? bytes";
    if (m->bytes >= 0)
        units_format_bytes((uint64_t)m->bytes, size, sizeof(size));
    char took[48] = "";
    if (ev_double(ev, "secs", -1) >= 0)
        snprintf(took, sizeof(took), " (%.2f s into its epilog)",
                 ev_double(ev, "secs", 0));
    snprintf(m->text, sizeof(m->text),
             "scavenge of dataset %d on %s: %d files, %s, %d failed%s", id,
             rlog_get(ev, "host") ?: "?", m->files, size, m->failed, took);
    if (m->ok)
        return 0;
    /* (m moves when the array grows: nothing of it is used below) */
    return rep_failure(j, ev->t, -1, id,
                       "scavenge of dataset %d on %s: %d files could not be copied", id,
                       rlog_get(ev, "host") ?: "?", ev_int(ev, "failed", -1));
}

static int on_index(rep_job_t *j, const rlog_event_t *ev)
{
    if (rep_close_open(j, "no RUN_END before the job ended") < 0)
        return -1;
    int id = ev_int(ev, "dset", -1);
    rep_mark_t *m = rep_mark(j, REP_MARK_INDEX, ev->t, -1, id);
    if (!m)
        return -1;
    m->ok = ev_int(ev, "ok", 1);
    m->files = ev_int(ev, "files", -1);
    m->failed = ev_int(ev, "missing", -1);
    char took[48] = "";
    if (ev_double(ev, "secs", -1) >= 0)
        snprintf(took, sizeof(took), ", %.2f s into the epilog of %s",
                 ev_double(ev, "secs", 0), rlog_get(ev, "host") ?: "?");
    snprintf(m->text, sizeof(m->text),
             "index of dataset %d: %s (%d ranks, %d missing, %d rebuilt%s)", id,
             m->ok ? "complete" : "FAILED", ev_int(ev, "ranks", -1), m->failed,
             ev_int(ev, "rebuilt", -1), took);
    if (m->ok)
        return 0;
    return rep_failure(j, ev->t, -1, id,
                       "index of dataset %d failed: %d of %d ranks missing", id,
                       ev_int(ev, "missing", -1), ev_int(ev, "ranks", -1));
}

static const struct {
    const char *name;
    int (*fn)(rep_job_t *j, const rlog_event_t *ev);
} handlers[] = {
    {"RUN_START", on_run_start},
    {"RUN_END", on_run_end},
    {"DATASET_START", on_dset_start},
    {"DATASET_END", on_dset_end},
    {"REDUNDANCY_END", on_red_end},
    {"FLUSH_START", on_flush_start},
    {"FLUSH_END", on_flush_end},
    {"RESTART", on_restart},
    {"FETCH", on_fetch},
    {"REBUILD", on_rebuild},
    {"HALT", on_halt},
    {"CRC", on_crc},
    {"SCAVENGE", on_scavenge},
    {"INDEX", on_index},
    {NULL, NULL},
};

int rep_add_event(const rlog_event_t *ev, void *arg)
{
    rep_t *r = arg;
    if (r->only_job && strcmp(rlog_get(ev, "job"), r->only_job) != 0)
        return 0;
    r->events++;
    rep_job_t *j = rep_job(r, ev);
    if (!j)
        return -1;
    j->events++;
    if (ev->t > j->t1)
        j->t1 = ev->t;
    if (ev->t < j->t0)
        j->t0 = ev->t;
    int run = rep_cur_run(j);
    for (int i = 0; handlers[i].name; i++)
        if (strcmp(handlers[i].name, ev->event) == 0) {
            int rc = handlers[i].fn(j, ev);
            /* the run the event belongs to lasted at least until it */
            if (run >= 0 && run == rep_cur_run(j) && ev->t > j->runs[run].t1)
                j->runs[run].t1 = ev->t;
            return rc;
        }
    r->unknown++;
    return 0;
}

void rep_finish(rep_t *r)
{
    for (int i = 0; i < r->njobs; i++) {
        rep_job_t *j = &r->jobs[i];
        rep_close_open(j, "no RUN_END in the log (killed, or still running)");
        for (int k = 0; k < j->nmarks; k++)
            if (j->marks[k].run == REP_PENDING)
                j->marks[k].run = -1; /* an SCR_Init that never got to RUN_START */
    }
}

int rep_load(FILE *fp, const char *only_job, rep_t *r)
{
    memset(r, 0, sizeof(*r));
    r->only_job = only_job;
    if (rlog_read(fp, rep_add_event, r, &r->stats) != 0)
        return -1;
    rep_finish(r);
    return 0;
}

void rep_free(rep_t *r)
{
    for (int i = 0; i < r->njobs; i++) {
        free(r->jobs[i].runs);
        free(r->jobs[i].dsets);
        free(r->jobs[i].flushes);
        free(r->jobs[i].marks);
    }
    free(r->jobs);
    memset(r, 0, sizeof(*r));
}

int rep_count_marks(const rep_job_t *j, rep_mark_kind_t kind)
{
    int n = 0;
    for (int i = 0; i < j->nmarks; i++)
        n += j->marks[i].kind == kind;
    return n;
}

const char *rep_mark_name(rep_mark_kind_t kind)
{
    static const char *names[REP_MARK_KINDS] = {"restart", "failure",  "halt", "fetch",
                                                "rebuild", "scavenge", "index"};
    return kind < REP_MARK_KINDS ? names[kind] : "?";
}

const char *rep_state_name(rep_state_t state)
{
    static const char *names[] = {"open", "complete", "invalid", "interrupted"};
    return state <= REP_INTERRUPTED ? names[state] : "?";
}

static int rep_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void rep_dist(double *v, int n, rep_dist_t *d)
{
    memset(d, 0, sizeof(*d));
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof(*v), rep_cmp);
    d->n = n;
    d->min = v[0];
    d->max = v[n - 1];
    d->med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
