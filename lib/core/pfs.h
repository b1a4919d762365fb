/* SPDX-License-Identifier: BSD-3-Clause */
/* pfs.h - SCR's files in the prefix directory on the parallel file system
 * (guide 2.15, 2.16, 2.19, 2.21).
 *
 *   <prefix>/.scr/index.scr          datasets on the PFS, CURRENT, FAILED marks
 *   <prefix>/.scr/flush.scr          where each dataset is: CACHE and/or PFS
 *   <prefix>/.scr/halt.scr           halt conditions (halt.h)
 *   <prefix>/.scr/nodes.scr          nodes the last run used
 *   <prefix>/.scr/scr.dataset.<id>/  the dataset's staging area: its files
 *                                    while they are written (place.h),
 *                                    and in its .scr/ the summary and the
 *                                    rank2file tree
 *   <prefix>/<path>                  each file, once the dataset is placed
 *
 * The older layout kept every file in <prefix>/scr.dataset.<id>/<path> and
 * its metadata in <prefix>/scr.dataset.<id>/.scr/; such datasets are read
 * where they are.
 *
 * Index and flush file are shared by every job using the prefix, so every
 * update is a locked read-modify-write.  Only rank 0 calls these.
 */
#ifndef SCR_PFS_H
#define SCR_PFS_H

#include <stddef.h>

#include "error.h"
#include "kvtree.h"

#define PFS_INDEX_VERSION 1
#define PFS_SUMMARY_VERSION 6

/* <prefix>/.scr/<name> */
void pfs_meta_path(const char *prefix, const char *name, char *buf, size_t len);
/* <prefix>/.scr/scr.dataset.<id> (name is ".scr/scr.dataset.<id>", the
 * directory's name in the index) */
void pfs_dset_name(int id, char *buf, size_t len);
void pfs_dset_dir(const char *prefix, int id, char *buf, size_t len);
/* the older layout's name, "scr.dataset.<id>" */
void pfs_dset_name_old(int id, char *buf, size_t len);

/* apply fn to the file under lock and write it back (fn returns 0 to write,
 * 1 to leave it unchanged, -1 on error) */
typedef kvtree_update_fn pfs_update_fn;
int pfs_update(const char *path, pfs_update_fn fn, void *arg, scr_error_t *err);
/* the same without fsync, for advisory marks */
int pfs_update_nosync(const char *path, pfs_update_fn fn, void *arg, scr_error_t *err);

/* index: record a dataset directory as being written (COMPLETE 0), mark it
 * complete/flushed (and CURRENT for checkpoints), failed, fetched */
int index_add(const char *prefix, int id, const char *dir, const kvtree_t *dset,
              int complete, scr_error_t *err);
int index_mark_failed(const char *prefix, int id, const char *dir, scr_error_t *err);
int index_mark_fetched(const char *prefix, int id, const char *dir, scr_error_t *err);
/* every file of the staged dataset is at its own path (place.h) */
int index_mark_placed(const char *prefix, int id, const char *dir, scr_error_t *err);
int index_remove(const char *prefix, int id, scr_error_t *err);
/* the dataset to fetch: start at CURRENT (or name), else the newest; skip
 * incomplete and failed ones; id < below.  Returns id and its dir, -1 if none */
int index_pick(const kvtree_t *index, const char *name, int below, char *dir, size_t len);
int index_read(const char *prefix, kvtree_t *index, scr_error_t *err);
/* A damaged index (index_read failed with EBADMSG): set it aside as
 * index.scr.damaged and write it again from the summaries of the complete
 * datasets on the prefix, CURRENT the newest checkpoint (FAILED marks and
 * choices of CURRENT are lost: a fetch checks every file anyway); index
 * gets it.  Returns the datasets found, or -1 with err. */
int index_recover(const char *prefix, kvtree_t *index, scr_error_t *err);
/* keep only the newest keep checkpoints on the prefix: ids to delete,
 * never a base (DSET BASE) that a dataset staying on the prefix builds on,
 * directly or down its chain */
int index_prune_list(const kvtree_t *index, int keep, int *ids, int max);
/* the dataset descriptor (DSET) index entry id records (its first
 * directory's), or NULL */
kvtree_t *index_dset_desc(const kvtree_t *index, int id);

/* flush file: LOCATION CACHE/PFS flags, FLUSHING marker */
int flushfile_set(const char *prefix, int id, const char *location, int on,
                  scr_error_t *err);
int flushfile_location(const char *prefix, int id, const char *location);
/* 1 when the newest dataset of a flush file (as read) is being flushed, or
 * is on the prefix alone (written there, not cached): the run's next sign
 * of progress may take the parallel file system's time (scr run's
 * SCR_WATCHDOG_TIMEOUT_PFS) */
int flushfile_newest_on_pfs(const kvtree_t *flush);

/* summary of a dataset on the PFS */
int summary_write(const char *dsetdir, const kvtree_t *dset, int complete,
                  scr_error_t *err);
int summary_read(const char *dsetdir, kvtree_t *summary, scr_error_t *err);

/* ISO 8601 local time of now */
void pfs_timestamp(char *buf, size_t len);

#endif
