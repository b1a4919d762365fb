/* SPDX-License-Identifier: BSD-3-Clause */
/* scavmark.c - the scavenge's marks on the prefix: which node copied what,
 * who indexes, and the verdict (scavmark.h) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kvtree.h"
#include "log.h"
#include "pfs.h"
#include "scavmark.h"

/* the marks of try `try`: the file's top level for the first, TRY <n> for
 * each fallback to an older checkpoint (NULL: none yet and !create) */
static kvtree_t *mark_section(kvtree_t *t, int try, int create)
{
    if (try == 0)
        return t;
    kvtree_t *sec = kvtree_getf(t, "TRY %d", try);
    return sec || !create ? sec : kvtree_setf(t, NULL, "TRY %d", try);
}

/* the root file (leaf < 0) or leaf file `leaf` of a job */
static void mark_path(const char *prefix, const char *jobid, int leaf, char *buf,
                      size_t len)
{
    char name[160];
    if (leaf < 0)
        snprintf(name, sizeof(name), "scavenge.%s.scr", jobid);
    else
        snprintf(name, sizeof(name), "scavenge.%s.%d.scr", jobid, leaf);
    pfs_meta_path(prefix, name, buf, len);
}

static int mark_leaves(const nodelist_t *live)
{
    int n = live ? nodelist_count(live) : 0;
    return n > SCAVMARK_FANIN ? (n + SCAVMARK_FANIN - 1) / SCAVMARK_FANIN : 0;
}

/* the newest dataset in a section's marks of phase: the hosts' own and the
 * leaves' (LEAF <k> <phase> ID) */
static int mark_max_id(const kvtree_t *sec, const char *phase)
{
    int best = -1, id;
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(sec, phase)); e;
         e = kvtree_elem_next(e))
        if (kvtree_util_get_int(kvtree_elem_tree(e), "ID", &id) == 0 && id > best)
            best = id;
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(sec, "LEAF")); e;
         e = kvtree_elem_next(e))
        if (kvtree_util_get_int(kvtree_get(kvtree_elem_tree(e), phase), "ID", &id) == 0 &&
            id > best)
            best = id;
    return best;
}

/* does a section have a mark of phase from every host of hosts */
static int mark_all_in(const kvtree_t *sec, const char *phase, const nodelist_t *hosts)
{
    for (int i = 0; i < nodelist_count(hosts); i++)
        if (!kvtree_getf(sec, "%s %s", phase, nodelist_nth(hosts, i)))
            return 0;
    return 1;
}

/* has every live node reached phase, by a root section: each host's own
 * mark there, or with leaves, each leaf's */
static int mark_complete(const kvtree_t *sec, const char *phase, const nodelist_t *live)
{
    int leaves = mark_leaves(live);
    for (int k = 0; k < leaves; k++)
        if (!kvtree_getf(sec, "LEAF %d %s", k, phase))
            return 0;
    return leaves > 0 || mark_all_in(sec, phase, live);
}

typedef struct {
    const char *host, *phase;
    int id, try;
    const nodelist_t *live;    /* root: election over this set */
    const nodelist_t *members; /* leaf: its hosts */
    int leaf, elected, index_id, complete, leaf_max;
} mark_arg_t;

static int mark_do_root(kvtree_t *top, void *arg)
{
    mark_arg_t *a = arg;
    kvtree_t *t = mark_section(top, a->try, 1);
    if (strcmp(a->phase, "INDEXED") == 0) { /* `scr postrun` indexed it already */
        kvtree_util_set_str(t, "INDEXER", a->host);
        return 0;
    }
    if (a->leaf >= 0) { /* the leaf a->leaf is complete */
        kvtree_util_set_int(top, "LEAVES", mark_leaves(a->live));
        kvtree_util_set_int(kvtree_setf(t, NULL, "LEAF %d %s", a->leaf, a->phase), "ID",
                            a->leaf_max);
    } else {
        kvtree_util_set_int(kvtree_setf(t, NULL, "%s %s", a->phase, a->host), "ID",
                            a->id);
    }
    if (a->live && strcmp(a->phase, "FINISHED") == 0 && !kvtree_get(t, "INDEXER") &&
        mark_complete(t, "FINISHED", a->live)) {
        kvtree_util_set_str(t, "INDEXER", a->host);
        a->elected = 1;
        a->index_id = mark_max_id(t, "FINISHED");
    }
    return 0;
}

