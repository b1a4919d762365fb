/* SPDX-License-Identifier: BSD-3-Clause */
/* nodelist.h - Slurm-style host lists: "n[1-4,7],login2" <-> host names.
 *
 * Schedulers hand out node sets in this compressed form (SLURM_NODELIST,
 * scontrol, flux hostlists), and SCR's nodes file and down-node list speak it
 * too.  Ranges may be zero-padded ("n[01-10]") and several bracket groups
 * expand as a product ("r[1-2]n[1-3]").
 */
#ifndef SCR_HOSTLIST_H
#define SCR_HOSTLIST_H

#include "error.h"

/* expansions larger than this are rejected as malformed input */
#define NODELIST_MAX_HOSTS (1 << 20)

typedef struct nodelist nodelist_t;

nodelist_t *nodelist_new(void);
void nodelist_delete(nodelist_t **hl);
/* Parse str and append its hosts; -1 with a message for bad syntax. */
int nodelist_expand(nodelist_t *hl, const char *str, scr_error_t *err);
nodelist_t *nodelist_from_str(const char *str, scr_error_t *err);
int nodelist_append(nodelist_t *hl, const char *host);
int nodelist_count(const nodelist_t *hl);
const char *nodelist_nth(const nodelist_t *hl, int i);
/* index of host, or -1 */
int nodelist_find(const nodelist_t *hl, const char *host);
/* sort by name prefix then number, and drop duplicates */
void nodelist_uniq(nodelist_t *hl);
/* compressed form, hosts sorted and unique: "n[1-4,7]" (malloc'd) */
char *nodelist_compress(const nodelist_t *hl);
/* new lists: hosts of a not in b; hosts in both */
nodelist_t *nodelist_minus(const nodelist_t *a, const nodelist_t *b);
nodelist_t *nodelist_intersect(const nodelist_t *a, const nodelist_t *b);

/* n names of width bytes each (NUL-terminated within width): idx[i] is the
 * number of distinct names among names[0..first appearance of names[i]], i.e.
 * equal names share an index and indices count up in order of first
 * appearance.  O(n log n).  Returns the number of distinct names or -1. */
int names_index(const char *names, int n, size_t width, int *idx);

#endif
