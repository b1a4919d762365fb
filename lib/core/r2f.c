/* SPDX-License-Identifier: BSD-3-Clause */
/* r2f.c - rank2file tree: names, entries, grouping and bounded reads */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "r2f.h"

void r2f_name(int level, int writer, int root, char *buf, size_t len)
{
    if (root)
        snprintf(buf, len, ".scr/rank2file.scr");
    else
        snprintf(buf, len, ".scr/rank2file.%d.%d.scr", level, writer);
}

kvtree_t *r2f_entry_files(int rank, const kvtree_t *files)
{
    kvtree_t *e = kvtree_new();
    kvtree_t *f = kvtree_setf(e, NULL, "RANK %d FILE", rank);
    if (f && files)
        kvtree_merge(f, files);
    return e;
}

kvtree_t *r2f_entry_pointer(int level, int writer)
{
    char name[128];
    kvtree_t *e = kvtree_new();
    kvtree_t *r = kvtree_setf(e, NULL, "RANK %d", writer);
    r2f_name(level, writer, 0, name, sizeof(name));
    kvtree_util_set_str(r, "FILE", name);
    kvtree_util_set_int(r, "OFFSET", 0);
    return e;
}

kvtree_t *r2f_file(int level, int ranks, const kvtree_t *merged)
{
    kvtree_t *t = kvtree_new(), *body = level == 0 ? kvtree_set(t, "RANK2FILE", NULL) : t;
    kvtree_util_set_int(body, "LEVEL", level);
    kvtree_util_set_int(body, "RANKS", ranks);
    kvtree_set(body, "RANK", kvtree_dup(kvtree_get(merged, "RANK")));
    return t;
}

kvtree_t *r2f_file_from(int level, kvtree_t *entries)
{
    kvtree_t *ranks = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(entries); e; e = kvtree_elem_next(e)) {
        kvtree_t *from = kvtree_get(kvtree_elem_tree(e), "RANK");
        kvtree_elem_t *r;
        /* the key outlives its element: extract frees it */
        char *key;
        while ((r = kvtree_first(from)) && (key = strdup(kvtree_elem_key(r)))) {
            kvtree_t *sub = kvtree_extract(from, key), *have = kvtree_get(ranks, key);
            if (have) { /* one rank sent twice: keep both halves, as a merge */
                kvtree_merge(have, sub);
                kvtree_delete(&sub);
            } else {
                kvtree_set(ranks, key, sub);
            }
            free(key);
        }
    }
    return r2f_file_take(level, ranks);
}

kvtree_t *r2f_file_take(int level, kvtree_t *ranks)
{
    /* the keys in r2f_file's order, so the file is the same bytes */
    kvtree_t *t = kvtree_new(), *body = level == 0 ? kvtree_set(t, "RANK2FILE", NULL) : t;
    kvtree_util_set_int(body, "LEVEL", level);
    kvtree_util_set_int(body, "RANKS", kvtree_size(ranks));
    kvtree_set(body, "RANK", ranks);
    return t;
}

int64_t r2f_bucket(uint64_t offset, uint64_t size, int64_t big_before)
{
    return (int64_t)(offset / R2F_BUCKET) + 2 * big_before + (size > R2F_BIG);
}

int r2f_assign(const uint64_t *sizes, int n, int *writer)
{
    uint64_t offset = 0;
    int64_t prev_bucket = -1, big = 0;
    int cur = -1, writers = 0;
    for (int r = 0; r < n; r++) {
        writer[r] = -1;
        if (sizes[r] == 0)
            continue;
        int64_t b = r2f_bucket(offset, sizes[r], big);
        if (b > prev_bucket) { /* the first entry of a bucket writes it */
            cur = r;
            writers++;
            prev_bucket = b;
        }
        writer[r] = cur;
        offset += sizes[r];
        big += sizes[r] > R2F_BIG;
    }
    return writers;
}

/* the level a file of the tree has by its name (r2f_name), -1 for the root
 * or another name */
static int r2f_name_level(const char *rel)
{
    int level, writer, n = 0;
    if (!rel || sscanf(rel, ".scr/rank2file.%d.%d.scr%n", &level, &writer, &n) != 2 ||
        (size_t)n != strlen(rel))
        return -1;
    return level;
}

/* a file's content: under RANK2FILE at level 0, the file itself above */
static const kvtree_t *r2f_body(const kvtree_t *t)
{
    return kvtree_get(t, "RANK2FILE") ? kvtree_get(t, "RANK2FILE") : t;
}

static int r2f_level(const kvtree_t *t)
{
    int level = -1;
    return kvtree_util_get_int(r2f_body(t), "LEVEL", &level) < 0 ? -1 : level;
}

/* ranks a file's level 0 body holds */
static int r2f_ranks_in(const kvtree_t *t)
{
    return kvtree_size(kvtree_get(r2f_body(t), "RANK"));
}