static int mark_do_leaf(kvtree_t *top, void *arg)
{
    mark_arg_t *a = arg;
    kvtree_t *t = mark_section(top, a->try, 1);
    kvtree_util_set_int(kvtree_setf(t, NULL, "%s %s", a->phase, a->host), "ID", a->id);
    a->complete = mark_all_in(t, a->phase, a->members);
    a->leaf_max = mark_max_id(t, a->phase);
    return 0;
}

/* a host's leaf: by a hash of its name (FNV-1a), which every node computes
 * alike whatever order its live list has */
static int mark_hash_leaf(const char *host, int leaves)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)host; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (int)(h % (uint32_t)leaves);
}

/* host's leaf, with its members (NULL: none, mark the root): a job of more
 * than SCAVMARK_FANIN live nodes that host is one of */
static nodelist_t *mark_leaf_of(const nodelist_t *live, const char *host, int *leaf)
{
    int leaves = mark_leaves(live);
    *leaf = -1;
    if (!leaves || nodelist_find(live, host) < 0)
        return NULL;
    nodelist_t *members = nodelist_new();
    *leaf = mark_hash_leaf(host, leaves);
    for (int i = 0; i < nodelist_count(live); i++)
        if (mark_hash_leaf(nodelist_nth(live, i), leaves) == *leaf)
            nodelist_append(members, nodelist_nth(live, i));
    return members;
}

int scavenge_mark_try(const char *prefix, const char *jobid, int try, const char *host,
                      const char *phase, int id, const nodelist_t *live, int *index_id,
                      scr_error_t *err)
{
    char path[4400];
    mark_arg_t a = {host, phase, id, try, live, NULL, -1, 0, -1, 0, -1};
    int rc = 0;
    if (strcmp(phase, "INDEXED") != 0)
        a.members = mark_leaf_of(live, host, &a.leaf);
    if (a.members) {
        mark_path(prefix, jobid, a.leaf, path, sizeof(path));
        rc = kvtree_update_file(path, mark_do_leaf, &a, 1, err);
        nodelist_delete((nodelist_t **)&a.members);
        if (rc < 0 || !a.complete) /* the leaf's last node marks the root */
            goto out;
    }
    mark_path(prefix, jobid, -1, path, sizeof(path));
    rc = kvtree_update_file(path, mark_do_root, &a, 1, err);
out:
    if (index_id)
        *index_id = rc == 0 && a.elected ? a.index_id : -1;
    return rc;
}

int scavenge_mark(const char *prefix, const char *jobid, const char *host,
                  const char *phase, int id, const nodelist_t *live, int *index_id,
                  scr_error_t *err)
{
    return scavenge_mark_try(prefix, jobid, 0, host, phase, id, live, index_id, err);
}

/* read the job's root file at path every 0.2 s until done says so (0), or
 * timeout seconds have passed (1); after 5 s, and every 5 s after, one
 * line says what it waits for (what), so a stalled epilog explains itself */
static int mark_poll(const char *path, double timeout, const char *what,
                     int (*done)(kvtree_t *t, void *arg), void *arg)
{
    struct timespec nap = {0, 200 * 1000 * 1000};
    double say = 5;
    for (double waited = 0;; waited += 0.2) {
        kvtree_t *t = kvtree_new();
        kvtree_read_with_lock(path, t, NULL);
        int got = done(t, arg);
        kvtree_delete(&t);
        if (got)
            return 0;
        if (waited >= timeout)
            return 1;
        if (waited >= say) {
            log_msg("scavenge: still waiting after %.0f s (of %.0f) for %s in %s", waited,
                    timeout, what, path);
            say += 5;
        }
        nanosleep(&nap, NULL);
    }
}

