/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.h - copying cached datasets to the prefix directory (guide 2.32).
 *
 * A flush writes each rank's files to the dataset's staging area
 * <prefix>/.scr/scr.dataset.<id>/<path relative to the prefix>, checking
 * every byte against the CRC32 recorded when the dataset completed, then
 * the summary and rank2file map, and only then marks the dataset COMPLETE
 * (and CURRENT) in the index; then each file moves to its own path
 * <prefix>/<path> (place.h) and the index marks the dataset PLACED.  A
 * dataset is marked FLUSHING while it is copied, so the cache never evicts
 * it, and an interrupted flush never leaves the index pointing at a partial
 * copy, nor the previous checkpoint's files overwritten by a partial one.
 *
 * Background flush (SCR_FLUSH_ASYNC=1): each process copies its files in a
 * thread, throttled by SCR_FLUSH_ASYNC_BW (bytes/s per node) and
 * SCR_FLUSH_ASYNC_PERCENT (CPU), reporting progress in its transfer file
 * (guide 2.22) in the control directory.  Later SCR calls notice when every
 * process is done and finish the flush.  All calls are collective.
 */
#ifndef SCR_FLUSH_H
#define SCR_FLUSH_H

#include "scr_ctx.h"

/* should dataset id go to the prefix now (output, or every SCR_FLUSH) */
int flush_wanted(scr_ctx_t *ctx, int id);
/* is dataset id on the prefix (flush file LOCATION PFS) */
int flush_done(scr_ctx_t *ctx, int id);
/* flush now; 0 on success.  A failure leaves the dataset in cache. */
int flush_sync(scr_ctx_t *ctx, int id);
/* start a background flush of id (finishing any earlier one first) */
int flush_async_start(scr_ctx_t *ctx, int id);
/* finish a background flush if every process is done (wait: until it is);
 * returns 1 while one is still running.  Collective, and a barrier: no
 * process returns before every process called it. */
int flush_async_poll(scr_ctx_t *ctx, int wait);
/* the newest complete checkpoint in cache that is not on the prefix, or -1 */
int flush_pending_ckpt(scr_ctx_t *ctx);
/* SCR_PREFIX_SIZE: delete the oldest checkpoints beyond it from the prefix.
 * Collective: the files only they name are found and unlinked spread over
 * the ranks (nameset.h); rank 0 edits the index */
void flush_prune(scr_ctx_t *ctx);
/* SCR_Delete: datasets ids (n of them, named on rank 0; n is 0 elsewhere)
 * leave the index, the flush file and the prefix, the files only they name
 * found spread as flush_prune finds them.  Collective */
void flush_delete(scr_ctx_t *ctx, const int *ids, int n);
/* move this rank's files (rel -> ...) of the complete dataset id in the
 * prefix's directory dir to their own paths; rank 0 marks it PLACED when
 * every rank did.  0, or -1 when some rank could not (it says why). */
int flush_place(scr_ctx_t *ctx, int id, const char *dir, const kvtree_t *files);
/* names: this rank's names (rel -> anything) that dataset id took from files
 * already on the prefix; every older complete dataset naming one of them
 * leaves the index.  Collective; nothing happens if no rank has one. */
void flush_supersede_names(scr_ctx_t *ctx, int id, const kvtree_t *names);

#endif
