/* SPDX-License-Identifier: BSD-3-Clause */
/* api_output.c - SCR_Start_output, SCR_Route_file, SCR_Complete_output and
 * the checkpoint policy (program flow "SCR_Start_checkpoint",
 * "SCR_Complete_checkpoint", "SCR_Need_checkpoint") */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "api_util.h"
#include "bypass.h"
#include "cache.h"
#include "crcbg.h"
#include "desc.h"
#include "evlog.h"
#include "fault.h"
#include "filemap.h"
#include "filepool.h"
#include "flush.h"
#include "pfs.h"
#include "io.h"
#include "log.h"
#include "mtbf.h"
#include "path.h"
#include "red.h"
#include "redbg.h"
#include "rpfs.h"
#include "scr.h"

static int out_check(scr_ctx_t *ctx, const char *fn, enum scr_state want)
{
    static const char *const names[] = {"without an open SCR_Start_output",
                                        "inside an open output", "inside a restart"};
    if (!scr_check_init(ctx, fn))
        return 0;
    if (ctx->state == want)
        return 1;
    if (ctx->state == SCR_STATE_OUTPUT)
        log_err("%s: called inside open output '%s'", fn, ctx->out.name);
    else
        log_err("%s: called %s", fn, names[ctx->state]);
    return 0;
}

/* The dataset's creation time, the same on every rank: rank 0's.  The
 * index keeps rank 0's descriptor, and a scavenge on a node without rank 0
 * compares its own filemap's CREATED with the index's to know whether the
 * dataset on the prefix is this one; a time of its own would never match,
 * and the node would copy a dataset that is already there again. */
static uint64_t out_created(scr_ctx_t *ctx)
{
    uint64_t t = 0;
    if (ctx->rank == 0) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        t = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
    }
    MPI_Bcast(&t, 1, MPI_UINT64_T, 0, ctx->comm);
    return t;
}

static kvtree_t *out_dsetdesc(scr_ctx_t *ctx)
{
    kvtree_t *d = kvtree_new();
    kvtree_util_set_int(d, "ID", ctx->out.id);
    kvtree_util_set_str(d, "NAME", ctx->out.name);
    kvtree_util_set_int(d, "FLAGS", ctx->out.flags);
    if (ctx->out.flags & SCR_FLAG_CHECKPOINT)
        kvtree_util_set_int(d, "CKPT", ctx->checkpoint_id);
    kvtree_util_set_u64(d, "CREATED", ctx->out.created);
    kvtree_util_set_str(d, "USER", ctx->user);
    kvtree_util_set_str(d, "JOBID", ctx->jobid);
    /* a scavenge on one node must know how many ranks to expect */
    kvtree_util_set_int(d, "RANKS", ctx->ranks);
    kvtree_util_set_str(d, "DIR", ctx->out.dir);
    kvtree_util_set_int(d, "COMPLETE", 0);
    return d;
}

/* create the dataset directory and record the dataset before any file */
static int out_begin(scr_ctx_t *ctx, scr_error_t *err)
{
    const store_t *st = &ctx->stores[ctx->out.rd->store];
    cache_evict(ctx, st, 1);
    cache_dset_dir(st, ctx->out.id, ctx->out.dir, sizeof(ctx->out.dir));
    kvtree_t *d = out_dsetdesc(ctx), *r = reddesc_to_kvtree(ctx, ctx->out.rd);
    filemap_set_desc(ctx->filemap, ctx->out.id, "DSETDESC", d);
    filemap_set_desc(ctx->filemap, ctx->out.id, "REDDESC", r);
    kvtree_util_set_int(filemap_rank(ctx->filemap, ctx->out.id, ctx->rank), "FILES", 0);
    kvtree_delete(&d);
    kvtree_delete(&r);
    ctx->out.routed = ctx->out.recorded = 0;
    if (filemap_write(ctx->filemap_path, ctx->filemap, err) < 0)
        return -1;
    return io_mkdir_p(ctx->out.dir, 0700, err);
}

