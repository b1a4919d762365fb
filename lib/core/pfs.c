/* SPDX-License-Identifier: BSD-3-Clause */
/* pfs.c - index, flush file and summary on the parallel file system */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault.h"
#include "io.h"
#include "log.h"
#include "pfs.h"

void pfs_meta_path(const char *prefix, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/.scr/%s", prefix, name);
}

void pfs_dset_name(int id, char *buf, size_t len)
{
    snprintf(buf, len, ".scr/scr.dataset.%d", id);
}

void pfs_dset_name_old(int id, char *buf, size_t len)
{
    snprintf(buf, len, "scr.dataset.%d", id);
}

void pfs_dset_dir(const char *prefix, int id, char *buf, size_t len)
{
    snprintf(buf, len, "%s/.scr/scr.dataset.%d", prefix, id);
}

void pfs_timestamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

int pfs_update(const char *path, pfs_update_fn fn, void *arg, scr_error_t *err)
{
    return kvtree_update_file(path, fn, arg, 1, err);
}

int pfs_update_nosync(const char *path, pfs_update_fn fn, void *arg, scr_error_t *err)
{
    return kvtree_update_file(path, fn, arg, 0, err);
}

typedef struct {
    int id;
    const char *dir;
    const kvtree_t *dset;
    int complete;
    const char *mark;
    char clash[128]; /* the job whose dataset holds dir already, if another */
} index_arg_t;

static int index_do_add(kvtree_t *t, void *arg)
{
    index_arg_t *a = arg;
    fault_point("index.update", -1); /* under the lock, before the write */
    /* another dataset of this id (a job writing to this prefix at the same
     * time as another: both count from the same index) is never replaced */
    kvtree_t *old = kvtree_get(kvtree_getf(t, "DSET %d DIR %s", a->id, a->dir), "DSET");
    uint64_t mine = 0, theirs = 0;
    const char *job = old ? kvtree_get_val(old, "JOBID") : NULL;
    const char *myjob = a->dset ? kvtree_get_val(a->dset, "JOBID") : NULL;
    /* one job may reuse an id: a relaunch restarted from an older dataset
     * and numbered its next one as the lost one was */
    int same_job = job && myjob && strcmp(job, myjob) == 0;
    if (old && a->dset && !same_job &&
        kvtree_util_get_u64(old, "CREATED", &theirs) == 0 &&
        kvtree_util_get_u64(a->dset, "CREATED", &mine) == 0 && mine != theirs) {
        snprintf(a->clash, sizeof(a->clash), "%s", job ? job : "?");
        return -1;
    }
    kvtree_util_set_int(t, "VERSION", PFS_INDEX_VERSION);
    kvtree_util_set_int(kvtree_setf(t, NULL, "DIR %s", a->dir), "DSET", a->id);
    kvtree_t *d = kvtree_setf(t, NULL, "DSET %d DIR %s", a->id, a->dir);
    kvtree_util_set_int(d, "COMPLETE", a->complete);
    if (!a->complete) /* written again: its files are staged anew */
        kvtree_unset(d, "PLACED");
    if (a->dset)
        kvtree_set(d, "DSET", kvtree_dup(a->dset));
    if (a->complete) {
        char ts[64];
        pfs_timestamp(ts, sizeof(ts));
        kvtree_util_set_str(d, "FLUSHED", ts);
        int flags = 0;
        kvtree_util_get_int(kvtree_get(d, "DSET"), "FLAGS", &flags);
        if (flags & 1)
            kvtree_util_set_str(t, "CURRENT", a->dir);
    }
    return 0;
}

int index_add(const char *prefix, int id, const char *dir, const kvtree_t *dset,
              int complete, scr_error_t *err)
{
    char path[4200];
    index_arg_t a = {id, dir, dset, complete, NULL, ""};
    pfs_meta_path(prefix, "index.scr", path, sizeof(path));
    int rc = pfs_update(path, index_do_add, &a, err);
    if (rc < 0 && a.clash[0])
        errprintf(err,
                  "%s/%s holds another dataset %d, of job %s: two jobs write to this "
                  "prefix at once; not overwritten",
                  prefix, dir, id, a.clash);
    return rc;
}

static int index_do_mark(kvtree_t *t, void *arg)
{
    index_arg_t *a = arg;
    fault_point("index.update", -1);
    kvtree_t *d = kvtree_getf(t, "DSET %d DIR %s", a->id, a->dir);
    if (!d)
        return 1;
    char ts[64];
    pfs_timestamp(ts, sizeof(ts));
    kvtree_util_set_str(d, a->mark, ts);
    const char *cur = kvtree_get_val(t, "CURRENT");
    if (strcmp(a->mark, "FAILED") == 0 && cur && strcmp(cur, a->dir) == 0)
        kvtree_unset(t, "CURRENT");
    if (strcmp(a->mark, "FETCHED") == 0)
        kvtree_util_set_str(t, "CURRENT", a->dir);
    return 0;
}