int r2f_read_file(const char *dsetdir, const char *rel, kvtree_t *t, scr_error_t *err)
{
    char path[4400];
    struct stat st;
    if (!path_is_safe_relative(rel))
        return errprintf(err, "rank2file: unsafe file name '%s'", rel);
    snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
    if (lstat(path, &st) < 0)
        return errprintf(err, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) /* a link would make the reader read anything */
        return errprintf(err, "%s is not a regular file; not following it", path);
    /* one rank's entry may be larger: the file's header is a few bytes */
    if (st.st_size > R2F_ENTRY_MAX + 4096)
        return errprintf(err, "%s: %lld bytes, more than one reader may read (%d)", path,
                         (long long)st.st_size, R2F_LIMIT);
    if (kvtree_read_file(path, t, err) < 0)
        return -1;
    int want = r2f_name_level(rel);
    if (want >= 0 && r2f_level(t) != want)
        return errprintf(err, "%s: level %d, its name says %d", path, r2f_level(t), want);
    if (st.st_size > R2F_LIMIT && (r2f_level(t) != 0 || r2f_ranks_in(t) != 1))
        return errprintf(err,
                         "%s: %lld bytes, more than one reader may read (%d), and not "
                         "one rank's entry",
                         path, (long long)st.st_size, R2F_LIMIT);
    return 0;
}

/* every file a level 0 entry names lies inside the dataset (relative, no
 * "..") */
static int r2f_names_safe(const kvtree_t *files)
{
    for (kvtree_elem_t *f = kvtree_first(files); f; f = kvtree_elem_next(f))
        if (!path_is_safe_relative(kvtree_elem_key(f)))
            return 0;
    return 1;
}

int r2f_parse(const kvtree_t *t, kvtree_t *ranks, kvtree_t *pointers)
{
    const kvtree_t *body = r2f_body(t);
    int level = r2f_level(t);
    if (level < 0)
        return -1;
    kvtree_t *rs = kvtree_get(body, "RANK");
    for (kvtree_elem_t *e = kvtree_first(rs); e; e = kvtree_elem_next(e)) {
        int r;
        if (kvtree_elem_key_int(e, &r) < 0 || r < 0)
            return -1;
        kvtree_t *sub = kvtree_elem_tree(e);
        if (level == 0 && !r2f_names_safe(kvtree_get(sub, "FILE")))
            return -1;
        if (level == 0)
            kvtree_set(ranks, kvtree_elem_key(e), kvtree_dup(sub));
        else if (path_is_safe_relative(kvtree_get_val(sub, "FILE")) &&
                 r2f_name_level(kvtree_get_val(sub, "FILE")) == level - 1)
            /* only down a level: a tree pointing back up is walked forever */
            kvtree_set(pointers, kvtree_elem_key(e), kvtree_dup(sub));
        else
            return -1;
    }
    return level;
}

/* one file of the tree and, depth first, the files it points to */
/* one file of the tree and, depth first, the files it points to: fn gets
 * each file's level 0 entries; only the files on the way down are held */
static int r2f_read_walk(const char *dsetdir, const char *rel, r2f_fn fn, void *arg,
                         scr_error_t *err)
{
    kvtree_t *t = kvtree_new(), *rs = kvtree_new(), *ps = kvtree_new();
    int rc = r2f_read_file(dsetdir, rel, t, err);
    if (rc == 0 && r2f_parse(t, rs, ps) < 0)
        rc = errprintf(err, "%s/%s: not a rank2file map", dsetdir, rel);
    kvtree_delete(&t);
    if (rc == 0 && kvtree_size(rs) > 0)
        rc = fn(rs, arg);
    for (kvtree_elem_t *p = kvtree_first(ps); rc == 0 && p; p = kvtree_elem_next(p))
        rc = r2f_read_walk(dsetdir, kvtree_get_val(kvtree_elem_tree(p), "FILE"), fn, arg,
                           err);
    kvtree_delete(&rs);
    kvtree_delete(&ps);
    return rc;
}

int r2f_each(const char *dsetdir, r2f_fn fn, void *arg, scr_error_t *err)
{
    char root[128];
    r2f_name(0, 0, 1, root, sizeof(root));
    return r2f_read_walk(dsetdir, root, fn, arg, err);
}

static int r2f_merge_into(const kvtree_t *ranks, void *arg)
{
    kvtree_t *out = arg, *have = kvtree_get(out, "RANK");
    kvtree_merge(have ? have : kvtree_set(out, "RANK", NULL), ranks);
    return 0;
}

int r2f_read_all(const char *dsetdir, kvtree_t *out, scr_error_t *err)
{
    return r2f_each(dsetdir, r2f_merge_into, out, err);
}