int SCR_Start_output(const char *name, int flags)
{
    return scr_output_start(scr_ctx(), name, flags, -1, 0);
}

int scr_output_start(scr_ctx_t *ctx, const char *name, int flags, int rd_index,
                     int cached)
{
    if (ctx->initialized && !ctx->enabled)
        return SCR_SUCCESS;
    ctx->out_entered = scr_now(); /* the application's time ends (cache_evict) */
    if (!out_check(ctx, "SCR_Start_output", SCR_STATE_IDLE))
        return SCR_FAILURE;
    if (!(flags & (SCR_FLAG_CHECKPOINT | SCR_FLAG_OUTPUT))) {
        log_err("SCR_Start_output: flags must include SCR_FLAG_CHECKPOINT or "
                "SCR_FLAG_OUTPUT");
        return SCR_FAILURE;
    }
    if (name && !*name)
        name = NULL; /* as with SCR 3.1: SCR names it */
    if (name && (strlen(name) >= SCR_MAX_FILENAME || strchr(name, '/'))) {
        log_err("SCR_Start_output: bad dataset name '%s'", name);
        return SCR_FAILURE;
    }
    /* the previous dataset's background encode owns the filemap */
    redbg_poll(ctx, 1);
    /* the CRC32 pass of the last SINGLE dataset had the application's
     * time; beside this output's writes it would only slow them.  Stopped
     * after the poll: recording what it finished writes the filemap */
    crcbg_stop(ctx);
    if (name && cache_find_name(ctx, name) >= 0) {
        log_err("SCR_Start_output: a cached dataset is already named '%s'", name);
        return SCR_FAILURE;
    }
    /* nobody deletes cached files before everyone got this far: the
     * poll's first allreduce, which every rank enters, is the barrier */
    flush_async_poll(ctx, 0);
    ctx->out.id = ++ctx->dataset_id;
    if (flags & SCR_FLAG_CHECKPOINT)
        ctx->checkpoint_id++;
    ctx->out.flags = flags;
    if (name)
        snprintf(ctx->out.name, sizeof(ctx->out.name), "%s", name);
    else
        snprintf(ctx->out.name, sizeof(ctx->out.name), "scr.dataset.%d", ctx->out.id);
    ctx->out.rd = rd_index >= 0 ? desc_by_index(ctx, rd_index)
                                : desc_select(ctx, (flags & SCR_FLAG_CHECKPOINT)
                                                       ? ctx->checkpoint_id
                                                       : ctx->out.id);
    ctx->out.t0 = scr_now();
    ctx->out.created = out_created(ctx);
    scr_error_t err = {""};
    int ok = ctx->out.rd != NULL;
    if (!ok)
        errprintf(&err,
                  rd_index >= 0 ? "no enabled redundancy descriptor CKPT=%d"
                                : "no enabled redundancy descriptor",
                  rd_index);
    else if (cached && ctx->cache_foreign)
        ok = errprintf(&err, "memory checkpoints need the cache, which holds another "
                             "job shape's datasets") == 0;
    ctx->out.bypass = ok && !cached && (ctx->out.rd->bypass || ctx->cache_foreign);
    if (ctx->out.bypass)
        bypass_begin(ctx);
    else if (ok)
        ok = out_begin(ctx, &err) == 0;
    if (!scr_agree(ctx, ok, "SCR_Start_output", &err)) {
        cache_delete_dset(ctx, ctx->out.id);
        return SCR_FAILURE;
    }
    ctx->state = SCR_STATE_OUTPUT;
    if (ctx->rank == 0)
        evlog_event(ctx, "DATASET_START", "dset=%d name=%s flags=%d type=%s", ctx->out.id,
                    ctx->out.name, flags,
                    ctx->out.bypass ? "BYPASS" : desc_type_name(ctx->out.rd->type));
    return SCR_SUCCESS;
}

