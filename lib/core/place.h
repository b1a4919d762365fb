/* SPDX-License-Identifier: BSD-3-Clause */
/* place.h - a dataset's files at the application's own paths on the prefix.
 *
 * SCR 3.1 puts each file a dataset routed at <prefix>/<its path>, where the
 * application and the user's post-processing look for it.  Writing there
 * directly would destroy the previous checkpoint whenever two checkpoints
 * reuse file names and the flush is cut short.  So a flush (and a scavenge)
 * first writes every file below the dataset's directory
 * <prefix>/.scr/scr.dataset.<id>/, the staging area, and records the dataset
 * complete; only then is each file renamed to its own path.  Renames never
 * lose bytes: a file is either still staged or at its own path, so a
 * placement cut short is finished later by anyone (the next fetch, flush or
 * SCR_Init) repeating it, and the index marks the dataset PLACED once every
 * file is there.
 *
 * Datasets written by the older layout (<prefix>/scr.dataset.<id>/<path>)
 * keep their files where they are and are read from there.
 */
#ifndef SCR_PLACE_H
#define SCR_PLACE_H

#include <stddef.h>

#include "error.h"
#include "kvtree.h"

/* 1 if an index directory name (relative to the prefix) is a staging area,
 * whose files belong at their own paths; 0 for the older layout */
int place_staged(const char *dir);

/* where file rel of the dataset in dir is to be read: staged while it is
 * still there, else at its own path (older layout: always in dir) */
void place_file_path(const char *prefix, const char *dir, const char *rel, char *buf,
                     size_t len);

/* move rel from dir's staging area to <prefix>/<rel>, making its parent
 * directories; 0 when moved or already moved before */
int place_file(const char *prefix, const char *dir, const char *rel, scr_error_t *err);

/* place every file of dataset id in dir (files: RANK <r> FILE <rel>, as
 * r2f_read_all gives), after place_supersede when a name is taken; returns
 * how many could not be placed (the first error in err) */
int place_all(const char *prefix, int id, const char *dir, const kvtree_t *files,
              scr_error_t *err);

/* Before the files of dataset id (files: RANK <r> FILE <rel>) move to their
 * own paths: every other complete dataset of the index that names one of
 * them there would become a mix of two checkpoints, so it leaves the index
 * (only older ones: a placement finished late never removes a newer one)
 * and the flush file, and its staging area (metadata) goes; its other
 * files stay where they are.  Returns how many left, -1 on error. */
int place_supersede(const char *prefix, int id, const kvtree_t *files, scr_error_t *err);

/* The same for dataset id in dir (relative to the prefix) while every file
 * of it is still staged there (the scavenge's indexer, before anyone
 * places): each older dataset's tree is read one file at a time and its
 * names looked for in dir, so nobody holds either dataset's names whole;
 * an older dataset that shares a name is found at the first one. */
int place_supersede_staged(const char *prefix, int id, const char *dir, scr_error_t *err);

/* The datasets place_supersede looks at, for a caller that compares names
 * itself (a flush does it spread over its ranks): every complete staged
 * dataset of index older than id, into older as "<i> DSET <other> DIR
 * <dir>" (each of its complete staged directories) for i = 0, 1, ...
 * Returns how many datasets. */
int place_older_staged(const kvtree_t *index, int id, kvtree_t *older);
/* dataset other of index leaves it, as place_supersede removes it for id */
void place_drop(const char *prefix, const kvtree_t *index, int id, int other);

/* 1 if the index marks dataset id (in dir) PLACED */
int place_done(const kvtree_t *index, int id, const char *dir);

/* Remove dataset id from the prefix: its directory, and, for a complete
 * staged dataset, each file at its own path that no other dataset of index
 * names (a newer checkpoint may have reused the name).  id leaves the
 * in-memory index, so a caller removing several passes the same one. */
int place_remove(const char *prefix, kvtree_t *index, int id, scr_error_t *err);
/* the same; files PLACE_FILES_LEAVE leaves the files at their own paths to
 * the caller, which decided which of them go (a flush does it spread over
 * its ranks); PLACE_FILES_ALL unlinks every one, named by another dataset
 * or not (a purge, where every dataset goes), reading the tree one file at
 * a time instead of every dataset's whole */
enum { PLACE_FILES_LEAVE = 0, PLACE_FILES_UNSHARED = 1, PLACE_FILES_ALL = 2 };
int place_remove_as(const char *prefix, kvtree_t *index, int id, int files,
                    scr_error_t *err);
/* unlink <prefix>/<rel> (a safe relative name), then its parent
 * directories up to the prefix while they are empty */
void place_unlink(const char *prefix, const char *rel);

#endif
