/* SPDX-License-Identifier: BSD-3-Clause */
/* bypass.h - datasets written straight to the prefix (cache bypass).
 *
 * With SCR_CACHE_BYPASS=1 (or BYPASS=1 on the CKPT descriptor that protects
 * a checkpoint) SCR_Route_file hands out the file's own path on the prefix
 * and the application writes it there: what files that several processes
 * write together need (MPI-IO, parallel HDF5, N-to-1), and what a
 * cache too small for a checkpoint needs.  Nothing is cached or protected;
 * SCR_Complete_output takes each routed file's size, writes the rank2file
 * map and the summary in <prefix>/.scr/scr.dataset.<id>/ and records the
 * dataset complete in the index, so restart (from the prefix, rpfs.h),
 * fallback, `scr index`, SCR_PREFIX_SIZE and halt treat it as a flushed
 * dataset.  The bytes never pass through SCR, so no CRC32 is recorded.
 *
 * Without bypass, a file name that two ranks route for one dataset would
 * become a fragment in each node's cache: SCR_Complete_output finds such
 * names (bypass_shared_names) and fails.
 *
 * A job whose cache holds datasets of another number of ranks leaves that
 * cache alone and writes its own datasets this way (ctx->cache_foreign).
 */
#ifndef SCR_BYPASS_H
#define SCR_BYPASS_H

#include <stdint.h>

#include "scr_ctx.h"

/* the output just started (ctx->out) goes straight to the prefix */
void bypass_begin(scr_ctx_t *ctx);
/* SCR_Route_file of abs (rel: below the prefix) during a bypass output */
int bypass_route(scr_ctx_t *ctx, const char *abs, const char *rel, char *file);
/* SCR_Complete_output of a bypass output, dset its descriptor: 1 when
 * every rank's files are there and the dataset is recorded, else 0;
 * *total: the dataset's bytes */
int bypass_complete(scr_ctx_t *ctx, const kvtree_t *dset, int valid, uint64_t *total);
/* 1 (on every rank, after one line naming the file) if two ranks routed
 * the same file name for the open output: as with SCR 3.1, a file that
 * several processes write belongs on the prefix (in cache, ranks on two
 * nodes would each keep a piece of it, and ranks of one node would each
 * evict and rebuild it as their own).  Collective. */
int bypass_shared_names(scr_ctx_t *ctx);
/* 1 (on every rank, after one line) if this rank's cache records datasets
 * of another number of ranks than this job's.  Collective. */
int bypass_cache_foreign(scr_ctx_t *ctx);

#endif
