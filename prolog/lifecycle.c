/* SPDX-License-Identifier: BSD-3-Clause */
/* lifecycle.c - node prolog and epilog */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "dsindex.h"
#include "dsrec.h"
#include "fault.h"
#include "io.h"
#include "jobrec.h"
#include "lifecycle.h"
#include "log.h"
#include "node.h"
#include "pfs.h"
#include "privs.h"
#include "scavenge.h"
#include "units.h"

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

/* one line for the user in <prefix>/.scr/log, like the library's events;
 * secs= is the time since this node's epilog (or scr scavenge) began */
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
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fprintf(fp, "%s %ld event=%s job=%s user=%s host=%s time=%ld.%03ld %s secs=%.3f\n",
            ts, (long)now.tv_sec, name, o->jobid, o->user, o->host, (long)now.tv_sec,
            now.tv_nsec / 1000000, msg, o->started > 0 ? scr_now() - o->started : 0);
    fclose(fp);
}

/* index dataset id and tell the user in the event log */
int lifecycle_index(const jobopts_t *o, int id, int flags)
{
    dsindex_report_t rep;
    scr_error_t err;
    int rc = dsindex_dataset(o->prefix, id, flags, &rep, &err);
    if (rc < 0)
        log_err("index: %s", err.text);
    else
        log_msg("index: dataset %d of job %s is complete on %s (%d ranks, %d rebuilt)",
                id, o->jobid, o->prefix, rep.ranks, rep.rebuilt);
    epilog_event(o, "INDEX",
                 "dset=%d ranks=%d missing=%d rebuilt=%d files=%d left=%d ok=%d", id,
                 rep.ranks, rep.missing, rep.rebuilt, rep.files, rep.left, rc == 0);
    return rc;
}

/* the prefix and nodes recorded in control directory dir (jobrec.h) */
static int lifecycle_recorded_at(jobopts_t *o, const char *dir, nodelist_t **nodes)
{
    char prefix[sizeof(o->prefix)];
    scr_error_t err;
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

int lifecycle_use_recorded(jobopts_t *o, nodelist_t **nodes)
{
    char dir[4200];
    jobopts_job_dir(o, o->cntl_base, dir, sizeof(dir));
    return lifecycle_recorded_at(o, dir, nodes);
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

/* the live set of an epilog that could not ask the scheduler: nobody is
 * ever elected, since an empty set would elect the first node while others
 * still copy */
static const char LIFECYCLE_NOBODY[] = "(unknown)";

/* the job's directories on this node, <base>/<user>/scr.<jobid>: of every
 * cache base the job was given and every store its runs recorded (jobrec.h),
 * dirs[0..ncache), then of the control base */
typedef struct {
    char **dirs;
    int n, ncache;
} trees_t;

static void trees_add(const jobopts_t *o, trees_t *t, const char *base)
{
    char dir[4200];
    jobopts_job_dir(o, base, dir, sizeof(dir));
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->dirs[i], dir) == 0)
            return;
    char **more = realloc(t->dirs, sizeof(char *) * (size_t)(t->n + 1));
    if (more && (more[t->n] = strdup(dir)))
        t->n++;
    if (more)
        t->dirs = more;
}

static void trees_get(const jobopts_t *o, const char *cntldir, trees_t *t)
{
    char **stores = NULL;
    const char *base;
    int is_cache;
    scr_error_t err;
    memset(t, 0, sizeof(*t));
    for (int i = 0; (base = jobopts_base(o, i, &is_cache)); i++)
        if (is_cache)
            trees_add(o, t, base);
    int n = jobrec_read_stores(cntldir, &stores, &err);
    if (n < 0)
        log_warn("job %s on %s: %s; cleaning only the configured stores", o->jobid,
                 o->host, err.text);
    for (int i = 0; i < n; i++)
        trees_add(o, t, stores[i]);
    jobrec_free_stores(stores, n);
    t->ncache = t->n;
    for (int i = 0; (base = jobopts_base(o, i, &is_cache)); i++)
        if (!is_cache)
            trees_add(o, t, base);
}

static void trees_free(trees_t *t)
{
    node_free_dirs(t->dirs, t->n);
    memset(t, 0, sizeof(*t));
}

/* One try of the scavenge: copy this node's part of dataset *id (when < 0,
 * the newest complete checkpoint below `below`; stays -1 if none), mark,
 * the partner round, and index when elected, recording the verdict
 * (*index_id: the dataset indexed, *indexed: 1 ok, -1 not).  Returns -1 if
 * some file could not be copied. */
