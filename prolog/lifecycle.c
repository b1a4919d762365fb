/* lifecycle.c - node prolog and epilog */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsindex.h"
#include "io.h"
#include "jobrec.h"
#include "lifecycle.h"
#include "log.h"
#include "node.h"
#include "pfs.h"
#include "privs.h"
#include "scavenge.h"

static int prolog_check(const jobopts_t *o, const sched_t *sched)
{
    scr_error_t err;
    const char *base;
    int is_cache;
    for (int i = 0; (base = jobopts_base(o, i, &is_cache)); i++) {
        if (node_health(base, is_cache ? o->capacity : 0, &err) == 0)
            continue;
        char reason[600];
        snprintf(reason, sizeof(reason), "scr: %s", err.text);
        log_err("prolog of job %s on %s: %s", o->jobid, o->host, err.text);
        scr_error_t derr;
        if (sched->drain(o->host, reason, &derr) < 0)
            log_err("prolog: %s", derr.text);
        return -1;
    }
    return 0;
}

typedef struct {
    char **dirs;
    int n;
} dirs_t;

static int remove_dirs(void *arg)
{
    dirs_t *d = arg;
    int rc = 0;
    for (int i = 0; i < d->n; i++) {
        scr_error_t err;
        if (node_remove_tree(d->dirs[i], &err) < 0) {
            log_err("%s", err.text);
            rc = -1;
        }
    }
    return rc;
}

int lifecycle_prolog(const jobopts_t *o, const sched_t *sched)
{
    if (prolog_check(o, sched) < 0)
        return -1;
    job_ident_t job = jobopts_ident(o);
    scr_error_t err;
    const char *base;
    for (int i = 0; (base = jobopts_base(o, i, NULL)); i++) {
        dirs_t d = {NULL, 0};
        node_stale_dirs(base, &job, sched->job_alive, NULL, &d.dirs, &d.n);
        for (int k = 0; k < d.n; k++)
            log_msg("prolog: removing %s of an ended job", d.dirs[k]);
        if (d.n > 0 &&
            privs_run_as(job.user, job.uid, job.gid, remove_dirs, &d, &err) < 0)
            log_err("prolog: purge in %s: %s", base, err.text);
        node_free_dirs(d.dirs, d.n);
        if (node_prepare_dir(base, &job, &err) < 0) {
            log_err("prolog of job %s on %s: %s", o->jobid, o->host, err.text);
            return -1;
        }
    }
    return 0;
}

