/* SPDX-License-Identifier: BSD-3-Clause */
/* scavmark.h - how the nodes of a job's scavenge (the epilogs, or `scr
 * postrun`'s `scr scavenge --live`) tell each other what they did, through
 * files on the prefix: which dataset each node copied, that every live node
 * is through a round, which one node indexes, and what the index found.
 *
 * The marks live in <prefix>/.scr/scavenge.<jobid>.scr, the root (each
 * update locked: read, change, write).  A node marks COPIED <host> after its
 * own ranks and FINISHED <host> after the partner copies, each with the
 * dataset it copied; the node whose FINISHED mark completes the live set
 * becomes INDEXER, exactly one, and records the VERDICT.
 *
 * A job of more than SCAVMARK_FANIN live nodes would make the root a file
 * of every node's marks that every node rewrites twice and every waiting
 * node reads five times a second (5.9 MiB at 125,000 nodes, serialized on
 * one lock).  There the live nodes go to ceil(live / SCAVMARK_FANIN) leaves
 * by a hash of their names (so every node places every other alike, in
 * whatever order its live list has them): a node marks the leaf file
 * scavenge.<jobid>.<k>.scr, and
 * the node whose mark completes its leaf marks LEAF <k> <phase> (with the
 * leaf's newest dataset) in the root, which then holds one entry per leaf;
 * waits and the election read the root alone.  A node outside the live set,
 * or one that does not know it, marks the root itself.
 */
#ifndef SCR_SCAVMARK_H
#define SCR_SCAVMARK_H

#include "error.h"
#include "nodelist.h"

/* live nodes per leaf file */
#define SCAVMARK_FANIN 256

/* Record that host reached phase ("COPIED", "FINISHED"; "INDEXED" records
 * that the dataset was indexed outside the epilog, so no epilog indexes it
 * again) having copied dataset id (-1: nothing).  live: the job's live nodes
 * (NULL: not known; no leaf, no election).  The one caller whose FINISHED
 * mark completes live gets *index_id = the newest dataset any node copied
 * (else -1). */
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
 * ... keep their marks, election and verdict under TRY <n> in each file
 * (try 0 is the top level above).  The _try calls are the ones above for
 * try `try`. */
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

/* Remove a job's marks (the root, the leaves, their lock files): `scr
 * postrun` starts afresh, since a job script may run `scr run` twice and the
 * first one's election and verdict are not the second's. */
void scavenge_marks_remove(const char *prefix, const char *jobid);

/* the files host's mark touches (bench/scr-model): root always, leaf when
 * it marks a leaf (else ""); returns the leaf, -1 for none */
int scavenge_mark_files(const char *prefix, const char *jobid, const nodelist_t *live,
                        const char *host, char *root, char *leaf, size_t len);

#endif
