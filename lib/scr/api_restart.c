/* SPDX-License-Identifier: BSD-3-Clause */
/* api_restart.c - SCR_Have_restart, SCR_Start_restart, SCR_Complete_restart,
 * SCR_Current, SCR_Drop, SCR_Delete, and halt conditions */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_util.h"
#include "cache.h"
#include "evlog.h"
#include "filemap.h"
#include "flush.h"
#include "halt.h"
#include "pfs.h"
#include "place.h"
#include "log.h"
#include "redbg.h"
#include "rpfs.h"
#include "scr.h"
#include "units.h"

/* the job's end time: the scheduler's, else SCR_END_TIME */
static time_t halt_end_time(scr_ctx_t *ctx)
{
    long end = 0;
    const char *e = getenv("SLURM_JOB_END_TIME");
    if (!e || units_parse_long(e, &end) < 0)
        e = config_get(ctx->cfg, "SCR_END_TIME", NULL);
    if (!e || units_parse_long(e, &end) < 0)
        end = 0;
    return (time_t)end;
}

#define HALT_REREAD_SECONDS 10.0

/* rank 0: read the halt file into the cached copy */
static void halt_refresh(scr_ctx_t *ctx)
{
    kvtree_delete(&ctx->halt);
    ctx->halt = kvtree_new();
    halt_read(ctx->prefix, ctx->halt, NULL);
    ctx->halt_read_at = scr_now();
}

/* rank 0 judges the cached copy, everyone learns the verdict */
static int halt_share(scr_ctx_t *ctx, char *reason, size_t len)
{
    /* the verdict in the reason's first byte: one broadcast, not two */
    char msg[SCR_HALT_REASON_MAX + 1] = "";
    if (ctx->rank == 0)
        msg[0] = (char)halt_check(ctx->halt, time(NULL), halt_end_time(ctx),
                                  config_get_int(ctx->cfg, "SCR_HALT_SECONDS", 0),
                                  HALT_IGNORE_FINISHED, msg + 1, sizeof(msg) - 1);
    MPI_Bcast(msg, (int)sizeof(msg), MPI_CHAR, 0, ctx->comm);
    if (len > 0)
        snprintf(reason, len, "%s", msg + 1);
    return msg[0] != 0;
}

int scr_halt_check_fresh(scr_ctx_t *ctx, int fresh, char *reason, size_t len)
{
    /* the file lives on the PFS: read it at completions, else every 10 s */
    if (ctx->rank == 0 &&
        (fresh || !ctx->halt || scr_now() - ctx->halt_read_at > HALT_REREAD_SECONDS))
        halt_refresh(ctx);
    return halt_share(ctx, reason, len);
}

int scr_halt_after_dataset(scr_ctx_t *ctx, int checkpoint, char *reason, size_t len)
{
    if (ctx->rank == 0) {
        halt_refresh(ctx);
        /* only a job with a CheckpointsLeft pays for the locked update, and
         * the re-read that sees its result */
        if (checkpoint && kvtree_get(ctx->halt, "CheckpointsLeft")) {
            halt_decrement(ctx->prefix, NULL);
            halt_refresh(ctx);
        }
    }
    return halt_share(ctx, reason, len);
}

int scr_halt_check(scr_ctx_t *ctx, char *reason, size_t len)
{
    return scr_halt_check_fresh(ctx, 1, reason, len);
}

int scr_halt_pending(scr_ctx_t *ctx)
{
    char reason[SCR_HALT_REASON_MAX] = "";
    return scr_halt_check_fresh(ctx, 0, reason, sizeof(reason));
}

static const char *dset_name(const scr_ctx_t *ctx, int id)
{
    if (ctx->rpfs && id == ctx->restart_id)
        return rpfs_name(ctx);
    const char *n =
        kvtree_get_val(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "NAME");
    return n ? n : "";
}

static int copy_name(char *dst, const char *src)
{
    if (dst) {
        strncpy(dst, src, SCR_MAX_FILENAME - 1);
        dst[SCR_MAX_FILENAME - 1] = '\0';
    }
    return SCR_SUCCESS;
}

static int restart_check(scr_ctx_t *ctx, const char *fn, enum scr_state want)
{
    if (!scr_check_init(ctx, fn))
        return 0;
    /* a background encode owns the filemap; every caller is collective */
    if (ctx->enabled)
        redbg_poll(ctx, 1);
    if (ctx->state != want) {
        log_err("%s: called %s", fn,
                ctx->state == SCR_STATE_OUTPUT ? "inside an open output"
                : ctx->state == SCR_STATE_RESTART
                    ? "inside a restart (SCR_Complete_restart "
                      "first)"
                    : "without SCR_Start_restart");
        return 0;
    }
    return 1;
}