typedef struct {
    int try;
    const char *phase;
    const nodelist_t *live;
} phase_arg_t;

static int mark_phase_done(kvtree_t *t, void *arg)
{
    const phase_arg_t *a = arg;
    kvtree_t *sec = mark_section(t, a->try, 0);
    return sec && mark_complete(sec, a->phase, a->live);
}

int scavenge_wait_try(const char *prefix, const char *jobid, int try, const char *phase,
                      const nodelist_t *live, double timeout)
{
    char path[4400];
    mark_path(prefix, jobid, -1, path, sizeof(path));
    phase_arg_t a = {try, phase, live};
    char what[256];
    snprintf(what, sizeof(what), "every live node to reach %s (round %d)", phase, try);
    return mark_poll(path, timeout, what, mark_phase_done, &a);
}

int scavenge_wait(const char *prefix, const char *jobid, const char *phase,
                  const nodelist_t *live, double timeout)
{
    return scavenge_wait_try(prefix, jobid, 0, phase, live, timeout);
}

/* fn on the path of each leaf file there is: the LEAVES the root has once a
 * leaf was complete, and any after those (a leaf no node marked has no
 * file, and nothing to say).  Files are tested, not read: a locked read
 * would make the lock file of a leaf that has none. */
static void mark_each_leaf(const char *prefix, const char *jobid, int leaves,
                           void (*fn)(const char *path, void *arg), void *arg)
{
    char path[4400];
    for (int k = 0;; k++) {
        mark_path(prefix, jobid, k, path, sizeof(path));
        if (access(path, F_OK) == 0)
            fn(path, arg);
        else if (k >= leaves)
            break;
    }
}

/* the root's LEAVES (0 when it has none, or there is no root) */
static int mark_root_leaves(const char *prefix, const char *jobid, kvtree_t *root)
{
    char path[4400];
    int leaves = 0;
    mark_path(prefix, jobid, -1, path, sizeof(path));
    if (access(path, F_OK) == 0)
        kvtree_read_with_lock(path, root, NULL);
    kvtree_util_get_int(root, "LEAVES", &leaves);
    return leaves;
}

typedef struct {
    int try;
    void (*fn)(const kvtree_t *sec, void *arg);
    void *arg;
} section_walk_t;

static void mark_leaf_section(const char *path, void *arg)
{
    section_walk_t *w = arg;
    kvtree_t *t = kvtree_new();
    kvtree_read_with_lock(path, t, NULL);
    w->fn(mark_section(t, w->try, 0), w->arg);
    kvtree_delete(&t);
}

/* fn on the root's section of try, then on each leaf's */
static void mark_each_section(const char *prefix, const char *jobid, int try,
                              void (*fn)(const kvtree_t *sec, void *arg), void *arg)
{
    kvtree_t *root = kvtree_new();
    int leaves = mark_root_leaves(prefix, jobid, root);
    fn(mark_section(root, try, 0), arg);
    kvtree_delete(&root);
    section_walk_t w = {try, fn, arg};
    mark_each_leaf(prefix, jobid, leaves, mark_leaf_section, &w);
}

static void mark_newest_in(const kvtree_t *sec, void *arg)
{
    int id = mark_max_id(sec, "COPIED"), *best = arg;
    if (id > *best)
        *best = id;
}

int scavenge_job_newest(const char *prefix, const char *jobid)
{
    int best = -1;
    mark_each_section(prefix, jobid, 0, mark_newest_in, &best);
    return best;
}

