/* SPDX-License-Identifier: BSD-3-Clause */
/* dsindex.h - make a scavenged dataset on the prefix usable (guide 2.13,
 * scr_index): read the records the scavenge left (dsrec.h), inspect every
 * listed file (exists, regular, recorded size) that the node which copied
 * it did not already check (a landed record), rebuild the ranks that are
 * missing from the XOR/RS redundancy files, then write the rank2file tree
 * and the summary, add the dataset to the index (CURRENT for a checkpoint),
 * mark it on the PFS in the flush file and move its files to their own
 * paths.  Serial: runs on one node, as the user.  It reads the records one
 * file at a time, several times over, and keeps a byte of flags per rank
 * (and, to rebuild, a count per XOR/RS set), never every rank's record.
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
    int left;    /* ranks whose files are left to their nodes to place */
} dsindex_report_t;

/* DSINDEX_NODES_PLACE: the nodes that copied the dataset are waiting for the
 * verdict and each moves the files of its landed ranks to their own paths
 * (scavenge_place): the indexer places only the other ranks (rebuilt, or
 * recorded by an older scavenge), and the dataset is marked PLACED by the
 * next fetch, which finds the files there.  Without it the indexer places
 * every file.  Either way, when some name is already taken on the prefix,
 * the older dataset naming it leaves the index first
 * (place_supersede_staged). */
enum { DSINDEX_NODES_PLACE = 1 };

/* Returns 0 when the dataset is complete and indexed; -1 with err naming the
 * ranks that are missing and why they could not be rebuilt (the dataset is
 * then recorded as incomplete and never fetched). */
int dsindex_dataset(const char *prefix, int id, int flags, dsindex_report_t *rep,
                    scr_error_t *err);

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
