/* SPDX-License-Identifier: BSD-3-Clause */
/* api_util.h - helpers shared by the files implementing the SCR API */
#ifndef SCR_API_UTIL_H
#define SCR_API_UTIL_H

#include "error.h"
#include "scr_ctx.h"

/* the one library context */
scr_ctx_t *scr_ctx(void);

/* Every process learns whether all succeeded; the lowest failing rank with a
 * message (err set and not empty) prints it, prefixed with what (none has
 * one: the lowest failing rank prints what alone).  Returns 1 if all ok. */
int scr_agree(scr_ctx_t *ctx, int ok, const char *what, const scr_error_t *err);
/* the same over comm, a duplicate of the world (the background encode's) */
int scr_agree_on(scr_ctx_t *ctx, MPI_Comm comm, int ok, const char *what,
                 const scr_error_t *err);

/* SCR_Start_output, protected with descriptor CKPT=rd_index (-1: the one
 * the checkpoint policy picks); cached: never bypass the cache (memory
 * checkpoints are read back from it) */
int scr_output_start(scr_ctx_t *ctx, const char *name, int flags, int rd_index,
                     int cached);
/* SCR_Complete_output; flush_now: the dataset is on the prefix before the
 * call returns, whatever SCR_FLUSH says */
int scr_output_complete(scr_ctx_t *ctx, int valid, int flush_now);

/* after dataset id's redundancy ran in the background (redbg.h): keep a
 * good dataset (evict older ones, flush it if due) or delete a bad one;
 * secs: from the start of the output to the encode's end.  Collective. */
void scr_output_settle(scr_ctx_t *ctx, int id, reddesc_t *rd, int ok, double secs);

/* misuse checks: print one line naming the call and return 0 when unusable */
int scr_check_init(scr_ctx_t *ctx, const char *fn);

/* 1 when a halt condition of the halt file holds, or the job's end time
 * (scheduler, else SCR_END_TIME) is closer than SCR_HALT_SECONDS.  Rank 0
 * decides, everyone learns it (and the reason, cut to SCR_HALT_REASON_MAX
 * bytes).  Collective. */
#define SCR_HALT_REASON_MAX 256
int scr_halt_check(scr_ctx_t *ctx, char *reason, size_t len);
/* fresh 0: use the copy read in the last 10 s (SCR_Need_checkpoint and
 * SCR_Should_exit run every step: no PFS access each time) */
int scr_halt_check_fresh(scr_ctx_t *ctx, int fresh, char *reason, size_t len);
/* after a completed dataset: count a checkpoint against CheckpointsLeft (if
 * set), then check; one read of the halt file when no counter is set */
int scr_halt_after_dataset(scr_ctx_t *ctx, int checkpoint, char *reason, size_t len);
int scr_halt_pending(scr_ctx_t *ctx);
/* the restart from dataset id failed: delete it from cache and offer the
 * next older complete checkpoint instead (collective) */
void scr_restart_failed(scr_ctx_t *ctx, int id);

/* flush the newest checkpoint if needed, shut SCR and MPI down, exit(0) */
void scr_halt_exit(scr_ctx_t *ctx, const char *reason) __attribute__((noreturn));

#endif
