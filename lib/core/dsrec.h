/* SPDX-License-Identifier: BSD-3-Clause */
/* dsrec.h - the records a scavenge leaves in a dataset's .scr/ directory on
 * the prefix, saying what it copied of each rank:
 *
 *   node.<host>.scrfilemap       one node's ranks (scavenge.h), and when that
 *   node.<host>+<k>.scrfilemap   is over DSREC_PART_BYTES, its part k
 *   rebuilt.scrfilemap           the ranks an indexer rebuilt (dsindex.h)
 *   <rank>.scrfilemap            one rank, as scavenges before node records
 *                                wrote them (still read)
 *
 * each RANK <r> DSET <id> {DSETDESC, FILES, FILE <rel> META} plus DSET <id>
 * RANK <r>.  Readers take one file at a time (dsrec_each), so that nobody
 * holds every rank's record at once, and no file they open is much over
 * DSREC_PART_BYTES.  The files are the user's: a record is only believed
 * about the files inside the dataset directory.
 */
#ifndef SCR_DSREC_H
#define SCR_DSREC_H

#include <stddef.h>

#include "error.h"
#include "kvtree.h"

#define DSREC_PART_BYTES (512 * 1024)

/* <dsetdir>/.scr/node.<host>.scrfilemap (part 0) or node.<host>+<part>.
 * Characters of host other than [A-Za-z0-9._-] become '_'; '+' never
 * appears in a host's part of the name. */
void dsrec_node_name(const char *dsetdir, const char *host, int part, char *buf,
                     size_t len);
/* <dsetdir>/.scr/<rank>.scrfilemap */
void dsrec_rank_name(const char *dsetdir, int rank, char *buf, size_t len);

/* write a node's record in parts of whole ranks; 0 or -1 with err */
int dsrec_node_write(const char *dsetdir, const char *host, const kvtree_t *record,
                     scr_error_t *err);
/* remove node host's record, every part of it */
void dsrec_node_unlink(const char *dsetdir, const char *host);
/* merge node host's record (parts 0, 1, ... until one is missing) into
 * record; returns the number of parts read, 0 when there is none */
int dsrec_node_read(const char *dsetdir, const char *host, kvtree_t *record);

/* the META of file e of a rank record when it is an application file (not
 * parity), else NULL */
kvtree_t *dsrec_user_meta(const kvtree_elem_t *e);
/* how many application files rank record rk lists */
int dsrec_user_files(const kvtree_t *rk);
/* 1 if rank record rk lists all FILES of the rank's application files: the
 * scavenge copied every one of them */
int dsrec_rank_listed(const kvtree_t *rk);
/* 1 if, besides, each is in dsetdir as a regular file of its recorded size:
 * looked at, unless the record is landed (below) */
int dsrec_rank_ok(const char *dsetdir, const kvtree_t *rk);

/* What the node that copied a rank says of it, so that the indexer need not
 * look at each of the dataset's files itself (bench/README.md, scale model
 * item 3): LANDED 1, every file listed landed on the prefix at its recorded
 * size and CRC32 (the node compared them before the rename); TAKEN 1, one
 * of them already had a file at its own path on the prefix (an older
 * dataset's).  Records without them (rebuilt ranks, older scavenges) are
 * looked at as before.  The node of a landed rank also moves its files to
 * their own paths once the dataset is indexed complete (scavenge_place). */
#define DSREC_LANDED "LANDED"
#define DSREC_TAKEN "TAKEN"
/* 1 if rank record rk is landed */
int dsrec_rank_landed(const kvtree_t *rk);
/* TAKEN of a landed rank record; -1 when it does not say */
int dsrec_rank_taken(const kvtree_t *rk);
/* move rank record rk's application files from dataset directory dir (as
 * the index names it) to their own paths on prefix (place_file); returns
 * how many could not be, the first error in err (if not NULL); *placed (if
 * not NULL) gets those now there */
int dsrec_place(const char *prefix, const char *dir, const kvtree_t *rk, int *placed,
                scr_error_t *err);

/* fn(rank, record of that rank, arg) for each rank entry of dataset id in
 * every record file of dsetdir, one file at a time (a rank may come more
 * than once: a partner copied it too).  fn returning non-zero stops.
 * Returns 0, fn's value, or -1 with err when .scr/ cannot be listed. */
typedef int (*dsrec_fn)(int rank, const kvtree_t *rk, void *arg);
int dsrec_each(const char *dsetdir, int id, dsrec_fn fn, void *arg, scr_error_t *err);
/* the same for one record file (path) */
int dsrec_each_in(const char *path, int id, dsrec_fn fn, void *arg);

#endif
