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

int r2f_assign(const uint64_t *sizes, int n, int *writer)
{
    uint64_t offset = 0;
    int64_t prev_bucket = -1;
    int cur = -1, writers = 0;
    for (int r = 0; r < n; r++) {
        writer[r] = -1;
        if (sizes[r] == 0)
            continue;
        int64_t b = (int64_t)(offset / R2F_BUCKET);
        if (b > prev_bucket) { /* the first entry of a bucket writes it */
            cur = r;
            writers++;
            prev_bucket = b;
        }
        writer[r] = cur;
        offset += sizes[r];
    }
    return writers;
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
    if (st.st_size > R2F_LIMIT)
        return errprintf(err, "%s: %lld bytes, more than one reader may read (%d)", path,
                         (long long)st.st_size, R2F_LIMIT);
    return kvtree_read_file(path, t, err);
}

int r2f_parse(const kvtree_t *t, kvtree_t *ranks, kvtree_t *pointers)
{
    int level = -1;
    const kvtree_t *body = kvtree_get(t, "RANK2FILE") ? kvtree_get(t, "RANK2FILE") : t;
    if (kvtree_util_get_int(body, "LEVEL", &level) < 0 || level < 0)
        return -1;
    kvtree_t *rs = kvtree_get(body, "RANK");
    for (kvtree_elem_t *e = kvtree_first(rs); e; e = kvtree_elem_next(e)) {
        int r;
        if (kvtree_elem_key_int(e, &r) < 0 || r < 0)
            return -1;
        kvtree_t *sub = kvtree_elem_tree(e);
        if (level == 0)
            kvtree_set(ranks, kvtree_elem_key(e), kvtree_dup(sub));
        else if (kvtree_get_val(sub, "FILE"))
            kvtree_set(pointers, kvtree_elem_key(e), kvtree_dup(sub));
        else
            return -1;
    }
    return level;
}