int SCR_Have_restart(int *flag, char *name)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!flag) {
        log_err("SCR_Have_restart: NULL flag");
        return SCR_FAILURE;
    }
    *flag = 0;
    if (ctx->initialized && !ctx->enabled)
        return SCR_SUCCESS;
    if (!restart_check(ctx, "SCR_Have_restart", SCR_STATE_IDLE))
        return SCR_FAILURE;
    MPI_Bcast(&ctx->restart_id, 1, MPI_INT, 0, ctx->comm);
    *flag = ctx->restart_id >= 0;
    if (*flag)
        copy_name(name, dset_name(ctx, ctx->restart_id));
    return SCR_SUCCESS;
}

int SCR_Start_restart(char *name)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!restart_check(ctx, "SCR_Start_restart", SCR_STATE_IDLE))
        return SCR_FAILURE;
    if (!ctx->enabled || ctx->restart_id < 0) {
        log_err("SCR_Start_restart: there is no checkpoint to restart from "
                "(check SCR_Have_restart)");
        return SCR_FAILURE;
    }
    MPI_Barrier(ctx->comm);
    ctx->state = SCR_STATE_RESTART;
    log_dbg(1, "restarting from dataset %d (%s) %s", ctx->restart_id,
            dset_name(ctx, ctx->restart_id), ctx->rpfs ? "on the prefix" : "in cache");
    if (ctx->rank == 0)
        evlog_event(ctx, "RESTART", "dset=%d name=%s", ctx->restart_id,
                    dset_name(ctx, ctx->restart_id));
    return copy_name(name, dset_name(ctx, ctx->restart_id));
}

int SCR_Complete_restart(int valid)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!restart_check(ctx, "SCR_Complete_restart", SCR_STATE_RESTART))
        return SCR_FAILURE;
    int mine = valid != 0, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, ctx->comm);
    ctx->state = SCR_STATE_IDLE;
    if (all) {
        ctx->restart_id = -1;
        rpfs_close(ctx);
        return SCR_SUCCESS;
    }
    if (ctx->rank == 0)
        log_err("restart from dataset %d (%s) failed on some process", ctx->restart_id,
                dset_name(ctx, ctx->restart_id));
    scr_restart_failed(ctx, ctx->restart_id);
    return SCR_FAILURE;
}

void scr_restart_failed(scr_ctx_t *ctx, int id)
{
    int *f = realloc(ctx->failed, sizeof(int) * (size_t)(ctx->nfailed + 1));
    if (f) {
        ctx->failed = f;
        ctx->failed[ctx->nfailed++] = id;
    }
    if (ctx->rpfs && id == ctx->restart_id) {
        /* the application's verdict, not the files': nothing is deleted
         * from the prefix, and the next job may try it again */
        rpfs_close(ctx);
        ctx->restart_id = -1;
        return;
    }
    /* useless now, and its name must be free for the run's next checkpoint */
    flush_async_poll(ctx, 1);
    cache_delete_dset(ctx, id);
    ctx->restart_id = cache_newest_ckpt(ctx, id);
}

/* rank 0's lookup of a dataset by name, shared with everyone */
static int find_named(scr_ctx_t *ctx, const char *fn, const char *name)
{
    if (!name) {
        log_err("%s: NULL name", fn);
        return -2;
    }
    int id = cache_find_name(ctx, name);
    MPI_Bcast(&id, 1, MPI_INT, 0, ctx->comm);
    return id;
}

/* rank 0: the newest complete checkpoint of the index named name, made
 * CURRENT there; its CKPT number in *ckpt.  -1 if there is none. */
static int current_on_prefix(scr_ctx_t *ctx, const char *name, int *ckpt)
{
    kvtree_t *index = kvtree_new();
    char dir[256];
    int id = -1;
    if (index_read(ctx->prefix, index, NULL) == 0)
        id = index_pick(index, name, INT32_MAX, dir, sizeof(dir));
    /* the pick falls back to older ones; this must be the named one */
    const char *nm = id >= 0 ? kvtree_get_val(index_dset_desc(index, id), "NAME") : NULL;
    if (!nm || strcmp(nm, name) != 0)
        id = -1;
    if (id >= 0) {
        kvtree_util_get_int(index_dset_desc(index, id), "CKPT", ckpt);
        index_mark_fetched(ctx->prefix, id, dir, NULL); /* CURRENT */
    }
    kvtree_delete(&index);
    return id;
}

