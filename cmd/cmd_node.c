/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_node.c - node and dataset subcommands: node-check, scavenge, index,
 * down-nodes, status */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_job.h"
#include "dsindex.h"
#include "filemap.h"
#include "lifecycle.h"
#include "node.h"
#include "pfs.h"

int cmd_node_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_job_t j;
    if (cmd_job_init(&j, "node-check", 0) < 0)
        return 1;
    scr_error_t err;
    int rc = 0;
    const char *base;
    for (int i = 0; rc == 0 && (base = jobopts_base(&j.o, i, NULL)); i++) {
        if (node_health(base, 0, &err) < 0) {
            fprintf(stderr, "scr node-check: %s: %s\n", j.o.host, err.text);
            rc = 1;
        }
    }
    if (rc == 0)
        printf("scr-node-ok %s\n", j.o.host);
    cmd_job_free(&j);
    return rc;
}

/* --id N / --prefix DIR shared by scavenge and index; index's actions
 * (action), scavenge's --live NODES (live) */
static int opt_id_prefix(int argc, char **argv, const char *name, cmd_job_t *j, int *id,
                         const char **action, const char **live)
{
    static const struct option lo[] = {{"id", 1, 0, 'i'},   {"prefix", 1, 0, 'p'},
                                       {"list", 0, 0, 'l'}, {"current", 1, 0, 'c'},
                                       {"add", 1, 0, 'a'},  {"rebuild", 1, 0, 'r'},
                                       {"live", 1, 0, 'L'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (optarg[0] != '/')
                return fprintf(stderr, "scr %s: --prefix must be absolute\n", name), -1;
            snprintf(j->o.prefix, sizeof(j->o.prefix), "%s", optarg);
            break;
        case 'i':
        case 'a':
        case 'r':
            *id = atoi(optarg);
            if (action && c != 'i')
                *action = c == 'a' ? "add" : "rebuild";
            break;
        case 'L':
            if (!live)
                return -1;
            *live = optarg;
            break;
        case 'l':
            if (action)
                *action = "list";
            break;
        case 'c':
            if (action)
                *action = "current", *id = atoi(optarg);
            break;
        default:
            return -1;
        }
    }
    return optind < argc ? -1 : 0;
}

/* With --live (`scr postrun` gives it), the nodes of the job that still
 * live: each waits for the others' own ranks, then copies the partner copies
 * of ranks whose node is gone, and the last to finish indexes (falling back
 * to an older checkpoint), as the epilogs do. */
int cmd_scavenge(int argc, char **argv)
{
    cmd_job_t j;
    int id = -1, indexed = 0;
    const char *livestr = NULL;
    if (cmd_job_init(&j, "scavenge", 0) < 0)
        return 1;
    if (opt_id_prefix(argc, argv, "scavenge", &j, &id, NULL, &livestr) < 0) {
        cmd_job_free(&j);
        return cmd_usage("scavenge");
    }
    scr_error_t err;
    nodelist_t *live = livestr ? nodelist_from_str(livestr, &err) : NULL;
    if (livestr && (!live || nodelist_count(live) == 0)) {
        fprintf(stderr, "scr scavenge: --live '%s': %s\n", livestr,
                live ? "no node" : err.text);
        nodelist_delete(&live);
        cmd_job_free(&j);
        return 1;
    }
    int rc = lifecycle_scavenge(&j.o, id, live, &indexed);
    nodelist_delete(&live);
    cmd_job_free(&j);
    return rc < 0 ? 1 : 0;
}

static void index_list(const char *prefix)
{
    kvtree_t *t = kvtree_new();
    index_read(prefix, t, NULL);
    const char *cur = kvtree_get_val(t, "CURRENT");
    printf("%-4s %-8s %-10s %-24s %s\n", "CUR", "ID", "STATE", "NAME", "DIRECTORY");
    kvtree_t *ds = kvtree_get(t, "DSET");
    kvtree_sort_int(ds, 1);
    for (kvtree_elem_t *e = kvtree_first(ds); e; e = kvtree_elem_next(e)) {
        kvtree_t *dirs = kvtree_get(kvtree_elem_tree(e), "DIR");
        for (kvtree_elem_t *d = kvtree_first(dirs); d; d = kvtree_elem_next(d)) {
            kvtree_t *x = kvtree_elem_tree(d);
            int complete = 0;
            kvtree_util_get_int(x, "COMPLETE", &complete);
            const char *state = kvtree_get(x, "FAILED") ? "failed"
                                : complete              ? "complete"
                                                        : "incomplete";
            const char *name = kvtree_get_val(kvtree_get(x, "DSET"), "NAME");
            printf("%-4s %-8s %-10s %-24s %s\n",
                   cur && !strcmp(cur, kvtree_elem_key(d)) ? "*" : "", kvtree_elem_key(e),
                   state, name ? name : "-", kvtree_elem_key(d));
        }
    }
    kvtree_delete(&t);
}

