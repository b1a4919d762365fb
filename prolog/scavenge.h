/* SPDX-License-Identifier: BSD-3-Clause */
/* scavenge.h - copying a node's part of a dataset from cache to the prefix
 * (guide 2.13, scr_copy), for the epilog and `scr scavenge`.
 *
 * Round 1 copies the files of the ranks whose filemaps this node's control
 * directory holds (application and redundancy files) into
 * <prefix>/scr.dataset.<id>/ and writes one record for the node,
 * .scr/node.<host>.scrfilemap, with every rank it copied (dsindex.h).
 * Round 2 (PARTNER) copies the partner copies this node holds, only for
 * ranks that their own node's record does not list once every live node
 * has finished round 1 (the library records each copy's owner's host):
 * their node is gone.  It writes the record again with those ranks.  Every
 * file lands under a temporary name and is renamed into place after its
 * CRC32 matched the one recorded at completion, so two nodes copying the
 * same rank never leave a torn file.
 *
 * Nodes coordinate through marks on the prefix (scavmark.h): COPIED after
 * round 1, FINISHED after round 2, each with the dataset it copied; the
 * node whose FINISHED mark completes the set of live nodes becomes INDEXER,
 * exactly one.
 * Runs as the job's user.
 */
#ifndef SCR_SCAVENGE_H
#define SCR_SCAVENGE_H

#include "error.h"
#include "kvtree.h"
#include "nodelist.h"
#include "scavmark.h"

typedef struct {
    const char *prefix;  /* absolute prefix directory */
    const char *cntldir; /* <control base>/<user>/scr.<jobid> */
    const char *host;    /* this node */
    int id;              /* dataset */
    int files, failed;   /* files copied, files that could not be */
    unsigned long long bytes;
    int partner_ranks; /* ranks this node holds partner copies of */
    int direct;        /* write past the prefix's page cache (jobrec_read_direct) */
    /* the job's cache directories, <store>/<user>/scr.<jobid> of every store
     * it used: a dataset's files are read only inside one of them, and no
     * link below it is followed (NULL: the dataset's own directory) */
    const char *const *trees;
    int ntrees;
    kvtree_t *record; /* the node's record so far (scavenge_done frees it) */
    int unwritten;    /* ranks added to it since it was last written whole */
    kvtree_t *seen;   /* round 2: the other node's record read last */
    char *seen_host;
} scavenge_t;

/* The dataset to scavenge: the newest complete checkpoint in this node's
 * filemaps (cntldir), unless the index of prefix (if not empty) already has
 * it complete.  Returns 1 (id set), 0 if none, -1 on error. */
int scavenge_pick(const char *prefix, const char *cntldir, int *id, scr_error_t *err);
/* the same among the checkpoints older than dataset below (a fallback);
 * host (or NULL) names this node, whose record of an earlier scavenge
 * counts as the dataset's copy */
int scavenge_pick_below(const char *prefix, const char *cntldir, const char *host,
                        int below, int *id, scr_error_t *err);

/* Round 1.  Returns 0 if every file of this node's ranks was copied. */
int scavenge_own(scavenge_t *s, scr_error_t *err);
/* Round 2: partner copies of ranks their own node did not record. */
int scavenge_partners(scavenge_t *s, scr_error_t *err);
/* free what the rounds kept in s */
void scavenge_done(scavenge_t *s);

/* Once dataset id is indexed complete (the verdict), move the files of the
 * landed ranks in host's record to their own paths on prefix: the indexer
 * leaves them to the nodes (DSINDEX_NODES_PLACE), so that no one process
 * renames every file of the job.  Files already there (the indexer placed
 * them, or a partner's node did) count as placed.  Returns the number that
 * could not be moved (the first logged); *placed gets those that are. */
int scavenge_place(const char *prefix, const char *host, int id, int *placed);

#endif