static int lifecycle_try(const jobopts_t *o, const char *cntldir, const trees_t *t,
                         int try, int *id, int below, const nodelist_t *live,
                         int *index_id, int *indexed)
{
    scr_error_t err = {""};
    if (*id < 0 && scavenge_pick_below(o->prefix, cntldir, o->host, below, id, &err) < 0)
        log_err("scavenge: %s", err.text);
    int rc = 0;
    scavenge_t s = {.prefix = o->prefix,
                    .cntldir = cntldir,
                    .host = o->host,
                    .id = *id,
                    .trees = (const char *const *)t->dirs,
                    .ntrees = t->ncache,
                    .direct = jobrec_read_direct(cntldir)};
    /* each error is logged where it happens: a mark's lookup of a file not
     * yet there leaves a message in err that is no error */
    if (*id >= 0 && scavenge_own(&s, &err) < 0)
        rc = (log_err("scavenge: %s", err.text), -1);
    fault_point("scavenge.copied", -1); /* COPIED not marked */
    /* a node with nothing to copy still marks, or nobody would be elected */
    if (scavenge_mark_try(o->prefix, o->jobid, try, o->host, "COPIED", *id, live, NULL,
                          &err) < 0)
        rc = (log_err("scavenge: %s", err.text), -1);
    if (*id >= 0 && s.partner_ranks > 0 && live) {
        if (scavenge_wait_try(o->prefix, o->jobid, try, "COPIED", live, o->timeout) != 0)
            log_warn("scavenge: not every live node copied its part within %.0f s",
                     o->timeout);
        if (scavenge_partners(&s, &err) < 0)
            rc = (log_err("scavenge: %s", err.text), -1);
    }
    if (scavenge_mark_try(o->prefix, o->jobid, try, o->host, "FINISHED", *id, live,
                          index_id, &err) < 0)
        log_err("scavenge: %s", err.text);
    scavenge_done(&s);
    if (*id >= 0)
        epilog_event(o, "SCAVENGE", "dset=%d files=%d failed=%d bytes=%llu", *id, s.files,
                     s.failed, s.bytes);
    fault_point("scavenge.finished", -1); /* FINISHED marked, not indexed */
    if (*index_id >= 0) {
        /* every node that copied waits for the verdict and places its own */
        *indexed = lifecycle_index(o, *index_id, DSINDEX_NODES_PLACE) == 0 ? 1 : -1;
        if (scavenge_verdict(o->prefix, o->jobid, try, *index_id, *indexed == 1, &err) <
            0)
            log_err("scavenge: %s", err.text);
    }
    return rc;
}

/* the dataset a try could not recover, which the nodes then fall back
 * from; -1 when it was indexed, or nobody says within the timeout.
 * *done: dataset mine, which this node copied, was indexed complete */
static int lifecycle_failed(const jobopts_t *o, int try, int mine, int index_id,
                            int indexed, int *done)
{
    int id = -1, ok = 1;
    *done = 0;
    if (index_id >= 0) { /* this node indexed */
        *done = indexed == 1 && index_id == mine;
        return indexed < 0 ? index_id : -1;
    }
    if (scavenge_verdict_wait(o->prefix, o->jobid, try, o->timeout, &id, &ok) != 0) {
        log_warn("scavenge: no word within %.0f s whether the dataset was indexed; not "
                 "falling back to an older checkpoint",
                 o->timeout);
        return -1;
    }
    *done = ok && id == mine;
    return ok ? -1 : id;
}

/* Once a dataset is indexed complete its rank2file tree says what each
 * rank has; the node's record (dsrec.h) was only the indexer's input, and
 * each node removes its own, so that a dataset of N ranks does not keep
 * N/8 of them on the prefix.  A record of a dataset that could not be
 * indexed stays for the next try (SCR_Init, `scr index --add`). */
static void lifecycle_forget_record(const jobopts_t *o, int id)
{
    char dsetdir[4200];
    pfs_dset_dir(o->prefix, id, dsetdir, sizeof(dsetdir));
    dsrec_node_unlink(dsetdir, o->host);
}

/* The indexer left this node's landed ranks to it (DSINDEX_NODES_PLACE):
 * their files move to their own paths now that the dataset is complete.
 * What fails here stays staged, and the next fetch moves it. */
static void lifecycle_place(const jobopts_t *o, int id)
{
    int placed = 0, bad = scavenge_place(o->prefix, o->host, id, &placed);
    epilog_event(o, "PLACE", "dset=%d files=%d failed=%d", id, placed, bad);
}

/* at most this many tries: the newest checkpoint and older ones */
#define LIFECYCLE_TRIES 4

