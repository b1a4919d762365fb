/* SPDX-License-Identifier: BSD-3-Clause */
/* bypass.c - datasets written straight to the prefix */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agree.h"
#include "api_util.h"
#include "bypass.h"
#include "filemap.h"
#include "flush.h"
#include "io.h"
#include "kvtree_mpi.h"
#include "log.h"
#include "namesketch.h"
#include "nameset.h"
#include "pfs.h"
#include "place.h"
#include "r2f_mpi.h"
#include "scr.h"

void bypass_begin(scr_ctx_t *ctx)
{
    kvtree_delete(&ctx->out.files);
    ctx->out.files = kvtree_new();
}

int bypass_route(scr_ctx_t *ctx, const char *abs, const char *rel, char *file)
{
    scr_error_t err;
    struct stat st;
    if (strlen(abs) >= SCR_MAX_FILENAME) {
        log_err("SCR_Route_file: %s is longer than SCR_MAX_FILENAME", abs);
        return SCR_FAILURE;
    }
    if (!kvtree_get(ctx->out.files, rel)) {
        char *parent = strdup(abs);
        *strrchr(parent, '/') = '\0';
        /* the application's own directory: its umask decides the mode */
        int rc = io_mkdir_p(parent, 0777, &err);
        free(parent);
        if (rc < 0) {
            log_err("SCR_Route_file: %s", err.text);
            return SCR_FAILURE;
        }
        kvtree_t *m = kvtree_set(ctx->out.files, rel, NULL);
        /* the name is taken: by an older dataset, whose index entry must go */
        if (lstat(abs, &st) == 0)
            kvtree_util_set_int(m, "CLASH", 1);
    }
    strcpy(file, abs);
    return SCR_SUCCESS;
}

/* size of each routed file: rel -> {SIZE}; a routed file not written makes
 * the output invalid */
static kvtree_t *bypass_sizes(scr_ctx_t *ctx, int *valid, uint64_t *bytes, int *clash)
{
    kvtree_t *r2f = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(ctx->out.files); e; e = kvtree_elem_next(e)) {
        char path[SCR_PATH_MAX * 2];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", ctx->prefix, kvtree_elem_key(e));
        if (kvtree_get(kvtree_elem_tree(e), "CLASH"))
            *clash = 1;
        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
            if (*valid)
                log_err("SCR_Complete_output: %s was routed but not written", path);
            *valid = 0;
            continue;
        }
        kvtree_util_set_u64(kvtree_set(r2f, kvtree_elem_key(e), NULL), "SIZE",
                            (uint64_t)st.st_size);
        *bytes += (uint64_t)st.st_size;
    }
    return r2f;
}

/* the older datasets that named a file this output took from the prefix
 * leave the index: valid or not, this output has written over them */
static void bypass_supersede(scr_ctx_t *ctx)
{
    kvtree_t *names = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(ctx->out.files); e; e = kvtree_elem_next(e))
        if (kvtree_get(kvtree_elem_tree(e), "CLASH"))
            kvtree_set(names, kvtree_elem_key(e), NULL);
    flush_supersede_names(ctx, ctx->out.id, names);
    kvtree_delete(&names);
}

/* rank 0: the dataset enters the index complete and placed (its files are
 * where they belong already) */
static int bypass_record(scr_ctx_t *ctx, const char *dsetdir, const char *name,
                         const kvtree_t *desc, scr_error_t *err)
{
    int id = ctx->out.id;
    if (summary_write(dsetdir, desc, 1, err) < 0 ||
        index_add(ctx->prefix, id, name, desc, 1, err) < 0 ||
        flushfile_set(ctx->prefix, id, "PFS", 1, err) < 0 ||
        index_mark_placed(ctx->prefix, id, name, err) < 0)
        return -1;
    return 0;
}

int bypass_complete(scr_ctx_t *ctx, const kvtree_t *dset, int valid, uint64_t *total)
{
    char name[64], dsetdir[SCR_PATH_MAX + 64];
    scr_error_t err = {""};
    uint64_t bytes = 0;
    int clash = 0, files = kvtree_size(ctx->out.files), nfiles = 0;
    pfs_dset_name(ctx->out.id, name, sizeof(name));
    snprintf(dsetdir, sizeof(dsetdir), "%s/%s", ctx->prefix, name);
    /* a file several ranks write is whole once all of them got here */
    MPI_Barrier(ctx->comm);
    kvtree_t *r2f = bypass_sizes(ctx, &valid, &bytes, &clash);
    uint64_t v[4] = {valid != 0, bytes, (uint64_t)files, (uint64_t)clash}, sum[4];
    MPI_Allreduce(v, sum, 4, MPI_UINT64_T, MPI_SUM, ctx->comm);
    *total = sum[1];
    nfiles = (int)sum[2];
    if (sum[3] > 0)
        bypass_supersede(ctx);
    int ok = sum[0] == (uint64_t)ctx->ranks;
    if (ok && ctx->rank == 0) {
        char meta[SCR_PATH_MAX + 80];
        snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
        ok = io_mkdir_p(meta, 0700, &err) == 0;
    }
    if (sum[0] == (uint64_t)ctx->ranks)
        ok = scr_agree(ctx, ok, "SCR_Complete_output", &err) &&
             r2f_write_tree(ctx->comm, dsetdir, r2f, &err) == 0;
    if (ok && ctx->rank == 0) {
        kvtree_t *d = kvtree_dup(dset);
        kvtree_unset(d, "DIR");
        kvtree_util_set_int(d, "BYPASS", 1);
        kvtree_util_set_int(d, "FILES", nfiles);
        kvtree_util_set_u64(d, "SIZE", *total);
        ok = bypass_record(ctx, dsetdir, name, d, &err) == 0;
        kvtree_delete(&d);
    }
    if (sum[0] == (uint64_t)ctx->ranks)
        ok = scr_agree(ctx, ok, "SCR_Complete_output", &err);
    kvtree_delete(&r2f);
    kvtree_delete(&ctx->out.files);
    if (ok)
        flush_prune(ctx);
    return ok;
}

