/* SPDX-License-Identifier: BSD-3-Clause */
/* crcbg.c - CRC32 of a SINGLE dataset's files after completion (see crcbg.h) */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "crcbg.h"
#include "evlog.h"
#include "filemap.h"
#include "io.h"
#include "log.h"
#include "worker.h"

enum { CRC_NOT_DONE = -1, CRC_FAILED = 0, CRC_DONE = 1 };

struct crcbg {
    pthread_t thread;
    atomic_int stop; /* crcbg_stop: give up at the next MiB */
    int id;
    int n;
    char **paths;
    uint32_t *crcs;
    uint64_t *sizes;
    int *ok; /* CRC_DONE, CRC_FAILED (why says why) or CRC_NOT_DONE */
    char (*why)[256];
    double t0, t1;
};

static void *crcbg_run(void *arg)
{
    struct crcbg *b = arg;
    worker_lower_priority(); /* behind the application */
    for (int i = 0; i < b->n; i++) {
        scr_error_t err = {""};
        int rc =
            io_file_crc_until(b->paths[i], &b->crcs[i], &b->sizes[i], &b->stop, &err);
        b->ok[i] = rc == 0 ? CRC_DONE : rc > 0 ? CRC_NOT_DONE : CRC_FAILED;
        if (rc < 0)
            snprintf(b->why[i], sizeof(b->why[i]), "%s", err.text);
        if (rc > 0) {
            for (int k = i + 1; k < b->n; k++)
                b->ok[k] = CRC_NOT_DONE;
            break;
        }
    }
    b->t1 = scr_now();
    return NULL;
}

static void crcbg_free(struct crcbg *b)
{
    for (int i = 0; i < b->n; i++)
        free(b->paths[i]);
    free(b->paths);
    free(b->crcs);
    free(b->sizes);
    free(b->ok);
    free(b->why);
    free(b);
}

int crcbg_start(scr_ctx_t *ctx, int id)
{
    crcbg_stop(ctx); /* the older dataset is no longer the newest */
    kvtree_t *files = kvtree_get(filemap_get_rank(ctx->filemap, id, ctx->rank), "FILE");
    struct crcbg *b = calloc(1, sizeof(*b));
    int n = kvtree_size(files);
    if (!b)
        return -1;
    b->id = id;
    b->paths = calloc((size_t)n + 1, sizeof(char *));
    b->crcs = calloc((size_t)n + 1, sizeof(uint32_t));
    b->sizes = calloc((size_t)n + 1, sizeof(uint64_t));
    b->ok = calloc((size_t)n + 1, sizeof(int));
    b->why = calloc((size_t)n + 1, sizeof(*b->why));
    if (!b->paths || !b->crcs || !b->sizes || !b->ok || !b->why) {
        crcbg_free(b);
        return -1;
    }
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e))
        if ((b->paths[b->n] = strdup(kvtree_elem_key(e))))
            b->n++;
    b->t0 = scr_now();
    if (b->n != n || pthread_create(&b->thread, NULL, crcbg_run, b) != 0) {
        crcbg_free(b);
        return -1;
    }
    ctx->crcbg = b;
    return 0;
}

/* A file whose size changed since completion was written to afterwards:
 * its CRC would vouch for data the checkpoint never had.  Files the pass did
 * not reach keep their size only, as after a crash. */
static void crcbg_record(scr_ctx_t *ctx, struct crcbg *b)
{
    int bad = 0, skipped = 0;
    for (int i = 0; i < b->n; i++) {
        kvtree_t *meta = filemap_file(ctx->filemap, b->id, ctx->rank, b->paths[i]);
        uint64_t size;
        struct stat st;
        if (!meta || kvtree_util_get_u64(meta, "SIZE", &size) < 0)
            continue; /* dataset or file forgotten meanwhile */
        /* the thread may have finished before a late write: look again */
        int crcd_other = b->ok[i] == CRC_DONE && b->sizes[i] != size;
        if (b->ok[i] != CRC_FAILED && lstat(b->paths[i], &st) == 0 && !crcd_other)
            b->sizes[i] = (uint64_t)st.st_size;
        if (b->ok[i] == CRC_FAILED)
            log_err("dataset %d: CRC32 of %s: %s", b->id, b->paths[i], b->why[i]);
        else if (b->sizes[i] != size)
            log_err("dataset %d: %s changed after SCR_Complete_output (%llu bytes, "
                    "recorded %llu): no CRC32 recorded",
                    b->id, b->paths[i], (unsigned long long)b->sizes[i],
                    (unsigned long long)size);
        else if (b->ok[i] == CRC_DONE)
            kvtree_util_set_crc32(meta, "CRC", b->crcs[i]);
        bad += b->ok[i] == CRC_FAILED || b->sizes[i] != size;
        skipped += b->ok[i] == CRC_NOT_DONE && b->sizes[i] == size;
    }
    scr_error_t err;
    if (skipped < b->n && filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("%s", err.text);
    if (ctx->rank == 0)
        evlog_event(ctx, "CRC", "dset=%d files=%d secs=%.3f ok=%d stopped=%d", b->id,
                    b->n, b->t1 - b->t0, bad == 0, skipped);
}

static void crcbg_end(scr_ctx_t *ctx, int stop)
{
    struct crcbg *b = ctx->crcbg;
    if (!b)
        return;
    ctx->crcbg = NULL;
    if (stop)
        atomic_store(&b->stop, 1);
    pthread_join(b->thread, NULL);
    crcbg_record(ctx, b);
    crcbg_free(b);
}

void crcbg_finish(scr_ctx_t *ctx)
{
    crcbg_end(ctx, 0);
}

void crcbg_stop(scr_ctx_t *ctx)
{
    crcbg_end(ctx, 1);
}

void crcbg_release(scr_ctx_t *ctx, int id)
{
    if (ctx->crcbg && ctx->crcbg->id == id)
        crcbg_stop(ctx);
}
