/* filepool.h - deleted cache files kept to be written over.
 *
 * On tmpfs, deleting a 64 MiB file frees 16384 pages and writing a new one
 * allocates and clears as many again: about twice the cost of writing over
 * the pages of a file that already has them (bench/README.md).  When the
 * cache evicts a dataset, the files SCR writes itself at the same size
 * checkpoint after checkpoint (partner copies, XOR/RS parity) are renamed
 * into a pool directory of the same store instead of unlinked, and the next
 * such file takes one over (rename, no truncation) and overwrites it in
 * place.
 *
 * The pool never holds more than one eviction's files: filepool_drain
 * unlinks what the last one left unused before the next one adds to it, so
 * the store's peak use is what it was without the pool as long as the next
 * dataset writes as many such bytes.  Files in the pool belong to no
 * dataset; a crashed process's leftovers are removed by filepool_sweep at
 * the next SCR_Init, and the epilog removes the whole store.
 *
 * Thread safe: the background redundancy encode opens files from its own
 * thread.
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

/* Keep regular file path (never a link) below a root, under the name
 * <tag>.<n>.  Returns 0 when kept, -1 when not (the caller unlinks it as
 * before). */
int filepool_put(filepool_t *pool, const char *path, const char *tag);

/* Open path for writing (O_RDWR, never through a link), taking over a
 * file kept under the same root when there is one: the smallest that holds
 * size bytes, else the largest; one longer than size is cut to size, a
 * shorter one grows as the caller writes.
 * Without one (or with pool NULL), a new empty file.  *reused says which
 * (may be NULL).  Returns the descriptor, or -1 with err filled. */
int filepool_open(filepool_t *pool, const char *path, uint64_t size, int *reused,
                  scr_error_t *err);

/* unlink every kept file */
void filepool_drain(filepool_t *pool);

/* kept files, and their bytes */
int filepool_count(filepool_t *pool, uint64_t *bytes);
/* files taken over by filepool_open so far */
long filepool_reused(filepool_t *pool);

/* unlink every file in each root's pool directory, and the directory if
 * empty: an earlier process's pool, at start-up before anyone adds to it */
void filepool_sweep(filepool_t *pool);

#endif
