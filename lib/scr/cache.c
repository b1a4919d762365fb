/* cache.c - dataset directories and eviction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "crcbg.h"
#include "filemap.h"
#include "filepool.h"
#include "log.h"
#include "path.h"

void cache_dset_dir(const store_t *st, int id, char *buf, size_t len)
{
    snprintf(buf, len, "%s/scr.dataset.%d", st->dir, id);
}

int cache_path_ok(const scr_ctx_t *ctx, const char *path)
{
    for (int i = 0; i < ctx->nstores; i++)
        if (path_is_under(path, ctx->stores[i].dir))
            return 1;
    return 0;
}

/* keep what SCR writes itself, the same size checkpoint after checkpoint,
 * for the next such file to write over (filepool.h): partner copies
 * (another rank's files) and parity.  An application's own files are not
 * kept: it opens its next ones with O_TRUNC, which frees the pages anyway;
 * nor are memory checkpoints', whose sizes change from full to
 * differential ones: a small file cutting a kept large one frees its
 * pages all the same. */
static int cache_keep(void *arg, int rank, const char *path, const kvtree_t *meta)
{
    scr_ctx_t *ctx = arg;
    const char *type = kvtree_get_val(meta, "TYPE");
    int ours = rank != ctx->rank ||
               (type && (!strcmp(type, FM_TYPE_XOR) || !strcmp(type, FM_TYPE_RS)));
    char tag[32];
    snprintf(tag, sizeof(tag), "%d", ctx->rank);
    return ours && filepool_put(ctx->pool, path, tag) == 0 ? 0 : -1;
}

void cache_delete_dset(scr_ctx_t *ctx, int id)
{
    crcbg_release(ctx, id); /* never delete files the CRC thread is reading */
    const char *dir =
        kvtree_get_val(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "DIR");
    char *safe = dir && cache_path_ok(ctx, dir) ? strdup(dir) : NULL;
    int failed = filemap_delete_dset_files_keep(ctx->filemap, id, safe,
                                                ctx->pool ? cache_keep : NULL, ctx);
    if (failed)
        log_warn("could not delete %d cached files of dataset %d", failed, id);
    free(safe);
    scr_error_t err;
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("%s", err.text);
}

static int dset_in_store(const scr_ctx_t *ctx, int id, const store_t *st)
{
    const char *dir =
        kvtree_get_val(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "DIR");
    return dir && path_is_under(dir, st->dir);
}

/* newest complete checkpoint in store st, or -1 */
static int newest_complete(const scr_ctx_t *ctx, const store_t *st, const int *ids, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        kvtree_t *d = filemap_get_desc(ctx->filemap, ids[i], "DSETDESC");
        int complete = 0, flags = 0;
        kvtree_util_get_int(d, "COMPLETE", &complete);
        kvtree_util_get_int(d, "FLAGS", &flags);
        if (dset_in_store(ctx, ids[i], st) && complete && (flags & 1))
            return ids[i];
    }
    return -1;
}

int cache_dset_complete(const scr_ctx_t *ctx, int id)
{
    int complete = 0;
    kvtree_util_get_int(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "COMPLETE",
                        &complete);
    return complete;
}

int cache_dset_base(const scr_ctx_t *ctx, int id)
{
    int base = -1;
    kvtree_util_get_int(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "BASE", &base);
    return base;
}

/* does a cached differential checkpoint still build on id */
static int is_base(const scr_ctx_t *ctx, const int *ids, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (cache_dset_base(ctx, ids[i]) == id)
            return 1;
    return 0;
}

/* rank 0 picks the oldest datasets until at most count - room remain */
static int evict_pick(const scr_ctx_t *ctx, const store_t *st, int room, int *victims)
{
    int n = 0, *ids = NULL, nv = 0, held = 0;
    if (filemap_list_dsets(ctx->filemap, &n, &ids) < 0)
        return 0;
    int keep = newest_complete(ctx, st, ids, n);
    for (int i = 0; i < n; i++)
        held += dset_in_store(ctx, ids[i], st);
    for (int i = 0; i < n && held > st->count - room && nv < 64; i++) {
        int flushing = 0;
        kvtree_util_get_int(filemap_get_desc(ctx->filemap, ids[i], "DSETDESC"),
                            "FLUSHING", &flushing);
        if (!dset_in_store(ctx, ids[i], st) || flushing || ids[i] == keep ||
            is_base(ctx, ids, n, ids[i]))
            continue;
        victims[nv++] = ids[i];
        held--;
    }
    free(ids);
    return nv;
}

void cache_evict(scr_ctx_t *ctx, const store_t *st, int room)
{
    int victims[64], nvictims = 0;
    if (ctx->rank == 0)
        nvictims = evict_pick(ctx, st, room, victims);
    MPI_Bcast(&nvictims, 1, MPI_INT, 0, ctx->comm);
    MPI_Bcast(victims, nvictims, MPI_INT, 0, ctx->comm);
    /* the pool holds one eviction's files: what the last one left unused
     * goes before this one adds its own */
    if (nvictims > 0)
        filepool_drain(ctx->pool);
    for (int i = 0; i < nvictims; i++) {
        log_dbg(2, "evicting dataset %d from %s", victims[i], st->base);
        cache_delete_dset(ctx, victims[i]);
    }
}

static int is_failed(const scr_ctx_t *ctx, int id)
{
    for (int i = 0; i < ctx->nfailed; i++)
        if (ctx->failed[i] == id)
            return 1;
    return 0;
}

int cache_newest_ckpt(const scr_ctx_t *ctx, int below)
{
    int n, *ids, best = -1;
    if (filemap_list_dsets(ctx->filemap, &n, &ids) < 0)
        return -1;
    for (int i = n - 1; i >= 0 && best < 0; i--) {
        kvtree_t *d = filemap_get_desc(ctx->filemap, ids[i], "DSETDESC");
        int complete = 0, flags = 0;
        kvtree_util_get_int(d, "COMPLETE", &complete);
        kvtree_util_get_int(d, "FLAGS", &flags);
        if (ids[i] < below && complete && (flags & 1) && !is_failed(ctx, ids[i]))
            best = ids[i];
    }
    free(ids);
    return best;
}

int cache_find_name(const scr_ctx_t *ctx, const char *name)
{
    int n, *ids, found = -1;
    if (filemap_list_dsets(ctx->filemap, &n, &ids) < 0)
        return -1;
    for (int i = 0; i < n && found < 0; i++) {
        const char *nm =
            kvtree_get_val(filemap_get_desc(ctx->filemap, ids[i], "DSETDESC"), "NAME");
        if (nm && strcmp(nm, name) == 0)
            found = ids[i];
    }
    free(ids);
    return found;
}