/* one line for the user in <prefix>/.scr/log, like the library's events */
static void epilog_event(const jobopts_t *o, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void epilog_event(const jobopts_t *o, const char *name, const char *fmt, ...)
{
    char path[4200], ts[64], msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pfs_meta_path(o->prefix, "log", path, sizeof(path));
    pfs_timestamp(ts, sizeof(ts));
    FILE *fp = fopen(path, "ae");
    if (!fp)
        return;
    fprintf(fp, "%s %ld event=%s job=%s user=%s host=%s %s\n", ts, (long)time(NULL), name,
            o->jobid, o->user, o->host, msg);
    fclose(fp);
}

/* index dataset id and tell the user in the event log */
int lifecycle_index(const jobopts_t *o, int id)
{
    dsindex_report_t rep;
    scr_error_t err;
    int rc = dsindex_dataset(o->prefix, id, &rep, &err);
    if (rc < 0)
        log_err("index: %s", err.text);
    else
        log_msg("index: dataset %d of job %s is complete on %s (%d ranks, %d rebuilt)",
                id, o->jobid, o->prefix, rep.ranks, rep.rebuilt);
    epilog_event(o, "INDEX", "dset=%d ranks=%d missing=%d rebuilt=%d files=%d ok=%d", id,
                 rep.ranks, rep.missing, rep.rebuilt, rep.files, rc == 0);
    return rc;
}

int lifecycle_use_recorded(jobopts_t *o, nodelist_t **nodes)
{
    char dir[4200], prefix[sizeof(o->prefix)];
    scr_error_t err;
    jobopts_job_dir(o, o->cntl_base, dir, sizeof(dir));
    int rc = jobrec_read(dir, prefix, sizeof(prefix), nodes, &err);
    if (rc < 0)
        log_warn("job %s on %s: %s; using prefix %s", o->jobid, o->host, err.text,
                 o->prefix[0] ? o->prefix : "(none)");
    if (rc <= 0)
        return 0;
    if (strcmp(prefix, o->prefix) != 0)
        log_msg("job %s on %s: the run used prefix %s", o->jobid, o->host, prefix);
    snprintf(o->prefix, sizeof(o->prefix), "%s", prefix);
    return 1;
}

/* the nodes that will mark the recorded prefix: the run's that are still
 * up.  An unknown live set (no scheduler answer) stays as it is. */
static nodelist_t *lifecycle_run_live(const nodelist_t *live, const nodelist_t *nodes)
{
    nodelist_t *both = live && nodes ? nodelist_intersect(live, nodes) : NULL;
    if (both && nodelist_count(both) == 0)
        nodelist_delete(&both);
    return both;
}

static int lifecycle_scavenge_at(const jobopts_t *o, const char *cntldir, int id,
                                 const nodelist_t *live, int *indexed)
{
    scr_error_t err = {""};
    if (!o->prefix[0]) {
        /* a job without a checkpoint in this node's cache has nothing to lose */
        if (scavenge_pick("", cntldir, &id, NULL) == 0)
            return 0;
        log_err("scavenge of job %s on %s: no prefix directory is known", o->jobid,
                o->host);
        return -1;
    }
    if (id < 0 && scavenge_pick(o->prefix, cntldir, &id, &err) < 0)
        log_err("scavenge: %s", err.text);
    int rc = 0;
    scavenge_t s = {o->prefix, cntldir, o->host, id, 0, 0, 0, 0};
    if (id >= 0)
        rc = scavenge_own(&s, &err);
    /* a node with nothing to copy still marks, or nobody would be elected */
    if (scavenge_mark(o->prefix, o->jobid, o->host, "COPIED", id, NULL, NULL, &err) < 0)
        rc = -1;
    if (id >= 0 && s.partner_ranks > 0 && live) {
        if (scavenge_wait(o->prefix, o->jobid, "COPIED", live, o->timeout) != 0)
            log_warn("scavenge: not every live node copied its part within %.0f s",
                     o->timeout);
        if (scavenge_partners(&s, &err) < 0)
            rc = -1;
    }
    if (rc < 0)
        log_err("scavenge: %s", err.text);
    int index_id = -1;
    if (scavenge_mark(o->prefix, o->jobid, o->host, "FINISHED", id, live, &index_id,
                      &err) < 0)
        log_err("scavenge: %s", err.text);
    if (id >= 0)
        epilog_event(o, "SCAVENGE", "dset=%d files=%d failed=%d bytes=%llu", id, s.files,
                     s.failed, s.bytes);
    if (index_id >= 0)
        *indexed = lifecycle_index(o, index_id) == 0 ? 1 : -1;
    return rc;
}

int lifecycle_scavenge(const jobopts_t *o, int id, const nodelist_t *live, int *indexed)
{
    char cntldir[4200];
    *indexed = 0;
    jobopts_job_dir(o, o->cntl_base, cntldir, sizeof(cntldir));
    jobopts_t *use = malloc(sizeof(*use));
    if (!use)
        return log_err("scavenge: out of memory"), -1;
    nodelist_t *nodes = NULL, *run_live = NULL;
    *use = *o;
    if (lifecycle_use_recorded(use, &nodes))
        run_live = lifecycle_run_live(live, nodes);
    int rc = lifecycle_scavenge_at(use, cntldir, id, run_live ? run_live : live, indexed);
    nodelist_delete(&nodes);
    nodelist_delete(&run_live);
    free(use);
    return rc;
}

typedef struct {
    const jobopts_t *o;
    const nodelist_t *live;
} epilog_arg_t;

static int epilog_user(void *arg)
{
    epilog_arg_t *a = arg;
    return lifecycle_epilog_as_user(a->o, a->live);
}

int lifecycle_epilog_as_user(const jobopts_t *o, const nodelist_t *live)
{
    int indexed = 0;
    int rc = lifecycle_scavenge(o, -1, live, &indexed);
    char dir[4200];
    scr_error_t err;
    if (rc < 0) {
        log_err("epilog: the cache of job %s on %s is kept for `scr scavenge`", o->jobid,
                o->host);
        return 0;
    }
    const char *base;
    for (int i = 0; (base = jobopts_base(o, i, NULL)); i++) {
        jobopts_job_dir(o, base, dir, sizeof(dir));
        if (node_remove_tree(dir, &err) < 0)
            log_err("epilog: %s", err.text);
    }
    return 0;
}

int lifecycle_epilog(const jobopts_t *o, const sched_t *sched)
{
    scr_error_t err;
    nodelist_t *nodes = nodelist_new(), *down = nodelist_new(), *live = NULL;
    if (sched->job_nodes(o->jobid, nodes, &err) < 0) {
        log_warn("epilog: %s; indexing is left to `scr index`", err.text);
    } else {
        if (sched->down_nodes(nodes, down, NULL, &err) < 0)
            log_warn("epilog: %s", err.text);
        live = nodelist_minus(nodes, down);
    }
    /* without the node list nobody is elected: an empty live set would
     * elect the first node while others still copy */
    nodelist_t *never = NULL;
    if (!live) {
        never = nodelist_new();
        nodelist_append(never, "(unknown)");
    }
    epilog_arg_t a = {o, live ? live : never};
    int rc = privs_run_as(o->user, o->uid, o->gid, epilog_user, &a, &err);
    if (rc < 0)
        log_err("epilog of job %s on %s: %s", o->jobid, o->host, err.text);
    nodelist_delete(&nodes);
    nodelist_delete(&down);
    nodelist_delete(&live);
    nodelist_delete(&never);
    return rc;
}

int lifecycle_main(int argc, char **argv, const char *name, const char *usage,
                   lifecycle_fn fn)
{
    jobopts_t o;
    scr_error_t err;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: %s %s\n", name, usage);
        return 0;
    }
    if (jobopts_parse(&o, argc, argv, &err) < 0) {
        fprintf(stderr, "%s: %s\n", name, err.text);
        return 2;
    }
    const sched_t *sched = sched_get(o.sched[0] ? o.sched : NULL);
    if (!sched) {
        fprintf(stderr, "%s: --sched: unknown scheduler '%s'\n", name, o.sched);
        jobopts_free(&o);
        return 2;
    }
    int rc = fn(&o, sched);
    jobopts_free(&o);
    return rc == 0 ? 0 : 1;
}