static int index_mark(const char *prefix, int id, const char *dir, const char *mark,
                      scr_error_t *err)
{
    char path[4200];
    index_arg_t a = {id, dir, NULL, 0, mark, ""};
    pfs_meta_path(prefix, "index.scr", path, sizeof(path));
    return pfs_update(path, index_do_mark, &a, err);
}

int index_mark_failed(const char *prefix, int id, const char *dir, scr_error_t *err)
{
    return index_mark(prefix, id, dir, "FAILED", err);
}

int index_mark_fetched(const char *prefix, int id, const char *dir, scr_error_t *err)
{
    return index_mark(prefix, id, dir, "FETCHED", err);
}

int index_mark_placed(const char *prefix, int id, const char *dir, scr_error_t *err)
{
    return index_mark(prefix, id, dir, "PLACED", err);
}

static int index_do_remove(kvtree_t *t, void *arg)
{
    index_arg_t *a = arg;
    fault_point("index.update", -1);
    kvtree_t *dirs = kvtree_getf(t, "DSET %d DIR", a->id);
    const char *cur = kvtree_get_val(t, "CURRENT");
    for (kvtree_elem_t *e = kvtree_first(dirs); e; e = kvtree_elem_next(e)) {
        if (cur && strcmp(cur, kvtree_elem_key(e)) == 0)
            kvtree_unset(t, "CURRENT");
        kvtree_unset(kvtree_get(t, "DIR"), kvtree_elem_key(e));
    }
    kvtree_unsetf(t, "DSET %d", a->id);
    return 0;
}

int index_remove(const char *prefix, int id, scr_error_t *err)
{
    char path[4200];
    index_arg_t a = {id, NULL, NULL, 0, NULL, ""};
    pfs_meta_path(prefix, "index.scr", path, sizeof(path));
    return pfs_update(path, index_do_remove, &a, err);
}

int index_read(const char *prefix, kvtree_t *index, scr_error_t *err)
{
    char path[4200];
    pfs_meta_path(prefix, "index.scr", path, sizeof(path));
    return kvtree_read_with_lock(path, index, err);
}

/* ids of the scr.dataset.<id> directories in dir, ascending; n of them.
 * An id is negated for the older layout (in the prefix itself), so both
 * kinds sort by id with the older one first. */
static int *index_dset_dirs(const char *dir, int old, int *ids, int *n, int *cap,
                            scr_error_t *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return old ? (errprintf(err, "%s: %s", dir, strerror(errno)), NULL) : ids;
    struct dirent *e;
    char tail;
    int id;
    while (ids && (e = readdir(d))) {
        if (sscanf(e->d_name, "scr.dataset.%d%c", &id, &tail) != 1 || id < 0)
            continue;
        if (*n == *cap && !(ids = realloc(ids, sizeof(int) * (size_t)(*cap *= 2))))
            break;
        ids[(*n)++] = old ? -id - 1 : id;
    }
    closedir(d);
    if (!ids)
        errprintf(err, "%s: out of memory", dir);
    return ids;
}

static int index_cmp_either(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int ix = x < 0 ? -x - 1 : x, iy = y < 0 ? -y - 1 : y;
    return ix != iy ? ix - iy : x - y;
}

int index_recover(const char *prefix, kvtree_t *index, scr_error_t *err)
{
    char path[4200], aside[4300], dir[4300], name[64];
    pfs_meta_path(prefix, "index.scr", path, sizeof(path));
    snprintf(aside, sizeof(aside), "%s.damaged", path);
    int n = 0, cap = 16, found = 0, *ids = malloc(sizeof(int) * (size_t)cap);
    char meta[4200];
    pfs_meta_path(prefix, "", meta, sizeof(meta));
    ids = index_dset_dirs(prefix, 1, ids, &n, &cap, err);
    ids = ids ? index_dset_dirs(meta, 0, ids, &n, &cap, err) : NULL;
    if (!ids)
        return -1;
    qsort(ids, (size_t)n, sizeof(int), index_cmp_either);
    if (rename(path, aside) < 0 && errno != ENOENT) {
        free(ids);
        return errprintf(err, "rename %s: %s", path, strerror(errno));
    }
    /* ascending, so the newest complete checkpoint ends up CURRENT */
    for (int i = 0; i < n; i++) {
        kvtree_t *s = kvtree_new();
        int complete = 0, id = ids[i] < 0 ? -ids[i] - 1 : ids[i];
        if (ids[i] < 0)
            pfs_dset_name_old(id, name, sizeof(name));
        else
            pfs_dset_name(id, name, sizeof(name));
        snprintf(dir, sizeof(dir), "%s/%s", prefix, name);
        if (summary_read(dir, s, NULL) == 0 &&
            kvtree_util_get_int(s, "COMPLETE", &complete) == 0 && complete &&
            index_add(prefix, id, name, kvtree_get(s, "DSET"), 1, err) == 0)
            found++;
        kvtree_delete(&s);
    }
    free(ids);
    kvtree_clear(index);
    if (index_read(prefix, index, NULL) < 0 && found > 0)
        return errprintf(err, "%s: cannot be read after it was written again", path);
    return found;
}

