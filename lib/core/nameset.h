/* SPDX-License-Identifier: BSD-3-Clause */
/* nameset.h - the MPI-free half of a join of file names spread over a job's
 * ranks (lib/base/namejoin.h): which rank judges a name, and the trees the
 * ranks send each other.  A name goes to the rank its hash picks (FNV-1a),
 * so the judge of a name sees every copy of it whoever holds them, and no
 * process holds more than its share.  bench/scr-model runs these on one
 * process to measure a rank's part of the join.
 */
#ifndef SCR_NAMESET_H
#define SCR_NAMESET_H

#include "kvtree.h"

/* the rank of ranks that judges name rel */
int nameset_owner(const char *rel, int ranks);

/* each name (key) of names into send as "<owner>" -> tag -> name (a name
 * may hold blanks: kvtree_setf never splits an argument) */
void nameset_route(kvtree_t *send, const kvtree_t *names, const char *tag, int ranks);

/* each entry (name -> tree) of entries into send as "<owner>" -> name ->
 * a copy of its tree: the names with what is known of them */
void nameset_route_entries(kvtree_t *send, const kvtree_t *entries, int ranks);

/* got: what a judge received, merged (tag -> name); 1 if a name under tag
 * is also under own */
int nameset_meets(const kvtree_t *got, const char *own, const char *tag);

#endif
