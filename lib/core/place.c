/* SPDX-License-Identifier: BSD-3-Clause */
/* place.c - staged datasets moved to the application's own paths */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "log.h"
#include "path.h"
#include "pfs.h"
#include "place.h"
#include "r2f.h"

int place_staged(const char *dir)
{
    return dir && strncmp(dir, ".scr/", 5) == 0;
}

void place_file_path(const char *prefix, const char *dir, const char *rel, char *buf,
                     size_t len)
{
    struct stat st;
    snprintf(buf, len, "%s/%s/%s", prefix, dir, rel);
    if (place_staged(dir) && lstat(buf, &st) < 0 && errno == ENOENT)
        snprintf(buf, len, "%s/%s", prefix, rel);
}

/* remove the parent directories of path (which it cuts short) while they
 * are empty, stopping at the first top characters (a directory to keep) */
static void place_rmdir_up(char *path, size_t top)
{
    for (char *slash = strrchr(path, '/'); slash && (size_t)(slash - path) > top;
         slash = strrchr(path, '/')) {
        *slash = '\0';
        if (rmdir(path) < 0)
            break;
    }
}

/* each file name of ranks (a tree's RANK level: <r> FILE <rel>) to fn,
 * until fn says stop (non-zero), which is returned */
typedef int (*place_name_fn)(const char *rel, void *arg);

static int place_each_name(const kvtree_t *ranks, place_name_fn fn, void *arg)
{
    for (kvtree_elem_t *r = kvtree_first(ranks); r; r = kvtree_elem_next(r))
        for (kvtree_elem_t *f = kvtree_first(kvtree_get(kvtree_elem_tree(r), "FILE")); f;
             f = kvtree_elem_next(f)) {
            int rc = fn(kvtree_elem_key(f), arg);
            if (rc)
                return rc;
        }
    return 0;
}

/* place_each_name: stop (1) at a name that has a file below directory base */
static int place_name_taken(const char *rel, void *base)
{
    char path[8400];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", (const char *)base, rel);
    return lstat(path, &st) == 0;
}

int place_file(const char *prefix, const char *dir, const char *rel, scr_error_t *err)
{
    char from[4400], to[4400];
    struct stat st;
    if (!path_is_safe_relative(rel))
        return errprintf(err, "unsafe file name '%s'", rel);
    snprintf(from, sizeof(from), "%s/%s/%s", prefix, dir, rel);
    snprintf(to, sizeof(to), "%s/%s", prefix, rel);
    if (lstat(from, &st) < 0) {
        if (errno == ENOENT && lstat(to, &st) == 0)
            return 0; /* placed by an earlier try */
        return errprintf(err, "%s: %s", from, strerror(errno));
    }
    char *parent = strdup(to);
    if (!parent)
        return errprintf(err, "out of memory");
    *strrchr(parent, '/') = '\0';
    /* the application's own directories: its umask decides their mode */
    int rc = io_mkdir_p(parent, 0777, err);
    free(parent);
    if (rc < 0)
        return -1;
    /* rename replaces a link at to, never follows it.  Two nodes holding a
     * rank (its own and its partner's) may both place it: the later one
     * finds it gone and at its own path. */
    if (rename(from, to) < 0) {
        if (errno == ENOENT && lstat(from, &st) < 0 && lstat(to, &st) == 0)
            return 0;
        return errprintf(err, "rename %s to %s: %s", from, to, strerror(errno));
    }
    /* the staging area's directories go once they are empty */
    place_rmdir_up(from, strlen(prefix) + 1 + strlen(dir));
    return 0;
}

typedef struct {
    const char *prefix, *dir;
    scr_error_t *err; /* the first failure's reason */
    int bad;
} place_all_t;

static int place_all_one(const char *rel, void *arg)
{
    place_all_t *a = arg;
    if (place_file(a->prefix, a->dir, rel, a->bad ? NULL : a->err) < 0)
        a->bad++;
    return 0;
}

int place_all(const char *prefix, int id, const char *dir, const kvtree_t *files,
              scr_error_t *err)
{
    const kvtree_t *ranks = kvtree_get(files, "RANK");
    /* a file of files at its own path already: an older dataset named it */
    if (place_each_name(ranks, place_name_taken, (void *)prefix) &&
        place_supersede(prefix, id, files, err) < 0)
        return 1;
    place_all_t a = {prefix, dir, err, 0};
    place_each_name(ranks, place_all_one, &a);
    return a.bad;
}

int place_done(const kvtree_t *index, int id, const char *dir)
{
    return kvtree_getf(index, "DSET %d DIR %s PLACED", id, dir) != NULL;
}

static int place_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

static int place_name_add(const char *rel, void *names)
{
    kvtree_set(names, rel, NULL);
    return 0;
}

