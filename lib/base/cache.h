/* SPDX-License-Identifier: BSD-3-Clause */
/* cache.h - datasets in node-local storage: directories, deletion, and
 * eviction when a store holds its COUNT of datasets.
 */
#ifndef SCR_CACHE_H
#define SCR_CACHE_H

#include "scr_ctx.h"

/* <store dir>/scr.dataset.<id> */
void cache_dset_dir(const store_t *st, int id, char *buf, size_t len);
/* 1 if path lies inside one of this job's cache directories */
int cache_path_ok(const scr_ctx_t *ctx, const char *path);
/* delete this process's files of dataset id and forget the dataset */
void cache_delete_dset(scr_ctx_t *ctx, int id);
/* Collective: delete the oldest datasets of st until at most COUNT - room
 * remain.  Datasets marked FLUSHING are never evicted, nor the base of a
 * differential checkpoint still in cache (the store then holds more than
 * COUNT until a full checkpoint ends the chain), nor the newest complete
 * checkpoint: when making room for a new dataset (room 1), a crash while
 * the new one is written must leave something to restart from.
 * After a checkpoint completes, room 0 trims the store back to COUNT (the
 * caller hands the file pool to its thread first: filepool_drain_async),
 * and what it evicts goes to the thread too. */
void cache_evict(scr_ctx_t *ctx, const store_t *st, int room);
/* the newest complete checkpoint in cache with id < below (-1: none),
 * skipping datasets whose restart failed */
int cache_newest_ckpt(const scr_ctx_t *ctx, int below);
/* 1 when dataset id is in cache and complete (DSETDESC COMPLETE) */
int cache_dset_complete(const scr_ctx_t *ctx, int id);
/* the dataset a differential checkpoint builds on (DSETDESC BASE), or -1 */
int cache_dset_base(const scr_ctx_t *ctx, int id);
/* dataset id whose DSETDESC NAME is name, or -1 */
int cache_find_name(const scr_ctx_t *ctx, const char *name);

#endif
