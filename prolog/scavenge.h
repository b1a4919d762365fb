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
} scavenge_t;

/* The dataset to scavenge: the newest complete checkpoint in this node's
 * filemaps (cntldir), unless the index of prefix (if not empty) already has
 * it complete.  Returns 1 (id set), 0 if none, -1 on error. */
int scavenge_pick(const char *prefix, const char *cntldir, int *id, scr_error_t *err);

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

#endif
