/* SPDX-License-Identifier: BSD-3-Clause */
/* dsrec.c - the records a scavenge leaves in a dataset's .scr/ directory */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsrec.h"
#include "filemap.h"
#include "log.h"
#include "path.h"
#include "place.h"

void dsrec_node_name(const char *dsetdir, const char *host, int part, char *buf,
                     size_t len)
{
    char safe[256];
    size_t i = 0;
    for (; host[i] && i < sizeof(safe) - 1; i++)
        safe[i] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789._-",
                         host[i])
                      ? host[i]
                      : '_';
    safe[i] = '\0';
    if (part == 0)
        snprintf(buf, len, "%s/.scr/node.%s.scrfilemap", dsetdir, safe);
    else
        snprintf(buf, len, "%s/.scr/node.%s+%d.scrfilemap", dsetdir, safe, part);
}

void dsrec_rank_name(const char *dsetdir, int rank, char *buf, size_t len)
{
    snprintf(buf, len, "%s/.scr/%d.scrfilemap", dsetdir, rank);
}

static int dsrec_node_part(const char *dsetdir, const char *host, int k,
                           const kvtree_t *part, scr_error_t *err)
{
    char path[4400];
    dsrec_node_name(dsetdir, host, k, path, sizeof(path));
    return kvtree_write_file(path, part, err);
}

int dsrec_node_write(const char *dsetdir, const char *host, const kvtree_t *record,
                     scr_error_t *err)
{
    kvtree_t *part = kvtree_new();
    size_t bytes = 0;
    int k = 0, rc = 0;
    kvtree_t *ranks = kvtree_get(record, "RANK");
    for (kvtree_elem_t *e = kvtree_first(ranks); e && rc == 0; e = kvtree_elem_next(e)) {
        size_t n = kvtree_pack_size(kvtree_elem_tree(e));
        if (bytes > 0 && bytes + n > DSREC_PART_BYTES) {
            rc = dsrec_node_part(dsetdir, host, k++, part, err);
            kvtree_clear(part);
            bytes = 0;
        }
        kvtree_t *dsets = kvtree_get(kvtree_elem_tree(e), "DSET");
        kvtree_setf(part, kvtree_dup(kvtree_elem_tree(e)), "RANK %s", kvtree_elem_key(e));
        for (kvtree_elem_t *d = kvtree_first(dsets); d; d = kvtree_elem_next(d))
            kvtree_setf(part, NULL, "DSET %s RANK %s", kvtree_elem_key(d),
                        kvtree_elem_key(e));
        bytes += n;
    }
    if (rc == 0 && (bytes > 0 || k == 0))
        rc = dsrec_node_part(dsetdir, host, k, part, err);
    kvtree_delete(&part);
    return rc;
}

void dsrec_node_unlink(const char *dsetdir, const char *host)
{
    for (int k = 0;; k++) {
        char path[4400];
        dsrec_node_name(dsetdir, host, k, path, sizeof(path));
        if (unlink(path) < 0 && errno == ENOENT)
            return;
    }
}

int dsrec_node_read(const char *dsetdir, const char *host, kvtree_t *record)
{
    for (int k = 0;; k++) {
        char path[4400];
        kvtree_t *part = kvtree_new();
        dsrec_node_name(dsetdir, host, k, path, sizeof(path));
        int rc = kvtree_read_file(path, part, NULL);
        if (rc == 0)
            kvtree_merge(record, part);
        kvtree_delete(&part);
        if (rc < 0)
            return k;
    }
}

kvtree_t *dsrec_user_meta(const kvtree_elem_t *e)
{
    kvtree_t *m = kvtree_get(kvtree_elem_tree(e), "META");
    const char *type = kvtree_get_val(m, "TYPE");
    return type && strcmp(type, FM_TYPE_USER) == 0 ? m : NULL;
}

/* rk's application files with safe names, all (dsetdir NULL) or those in
 * dsetdir as regular files of their recorded size */
