/* SPDX-License-Identifier: BSD-3-Clause */
/* dsindex.h - make a scavenged dataset on the prefix usable (guide 2.13,
 * scr_index): scan its .scr/node.<host>.scrfilemap records (one per node
 * that copied ranks; .scr/<rank>.scrfilemap from older scavenges too),
 * inspect every listed
 * file (exists, regular, recorded size), rebuild the ranks that are missing
 * from the XOR/RS redundancy files, then write the rank2file tree and the
 * summary, add the dataset to the index (CURRENT for a checkpoint) and mark
 * it on the PFS in the flush file.  Serial: runs on one node, as the user.
 */
#ifndef SCR_DSINDEX_H
#define SCR_DSINDEX_H

#include <stddef.h>

#include "error.h"
#include "kvtree.h"

typedef struct {
    int ranks;   /* ranks the dataset has */
    int missing; /* ranks missing files after the scan */
    int rebuilt; /* of those, rebuilt */
    int files;   /* application files in the dataset */
} dsindex_report_t;

/* <dsetdir>/.scr/<rank>.scrfilemap: what a scavenge copied of rank, one
 * file per rank (written by scavenges before node records; still read) */
void dsindex_rank_filemap(const char *dsetdir, int rank, char *buf, size_t len);

/* <dsetdir>/.scr/node.<host>.scrfilemap: the records (RANK <r> DSET <id>
 * {DSETDESC, FILES, FILE <rel> META}) of every rank one node copied, so
 * that the prefix gets a metadata file per node, not per rank.  A record
 * over DSINDEX_PART_BYTES goes on in node.<host>+<part>.scrfilemap (part
 * 1, 2, ...), so no reader opens a bigger file.  Characters of host other
 * than [A-Za-z0-9._-] become '_'. */
#define DSINDEX_PART_BYTES (512 * 1024)
void dsindex_node_record(const char *dsetdir, const char *host, int part, char *buf,
                         size_t len);
/* write record in parts; 0 or -1 with err */
int dsindex_node_write(const char *dsetdir, const char *host, const kvtree_t *record,
                       scr_error_t *err);
/* merge node host's record (every part there is) into record; returns the
 * number of parts read, 0 when there is none */
int dsindex_node_read(const char *dsetdir, const char *host, kvtree_t *record);

/* 1 if rank record rk (RANK <r> DSET <id> of a record) lists all FILES of
 * the rank's application files: the scavenge copied every one of them */
int dsindex_rank_listed(const kvtree_t *rk);

/* Returns 0 when the dataset is complete and indexed; -1 with err naming the
 * ranks that are missing and why they could not be rebuilt (the dataset is
 * then recorded as incomplete and never fetched). */
int dsindex_dataset(const char *prefix, int id, dsindex_report_t *rep, scr_error_t *err);

/* Complete what an epilog could not: for every <prefix>/.scr/scavenge.<job>
 * file without an INDEXER, last written more than grace seconds ago (its
 * epilogs are over), claim it and index the newest dataset its nodes copied.
 * SCR_Init runs this on rank 0.  Returns the number of datasets indexed. */
int dsindex_pending(const char *prefix, double grace);

/* Write the rank2file tree of dsetdir serially: files holds RANK <r> FILE
 * <rel> {SIZE, CRC} for ranks 0..ranks-1 (r2f.h). */
int dsindex_write_r2f(const char *dsetdir, int ranks, const kvtree_t *files,
                      scr_error_t *err);

#endif