static void mark_copiers_in(const kvtree_t *sec, void *arg)
{
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(sec, "COPIED")); e;
         e = kvtree_elem_next(e)) {
        int id = -1;
        if (kvtree_util_get_int(kvtree_elem_tree(e), "ID", &id) == 0 && id >= 0)
            nodelist_append(arg, kvtree_elem_key(e));
    }
}

nodelist_t *scavenge_copiers(const char *prefix, const char *jobid, int try)
{
    nodelist_t *hosts = nodelist_new();
    mark_each_section(prefix, jobid, try, mark_copiers_in, hosts);
    return hosts;
}

typedef struct {
    int try, id, ok;
} verdict_arg_t;

static int mark_do_verdict(kvtree_t *t, void *arg)
{
    verdict_arg_t *a = arg;
    kvtree_t *v = kvtree_setf(mark_section(t, a->try, 1), NULL, "VERDICT");
    kvtree_util_set_int(v, "ID", a->id);
    kvtree_util_set_int(v, "OK", a->ok);
    return 0;
}

int scavenge_verdict(const char *prefix, const char *jobid, int try, int id, int ok,
                     scr_error_t *err)
{
    char path[4400];
    mark_path(prefix, jobid, -1, path, sizeof(path));
    verdict_arg_t a = {try, id, ok};
    return kvtree_update_file(path, mark_do_verdict, &a, 1, err);
}

typedef struct {
    int try;
    int *id, *ok;
} verdict_wait_t;

static int mark_verdict_in(kvtree_t *t, void *arg)
{
    const verdict_wait_t *a = arg;
    kvtree_t *v = kvtree_get(mark_section(t, a->try, 0), "VERDICT");
    return kvtree_util_get_int(v, "ID", a->id) == 0 &&
           kvtree_util_get_int(v, "OK", a->ok) == 0;
}

int scavenge_verdict_wait(const char *prefix, const char *jobid, int try, double timeout,
                          int *id, int *ok)
{
    char path[4400];
    mark_path(prefix, jobid, -1, path, sizeof(path));
    verdict_wait_t a = {try, id, ok};
    char what[64];
    snprintf(what, sizeof(what), "the verdict of round %d", try);
    return mark_poll(path, timeout, what, mark_verdict_in, &a);
}

int scavenge_job_verdict(const char *prefix, const char *jobid, int *id, int *ok)
{
    char path[4400];
    mark_path(prefix, jobid, -1, path, sizeof(path));
    kvtree_t *t = kvtree_new();
    kvtree_read_with_lock(path, t, NULL);
    int found = -1;
    for (int try = 0; mark_section(t, try, 0); try++) {
        verdict_wait_t a = {try, id, ok};
        if (mark_verdict_in(t, &a))
            found = 0;
    }
    kvtree_delete(&t);
    return found;
}

int scavenge_mark_files(const char *prefix, const char *jobid, const nodelist_t *live,
                        const char *host, char *root, char *leaf, size_t len)
{
    int k = -1;
    nodelist_t *members = mark_leaf_of(live, host, &k);
    nodelist_delete(&members);
    mark_path(prefix, jobid, -1, root, len);
    if (k >= 0)
        mark_path(prefix, jobid, k, leaf, len);
    else
        leaf[0] = '\0';
    return k;
}

/* a file and its lock file */
static void mark_unlink(const char *path, void *arg)
{
    (void)arg;
    char lock[4500];
    snprintf(lock, sizeof(lock), "%s.lock", path);
    unlink(path);
    unlink(lock);
}

void scavenge_marks_remove(const char *prefix, const char *jobid)
{
    char path[4400];
    kvtree_t *root = kvtree_new();
    int leaves = mark_root_leaves(prefix, jobid, root);
    kvtree_delete(&root);
    mark_path(prefix, jobid, -1, path, sizeof(path));
    mark_unlink(path, NULL);
    mark_each_leaf(prefix, jobid, leaves, mark_unlink, NULL);
}