int SCR_Start_checkpoint(void)
{
    return SCR_Start_output(NULL, SCR_FLAG_CHECKPOINT);
}

static int route_copy(char *file, const char *path)
{
    if (strlen(path) >= SCR_MAX_FILENAME) {
        log_err("SCR_Route_file: %s is longer than SCR_MAX_FILENAME", path);
        return SCR_FAILURE;
    }
    strcpy(file, path);
    return SCR_SUCCESS;
}

/* abs relative to the prefix, or NULL when it is not inside it */
static const char *route_rel(const scr_ctx_t *ctx, const char *abs)
{
    if (!path_is_under(abs, ctx->prefix) || strcmp(abs, ctx->prefix) == 0)
        return NULL;
    return abs + strlen(ctx->prefix) + (strcmp(ctx->prefix, "/") != 0);
}

/* The filemap on disk gets a routed file before the file exists when
 * rewriting it costs little: the first file, then each time the files routed
 * since have doubled.  Rewriting the whole map for every file made an
 * output of n files O(n^2): 4,000 files a rank took 11-15 s a checkpoint
 * once the map also held the dataset before (LLNL SCR 3.1: 4.6-4.9 s).  A
 * process that dies before SCR_Complete_output leaves files the map on
 * disk does not name: the restart that drops the never completed dataset
 * removes its whole directory on every node (rebuild.c), so none stay. */
static int route_record(scr_ctx_t *ctx, scr_error_t *err)
{
    ctx->out.routed++;
    if (ctx->out.routed <= 2 * ctx->out.recorded)
        return 0;
    ctx->out.recorded = ctx->out.routed;
    return filemap_write(ctx->filemap_path, ctx->filemap, err);
}

/* a new file of the open output: record it, then hand out its cache path */
static int route_output(scr_ctx_t *ctx, const char *abs, char *file)
{
    const char *rel = route_rel(ctx, abs);
    if (!rel) {
        log_err("SCR_Route_file: %s is not inside SCR_PREFIX %s", abs, ctx->prefix);
        return SCR_FAILURE;
    }
    if (ctx->out.bypass)
        return bypass_route(ctx, abs, rel, file);
    char path[SCR_PATH_MAX * 2], parent[SCR_PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/%s", ctx->out.dir, rel);
    if (!filemap_file(ctx->filemap, ctx->out.id, ctx->rank, path)) {
        kvtree_t *meta = kvtree_new();
        kvtree_util_set_str(meta, "TYPE", FM_TYPE_USER);
        kvtree_util_set_str(meta, "ORIG", abs);
        kvtree_util_set_str(meta, "REL", rel);
        kvtree_util_set_int(meta, "COMPLETE", 0);
        filemap_add_file(ctx->filemap, ctx->out.id, ctx->rank, path, meta);
        kvtree_delete(&meta);
        scr_error_t err;
        snprintf(parent, sizeof(parent), "%s", path);
        *strrchr(parent, '/') = '\0';
        if (route_record(ctx, &err) < 0 || io_mkdir_p(parent, 0700, &err) < 0) {
            log_err("SCR_Route_file: %s", err.text);
            return SCR_FAILURE;
        }
    }
    return route_copy(file, path);
}

/* a file of the restart dataset, by its original name */
static int route_restart(scr_ctx_t *ctx, const char *abs, const char *name, char *file)
{
    if (ctx->rpfs) { /* any file of the dataset, wherever it is on the prefix */
        char path[SCR_PATH_MAX * 2];
        const char *rel = route_rel(ctx, abs);
        if (rel && rpfs_route(ctx, rel, path, sizeof(path)) == 0)
            return route_copy(file, path);
    }
    kvtree_t *files =
        kvtree_get(filemap_get_rank(ctx->filemap, ctx->restart_id, ctx->rank), "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        const char *orig = kvtree_get_val(kvtree_elem_tree(e), "ORIG");
        if (orig && strcmp(orig, abs) == 0)
            return route_copy(file, kvtree_elem_key(e));
    }
    if (ctx->state == SCR_STATE_RESTART)
        log_err("SCR_Route_file: %s is not part of restart dataset %d", name,
                ctx->restart_id);
    route_copy(file, name);
    return SCR_FAILURE;
}

int SCR_Route_file(const char *name, char *file)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!name || !file) {
        log_err("SCR_Route_file: NULL %s", name ? "file buffer" : "name");
        return SCR_FAILURE;
    }
    if (ctx->initialized && !ctx->enabled)
        return route_copy(file, name);
    if (!scr_check_init(ctx, "SCR_Route_file"))
        return SCR_FAILURE;
    if (!*name || strlen(name) >= SCR_MAX_FILENAME) {
        log_err("SCR_Route_file: bad file name '%s'", name);
        return SCR_FAILURE;
    }
    char *abs = path_abs_reduce_str(name);
    int rc = SCR_FAILURE;
    if (!abs)
        log_err("SCR_Route_file: cannot resolve %s", name);
    else if (ctx->state == SCR_STATE_OUTPUT)
        rc = route_output(ctx, abs, file);
    else if (ctx->restart_id >= 0 &&
             (ctx->state == SCR_STATE_RESTART || ctx->out.id == 0))
        rc = route_restart(ctx, abs, name, file); /* also the SCR v1 style after Init */
    else
        log_err("SCR_Route_file: %s: called outside SCR_Start_output/SCR_Start_restart",
                name);
    free(abs);
    return rc;
}

