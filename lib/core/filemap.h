/* SPDX-License-Identifier: BSD-3-Clause */
/* filemap.h - what a process has in cache (guide 2.4, 2.18).
 *
 * A filemap is a kvtree kept per process in the control directory:
 *
 *   DSET <id>
 *     DSETDESC  dataset descriptor: ID NAME FLAGS CKPT CREATED USER JOBID COMPLETE
 *     REDDESC   redundancy descriptor the dataset was protected with
 *     RANK <r>
 *       FILES <n>             application files rank r wrote
 *       FILE <cache path>     meta: TYPE ORIG REL SIZE CRC COMPLETE
 *
 * RANK <r> other than the process's own rank holds PARTNER copies of rank r's
 * files.  TYPE is USER for application files and XOR/RS for redundancy files
 * (which do not count in FILES).  The file is rewritten before a file is
 * created and after one is deleted, so the cache never holds a file the
 * filemap does not know.
 */
#ifndef SCR_FILEMAP_H
#define SCR_FILEMAP_H

#include <stdint.h>

#include "error.h"
#include "kvtree.h"

#define FM_TYPE_USER "USER"
#define FM_TYPE_XOR "XOR"
#define FM_TYPE_RS "RS"

kvtree_t *filemap_rank(kvtree_t *fm, int id, int rank);
kvtree_t *filemap_get_rank(const kvtree_t *fm, int id, int rank);
/* add or replace a file of rank; meta is copied */
int filemap_add_file(kvtree_t *fm, int id, int rank, const char *path,
                     const kvtree_t *meta);
kvtree_t *filemap_file(const kvtree_t *fm, int id, int rank, const char *path);
int filemap_remove_file(kvtree_t *fm, int id, int rank, const char *path);
int filemap_set_desc(kvtree_t *fm, int id, const char *which, const kvtree_t *desc);
kvtree_t *filemap_get_desc(const kvtree_t *fm, int id, const char *which);
/* dataset ids, ascending (caller frees) */
int filemap_list_dsets(const kvtree_t *fm, int *n, int **ids);
void filemap_remove_dset(kvtree_t *fm, int id);
/* count application files of rank in dataset id */
int filemap_count_user(const kvtree_t *fm, int id, int rank);
/* sum of SIZE over a list of files (path -> metadata), such as a rank's
 * FILE subtree; entries without a SIZE count nothing */
uint64_t filemap_sum_sizes(const kvtree_t *files);

/* Delete every file of dataset id that lies under dir, then dir's empty
 * subdirectories and dir itself; the filemap entries go too.  Returns the
 * number of files that could not be removed. */
int filemap_delete_dset_files(kvtree_t *fm, int id, const char *dir);
/* the same, but a file that keep (arg, owner rank, path, meta) returns 0
 * for was moved elsewhere and is not unlinked */
typedef int (*filemap_keep_fn)(void *arg, int rank, const char *path,
                               const kvtree_t *meta);
int filemap_delete_dset_files_keep(kvtree_t *fm, int id, const char *dir,
                                   filemap_keep_fn keep, void *arg);

/* Remove dir and everything below it, links themselves (never what they
 * point to), not crossing into other file systems: a dataset dropped
 * everywhere, whose directory may hold files no filemap names.  Returns the
 * number of entries that could not be removed. */
int filemap_purge_dir(const char *dir);

int filemap_read(const char *path, kvtree_t *fm, scr_error_t *err);

/* Every filemap_<rank>.scrinfo in a control directory, read: fn gets its
 * rank and path, and the filemap, or NULL with ferr saying why it could not
 * be read.  A missing dir has none.  Returns -1 if dir cannot be listed (err
 * set) or fn returned -1 for any, else 0. */
typedef int (*filemap_visit_fn)(int rank, const char *path, const kvtree_t *fm,
                                const scr_error_t *ferr, void *arg);
int filemap_foreach(const char *dir, filemap_visit_fn fn, void *arg, scr_error_t *err);
int filemap_write(const char *path, const kvtree_t *fm, scr_error_t *err);

#endif
