/* SPDX-License-Identifier: BSD-3-Clause */
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

/* Evicted files go to the pool (filepool.h) instead of being unlinked.
 * What SCR writes itself, the same size checkpoint after checkpoint
 * (partner copies, parity), is kept for the next such file to write over.
 * The rest (the application's files, memory checkpoints) is kept only to
 * be deleted later: freeing their pages is most of what an eviction costs,
 * and the pool's drain does it on a background thread once the next
 * checkpoint completes.  Those take room until then, so only for a
 * complete dataset, when the store can hold this node's share of it twice
 * over. */
typedef struct {
    scr_ctx_t *ctx;
    int defer; /* the application's files too */
} cache_keep_t;

static int cache_keep(void *arg, int rank, const char *path, const kvtree_t *meta)
{
    cache_keep_t *k = arg;
    const char *type = kvtree_get_val(meta, "TYPE");
    int ours = rank != k->ctx->rank ||
               (type && (!strcmp(type, FM_TYPE_XOR) || !strcmp(type, FM_TYPE_RS)));
    char tag[32];
    snprintf(tag, sizeof(tag), "%d", k->ctx->rank);
    return (ours || k->defer) && filepool_put(k->ctx->pool, path, tag) == 0 ? 0 : -1;
}

/* bytes of a dataset's files this process holds (its own, partner copies) */
static uint64_t cache_dset_bytes(scr_ctx_t *ctx, int id)
{
    uint64_t sum = 0;
    kvtree_t *ranks = kvtree_getf(ctx->filemap, "DSET %d RANK", id);
    for (kvtree_elem_t *r = kvtree_first(ranks); r; r = kvtree_elem_next(r))
        sum += filemap_sum_sizes(kvtree_get(kvtree_elem_tree(r), "FILE"));
    return sum;
}

void cache_delete_dset(scr_ctx_t *ctx, int id)
{
    double t0 = scr_now();
    crcbg_release(ctx, id); /* never delete files the CRC thread is reading */
    const char *dir =
        kvtree_get_val(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "DIR");
    char *safe = dir && cache_path_ok(ctx, dir) ? strdup(dir) : NULL;
    cache_keep_t k = {ctx, 0};
    /* an incomplete dataset (a failed one: the cache may be full) frees
     * its room at once */
    if (safe && ctx->cache_defer && !ctx->cache_defer_off &&
        cache_dset_complete(ctx, id)) {
        uint64_t node = cache_dset_bytes(ctx, id) * (uint64_t)ctx->topo.local_size;
        k.defer = filepool_can_hold(safe, 2 * node);
    }
    int failed = filemap_delete_dset_files_keep(ctx->filemap, id, safe,
                                                ctx->pool ? cache_keep : NULL, &k);
    if (failed)
        log_warn("could not delete %d cached files of dataset %d", failed, id);
    free(safe);
    scr_error_t err;
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("%s", err.text);
    log_dbg(2, "dataset %d deleted in %.3f s%s", id, scr_now() - t0,
            k.defer ? "; its files are freed in the background" : "");
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

/* datasets one eviction removes at most (the rest wait for the next) */
#define EVICT_MAX 64

/* rank 0 picks the oldest datasets until at most count - room remain */
static int evict_pick(const scr_ctx_t *ctx, const store_t *st, int room, int *victims)
{
    int n = 0, *ids = NULL, nv = 0, held = 0;
    if (filemap_list_dsets(ctx->filemap, &n, &ids) < 0)
        return 0;
    int keep = newest_complete(ctx, st, ids, n);
    for (int i = 0; i < n; i++)
        held += dset_in_store(ctx, ids[i], st);
    for (int i = 0; i < n && held > st->count - room && nv < EVICT_MAX; i++) {
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

/* Putting off the deletion of the application's evicted files pays only
 * when the application leaves the pool's low-priority thread time to free
 * them: it computed between the last SCR_Complete_output's return and this
 * SCR_Start_output (CACHE_DEFER_GAP), and the thread freed what the last
 * output handed it.  Back to back, or beside ranks that keep every core
 * busy (polling in MPI), the pages stay taken while the next checkpoint
 * writes, which then takes fresh ones, and the thread frees them during
 * those writes: deleting at once, before the writes, was 1.1-1.5x faster
 * there (bench/README.md, run AZ).  The gap is the application's own time,
 * not the library's, so a loaded machine stretching our calls does not
 * make back-to-back checkpoints look like computing ones. */
#define CACHE_DEFER_GAP 0.1

enum { DEFER_NO_TIME = 1, DEFER_AGAIN = 2, DEFER_THREAD_BEHIND = 3 };

/* 0 when deferring pays, else why not */
static int cache_defer_why_not(const scr_ctx_t *ctx)
{
    if (ctx->out_returned <= 0 || ctx->out_entered - ctx->out_returned < CACHE_DEFER_GAP)
        return DEFER_NO_TIME;
    return filepool_pending(ctx->pool) > 0 ? DEFER_THREAD_BEHIND : 0;
}

/* at SCR_DEBUG=1, each time the choice or its reason changes */
static void cache_defer_say(scr_ctx_t *ctx, int why_not)
{
    int now = why_not ? why_not : DEFER_AGAIN;
    if (now == ctx->cache_defer_said || (now == DEFER_AGAIN && !ctx->cache_defer_said))
        return;
    ctx->cache_defer_said = now;
    log_dbg(1, "%s",
            now == DEFER_NO_TIME
                ? "evicted application files are deleted at once: the application "
                  "leaves no time between checkpoints to free them behind it"
            : now == DEFER_THREAD_BEHIND
                ? "evicted application files are deleted at once: the thread that "
                  "frees them behind the application has not finished the last ones"
                : "evicted application files are freed behind the application again");
}

void cache_evict(scr_ctx_t *ctx, const store_t *st, int room)
{
    /* the count and the ids in one broadcast (a collective on every
     * checkpoint's path) */
    int msg[EVICT_MAX + 1] = {0}, *victims = msg + 1;
    if (ctx->rank == 0)
        msg[0] = evict_pick(ctx, st, room, victims);
    MPI_Bcast(msg, EVICT_MAX + 1, MPI_INT, 0, ctx->comm);
    int nvictims = msg[0];
    /* judged before the drain below finishes the last batch */
    int for_output = nvictims > 0 && room > 0, why_not = cache_defer_why_not(ctx);
    ctx->cache_defer_off = for_output && why_not;
    if (for_output && ctx->cache_defer)
        cache_defer_say(ctx, why_not);
    /* the pool holds one eviction's files: what the last one left unused
     * goes (in the background) before this one adds its own */
    if (for_output) {
        double t0 = scr_now();
        filepool_drain_async(ctx->pool);
        log_dbg(2, "the pool's last files went to its thread in %.3f s", scr_now() - t0);
    }
    for (int i = 0; i < nvictims; i++) {
        log_dbg(2, "evicting dataset %d from %s", victims[i], st->base);
        cache_delete_dset(ctx, victims[i]);
    }
    ctx->cache_defer_off = 0;
    /* Evicted once a checkpoint completed (room 0): a differential chain
     * that the full checkpoint just ended, which the next (differential)
     * checkpoint cannot write over.  Deleted now, while the application
     * computes, rather than by the thread during the next checkpoint. */
    if (nvictims > 0 && room == 0)
        filepool_drain_async(ctx->pool);
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