/* r2f_each (or a tree's RANK level): the file names of ranks into names
 * (rel -> nothing) */
static int place_add_names(const kvtree_t *ranks, void *names)
{
    return place_each_name(ranks, place_name_add, names);
}

static int place_name_in(const char *rel, void *names)
{
    return kvtree_get(names, rel) != NULL;
}

/* r2f_each: stop (1) at the first name of ranks that names (a kvtree of
 * them) holds */
static int place_hit_names(const kvtree_t *ranks, void *names)
{
    return place_each_name(ranks, place_name_in, names);
}

/* r2f_each: stop (1) at the first name that dataset directory mine holds a
 * staged file of */
static int place_hit_staged(const kvtree_t *ranks, void *mine)
{
    return place_each_name(ranks, place_name_taken, mine);
}

/* 1 if dataset dir of index entry e is complete and staged (safe name) */
static int place_complete_staged(kvtree_elem_t *e)
{
    int complete = 0;
    kvtree_util_get_int(kvtree_elem_tree(e), "COMPLETE", &complete);
    return complete && place_staged(kvtree_elem_key(e)) &&
           path_is_safe_relative(kvtree_elem_key(e));
}

int place_older_staged(const kvtree_t *index, int id, kvtree_t *older)
{
    int n = 0, *ids = NULL, found = 0;
    kvtree_list_int(kvtree_get(index, "DSET"), &n, &ids);
    for (int i = 0; i < n; i++) {
        int any = 0;
        if (ids[i] >= id) /* a placement finished late removes no newer one */
            continue;
        for (kvtree_elem_t *e = kvtree_first(kvtree_getf(index, "DSET %d DIR", ids[i]));
             e; e = kvtree_elem_next(e))
            if (place_complete_staged(e)) {
                kvtree_set(kvtree_setf(older, NULL, "%d DSET %d DIR", found, ids[i]),
                           kvtree_elem_key(e), NULL);
                any = 1;
            }
        found += any;
    }
    free(ids);
    return found;
}

void place_drop(const char *prefix, const kvtree_t *index, int id, int other)
{
    const char *nm = kvtree_get_val(index_dset_desc(index, other), "NAME");
    log_msg("dataset %d reuses file names of dataset %d (%s), which can no longer "
            "be restarted from and leaves the index",
            id, other, nm ? nm : "?");
    kvtree_t *dirs = kvtree_getf(index, "DSET %d DIR", other);
    for (kvtree_elem_t *e = kvtree_first(dirs); e; e = kvtree_elem_next(e)) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s", prefix, kvtree_elem_key(e));
        if (place_staged(kvtree_elem_key(e)) && path_is_safe_relative(kvtree_elem_key(e)))
            nftw(path, place_rm, 16, FTW_DEPTH | FTW_PHYS);
    }
    index_remove(prefix, other, NULL);
    flushfile_set(prefix, other, "PFS", 0, NULL);
}

/* every older complete staged dataset that shares a name with the one
 * being placed leaves the index: hit_fn, over each older dataset's tree a
 * file at a time (r2f_each), says 1 at the first shared name.  Returns how
 * many left, -1 when the index cannot be read. */
static int place_supersede_by(const char *prefix, int id, r2f_fn hit_fn, void *arg,
                              scr_error_t *err)
{
    kvtree_t *index = kvtree_new(), *older = kvtree_new();
    if (index_read(prefix, index, err) < 0 && errno != ENOENT) {
        kvtree_delete(&index);
        kvtree_delete(&older);
        return -1;
    }
    int k = place_older_staged(index, id, older), gone = 0;
    for (int i = 0; i < k; i++) {
        kvtree_elem_t *d = kvtree_first(kvtree_getf(older, "%d DSET", i));
        int other = atoi(kvtree_elem_key(d)), hit = 0;
        for (kvtree_elem_t *e = kvtree_first(kvtree_get(kvtree_elem_tree(d), "DIR"));
             e && !hit; e = kvtree_elem_next(e)) {
            char odir[4200];
            snprintf(odir, sizeof(odir), "%s/%s", prefix, kvtree_elem_key(e));
            hit = r2f_each(odir, hit_fn, arg, NULL) == 1;
        }
        if (hit) {
            place_drop(prefix, index, id, other);
            gone++;
        }
    }
    kvtree_delete(&index);
    kvtree_delete(&older);
    return gone;
}

int place_supersede(const char *prefix, int id, const kvtree_t *files, scr_error_t *err)
{
    kvtree_t *names = kvtree_new();
    place_add_names(kvtree_get(files, "RANK"), names);
    int gone = place_supersede_by(prefix, id, place_hit_names, names, err);
    kvtree_delete(&names);
    return gone;
}