/* size and (unless crc is 0) CRC of each routed file; a routed file that is
 * missing makes the output invalid.  Returns my byte count. */
static uint64_t out_finish_files(scr_ctx_t *ctx, int *valid, int crc_now)
{
    uint64_t bytes = 0;
    int n = 0;
    kvtree_t *files =
        kvtree_get(filemap_get_rank(ctx->filemap, ctx->out.id, ctx->rank), "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        kvtree_t *meta = kvtree_elem_tree(e);
        const char *path = kvtree_elem_key(e);
        struct stat st;
        uint32_t crc;
        uint64_t size;
        scr_error_t err;
        n++;
        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
            if (*valid)
                log_err("SCR_Complete_output: %s was routed but not written",
                        kvtree_get_val(meta, "ORIG"));
            *valid = 0;
            continue;
        }
        size = (uint64_t)st.st_size;
        if (crc_now && io_file_crc(path, &crc, &size, &err) < 0) {
            log_err("SCR_Complete_output: %s", err.text);
            *valid = 0;
            continue;
        }
        kvtree_util_set_u64(meta, "SIZE", size);
        if (crc_now)
            kvtree_util_set_crc32(meta, "CRC", crc);
        /* as the application left it, before any CRC32 pass reads it: a
         * restart that finds the same stamp need not read it again */
        char stamp[IO_STAMP_LEN];
        io_stamp(&st, stamp, sizeof(stamp));
        kvtree_util_set_str(meta, "STAMP", stamp);
        kvtree_util_set_int(meta, "COMPLETE", *valid);
        bytes += size;
    }
    kvtree_t *mine = filemap_rank(ctx->filemap, ctx->out.id, ctx->rank);
    kvtree_util_set_int(mine, "FILES", n);
    /* the node a scavenge finds this rank's record under (scavenge.h) */
    kvtree_util_set_str(mine, "HOST", ctx->topo.hostname);
    return bytes;
}

/* The files' sizes on disk before any rank can record the dataset
 * complete: a rank killed in between still has files a restart can check
 * (the dataset is complete when any rank recorded it so).  A rank that
 * cannot record them makes the dataset invalid. */
static void out_record_files(scr_ctx_t *ctx, int *mine)
{
    scr_error_t err;
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0) {
        log_err("SCR_Complete_output: %s", err.text);
        *mine = 0;
    }
}