/* usable: complete, never failed, a checkpoint */
static int index_usable(const kvtree_t *d)
{
    int complete = 0, flags = 0;
    kvtree_util_get_int(d, "COMPLETE", &complete);
    kvtree_util_get_int(kvtree_get(d, "DSET"), "FLAGS", &flags);
    return complete && !kvtree_get(d, "FAILED") && (flags & 1);
}

int index_pick(const kvtree_t *index, const char *name, int below, char *dir, size_t len)
{
    int n, *ids, found = -1, start = below;
    if (kvtree_list_int(kvtree_get(index, "DSET"), &n, &ids) < 0)
        return -1;
    /* a named dataset (or CURRENT) caps where the search starts */
    const char *cur = name ? NULL : kvtree_get_val(index, "CURRENT");
    for (int i = 0; i < n; i++) {
        kvtree_t *dirs = kvtree_getf(index, "DSET %d DIR", ids[i]);
        for (kvtree_elem_t *e = kvtree_first(dirs); e; e = kvtree_elem_next(e)) {
            const char *nm =
                kvtree_get_val(kvtree_get(kvtree_elem_tree(e), "DSET"), "NAME");
            if ((name && nm && strcmp(nm, name) == 0) ||
                (cur && strcmp(cur, kvtree_elem_key(e)) == 0))
                start = ids[i] + 1 < start ? ids[i] + 1 : start;
        }
    }
    if (name && start == below) {
        free(ids);
        return -1; /* the named dataset is not on the prefix */
    }
    for (int i = n - 1; i >= 0 && found < 0; i--) {
        if (ids[i] >= start)
            continue;
        kvtree_t *dirs = kvtree_getf(index, "DSET %d DIR", ids[i]);
        for (kvtree_elem_t *e = kvtree_first(dirs); e && found < 0;
             e = kvtree_elem_next(e))
            if (index_usable(kvtree_elem_tree(e))) {
                found = ids[i];
                snprintf(dir, len, "%s", kvtree_elem_key(e));
            }
    }
    free(ids);
    return found;
}

kvtree_t *index_dset_desc(const kvtree_t *index, int id)
{
    kvtree_t *dirs = kvtree_getf(index, "DSET %d DIR", id);
    return kvtree_get(kvtree_elem_tree(kvtree_first(dirs)), "DSET");
}

static int id_at(const int *ids, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return i;
    return -1;
}

/* take the bases of the datasets that stay off the list, down each chain */
static int prune_keep_bases(const kvtree_t *index, const int *all, int nall, int *ids,
                            int count)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < nall; i++) {
            int base = -1, at;
            if (id_at(ids, count, all[i]) >= 0)
                continue;
            kvtree_util_get_int(index_dset_desc(index, all[i]), "BASE", &base);
            if (base >= 0 && (at = id_at(ids, count, base)) >= 0) {
                ids[at] = ids[--count];
                changed = 1;
            }
        }
    }
    return count;
}

int index_prune_list(const kvtree_t *index, int keep, int *ids_out, int max)
{
    int n, *ids, count = 0, kept = 0;
    if (keep <= 0 || kvtree_list_int(kvtree_get(index, "DSET"), &n, &ids) < 0)
        return 0;
    for (int i = n - 1; i >= 0; i--) {
        kvtree_t *dirs = kvtree_getf(index, "DSET %d DIR", ids[i]);
        int usable = 0;
        for (kvtree_elem_t *e = kvtree_first(dirs); e; e = kvtree_elem_next(e))
            usable |= index_usable(kvtree_elem_tree(e));
        if (usable && kept < keep)
            kept++;
        else if (usable && count < max)
            ids_out[count++] = ids[i];
    }
    count = prune_keep_bases(index, ids, n, ids_out, count);
    free(ids);
    return count;
}

