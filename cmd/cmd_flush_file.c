/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_flush_file.c - scr flush-file: questions about the flush file
 * (guide 2.19, 2.24.2), for job scripts deciding whether to scavenge.
 *
 *   --latest        newest dataset id in cache (exit 1 if none)
 *   --needflush ID  exit 0 if ID is in cache but not on the prefix
 *   --location ID   CACHE / PFS / FLUSHING, one per line
 *   --subdir ID     its directory name in the prefix
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "kvtree.h"

static int ff_read(const char *prefix, kvtree_t *t)
{
    char path[4200];
    scr_error_t err;
    snprintf(path, sizeof(path), "%s/.scr/flush.scr", prefix);
    if (kvtree_read_with_lock(path, t, &err) == 0)
        return 0;
    if (access(path, F_OK) < 0)
        return 0; /* no flush file: nothing cached, nothing flushed */
    fprintf(stderr, "scr flush-file: %s\n", err.text);
    return -1;
}

static int ff_id(const char *s, int *id)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 2147483647L) {
        fprintf(stderr, "scr flush-file: '%s' is not a dataset id\n", s);
        return -1;
    }
    *id = (int)v;
    return 0;
}

int cmd_flush_file(int argc, char **argv)
{
    const char *prefix = getenv("SCR_PREFIX"), *op = NULL, *arg = NULL;
    char cwd[4096];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
            prefix = argv[++i];
        else if (!strcmp(argv[i], "--latest") && !op)
            op = argv[i];
        else if ((!strcmp(argv[i], "--needflush") || !strcmp(argv[i], "--location") ||
                  !strcmp(argv[i], "--subdir")) &&
                 i + 1 < argc && !op) {
            op = argv[i];
            arg = argv[++i];
        } else
            return cmd_usage("flush-file");
    }
    if (!op)
        return cmd_usage("flush-file");
    if (!prefix)
        prefix = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
    kvtree_t *t = kvtree_new();
    int rc = 1, id = -1;
    if (ff_read(prefix, t) < 0 || (arg && ff_id(arg, &id) < 0)) {
        kvtree_delete(&t);
        return 2;
    }
    kvtree_t *d = arg ? kvtree_getf(t, "DSET %d", id) : NULL;
    if (!strcmp(op, "--latest")) {
        int n, *ids;
        if (kvtree_list_int(kvtree_get(t, "DSET"), &n, &ids) == 0) {
            for (int i = n - 1; i >= 0 && rc; i--)
                if (kvtree_getf(t, "DSET %d LOCATION CACHE", ids[i])) {
                    printf("%d\n", ids[i]);
                    rc = 0;
                }
            free(ids);
        }
    } else if (!strcmp(op, "--needflush")) {
        rc = d && kvtree_getf(d, "LOCATION CACHE") && !kvtree_getf(d, "LOCATION PFS") ? 0
                                                                                      : 1;
    } else if (!strcmp(op, "--location")) {
        for (kvtree_elem_t *e = kvtree_first(kvtree_get(d, "LOCATION")); e;
             e = kvtree_elem_next(e))
            printf("%s\n", kvtree_elem_key(e));
        if (d && kvtree_get(d, "FLUSHING"))
            printf("FLUSHING\n");
        rc = d ? 0 : 1;
    } else if (!strcmp(op, "--subdir")) {
        const char *dir = kvtree_get_val(d, "DIR");
        if (dir)
            printf("%s\n", dir);
        rc = dir ? 0 : 1;
    }
    kvtree_delete(&t);
    return rc;
}