int place_supersede_staged(const char *prefix, int id, const char *dir, scr_error_t *err)
{
    char mine[4200];
    snprintf(mine, sizeof(mine), "%s/%s", prefix, dir);
    return place_supersede_by(prefix, id, place_hit_staged, mine, err);
}

/* every file name the complete staged datasets of index other than id
 * have at their own paths: rel -> (nothing) */
static kvtree_t *place_names_kept(const char *prefix, const kvtree_t *index, int id)
{
    kvtree_t *names = kvtree_new();
    for (kvtree_elem_t *d = kvtree_first(kvtree_get(index, "DSET")); d;
         d = kvtree_elem_next(d)) {
        int other, complete;
        if (kvtree_elem_key_int(d, &other) < 0 || other == id)
            continue;
        for (kvtree_elem_t *e = kvtree_first(kvtree_get(kvtree_elem_tree(d), "DIR")); e;
             e = kvtree_elem_next(e)) {
            const char *dir = kvtree_elem_key(e);
            complete = 0;
            kvtree_util_get_int(kvtree_elem_tree(e), "COMPLETE", &complete);
            if (!complete || !place_staged(dir) || !path_is_safe_relative(dir))
                continue;
            char dsetdir[4200];
            snprintf(dsetdir, sizeof(dsetdir), "%s/%s", prefix, dir);
            r2f_each(dsetdir, place_add_names, names, NULL);
        }
    }
    return names;
}

/* unlink <prefix>/<rel>, then its parent directories up to the prefix while
 * they are empty (the application's ckpt.<n>/ directories go with it) */
void place_unlink(const char *prefix, const char *rel)
{
    if (!path_is_safe_relative(rel))
        return;
    char path[4400];
    snprintf(path, sizeof(path), "%s/%s", prefix, rel);
    if (unlink(path) == 0)
        place_rmdir_up(path, strlen(prefix));
}

typedef struct {
    const char *prefix;
    const kvtree_t *kept; /* names to leave, or NULL: none */
} place_rm_t;

static int place_unlink_one(const char *rel, void *arg)
{
    const place_rm_t *a = arg;
    if (!a->kept || !kvtree_get(a->kept, rel))
        place_unlink(a->prefix, rel); /* refuses an unsafe name */
    return 0;
}

/* the files of a complete staged dataset that only it names */
static void place_remove_files(const char *prefix, const kvtree_t *index, int id,
                               const char *dir)
{
    char dsetdir[4200];
    kvtree_t *mine = kvtree_new();
    snprintf(dsetdir, sizeof(dsetdir), "%s/%s", prefix, dir);
    if (r2f_read_all(dsetdir, mine, NULL) == 0) {
        kvtree_t *kept = place_names_kept(prefix, index, id);
        place_rm_t a = {prefix, kept};
        place_each_name(kvtree_get(mine, "RANK"), place_unlink_one, &a);
        kvtree_delete(&kept);
    }
    kvtree_delete(&mine);
}

/* r2f_each: every file of ranks goes */
static int place_unlink_each(const kvtree_t *ranks, void *prefix)
{
    place_rm_t a = {prefix, NULL};
    return place_each_name(ranks, place_unlink_one, &a);
}

int place_remove(const char *prefix, kvtree_t *index, int id, scr_error_t *err)
{
    return place_remove_as(prefix, index, id, PLACE_FILES_UNSHARED, err);
}

int place_remove_as(const char *prefix, kvtree_t *index, int id, int files,
                    scr_error_t *err)
{
    int rc = 0;
    kvtree_t *dirs = kvtree_getf(index, "DSET %d DIR", id);
    if (!dirs) { /* not in the index: where a flush of id would have put it */
        char name[64];
        pfs_dset_name(id, name, sizeof(name));
        kvtree_setf(index, NULL, "DSET %d DIR %s", id, name);
        pfs_dset_name_old(id, name, sizeof(name));
        dirs = kvtree_setf(index, NULL, "DSET %d DIR %s", id, name);
        dirs = kvtree_getf(index, "DSET %d DIR", id);
    }
    for (kvtree_elem_t *e = kvtree_first(dirs); e; e = kvtree_elem_next(e)) {
        const char *dir = kvtree_elem_key(e);
        int complete = 0;
        if (!path_is_safe_relative(dir))
            continue;
        kvtree_util_get_int(kvtree_elem_tree(e), "COMPLETE", &complete);
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s", prefix, dir);
        if (files == PLACE_FILES_ALL && complete && place_staged(dir))
            r2f_each(path, place_unlink_each, (void *)prefix, NULL);
        else if (files && complete && place_staged(dir))
            place_remove_files(prefix, index, id, dir);
        /* FTW_PHYS: a link planted inside is removed, never followed */
        if (nftw(path, place_rm, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
            rc = errprintf(err, "%s: %s", path, strerror(errno));
    }
    kvtree_unsetf(index, "DSET %d", id);
    return rc;
}
