/* SPDX-License-Identifier: BSD-3-Clause */
/* rebuild.h - restart from cache in SCR_Init (guide 2.26, program flow
 * "scr_cache_rebuild", "scr_distribute_files", "scr_reddesc_recover").
 *
 * Every cached dataset, newest first: each rank's files go to the node where
 * that rank runs now (a local rename, or a transfer from another node), a
 * damaged or missing copy is replaced by another copy or rebuilt with the
 * redundancy the dataset was written with, and the redundancy is restored.
 * A dataset that cannot be made whole on every rank is deleted.  Collective.
 */
#ifndef SCR_REBUILD_H
#define SCR_REBUILD_H

#include "scr_ctx.h"

/* returns the number of datasets kept */
int rebuild_cache(scr_ctx_t *ctx);

#endif
