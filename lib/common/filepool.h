/* SPDX-License-Identifier: BSD-3-Clause */
/* filepool.h - evicted cache files, kept to be written over or deleted later.
 *
 * On tmpfs, deleting a 64 MiB file frees 16384 pages and writing a new one
 * allocates and clears as many again: about twice the cost of writing over
 * the pages of a file that already has them (bench/README.md).  When the
 * cache evicts a dataset, its files are renamed into a pool directory of the
 * same store instead of unlinked.  The files SCR writes itself at the same
 * size checkpoint after checkpoint (partner copies, XOR/RS parity) are then
 * taken over by the next such file (rename, then overwrite in place); what
 * is left when the next checkpoint completes is unlinked on a low-weight
 * thread (filepool_drain_async) while the application computes, so the
 * freeing is off the application's path either way.
 *
 * The pool never holds more than one eviction's files plus two batches on
 * their way out: each eviction hands what the last one left to the thread
 * before adding its own, and finishes the batch before last itself.  Files
 * in the pool belong to no dataset; a crashed process's leftovers are
 * removed by filepool_sweep at the next SCR_Init, and the epilog removes
 * the whole store.
 *
 * Thread safe for filepool_put/open/count: the background redundancy encode
 * opens files from its own thread.
 */
#ifndef SCR_FILEPOOL_H
#define SCR_FILEPOOL_H

#include <stdint.h>

#include "error.h"

typedef struct filepool filepool_t;

#define FILEPOOL_DIR "scr.recycle" /* below each root */

filepool_t *filepool_new(void);
/* unlink every kept file, then free */
void filepool_free(filepool_t **pool);

/* a directory (a store) whose files may be kept, in <root>/scr.recycle:
 * renames stay within one file system */
int filepool_add_root(filepool_t *pool, const char *root);
/* the same with the pool in dir, on root's file system (the prefix keeps
 * its pool in its .scr/, out of the application's sight) */
int filepool_add_root_dir(filepool_t *pool, const char *root, const char *dir);

/* Keep regular file path (never a link) below a root, under the name
 * <tag>.<n>.  Returns 0 when kept, -1 when not (the caller unlinks it as
 * before). */
int filepool_put(filepool_t *pool, const char *path, const char *tag);

/* Open path for writing (O_RDWR, never through a link), taking over a
 * file kept under the same root when there is one: the smallest that holds
 * size bytes (unless over twice as long), else the largest shorter one; one
 * longer than size is cut to size, a shorter one grows as the caller
 * writes.
 * Without one (or with pool NULL), a new empty file.  *reused says which
 * (may be NULL).  Returns the descriptor, or -1 with err filled. */
int filepool_open(filepool_t *pool, const char *path, uint64_t size, int *reused,
                  scr_error_t *err);

/* unlink every kept file (and finish a background drain) */
void filepool_drain(filepool_t *pool);

/* Unlink every kept file on a low-weight thread (worker_lower_priority)
 * and return at once: freeing a large file's pages takes milliseconds of
 * CPU the application need not wait for.  The files join those still on
 * their way out, and the call never waits for the thread; but what is left
 * of the batch before last is unlinked here first, so at most two batches
 * are ever on their way out, however little CPU the thread gets.
 * filepool_drain and filepool_free finish them all.  Call drain,
 * drain_async and free from one thread (the application's). */
void filepool_drain_async(filepool_t *pool);

/* for tests: what unlinks a file on its way out (NULL: unlink) */
void filepool_set_unlink(filepool_t *pool, int (*fn)(const char *path));

/* Can the file system holding dir hold bytes more than it does now, and
 * if it is tmpfs, the node's memory too?  For files whose deletion would
 * be put off: kept, they take room the next checkpoint may need. */
int filepool_can_hold(const char *dir, uint64_t bytes);

/* files handed to filepool_drain_async and not yet unlinked */
int filepool_pending(filepool_t *pool);
/* kept files, and their bytes */
int filepool_count(filepool_t *pool, uint64_t *bytes);
/* files taken over by filepool_open so far */
long filepool_reused(filepool_t *pool);
/* files handed to filepool_drain_async so far (its caller's thread only) */
long filepool_drained_later(filepool_t *pool);

/* unlink every file in each root's pool directory, and the directory if
 * empty: an earlier process's pool, at start-up before anyone adds to it */
void filepool_sweep(filepool_t *pool);

#endif
