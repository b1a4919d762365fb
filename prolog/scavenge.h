/* SPDX-License-Identifier: BSD-3-Clause */
/* scavenge.h - copying a node's part of a dataset from cache to the prefix
 * (guide 2.13, scr_copy), for the epilog and `scr scavenge`.
 *
 * Round 1 copies the files of the ranks whose filemaps this node's control
 * directory holds (application and redundancy files) into
 * <prefix>/scr.dataset.<id>/ and writes one .scr/<rank>.scrfilemap per rank.
 * Round 2 (PARTNER) copies the partner copies this node holds, only for
 * ranks that still have no .scrfilemap once every live node has finished
 * round 1: their node is gone.  Every file lands under a temporary name and
 * is renamed into place after its CRC32 matched the one recorded at
 * completion, so two nodes copying the same rank never leave a torn file.
 *
 * Nodes coordinate through <prefix>/.scr/scavenge.<jobid>.scr (locked
 * updates): COPIED <host> after round 1, FINISHED <host> after round 2, each
 * with the dataset it copied; the node whose FINISHED mark completes the set
 * of live nodes becomes INDEXER, exactly one.
 * Runs as the job's user.
 */
#ifndef SCR_SCAVENGE_H
#define SCR_SCAVENGE_H

#include "error.h"
#include "nodelist.h"

typedef struct {
    const char *prefix;  /* absolute prefix directory */
    const char *cntldir; /* <control base>/<user>/scr.<jobid> */
    const char *host;    /* this node */
    int id;              /* dataset */
    int files, failed;   /* files copied, files that could not be */
    unsigned long long bytes;
    int partner_ranks; /* ranks this node holds partner copies of */
    /* the job's cache directories, <store>/<user>/scr.<jobid> of every store
     * it used: a dataset's files are read only inside one of them, and no
     * link below it is followed (NULL: the dataset's own directory) */
    const char *const *trees;
    int ntrees;
} scavenge_t;

/* The dataset to scavenge: the newest complete checkpoint in this node's
 * filemaps (cntldir), unless the index of prefix (if not empty) already has
 * it complete.  Returns 1 (id set), 0 if none, -1 on error. */
int scavenge_pick(const char *prefix, const char *cntldir, int *id, scr_error_t *err);
/* the same among the checkpoints older than dataset below (a fallback) */
int scavenge_pick_below(const char *prefix, const char *cntldir, int below, int *id,
                        scr_error_t *err);

/* Round 1.  Returns 0 if every file of this node's ranks was copied. */
int scavenge_own(scavenge_t *s, scr_error_t *err);
/* Round 2: partner copies of ranks without a .scrfilemap. */
int scavenge_partners(scavenge_t *s, scr_error_t *err);

/* Record in <prefix>/.scr/scavenge.<jobid>.scr that host reached phase
 * ("COPIED", "FINISHED"; "INDEXED" records that the dataset was indexed
 * outside the epilog, so no epilog indexes it again) having copied dataset id (-1:
 * nothing).  With live, the one caller whose FINISHED mark completes live gets *index_id
 * = the newest dataset any node copied (else -1). */
int scavenge_mark(const char *prefix, const char *jobid, const char *host,
                  const char *phase, int id, const nodelist_t *live, int *index_id,
                  scr_error_t *err);
/* the newest dataset any node of the job copied (COPIED marks), or -1 */
int scavenge_job_newest(const char *prefix, const char *jobid);
/* Wait until every host of live has reached phase (at most timeout seconds).
 * Returns 0 when they have, 1 on timeout. */
int scavenge_wait(const char *prefix, const char *jobid, const char *phase,
                  const nodelist_t *live, double timeout);

/* Falling back.  When the dataset the indexer indexed cannot be recovered
 * (files lost on too many nodes of a set), the nodes that copied a part of
 * it try the newest older checkpoint in their caches, and so on: try 1, 2,
 * ... keep their marks, election and verdict under TRY <n> in the scavenge
 * file (try 0 is the top level above).  The _try calls are the ones above
 * for try `try`. */
int scavenge_mark_try(const char *prefix, const char *jobid, int try, const char *host,
                      const char *phase, int id, const nodelist_t *live, int *index_id,
                      scr_error_t *err);
int scavenge_wait_try(const char *prefix, const char *jobid, int try, const char *phase,
                      const nodelist_t *live, double timeout);
/* the indexer records whether dataset id of a try could be indexed (ok 1) */
int scavenge_verdict(const char *prefix, const char *jobid, int try, int id, int ok,
                     scr_error_t *err);
/* wait (at most timeout seconds) for a try's verdict: 0 with *id and *ok,
 * 1 on timeout */
int scavenge_verdict_wait(const char *prefix, const char *jobid, int try, double timeout,
                          int *id, int *ok);
/* the verdict of the last try that has one (0 with *id and *ok), -1 if none */
int scavenge_job_verdict(const char *prefix, const char *jobid, int *id, int *ok);
/* the hosts that copied a part of a dataset in a try: the next try's nodes */
nodelist_t *scavenge_copiers(const char *prefix, const char *jobid, int try);

#endif
