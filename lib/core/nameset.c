/* SPDX-License-Identifier: BSD-3-Clause */
/* nameset.c - file names routed to the rank that judges them */
#include <stdint.h>

#include "nameset.h"

int nameset_owner(const char *rel, int ranks)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (int)(h % (uint64_t)ranks);
}

void nameset_route(kvtree_t *send, const kvtree_t *names, const char *tag, int ranks)
{
    for (kvtree_elem_t *e = kvtree_first(names); e; e = kvtree_elem_next(e))
        kvtree_setf(send, NULL, "%d %s %s", nameset_owner(kvtree_elem_key(e), ranks), tag,
                    kvtree_elem_key(e));
}

void nameset_route_entries(kvtree_t *send, const kvtree_t *entries, int ranks)
{
    for (kvtree_elem_t *e = kvtree_first(entries); e; e = kvtree_elem_next(e))
        kvtree_setf(send, kvtree_dup(kvtree_elem_tree(e)), "%d %s",
                    nameset_owner(kvtree_elem_key(e), ranks), kvtree_elem_key(e));
}

int nameset_meets(const kvtree_t *got, const char *own, const char *tag)
{
    kvtree_t *mine = kvtree_get(got, own);
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(got, tag)); e;
         e = kvtree_elem_next(e))
        if (kvtree_get(mine, kvtree_elem_key(e)))
            return 1;
    return 0;
}