typedef struct {
    int id;
    const char *location;
    int on;
} flush_arg_t;

static int flush_do_set(kvtree_t *t, void *arg)
{
    flush_arg_t *a = arg;
    kvtree_t *d = kvtree_getf(t, "DSET %d", a->id);
    if (!d && !(d = kvtree_setf(t, NULL, "DSET %d", a->id)))
        return -1;
    if (strcmp(a->location, "FLUSHING") == 0) {
        if (a->on)
            kvtree_util_set_int(d, "FLUSHING", 1);
        else
            kvtree_unset(d, "FLUSHING");
    } else if (a->on)
        kvtree_set_kv(d, "LOCATION", a->location);
    else
        kvtree_unset_kv(d, "LOCATION", a->location);
    char name[64];
    pfs_dset_name(a->id, name, sizeof(name));
    kvtree_util_set_str(d, "DIR", name);
    if (!kvtree_get(d, "LOCATION") && !kvtree_get(d, "FLUSHING"))
        kvtree_unsetf(t, "DSET %d", a->id);
    return 0;
}

int flushfile_set(const char *prefix, int id, const char *location, int on,
                  scr_error_t *err)
{
    char path[4200];
    flush_arg_t a = {id, location, on};
    scr_error_t mine;
    if (!err)
        err = &mine;
    pfs_meta_path(prefix, "flush.scr", path, sizeof(path));
    /* CACHE marks are advisory (a scavenge checks the cache itself); where a
     * dataset is on the PFS, and FLUSHING, must survive a crash */
    int cache = strcmp(location, "CACHE") == 0;
    int rc = cache ? pfs_update_nosync(path, flush_do_set, &a, err)
                   : pfs_update(path, flush_do_set, &a, err);
    if (rc == 0 || errno != EBADMSG)
        return rc;
    /* damaged (a torn write): what it said, the index and the caches say
     * too, and kept as it is it would fail every flush from now on */
    char aside[4300];
    snprintf(aside, sizeof(aside), "%s.damaged", path);
    if (rename(path, aside) < 0)
        return rc;
    log_warn("%s; moved it to %s and began a new one", err->text, aside);
    return cache ? pfs_update_nosync(path, flush_do_set, &a, err)
                 : pfs_update(path, flush_do_set, &a, err);
}

int flushfile_location(const char *prefix, int id, const char *location)
{
    char path[4200];
    kvtree_t *t = kvtree_new();
    pfs_meta_path(prefix, "flush.scr", path, sizeof(path));
    kvtree_read_with_lock(path, t, NULL);
    int on = kvtree_getf(t, "DSET %d LOCATION %s", id, location) != NULL;
    kvtree_delete(&t);
    return on;
}

int flushfile_newest_on_pfs(const kvtree_t *flush)
{
    int newest = -1;
    kvtree_t *dsets = kvtree_get(flush, "DSET");
    for (kvtree_elem_t *e = kvtree_first(dsets); e; e = kvtree_elem_next(e)) {
        int id;
        if (kvtree_elem_key_int(e, &id) == 0 && id > newest)
            newest = id;
    }
    if (newest < 0)
        return 0;
    kvtree_t *d = kvtree_getf(flush, "DSET %d", newest);
    return kvtree_get(d, "FLUSHING") != NULL ||
           (kvtree_getf(d, "LOCATION PFS") && !kvtree_getf(d, "LOCATION CACHE"));
}

int summary_write(const char *dsetdir, const kvtree_t *dset, int complete,
                  scr_error_t *err)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/.scr/summary.scr", dsetdir);
    kvtree_t *s = kvtree_new();
    kvtree_util_set_int(s, "VERSION", PFS_SUMMARY_VERSION);
    kvtree_util_set_int(s, "COMPLETE", complete);
    kvtree_set(s, "DSET", kvtree_dup(dset));
    int rc = kvtree_write_file(path, s, err);
    kvtree_delete(&s);
    return rc;
}

int summary_read(const char *dsetdir, kvtree_t *summary, scr_error_t *err)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/.scr/summary.scr", dsetdir);
    if (kvtree_read_file(path, summary, err) < 0)
        return -1;
    int version = 0;
    kvtree_util_get_int(summary, "VERSION", &version);
    if (version != PFS_SUMMARY_VERSION)
        return errprintf(err, "%s: summary version %d, expected %d", path, version,
                         PFS_SUMMARY_VERSION);
    return 0;
}
