/* SPDX-License-Identifier: BSD-3-Clause */
/* fetch.h - restart from the prefix when the cache has nothing (guide
 * 2.26.12, program flow "scr_fetch_sync").
 *
 * Start at the index's CURRENT (or SCR_CURRENT by name), skipping datasets
 * that are incomplete or failed before; read the summary and the rank2file
 * tree (distributed, no reader over 1 MiB); copy each rank's files into
 * cache SCR_FETCH_WIDTH processes at a time, verifying size and CRC32; then
 * protect the dataset like a new checkpoint.  A dataset whose files are
 * known bad (missing, wrong size or CRC32) is marked FAILED in the index and
 * the next older one is tried; one that failed for another reason (the cache
 * full, the prefix unreadable for now) is skipped without a mark.  A
 * dataset of another number of ranks is not fetched but opened for restart
 * on the prefix (rpfs.h), as every dataset is with direct (SCR_GLOBAL_RESTART).
 * Collective.
 */
#ifndef SCR_FETCH_H
#define SCR_FETCH_H

#include "scr_ctx.h"

/* returns the id of the dataset now in cache (or, with ctx->rpfs set,
 * opened on the prefix), or -1 */
int fetch_sync(scr_ctx_t *ctx, int direct);

#endif