static int index_do_current(kvtree_t *t, void *arg)
{
    int id = *(int *)arg;
    kvtree_t *dirs = kvtree_getf(t, "DSET %d DIR", id);
    if (!kvtree_first(dirs))
        return -1;
    kvtree_util_set_str(t, "CURRENT", kvtree_elem_key(kvtree_first(dirs)));
    return 0;
}

int cmd_index(int argc, char **argv)
{
    cmd_job_t j;
    int id = -1, rc = 0;
    const char *action = NULL;
    if (cmd_job_init(&j, "index", 0) < 0)
        return 1;
    if (opt_id_prefix(argc, argv, "index", &j, &id, &action, NULL) < 0 || !action) {
        cmd_job_free(&j);
        return cmd_usage("index");
    }
    scr_error_t err;
    char path[4200];
    if (!strcmp(action, "list"))
        index_list(j.o.prefix);
    else if (!strcmp(action, "current")) {
        pfs_meta_path(j.o.prefix, "index.scr", path, sizeof(path));
        if (pfs_update(path, index_do_current, &id, &err) < 0) {
            fprintf(stderr, "scr index: dataset %d is not in the index of %s\n", id,
                    j.o.prefix);
            rc = 1;
        }
    } else
        rc = lifecycle_index(&j.o, id, 0) < 0;
    cmd_job_free(&j);
    return rc;
}

int cmd_down_nodes(int argc, char **argv)
{
    int reason = argc > 1 && strcmp(argv[1], "--reason") == 0;
    if (argc > 1 + reason)
        return cmd_usage("down-nodes");
    cmd_job_t j;
    if (cmd_job_init(&j, "down-nodes", 1) < 0)
        return 1;
    cmd_job_check_nodes(&j);
    if (reason) {
        for (int i = 0; i < nodelist_count(j.down); i++) {
            const char *r = kvtree_get_val(j.reasons, nodelist_nth(j.down, i));
            printf("%s: %s\n", nodelist_nth(j.down, i), r ? r : "down");
        }
    } else if (nodelist_count(j.down) > 0) {
        char *s = nodelist_compress(j.down);
        printf("%s\n", s);
        free(s);
    }
    cmd_job_free(&j);
    return 0;
}

/* one line per cached dataset of a rank */
static int status_visit(int r, const char *path, const kvtree_t *fm,
                        const scr_error_t *ferr, void *arg)
{
    (void)path;
    (void)ferr;
    (void)arg;
    int n = 0, *ids = NULL;
    if (fm)
        filemap_list_dsets(fm, &n, &ids);
    for (int i = 0; i < n; i++) {
        kvtree_t *d = filemap_get_desc(fm, ids[i], "DSETDESC");
        int complete = 0;
        kvtree_util_get_int(d, "COMPLETE", &complete);
        const char *name = kvtree_get_val(d, "NAME");
        printf("  rank %d: dataset %d %s%s%s\n", r, ids[i], name ? name : "-",
               complete ? "" : " (incomplete)",
               kvtree_get(d, "FLUSHING") ? " (flushing)" : "");
    }
    free(ids);
    return 0;
}

int cmd_status(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return cmd_usage("status");
    cmd_job_t j;
    if (cmd_job_init(&j, "status", 0) < 0)
        return 1;
    char path[4600];
    printf("job %s, user %s, prefix %s\n", j.o.jobid, j.o.user, j.o.prefix);
    printf("in cache on %s:\n", j.o.host);
    char dir[4200];
    jobopts_job_dir(&j.o, j.o.cntl_base, dir, sizeof(dir));
    filemap_foreach(dir, status_visit, NULL, NULL);
    printf("on the prefix:\n");
    index_list(j.o.prefix);
    kvtree_t *flush = kvtree_new();
    pfs_meta_path(j.o.prefix, "flush.scr", path, sizeof(path));
    kvtree_read_with_lock(path, flush, NULL);
    kvtree_t *ds = kvtree_get(flush, "DSET");
    kvtree_sort_int(ds, 1);
    printf("flush state:\n");
    for (kvtree_elem_t *e = kvtree_first(ds); e; e = kvtree_elem_next(e)) {
        kvtree_t *x = kvtree_elem_tree(e);
        printf("  dataset %s:%s%s%s\n", kvtree_elem_key(e),
               kvtree_getf(x, "LOCATION CACHE") ? " in cache" : "",
               kvtree_getf(x, "LOCATION PFS") ? " on the prefix" : " not on the prefix",
               kvtree_get(x, "FLUSHING") ? ", flushing now" : "");
    }
    kvtree_delete(&flush);
    cmd_job_free(&j);
    return 0;
}