static int dsrec_count(const char *dsetdir, const kvtree_t *rk)
{
    int have = 0;
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(rk, "FILE")); e;
         e = kvtree_elem_next(e)) {
        kvtree_t *m = dsrec_user_meta(e);
        const char *rel = kvtree_elem_key(e);
        uint64_t size = 0;
        struct stat st;
        char path[8400];
        if (!m || !path_is_safe_relative(rel))
            continue;
        if (!dsetdir) {
            have++;
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
        if (kvtree_util_get_u64(m, "SIZE", &size) == 0 && lstat(path, &st) == 0 &&
            S_ISREG(st.st_mode) && (uint64_t)st.st_size == size)
            have++;
    }
    return have;
}

int dsrec_user_files(const kvtree_t *rk)
{
    return dsrec_count(NULL, rk);
}

/* 1 if rk says FILES and have is that many */
static int dsrec_all(const kvtree_t *rk, int have)
{
    int want = -1;
    kvtree_util_get_int(rk, "FILES", &want);
    return want >= 0 && have == want;
}

int dsrec_rank_listed(const kvtree_t *rk)
{
    return dsrec_all(rk, dsrec_count(NULL, rk));
}

int dsrec_rank_ok(const char *dsetdir, const kvtree_t *rk)
{
    return dsrec_all(rk, dsrec_count(dsrec_rank_landed(rk) ? NULL : dsetdir, rk));
}

int dsrec_place(const char *prefix, const char *dir, const kvtree_t *rk, int *placed,
                scr_error_t *err)
{
    int bad = 0;
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(rk, "FILE")); e;
         e = kvtree_elem_next(e)) {
        if (!dsrec_user_meta(e))
            continue;
        if (place_file(prefix, dir, kvtree_elem_key(e), bad ? NULL : err) < 0)
            bad++;
        else if (placed)
            (*placed)++;
    }
    return bad;
}

int dsrec_rank_landed(const kvtree_t *rk)
{
    int landed = 0;
    return kvtree_util_get_int(rk, DSREC_LANDED, &landed) == 0 && landed == 1;
}

int dsrec_rank_taken(const kvtree_t *rk)
{
    int taken = -1;
    if (!dsrec_rank_landed(rk) || kvtree_util_get_int(rk, DSREC_TAKEN, &taken) < 0)
        return -1;
    return taken != 0;
}

/* 1 if name is one of the record files */
static int dsrec_is_record(const char *name)
{
    static const char ext[] = ".scrfilemap";
    size_t n = strlen(name), x = sizeof(ext) - 1;
    if (n <= x || strcmp(name + n - x, ext) != 0)
        return 0;
    if (strncmp(name, "node.", 5) == 0 || strcmp(name, "rebuilt.scrfilemap") == 0)
        return 1;
    return strspn(name, "0123456789") == n - x;
}

int dsrec_each_in(const char *path, int id, dsrec_fn fn, void *arg)
{
    scr_error_t ferr;
    kvtree_t *t = kvtree_new();
    if (kvtree_read_file(path, t, &ferr) < 0)
        log_warn("index: ignoring %s", ferr.text);
    int rc = 0;
    kvtree_t *ranks = kvtree_get(t, "RANK");
    for (kvtree_elem_t *e = kvtree_first(ranks); e && rc == 0; e = kvtree_elem_next(e)) {
        int r;
        kvtree_t *rk = kvtree_getf(kvtree_elem_tree(e), "DSET %d", id);
        if (rk && kvtree_elem_key_int(e, &r) == 0 && r >= 0)
            rc = fn(r, rk, arg);
    }
    kvtree_delete(&t);
    return rc;
}

int dsrec_each(const char *dsetdir, int id, dsrec_fn fn, void *arg, scr_error_t *err)
{
    char meta[4400];
    snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
    DIR *d = opendir(meta);
    if (!d)
        return errprintf(err, "%s: %s", meta, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        char path[4700];
        if (!dsrec_is_record(e->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/%s", meta, e->d_name);
        rc = dsrec_each_in(path, id, fn, arg);
    }
    closedir(d);
    return rc;
}