/* after a good dataset: record it in the flush file, flush it if wanted */
static void out_flush(scr_ctx_t *ctx, int id, int flush_now)
{
    if (ctx->rank == 0)
        flushfile_set(ctx->prefix, id, "CACHE", 1, NULL);
    if (flush_now)
        flush_sync(ctx, id);
    else if (flush_wanted(ctx, id)) {
        if (config_get_int(ctx->cfg, "SCR_FLUSH_ASYNC", 0))
            flush_async_start(ctx, id);
        else
            flush_sync(ctx, id);
    }
}

/* count a checkpoint against CheckpointsLeft, stop if a halt condition holds */
static void out_halt(scr_ctx_t *ctx, int checkpoint)
{
    char reason[SCR_HALT_REASON_MAX] = "";
    if (scr_halt_after_dataset(ctx, checkpoint, reason, sizeof(reason))) {
        if (ctx->rank == 0)
            log_msg("halt condition %s holds", reason);
        if (config_get_int(ctx->cfg, "SCR_HALT_EXIT", 0))
            scr_halt_exit(ctx, reason);
    }
}

/* redundancy in place, then the verdict recorded; returns it */
static int out_protect(scr_ctx_t *ctx, int id, int all)
{
    scr_error_t err = {""};
    if (all) {
        fault_point("output.redundancy", ctx->rank);
        /* red_apply agrees already; a second agreement only on failure,
         * to name the rank that knows why */
        all = red_apply(ctx, ctx->out.rd, id, ctx->out.dir, ctx->comm, &err) == 0;
        if (!all &&
            scr_agree(ctx, !err.text[0], "SCR_Complete_output: redundancy", &err) &&
            ctx->rank == 0)
            log_err("SCR_Complete_output: redundancy failed");
    }
    fault_point("output.protected", ctx->rank); /* redundancy done, not marked */
    kvtree_util_set_int(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "COMPLETE", all);
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("SCR_Complete_output: %s", err.text);
    fault_point("output.marked", ctx->rank); /* COMPLETE recorded */
    return all;
}

/* keep a good dataset (older ones evicted) or drop a bad one.  The files
 * evicted when this output started had their chance to be written over:
 * what is left of them is deleted behind the application (filepool.h). */
static void out_keep(scr_ctx_t *ctx, int id, const char *name, const reddesc_t *rd,
                     int ok)
{
    filepool_drain_async(ctx->pool);
    if (ok) {
        cache_evict(ctx, &ctx->stores[rd->store], 0);
        return;
    }
    if (ctx->rank == 0)
        log_err("dataset %d (%s) is invalid and was not kept", id, name);
    cache_delete_dset(ctx, id);
}

/* SINGLE: the CRC pass after Complete returns (crcbg.h) */
static void out_crc_later(scr_ctx_t *ctx, int id)
{
    scr_error_t err;
    if (crcbg_start(ctx, id) < 0) {
        /* no thread: the pass runs here after all */
        int again = 1;
        out_finish_files(ctx, &again, 1);
        if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
            log_err("SCR_Complete_output: %s", err.text);
    }
}

void scr_output_settle(scr_ctx_t *ctx, int id, reddesc_t *rd, int ok, double secs)
{
    const char *name =
        kvtree_get_val(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "NAME");
    char nm[SCR_MAX_FILENAME];
    snprintf(nm, sizeof(nm), "%s", name ? name : "?");
    out_keep(ctx, id, nm, rd, ok);
    if (ok)
        log_dbg(1,
                "dataset %d (%s): %s redundancy done in the background, %.3f s after "
                "the output started",
                id, nm, desc_type_name(rd->type), secs);
    if (ctx->rank == 0)
        evlog_event(ctx, "REDUNDANCY_END", "dset=%d name=%s type=%s secs=%.3f ok=%d", id,
                    nm, desc_type_name(rd->type), secs, ok);
    if (ok)
        out_flush(ctx, id, 0);
}

