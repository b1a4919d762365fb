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

int jobrec_write(const char *cntldir, const char *prefix, const char *nodes,
                 scr_error_t *err)
{
    char path[4200];
    jobrec_path(cntldir, path, sizeof(path));
    kvtree_t *t = kvtree_new();
    kvtree_util_set_str(t, "PREFIX", prefix);
    if (nodes && *nodes)
        kvtree_util_set_str(t, "NODES", nodes);
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
