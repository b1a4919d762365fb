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

/* Flat records, for a join whose trees would cost more than the names
 * (namejoin.c): each name as a 4-byte tag, the name and its NUL, the
 * records one judge gets back to back: a third of the work of routing,
 * packing and unpacking them as small kvtrees (bench/README.md). */
typedef struct {
    int n;      /* judges */
    int *dest;  /* their ranks, ascending */
    int *len;   /* bytes for each */
    char **buf; /* the records for each, in all */
    char *all;
} nameset_out_t;

/* the names of sets[t] (t < k) as records tagged t, grouped by the rank of
 * ranks that judges each name; 0, or -1 (out of memory, over 2 GiB for a
 * judge) */
int nameset_pack(const kvtree_t *const *sets, int k, int ranks, nameset_out_t *out);
void nameset_out_free(nameset_out_t *out);

/* what a judge received */
typedef struct {
    char *buf;
    size_t len, cap;
} nameset_in_t;

/* add len bytes of records; 0 or -1 (out of memory) */
int nameset_take(nameset_in_t *in, const char *buf, size_t len);
/* hit[t - 1] = 1 for each tag t (1 <= t < k) of a name also tagged 0, else
 * 0; 0, or -1 (a malformed record, out of memory) */
int nameset_judge(const nameset_in_t *in, int k, int *hit);
void nameset_in_free(nameset_in_t *in);

#endif