static int lifecycle_scavenge_at(const jobopts_t *o, const char *cntldir,
                                 const trees_t *t, int id, const nodelist_t *live,
                                 int *indexed)
{
    if (!o->prefix[0]) {
        /* a job without a checkpoint in this node's cache has nothing to lose */
        if (scavenge_pick("", cntldir, &id, NULL) == 0)
            return 0;
        log_err("scavenge of job %s on %s: no prefix directory is known", o->jobid,
                o->host);
        return -1;
    }
    int rc = 0, below = INT_MAX;
    int known = live && nodelist_find(live, LIFECYCLE_NOBODY) < 0;
    nodelist_t *nodes = NULL;
    for (int try = 0; try < LIFECYCLE_TRIES; try++) {
        int index_id = -1, mine = try == 0 ? id : -1;
        if (lifecycle_try(o, cntldir, t, try, &mine, below, nodes ? nodes : live,
                          &index_id, indexed) < 0 &&
            try == 0)
            rc = -1;
        int done = 0,
            failed = mine >= 0 && known
                         ? lifecycle_failed(o, try, mine, index_id, *indexed, &done)
                         : -1;
        if (done) {
            lifecycle_place(o, mine);
            lifecycle_forget_record(o, mine);
        }
        if (failed < 0)
            break;
        log_msg("scavenge: dataset %d of job %s cannot be recovered; trying the newest "
                "older checkpoint",
                failed, o->jobid);
        below = failed;
        *indexed = 0;
        nodelist_t *copiers = scavenge_copiers(o->prefix, o->jobid, try);
        nodelist_delete(&nodes);
        nodes = nodelist_intersect(copiers, live);
        nodelist_delete(&copiers);
    }
    nodelist_delete(&nodes);
    return rc;
}

/* the scavenge of the run whose records are in control directory cntldir */
static int lifecycle_scavenge_dir(const jobopts_t *o, const trees_t *t,
                                  const char *cntldir, int id, const nodelist_t *live,
                                  int *indexed)
{
    *indexed = 0;
    jobopts_t *use = malloc(sizeof(*use));
    if (!use)
        return log_err("scavenge: out of memory"), -1;
    nodelist_t *nodes = NULL, *run_live = NULL;
    *use = *o;
    if (lifecycle_recorded_at(use, cntldir, &nodes))
        run_live = lifecycle_run_live(live, nodes);
    int rc =
        lifecycle_scavenge_at(use, cntldir, t, id, run_live ? run_live : live, indexed);
    nodelist_delete(&nodes);
    nodelist_delete(&run_live);
    free(use);
    return rc;
}

/* Groups of ranks that each ran SCR on a communicator of their own
 * (SCR_Init_comm) keep their records in comm.<hash> below the job's control
 * directory, each with its own prefix: each is scavenged as a run of its
 * own.  A name that is not a directory of its own (a symlink) is skipped. */
static int lifecycle_scavenge_groups(const jobopts_t *o, const trees_t *t,
                                     const char *cntldir, const nodelist_t *live)
{
    DIR *d = opendir(cntldir);
    if (!d)
        return 0;
    int rc = 0, indexed;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        char sub[4200];
        if (strncmp(e->d_name, "comm.", 5) != 0 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            !S_ISDIR(st.st_mode) ||
            snprintf(sub, sizeof(sub), "%s/%s", cntldir, e->d_name) >= (int)sizeof(sub))
            continue;
        if (lifecycle_scavenge_dir(o, t, sub, -1, live, &indexed) < 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

/* the job's run, then (for the newest checkpoints) each SCR_Init_comm group */
static int lifecycle_scavenge_trees(const jobopts_t *o, const trees_t *t, int id,
                                    const nodelist_t *live, int *indexed)
{
    char cntldir[4200];
    jobopts_job_dir(o, o->cntl_base, cntldir, sizeof(cntldir));
    int rc = lifecycle_scavenge_dir(o, t, cntldir, id, live, indexed);
    if (id < 0 && lifecycle_scavenge_groups(o, t, cntldir, live) < 0)
        rc = -1;
    return rc;
}

int lifecycle_scavenge(const jobopts_t *o, int id, const nodelist_t *live, int *indexed)
{
    char cntldir[4200];
    trees_t t;
    jobopts_job_dir(o, o->cntl_base, cntldir, sizeof(cntldir));
    trees_get(o, cntldir, &t);
    int rc = lifecycle_scavenge_trees(o, &t, id, live, indexed);
    trees_free(&t);
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
    char cntldir[4200];
    trees_t t;
    jobopts_job_dir(o, o->cntl_base, cntldir, sizeof(cntldir));
    trees_get(o, cntldir, &t); /* before the control directory goes */
    int rc = lifecycle_scavenge_trees(o, &t, -1, live, &indexed);
    scr_error_t err;
    if (rc < 0) {
        log_err("epilog: the cache of job %s on %s is kept for `scr scavenge`", o->jobid,
                o->host);
        trees_free(&t);
        return 0;
    }
    /* every store the job used, the control directory (with the record) last */
    for (int i = 0; i < t.n; i++)
        if (node_remove_tree(t.dirs[i], &err) < 0)
            log_err("epilog: %s", err.text);
    trees_free(&t);
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
        nodelist_append(never, LIFECYCLE_NOBODY);
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