/* the next checkpoint follows the one named current: its CKPT number (for
 * SCR_FLUSH's count) and, from the cache's record, id */
static void current_counters(scr_ctx_t *ctx, int id, int ckpt)
{
    if (ckpt < 0)
        kvtree_util_get_int(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "CKPT",
                            &ckpt);
    MPI_Allreduce(MPI_IN_PLACE, &ckpt, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (ckpt >= 0)
        ctx->checkpoint_id = ckpt;
    if (id > ctx->dataset_id)
        ctx->dataset_id = id;
}

int SCR_Current(const char *name)
{
    scr_ctx_t *ctx = scr_ctx();
    if (ctx->initialized && !ctx->enabled)
        return SCR_SUCCESS;
    if (!restart_check(ctx, "SCR_Current", SCR_STATE_IDLE))
        return SCR_FAILURE;
    int id = find_named(ctx, "SCR_Current", name);
    if (id == -2)
        return SCR_FAILURE;
    if (id >= 0 && cache_newest_ckpt(ctx, id + 1) == id) {
        ctx->restart_id = id;
        current_counters(ctx, id, -1);
        return SCR_SUCCESS;
    }
    /* not in cache: a checkpoint on the prefix, which the application read
     * itself (restart without SCR) or wants to restart from */
    int ckpt = -1;
    if (ctx->rank == 0)
        id = current_on_prefix(ctx, name, &ckpt);
    MPI_Bcast(&id, 1, MPI_INT, 0, ctx->comm);
    MPI_Bcast(&ckpt, 1, MPI_INT, 0, ctx->comm);
    if (id < 0) {
        if (ctx->rank == 0)
            log_err("SCR_Current: no complete checkpoint named '%s' in cache or in the "
                    "index of %s",
                    name, ctx->prefix);
        return SCR_FAILURE;
    }
    current_counters(ctx, id, ckpt);
    if (ctx->restart_id >= 0 && ctx->restart_id != id) {
        /* the restart API offers the named one, not the newest */
        char dir[64];
        pfs_dset_name(id, dir, sizeof(dir));
        rpfs_close(ctx);
        ctx->restart_id = rpfs_open(ctx, id, dir) == 0 ? id : -1;
    }
    return SCR_SUCCESS;
}

static int drop_named(const char *fn, const char *name, int delete_pfs)
{
    scr_ctx_t *ctx = scr_ctx();
    if (ctx->initialized && !ctx->enabled)
        return SCR_SUCCESS;
    if (!restart_check(ctx, fn, SCR_STATE_IDLE))
        return SCR_FAILURE;
    int id = find_named(ctx, fn, name);
    if (id == -2)
        return SCR_FAILURE;
    flush_async_poll(ctx, 1);
    if (id >= 0) {
        cache_delete_dset(ctx, id);
        if (ctx->restart_id == id)
            ctx->restart_id = cache_newest_ckpt(ctx, id);
    }
    /* the prefix: the dataset leaves the index (and, for Delete, the disk:
     * its files that no other dataset names, found spread over the ranks) */
    int n = 0, *ids = NULL, named = 0;
    if (ctx->rank == 0) {
        kvtree_t *index = kvtree_new();
        index_read(ctx->prefix, index, NULL);
        kvtree_list_int(kvtree_get(index, "DSET"), &n, &ids);
        for (int i = 0; i < n; i++) {
            const char *nm = kvtree_get_val(index_dset_desc(index, ids[i]), "NAME");
            if (nm && strcmp(nm, name) == 0)
                ids[named++] = ids[i];
        }
        kvtree_delete(&index);
    }
    if (delete_pfs) {
        flush_delete(ctx, ids, named);
    } else {
        for (int i = 0; i < named; i++) {
            index_remove(ctx->prefix, ids[i], NULL);
            flushfile_set(ctx->prefix, ids[i], "PFS", 0, NULL);
        }
    }
    free(ids);
    return SCR_SUCCESS;
}

int SCR_Drop(const char *name)
{
    return drop_named("SCR_Drop", name, 0);
}

int SCR_Delete(const char *name)
{
    return drop_named("SCR_Delete", name, 1);
}
