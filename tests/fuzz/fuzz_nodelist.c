/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_nodelist.c - libFuzzer target for host lists: expansion (scheduler
 * node lists, SCR_JOB_NODES, job.scrinfo NODES), compression (the nodes and
 * down-node lists SCR writes), set differences (`scr run`'s live nodes, the
 * epilog's run nodes) and names_index (the library's node numbering).  The
 * input is one host list, or two separated by '|'.  Whatever expands must
 * compress and expand back to the same set; minus and intersect must split
 * a list; equal names must share an index. */
#include <stdlib.h>
#include <string.h>

#include "nodelist.h"

/* compress and expand again: the same set of hosts */
static void round_trip(nodelist_t *hl)
{
    char *c = nodelist_compress(hl);
    nodelist_t *back = c ? nodelist_from_str(c, NULL) : NULL;
    nodelist_uniq(hl);
    if (!back || nodelist_count(back) != nodelist_count(hl))
        abort();
    for (int i = 0; i < nodelist_count(hl); i++)
        if (nodelist_find(back, nodelist_nth(hl, i)) < 0)
            abort();
    nodelist_delete(&back);
    free(c);
}

/* a minus b and a intersect b: every host of a in exactly one */
static void set_ops(const nodelist_t *a, const nodelist_t *b)
{
    nodelist_t *m = nodelist_minus(a, b), *x = nodelist_intersect(a, b);
    if (!m || !x)
        abort();
    for (int i = 0; i < nodelist_count(a); i++) {
        const char *h = nodelist_nth(a, i);
        int in_b = nodelist_find(b, h) >= 0;
        if ((nodelist_find(m, h) >= 0) == in_b || (nodelist_find(x, h) >= 0) != in_b)
            abort();
    }
    nodelist_delete(&m);
    nodelist_delete(&x);
}

/* equal names share an index, and indices count up from 0 */
static void check_index(const nodelist_t *hl)
{
    int n = nodelist_count(hl);
    size_t width = 1;
    for (int i = 0; i < n; i++)
        if (strlen(nodelist_nth(hl, i)) + 1 > width)
            width = strlen(nodelist_nth(hl, i)) + 1;
    char *names = calloc((size_t)n + 1, width);
    int *idx = calloc((size_t)n + 1, sizeof(int)), next = 0;
    for (int i = 0; i < n; i++)
        strcpy(names + (size_t)i * width, nodelist_nth(hl, i));
    int distinct = names_index(names, n, width, idx);
    for (int i = 0; i < n; i++) {
        int first = nodelist_find(hl, nodelist_nth(hl, i));
        if (idx[i] != idx[first] || (first == i && idx[i] != next++))
            abort();
    }
    if (distinct != next)
        abort();
    free(names);
    free(idx);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size > 256)
        return 0; /* ranges multiply: keep expansions small */
    char *s = strndup((const char *)data, size), *bar = strchr(s, '|');
    if (bar)
        *bar = '\0';
    nodelist_t *a = nodelist_from_str(s, NULL);
    nodelist_t *b = bar ? nodelist_from_str(bar + 1, NULL) : NULL;
    /* a second list appended to the first, as SLURM_NODELIST parts are */
    if (a && bar && nodelist_count(a) < 1000)
        nodelist_expand(a, bar + 1, NULL);
    if (a && nodelist_count(a) < 1000) {
        check_index(a);
        if (b && nodelist_count(b) < 1000)
            set_ops(a, b);
        round_trip(a);
    }
    nodelist_delete(&a);
    nodelist_delete(&b);
    free(s);
    return 0;
}
