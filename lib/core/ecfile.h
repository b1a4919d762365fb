/* SPDX-License-Identifier: BSD-3-Clause */
/* ecfile.h - rebuilding lost ranks of a dataset on the prefix from the XOR or
 * Reed-Solomon redundancy files a scavenge copied there (guide 2.13, the
 * BUILD step of scr_index), serially, without MPI.
 *
 * A set is described as MEMBERS <n>, MEMBER <set rank> {FILE <path of its
 * redundancy file>} for the members whose files were scavenged.  A member
 * counts as lost when its redundancy file or any of its application files is
 * missing or has the wrong size; with at most FAILURES members lost, the lost
 * members' application files are decoded stripe by stripe from the survivors
 * (ec.h) and written at their relative paths under the dataset directory.
 * Their file lists come from the neighbours' headers (PARTNER / PARTNERS).
 */
#ifndef SCR_ECFILE_H
#define SCR_ECFILE_H

#include "error.h"
#include "kvtree.h"

/* Rebuild the lost members of set.  rebuilt gains, per rebuilt global rank,
 * RANK <r> {DSETDESC, FILES, FILE <rel> {SIZE, CRC, ...}}.  Returns the number
 * of ranks rebuilt, or -1 (err says why, e.g. too many members lost or a
 * rebuilt file whose CRC32 is not the recorded one). */
int ecfile_rebuild(const char *dsetdir, const kvtree_t *set, kvtree_t *rebuilt,
                   scr_error_t *err);

#endif