static void bypass_route_name(scr_ctx_t *ctx, kvtree_t *send, const char *rel)
{
    char owner[16], me[16];
    if (!rel)
        return;
    snprintf(me, sizeof(me), "%d", ctx->rank);
    snprintf(owner, sizeof(owner), "%d", nameset_owner(rel, ctx->ranks));
    kvtree_util_set_str(kvtree_set_kv(send, owner, rel), me, ctx->topo.hostname);
}

/* into send ("<home>" -> name -> "<rank>" -> host), this rank's names of
 * the open output that another rank may hold too (namesketch.h): only
 * those go on to be judged at their homes.  Returns 0, the same on every
 * rank, when no rank has such a name and nobody needs the join */
static int bypass_maybe_shared(scr_ctx_t *ctx, kvtree_t *send)
{
    kvtree_t *files =
        kvtree_get(filemap_get_rank(ctx->filemap, ctx->out.id, ctx->rank), "FILE");
    int n = 0, cap = kvtree_size(files);
    const char **rels = malloc(sizeof(char *) * (size_t)(cap > 0 ? cap : 1));
    unsigned char *shared = malloc((size_t)(cap > 0 ? cap : 1));
    for (kvtree_elem_t *e = kvtree_first(files); rels && e; e = kvtree_elem_next(e))
        if ((rels[n] = kvtree_get_val(kvtree_elem_tree(e), "REL")))
            n++;
    /* no memory here or anywhere: all of them */
    int crowded = 1;
    if (namesketch_shared(ctx->comm, rels, rels && shared ? n : -1, shared, &crowded) < 0)
        for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e))
            bypass_route_name(ctx, send, kvtree_get_val(kvtree_elem_tree(e), "REL"));
    else
        for (int i = 0; i < n; i++)
            if (shared[i])
                bypass_route_name(ctx, send, rels[i]);
    free(rels);
    free(shared);
    return crowded;
}

int bypass_shared_names(scr_ctx_t *ctx)
{
    kvtree_t *send = kvtree_new();
    /* with a file name of its own on every rank (the usual case) the
     * sketch says so everywhere alike: the join's exchange and agreement,
     * four collectives at every SCR_Complete_output, are left out */
    if (!bypass_maybe_shared(ctx, send)) {
        kvtree_delete(&send);
        return 0;
    }
    kvtree_t *recv = kvtree_new(), *names = kvtree_new();
    kvtree_exchange(send, recv, ctx->comm);
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e))
        kvtree_merge(names, kvtree_elem_tree(e));
    const char *bad = NULL;
    for (kvtree_elem_t *e = kvtree_first(names); e && !bad; e = kvtree_elem_next(e))
        if (kvtree_size(kvtree_elem_tree(e)) > 1)
            bad = kvtree_elem_key(e);
    int first = agree_first_failure(ctx->comm, bad != NULL);
    if (first == ctx->rank) {
        kvtree_elem_t *a = kvtree_first(kvtree_get(names, bad)), *b = kvtree_elem_next(a);
        log_err("SCR_Complete_output: %s/%s is written by rank %s on %s and rank %s on "
                "%s: a file that several processes write together belongs on the "
                "prefix, not in cache: set SCR_CACHE_BYPASS=1 (or BYPASS=1 on its "
                "CKPT descriptor)",
                ctx->prefix, bad, kvtree_elem_key(a),
                kvtree_get_val(kvtree_get(names, bad), kvtree_elem_key(a)),
                kvtree_elem_key(b),
                kvtree_get_val(kvtree_get(names, bad), kvtree_elem_key(b)));
    }
    kvtree_delete(&send);
    kvtree_delete(&recv);
    kvtree_delete(&names);
    return first != ctx->ranks;
}

int bypass_cache_foreign(scr_ctx_t *ctx)
{
    int n = 0, *ids = NULL, found = -1, ranks = 0;
    filemap_list_dsets(ctx->filemap, &n, &ids);
    for (int i = n - 1; i >= 0 && found < 0; i--) {
        int r = 0;
        kvtree_t *d = filemap_get_desc(ctx->filemap, ids[i], "DSETDESC");
        if (kvtree_util_get_int(d, "RANKS", &r) == 0 && r != ctx->ranks)
            found = ids[i], ranks = r;
    }
    int first = agree_first_failure(ctx->comm, found >= 0);
    if (first == ctx->rank) {
        const char *nm =
            kvtree_get_val(filemap_get_desc(ctx->filemap, found, "DSETDESC"), "NAME");
        log_err("the cache of job %s holds dataset %d (%s) of %d ranks; this job has %d "
                "ranks and leaves that cache as it is (for a job of %d ranks, or the "
                "job's epilog to scavenge): its own datasets go straight to the prefix "
                "(cache bypass)",
                ctx->jobid, found, nm ? nm : "?", ranks, ctx->ranks, ranks);
    }
    free(ids);
    return first != ctx->ranks;
}
