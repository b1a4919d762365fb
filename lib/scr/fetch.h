/* fetch.h - restart from the prefix when the cache has nothing (guide
 * 2.26.12, program flow "scr_fetch_sync").
 *
 * Start at the index's CURRENT (or SCR_CURRENT by name), skipping datasets
 * that are incomplete or failed before; read the summary and the rank2file
 * tree (distributed, no reader over 1 MiB); copy each rank's files into
 * cache SCR_FETCH_WIDTH processes at a time, verifying size and CRC32; then
 * protect the dataset like a new checkpoint.  A dataset that fails is marked
 * FAILED in the index and the next older one is tried.  Collective.
 */
#ifndef SCR_FETCH_H
#define SCR_FETCH_H

#include "scr_ctx.h"

/* returns the id of the dataset now in cache, or -1 */
int fetch_sync(scr_ctx_t *ctx);

#endif
