/* SPDX-License-Identifier: BSD-3-Clause */
/* jobrec.c - the prefix and nodes a run used, recorded in the control dir */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobrec.h"
#include "kvtree.h"
#include "path.h"

static void jobrec_path(const char *cntldir, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", cntldir, JOBREC_FILE);
}

/* the STORE entries of the record as it is (an empty tree without one) */
static kvtree_t *jobrec_old_stores(const char *path)
{
    kvtree_t *old = kvtree_new(), *stores = NULL;
    if (kvtree_read_file(path, old, NULL) == 0)
        stores = kvtree_dup(kvtree_get(old, "STORE"));
    kvtree_delete(&old);
    return stores ? stores : kvtree_new();
}

int jobrec_write(const char *cntldir, const char *prefix, const char *nodes, int direct,
                 scr_error_t *err)
{
    char path[4200];
    jobrec_path(cntldir, path, sizeof(path));
    kvtree_t *t = kvtree_new();
    kvtree_util_set_str(t, "PREFIX", prefix);
    if (nodes && *nodes)
        kvtree_util_set_str(t, "NODES", nodes);
    if (!direct)
        kvtree_util_set_int(t, "FLUSH_DIRECT", 0);
    kvtree_t *stores = jobrec_old_stores(path);
    if (kvtree_size(stores) > 0)
        kvtree_set(t, "STORE", stores);
    else
        kvtree_delete(&stores);
    /* no fsync: the record only has to outlive the processes, not the node */
    int rc = kvtree_write_file_nosync(path, t, err);
    kvtree_delete(&t);
    return rc;
}

/* absolute and already reduced: what the library records (env_prefix) */
static int jobrec_check_prefix(const char *path, const char *p, scr_error_t *err)
{
    if (!p || !*p)
        return errprintf(err, "%s: no PREFIX", path);
    char *r = p[0] == '/' ? path_strdup_reduce_str(p) : NULL;
    int same = r && strcmp(r, p) == 0;
    free(r);
    if (!same)
        return errprintf(
            err, "%s: PREFIX '%s' is not an absolute, reduced directory name", path, p);
    return 0;
}

int jobrec_read(const char *cntldir, char *prefix, size_t len, nodelist_t **nodes,
                scr_error_t *err)
{
    char path[4200];
    scr_error_t nerr;
    jobrec_path(cntldir, path, sizeof(path));
    if (nodes)
        *nodes = NULL;
    kvtree_t *t = kvtree_new();
    int rc = kvtree_read_file(path, t, err);
    if (rc < 0) {
        int missing = errno == ENOENT;
        kvtree_delete(&t);
        return missing ? 0 : -1;
    }
    const char *p = kvtree_get_val(t, "PREFIX");
    const char *n = kvtree_get_val(t, "NODES");
    if (jobrec_check_prefix(path, p, err) < 0)
        rc = -1;
    else if (strlen(p) >= len)
        rc = errprintf(err, "%s: PREFIX is too long", path);
    else if (nodes && n && !(*nodes = nodelist_from_str(n, &nerr)))
        rc = errprintf(err, "%s: NODES: %s", path, nerr.text);
    if (rc == 0) {
        snprintf(prefix, len, "%s", p);
        rc = 1;
    }
    kvtree_delete(&t);
    return rc;
}

int jobrec_read_direct(const char *cntldir)
{
    char path[4200];
    jobrec_path(cntldir, path, sizeof(path));
    kvtree_t *t = kvtree_new();
    int direct = 1; /* kept when the record or its entry is missing or bad */
    if (kvtree_read_file(path, t, NULL) == 0)
        kvtree_util_get_int(t, "FLUSH_DIRECT", &direct);
    kvtree_delete(&t);
    return direct != 0;
}

int jobrec_add_stores(const char *cntldir, const char *const *bases, int n,
                      scr_error_t *err)
{
    char path[4200];
    jobrec_path(cntldir, path, sizeof(path));
    kvtree_t *t = kvtree_new();
    kvtree_read_file(path, t, NULL); /* a missing record gets only the stores */
    kvtree_t *stores = kvtree_get(t, "STORE");
    if (!stores)
        stores = kvtree_set(t, "STORE", kvtree_new());
    for (int i = 0; i < n; i++)
        if (!kvtree_get(stores, bases[i]))
            kvtree_set(stores, bases[i], kvtree_new());
    int rc = kvtree_write_file_nosync(path, t, err);
    kvtree_delete(&t);
    return rc;
}

/* an absolute, reduced directory name, as the library records its stores */
static int jobrec_check_store(const char *path, const char *b, scr_error_t *err)
{
    char *r = b[0] == '/' ? path_strdup_reduce_str(b) : NULL;
    int same = r && strcmp(r, b) == 0 && strcmp(b, "/") != 0;
    free(r);
    if (!same)
        return errprintf(err, "%s: STORE '%s' is not an absolute, reduced directory name",
                         path, b);
    return 0;
}

int jobrec_read_stores(const char *cntldir, char ***bases, scr_error_t *err)
{
    char path[4200];
    jobrec_path(cntldir, path, sizeof(path));
    *bases = NULL;
    kvtree_t *t = kvtree_new();
    if (kvtree_read_file(path, t, err) < 0) {
        int missing = errno == ENOENT;
        kvtree_delete(&t);
        return missing ? 0 : -1;
    }
    kvtree_t *stores = kvtree_get(t, "STORE");
    int n = 0, size = kvtree_size(stores);
    char **list = calloc((size_t)size + 1, sizeof(char *));
    for (kvtree_elem_t *e = kvtree_first(stores); list && e; e = kvtree_elem_next(e)) {
        if (jobrec_check_store(path, kvtree_elem_key(e), err) < 0) {
            jobrec_free_stores(list, n);
            kvtree_delete(&t);
            return -1;
        }
        if ((list[n] = strdup(kvtree_elem_key(e))))
            n++;
    }
    kvtree_delete(&t);
    if (!list)
        return errprintf(err, "%s: out of memory", path);
    *bases = list;
    return n;
}

void jobrec_free_stores(char **bases, int n)
{
    for (int i = 0; bases && i < n; i++)
        free(bases[i]);
    free(bases);
}