int SCR_Complete_output(int valid)
{
    return scr_output_complete(scr_ctx(), valid, 0);
}

/* the end of an output whose files went straight to the prefix */
static int out_complete_bypass(scr_ctx_t *ctx, int valid)
{
    uint64_t total = 0;
    kvtree_t *d = out_dsetdesc(ctx);
    int all = bypass_complete(ctx, d, valid, &total);
    kvtree_delete(&d);
    double secs = scr_now() - ctx->out.t0;
    int checkpoint = (ctx->out.flags & SCR_FLAG_CHECKPOINT) != 0;
    if (checkpoint) {
        mtbf_checkpointed(ctx, secs);
    }
    ctx->state = SCR_STATE_IDLE;
    if (all)
        log_dbg(1, "dataset %d (%s): %llu bytes in %.3f s, written to the prefix",
                ctx->out.id, ctx->out.name, (unsigned long long)total, secs);
    if (ctx->rank == 0)
        evlog_event(ctx, "DATASET_END",
                    "dset=%d name=%s bytes=%llu secs=%.3f ok=%d type=BYPASS flags=%d",
                    ctx->out.id, ctx->out.name, (unsigned long long)total, secs, all,
                    ctx->out.flags);
    if (all)
        out_halt(ctx, checkpoint);
    return all ? SCR_SUCCESS : SCR_FAILURE;
}

static int out_complete(scr_ctx_t *ctx, int valid, int flush_now);

int scr_output_complete(scr_ctx_t *ctx, int valid, int flush_now)
{
    int rc = out_complete(ctx, valid, flush_now);
    ctx->out_returned = scr_now(); /* the application's time begins */
    return rc;
}

static int out_complete(scr_ctx_t *ctx, int valid, int flush_now)
{
    if (ctx->initialized && !ctx->enabled)
        return SCR_SUCCESS;
    if (!out_check(ctx, "SCR_Complete_output", SCR_STATE_OUTPUT))
        return SCR_FAILURE;
    fault_point("output.written", ctx->rank); /* the files written, nothing recorded */
    if (ctx->out.bypass)
        return out_complete_bypass(ctx, valid);
    int id = ctx->out.id, mine = valid != 0, all;
    /* SINGLE reads nothing at completion: its CRC pass can run behind;
     * PARTNER, XOR and RS compute the CRCs from the bytes they read */
    red_type_t type = ctx->out.rd->type;
    int crc_later = type == RED_SINGLE && config_get_int(ctx->cfg, "SCR_CRC_ASYNC", 1);
    int crc_now = !crc_later && type == RED_SINGLE;
    /* a memory checkpoint's file hashes every chunk itself (ftiff.h) */
    int mem = 0;
    kvtree_util_get_int(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "MEM", &mem);
    if (mem)
        crc_later = crc_now = 0;
    uint64_t bytes = out_finish_files(ctx, &mine, crc_now), total = 0;
    fault_point("output.crc", ctx->rank); /* sizes (and CRCs) taken, not agreed */
    out_record_files(ctx, &mine);
    /* a file ranks on two nodes write would be two pieces in two caches */
    if (!mem && bypass_shared_names(ctx))
        mine = 0;
    /* one collective: valid everywhere when every rank counts itself */
    uint64_t v[2] = {mine != 0, bytes}, sum[2];
    MPI_Allreduce(v, sum, 2, MPI_UINT64_T, MPI_SUM, ctx->comm);
    all = sum[0] == (uint64_t)ctx->ranks;
    total = sum[1];
    kvtree_util_set_u64(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "SIZE", total);
    /* a memory checkpoint's state moves on when it returns: not behind */
    /* the files are recorded (out_record_files); the thread records the
     * rest once the sets agree */
    int later = all && !flush_now && !mem && redbg_usable(ctx, ctx->out.rd) &&
                redbg_start(ctx, ctx->out.rd, id, ctx->out.t0) == 0;
    if (!later)
        all = out_protect(ctx, id, all);
    double secs = scr_now() - ctx->out.t0;
    if (!later)
        out_keep(ctx, id, ctx->out.name, ctx->out.rd, all);
    if (!later && all && crc_later)
        out_crc_later(ctx, id);
    if (all)
        log_dbg(1, "dataset %d (%s): %llu bytes in %.3f s, %s%s", id, ctx->out.name,
                (unsigned long long)total, secs, desc_type_name(ctx->out.rd->type),
                later ? " (redundancy in the background)" : "");
    int checkpoint = (ctx->out.flags & SCR_FLAG_CHECKPOINT) != 0;
    if (checkpoint) {
        mtbf_checkpointed(ctx, secs);
    }
    ctx->state = SCR_STATE_IDLE;
    if (ctx->rank == 0)
        evlog_event(ctx, "DATASET_END",
                    "dset=%d name=%s bytes=%llu secs=%.3f ok=%d type=%s flags=%d%s", id,
                    ctx->out.name, (unsigned long long)total, secs, all,
                    desc_type_name(ctx->out.rd->type), ctx->out.flags,
                    later ? " redundancy=background" : "");
    if (all && !later)
        out_flush(ctx, id, flush_now);
    if (all)
        out_halt(ctx, checkpoint);
    if (later)
        redbg_release(ctx);
    return all ? SCR_SUCCESS : SCR_FAILURE;
}

