/* SPDX-License-Identifier: BSD-3-Clause */
/* r2f.h - the rank2file map: which files each rank of a dataset wrote
 * (guide 2.17), stored as a tree of files so no process reads or writes more
 * than R2F_LIMIT bytes of it, however many ranks the job has.
 *
 * Level 0 files hold RANK2FILE {LEVEL 0, RANKS n, RANK <r> FILE <rel> {SIZE,
 * CRC}}; files above hold {LEVEL k, RANKS n, RANK <reader> {FILE, OFFSET}},
 * naming the files of the level below and the rank that reads each.  The root
 * is .scr/rank2file.scr, others .scr/rank2file.<level>.<writer>.scr.
 *
 * Grouping: ranks in rank order are packed into files by the running total
 * of their entries' sizes; an entry joins the file of bucket offset /
 * R2F_BUCKET, and the first rank of a bucket writes it.  With entries of at
 * most R2F_BIG bytes a file stays within R2F_LIMIT.  A larger entry (a rank
 * of thousands of files) gets a file of its own, which its one reader must
 * read however large: up to R2F_ENTRY_MAX, more than any rank's list a
 * flush takes (it fails, saying so, instead of writing a tree nobody
 * reads).
 */
#ifndef SCR_R2F_H
#define SCR_R2F_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kvtree.h"

#define R2F_LIMIT (1024 * 1024)
#define R2F_BUCKET (R2F_LIMIT / 2)
#define R2F_BIG (R2F_LIMIT - R2F_BUCKET)
/* a test build makes it small to reach it (tests/CMakeLists.txt) */
#ifndef R2F_ENTRY_MAX
#define R2F_ENTRY_MAX (64 * 1024 * 1024)
#endif

/* file names relative to the dataset directory */
void r2f_name(int level, int writer, int root, char *buf, size_t len);
/* a rank's level 0 entry: RANK <rank> FILE ... (files: rel -> SIZE, CRC) */
kvtree_t *r2f_entry_files(int rank, const kvtree_t *files);
/* a pointer entry to a file of a level: RANK <writer> {FILE, OFFSET 0} */
kvtree_t *r2f_entry_pointer(int level, int writer);
/* the content of a file at level with the merged entries of its bucket */
kvtree_t *r2f_file(int level, int ranks, const kvtree_t *merged);
/* the same from the entries a writer received ("<sender>" -> entry), which
 * it moves into the file instead of copying (entries is left without them);
 * the file holds what r2f_file of their merge would */
kvtree_t *r2f_file_from(int level, kvtree_t *entries);
/* the same from ranks (<r> -> entry), which the file takes over */
kvtree_t *r2f_file_take(int level, kvtree_t *ranks);

/* Pure grouping of one level, for ranks 0..n-1 with entry sizes sizes[]
 * (0: no entry): writer[r] is the rank that writes r's entry (-1 if none),
 * an entry over R2F_BIG alone.  Returns the number of writers.  The MPI code
 * computes the same with scans (r2f_bucket). */
int r2f_assign(const uint64_t *sizes, int n, int *writer);
/* the bucket of an entry of size bytes (> 0) at offset, with big entries
 * before it: non-decreasing in rank order, one of its own when big */
int64_t r2f_bucket(uint64_t offset, uint64_t size, int64_t big_before);

/* Read one file of the tree, refusing names outside dsetdir, files that are
 * not regular (a link) and files larger than R2F_LIMIT unless they hold one
 * rank's entry (up to R2F_ENTRY_MAX). */
int r2f_read_file(const char *dsetdir, const char *rel, kvtree_t *t, scr_error_t *err);
/* Split a file's content: level 0 entries (RANK <r> FILE ...) into ranks,
 * pointers (RANK <reader> {FILE, OFFSET}) into pointers.  Returns the level
 * or -1 for a malformed file, or one that names a file outside the dataset
 * (absolute, or with ".."). */
int r2f_parse(const kvtree_t *t, kvtree_t *ranks, kvtree_t *pointers);

/* Read the whole tree of dsetdir in one process: RANK <r> FILE <rel> {SIZE,
 * CRC} for every rank.  For tools and bookkeeping that need every name (a
 * prefix purge, a restart on another rank count); the MPI library's readers
 * use r2f_read_tree, which spreads the reads. */
int r2f_read_all(const char *dsetdir, kvtree_t *out, scr_error_t *err);
/* The same one file at a time: fn(ranks, arg) gets each level 0 file's
 * entries (<r> -> FILE ...), only for the call; non-zero from fn stops the
 * walk and is returned.  Holds one file per level of the tree. */
typedef int (*r2f_fn)(const kvtree_t *ranks, void *arg);
int r2f_each(const char *dsetdir, r2f_fn fn, void *arg, scr_error_t *err);

#endif
