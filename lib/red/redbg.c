/* SPDX-License-Identifier: BSD-3-Clause */
/* redbg.c - asynchronous redundancy (see redbg.h) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "fault.h"
#include "filemap.h"
#include "log.h"
#include "red.h"
#include "redbg.h"

struct redbg {
    pthread_t thread;
    scr_ctx_t *ctx;
    reddesc_t *rd;
    int id;
    char dir[SCR_PATH_MAX];
    double t0;   /* the output started */
    double secs; /* start of output to the encode agreed */
    int ok;
    atomic_int done;
    /* the thread waits for go: 1 when SCR_Complete_output is over, -1 when
     * it must not run at all */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int go;
};

void redbg_init(scr_ctx_t *ctx)
{
    ctx->redbg = NULL;
    ctx->bg_comm = MPI_COMM_NULL;
    if (!config_get_int(ctx->cfg, "SCR_REDUNDANCY_ASYNC", 0))
        return;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE) {
        if (ctx->rank == 0)
            log_warn("SCR_REDUNDANCY_ASYNC=1 needs MPI_Init_thread with "
                     "MPI_THREAD_MULTIPLE; the redundancy encode runs inside "
                     "SCR_Complete_output");
        return;
    }
    MPI_Comm_dup(ctx->comm, &ctx->bg_comm);
}

void redbg_fini(scr_ctx_t *ctx)
{
    redbg_poll(ctx, 1);
    if (ctx->bg_comm != MPI_COMM_NULL)
        MPI_Comm_free(&ctx->bg_comm);
}

int redbg_usable(const scr_ctx_t *ctx, const reddesc_t *rd)
{
    return ctx->bg_comm != MPI_COMM_NULL && rd->type != RED_SINGLE;
}

int redbg_busy(const scr_ctx_t *ctx)
{
    return ctx->redbg != NULL;
}

/* the encode, then the verdict every rank agrees on, then COMPLETE */
static void *redbg_main(void *arg)
{
    struct redbg *b = arg;
    scr_ctx_t *ctx = b->ctx;
    scr_error_t err = {""};
    pthread_mutex_lock(&b->lock);
    while (!b->go)
        pthread_cond_wait(&b->cond, &b->lock);
    int go = b->go;
    pthread_mutex_unlock(&b->lock);
    if (go < 0)
        return NULL;
    fault_point("redundancy.background", ctx->rank);
    char what[96];
    snprintf(what, sizeof(what),
             "SCR_Complete_output: redundancy of dataset %d (in the background)", b->id);
    int ok = red_apply(ctx, b->rd, b->id, b->dir, ctx->bg_comm, &err) == 0;
    ok = scr_agree_on(ctx, ctx->bg_comm, ok, what, &err);
    fault_point("redundancy.background.done", ctx->rank); /* encoded, not marked */
    kvtree_util_set_int(filemap_get_desc(ctx->filemap, b->id, "DSETDESC"), "COMPLETE",
                        ok);
    /* as in place (out_protect): the verdict stands; a rank that dropped
     * it alone would settle apart from the others, in other collectives */
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("SCR_Complete_output: %s", err.text);
    b->ok = ok;
    b->secs = scr_now() - b->t0;
    atomic_store(&b->done, 1);
    return NULL;
}

static void redbg_go(struct redbg *b, int go)
{
    pthread_mutex_lock(&b->lock);
    if (!b->go)
        b->go = go;
    pthread_cond_signal(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

static void redbg_free(struct redbg *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b);
}

void redbg_release(scr_ctx_t *ctx)
{
    if (ctx->redbg)
        redbg_go(ctx->redbg, 1);
}

int redbg_start(scr_ctx_t *ctx, reddesc_t *rd, int id, double t0)
{
    struct redbg *b = calloc(1, sizeof(*b));
    int ok = b != NULL;
    if (ok) {
        b->ctx = ctx;
        b->rd = rd;
        b->id = id;
        snprintf(b->dir, sizeof(b->dir), "%s", ctx->out.dir);
        b->t0 = t0;
        atomic_init(&b->done, 0);
        pthread_mutex_init(&b->lock, NULL);
        pthread_cond_init(&b->cond, NULL);
        ok = pthread_create(&b->thread, NULL, redbg_main, b) == 0;
        if (!ok) {
            redbg_free(b);
            b = NULL;
        }
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, ctx->comm);
    if (all) {
        ctx->redbg = b;
        return 0;
    }
    if (ok) {
        /* another rank has no thread: this one's has not begun, and the
         * caller encodes in place with everyone else */
        redbg_go(b, -1);
        pthread_join(b->thread, NULL);
        redbg_free(b);
    }
    return -1;
}

int redbg_poll(scr_ctx_t *ctx, int wait)
{
    struct redbg *b = ctx->redbg;
    if (!b)
        return 0;   /* encodes start and end collectively */
    redbg_go(b, 1); /* SCR_Complete_output released it, unless it exited */
    if (!wait) {
        int done = atomic_load(&b->done), all;
        MPI_Allreduce(&done, &all, 1, MPI_INT, MPI_LAND, ctx->comm);
        if (!all)
            return 1;
    }
    pthread_join(b->thread, NULL);
    ctx->redbg = NULL;
    scr_output_settle(ctx, b->id, b->rd, b->ok, b->secs);
    redbg_free(b);
    return 0;
}