int SCR_Complete_checkpoint(int valid)
{
    return SCR_Complete_output(valid);
}

/* rank 0 decides from the policy parameters, everyone gets the answer */
int SCR_Need_checkpoint(int *flag)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!flag) {
        log_err("SCR_Need_checkpoint: NULL flag");
        return SCR_FAILURE;
    }
    if (ctx->initialized && !ctx->enabled) {
        *flag = 1;
        return SCR_SUCCESS;
    }
    if (!scr_check_init(ctx, "SCR_Need_checkpoint"))
        return SCR_FAILURE;
    ctx->need_calls++;
    /* every step: settle a finished background encode, never wait for one */
    if (!redbg_poll(ctx, 0))
        flush_async_poll(ctx, 0);
    int need = scr_halt_pending(ctx);
    if (ctx->rank == 0) {
        int every = config_get_int(ctx->cfg, "SCR_CHECKPOINT_INTERVAL", 0);
        int secs = config_get_int(ctx->cfg, "SCR_CHECKPOINT_SECONDS", 0);
        int pct = config_get_int(ctx->cfg, "SCR_CHECKPOINT_OVERHEAD", 0);
        double now = scr_now(), run = now - ctx->t_init;
        if (every > 0 && ctx->need_calls % every == 0)
            need = 1;
        if (secs > 0 && now - ctx->t_last_ckpt >= secs)
            need = 1;
        if (pct > 0 && run > 0 && ctx->ckpt_seconds / run * 100.0 < pct)
            need = 1;
        int mtbf = mtbf_need(ctx, now);
        if (mtbf > 0)
            need = 1;
        if (every <= 0 && secs <= 0 && pct <= 0 && mtbf < 0)
            need = 1; /* no policy: every call says yes, as in SCR */
    }
    MPI_Bcast(&need, 1, MPI_INT, 0, ctx->comm);
    *flag = need;
    return SCR_SUCCESS;
}

int SCR_Should_exit(int *flag)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!flag) {
        log_err("SCR_Should_exit: NULL flag");
        return SCR_FAILURE;
    }
    *flag = 0;
    if (ctx->initialized && !ctx->enabled)
        return SCR_SUCCESS;
    if (!scr_check_init(ctx, "SCR_Should_exit"))
        return SCR_FAILURE;
    if (!redbg_poll(ctx, 0))
        flush_async_poll(ctx, 0);
    *flag = scr_halt_pending(ctx);
    return SCR_SUCCESS;
}
