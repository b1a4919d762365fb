/* SPDX-License-Identifier: BSD-3-Clause */
/* filemap.c - per-process record of cached files */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filemap.h"
#include "path.h"

kvtree_t *filemap_rank(kvtree_t *fm, int id, int rank)
{
    kvtree_t *r = kvtree_getf(fm, "DSET %d RANK %d", id, rank);
    return r ? r : kvtree_setf(fm, NULL, "DSET %d RANK %d", id, rank);
}

kvtree_t *filemap_get_rank(const kvtree_t *fm, int id, int rank)
{
    return kvtree_getf(fm, "DSET %d RANK %d", id, rank);
}

int filemap_add_file(kvtree_t *fm, int id, int rank, const char *path,
                     const kvtree_t *meta)
{
    kvtree_t *r = filemap_rank(fm, id, rank);
    if (!r)
        return -1;
    kvtree_t *files = kvtree_get(r, "FILE");
    if (!files && !(files = kvtree_set(r, "FILE", NULL)))
        return -1;
    return kvtree_set(files, path, kvtree_dup(meta)) ? 0 : -1;
}

kvtree_t *filemap_file(const kvtree_t *fm, int id, int rank, const char *path)
{
    return kvtree_get(kvtree_get(filemap_get_rank(fm, id, rank), "FILE"), path);
}

int filemap_remove_file(kvtree_t *fm, int id, int rank, const char *path)
{
    return kvtree_unset(kvtree_get(filemap_get_rank(fm, id, rank), "FILE"), path);
}

int filemap_set_desc(kvtree_t *fm, int id, const char *which, const kvtree_t *desc)
{
    return kvtree_setf(fm, kvtree_dup(desc), "DSET %d %s", id, which) ? 0 : -1;
}

kvtree_t *filemap_get_desc(const kvtree_t *fm, int id, const char *which)
{
    return kvtree_getf(fm, "DSET %d %s", id, which);
}

int filemap_list_dsets(const kvtree_t *fm, int *n, int **ids)
{
    return kvtree_list_int(kvtree_get(fm, "DSET"), n, ids);
}

void filemap_remove_dset(kvtree_t *fm, int id)
{
    kvtree_unsetf(fm, "DSET %d", id);
}

int filemap_count_user(const kvtree_t *fm, int id, int rank)
{
    int n = 0;
    kvtree_t *files = kvtree_get(filemap_get_rank(fm, id, rank), "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        const char *type = kvtree_get_val(kvtree_elem_tree(e), "TYPE");
        n += type && strcmp(type, FM_TYPE_USER) == 0;
    }
    return n;
}

uint64_t filemap_sum_sizes(const kvtree_t *files)
{
    uint64_t total = 0, size;
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e))
        if (kvtree_util_get_u64(kvtree_elem_tree(e), "SIZE", &size) == 0)
            total += size;
    return total;
}

/* Remove the directories below and including dir, never following links;
 * with files, everything else in them too, not crossing into another file
 * system (dev: dir's).  Returns the entries that could not go, counted
 * only with files (without, a directory that holds a file stays). */
static int tree_remove(const char *dir, int files, dev_t dev)
{
    int failed = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *sub = NULL;
        struct stat st;
        if (asprintf(&sub, "%s/%s", dir, de->d_name) < 0) {
            failed++;
            continue;
        }
        int is_dir = lstat(sub, &st) == 0 && S_ISDIR(st.st_mode);
        if (is_dir && (!files || st.st_dev == dev))
            failed += tree_remove(sub, files, dev);
        else if (files && (is_dir || (unlink(sub) < 0 && errno != ENOENT)))
            failed++;
        free(sub);
    }
    if (d)
        closedir(d);
    if (rmdir(dir) < 0 && errno != ENOENT)
        failed++;
    return files ? failed : 0;
}

/* remove empty directories below and including dir, never following links */
static void rmdir_tree(const char *dir)
{
    tree_remove(dir, 0, 0);
}

int filemap_purge_dir(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return 0; /* gone already, or not a directory to walk into */
    return tree_remove(dir, 1, st.st_dev);
}

int filemap_delete_dset_files(kvtree_t *fm, int id, const char *dir)
{
    return filemap_delete_dset_files_keep(fm, id, dir, NULL, NULL);
}

int filemap_delete_dset_files_keep(kvtree_t *fm, int id, const char *dir,
                                   filemap_keep_fn keep, void *arg)
{
    int failed = 0;
    kvtree_t *ranks = kvtree_getf(fm, "DSET %d RANK", id);
    for (kvtree_elem_t *r = kvtree_first(ranks); r; r = kvtree_elem_next(r)) {
        kvtree_t *files = kvtree_get(kvtree_elem_tree(r), "FILE");
        int rank = atoi(kvtree_elem_key(r));
        for (kvtree_elem_t *f = kvtree_first(files); f; f = kvtree_elem_next(f)) {
            const char *p = kvtree_elem_key(f);
            /* never delete outside the dataset directory, whatever the map says */
            if (!dir || !path_is_under(p, dir))
                continue;
            if (keep && keep(arg, rank, p, kvtree_elem_tree(f)) == 0)
                continue;
            if (unlink(p) < 0 && errno != ENOENT)
                failed++;
        }
    }
    if (dir)
        rmdir_tree(dir);
    filemap_remove_dset(fm, id);
    return failed;
}

int filemap_read(const char *path, kvtree_t *fm, scr_error_t *err)
{
    return kvtree_read_file(path, fm, err);
}

int filemap_write(const char *path, const kvtree_t *fm, scr_error_t *err)
{
    return kvtree_write_file(path, fm, err);
}

int filemap_foreach(const char *dir, filemap_visit_fn fn, void *arg, scr_error_t *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : errprintf(err, "%s: %s", dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int rank;
        char tail[16], path[4400];
        if (sscanf(e->d_name, "filemap_%d.scrinf%15s", &rank, tail) != 2 ||
            strcmp(tail, "o") != 0 || rank < 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        kvtree_t *fm = kvtree_new();
        scr_error_t ferr = {""};
        int ok = filemap_read(path, fm, &ferr) == 0;
        if (fn(rank, path, ok ? fm : NULL, &ferr, arg) < 0)
            rc = -1;
        kvtree_delete(&fm);
    }
    closedir(d);
    return rc;
}
