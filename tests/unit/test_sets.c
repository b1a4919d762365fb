/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sets.c - redundancy sets never hold two ranks of one failure group */
#include <stdlib.h>

#include "sets.h"
#include "tap.h"

/* every set: no repeated group, size >= min unless impossible */
static int valid(const int *group, int ranks, const int *set_of, int min_size, int *small)
{
    *small = 0;
    for (int r = 0; r < ranks; r++) {
        int size = 0;
        for (int q = 0; q < ranks; q++) {
            if (set_of[q] != set_of[r])
                continue;
            size++;
            if (q != r && group[q] == group[r])
                return 0;
        }
        if (set_of[r] > r)
            return 0; /* the id is the lowest member */
        *small += size < min_size;
    }
    return 1;
}

int main(void)
{
    /* 8 ranks on 4 nodes, 2 per node, in block order */
    int g8[8] = {0, 0, 1, 1, 2, 2, 3, 3}, set[64], small;
    int n = sets_partition(g8, 8, 4, 2, set);
    ok(n == 2 && valid(g8, 8, set, 2, &small) && small == 0,
       "8 ranks/4 nodes, size 4: 2 sets");
    int in0 = 0;
    for (int r = 0; r < 8; r++)
        in0 += set[r] == 0;
    ok(in0 == 4 && set[0] == 0 && set[2] == 0 && set[4] == 0 && set[6] == 0,
       "set 0 is ranks 0,2,4,6");
    n = sets_partition(g8, 8, 8, 2, set);
    ok(n == 2 && valid(g8, 8, set, 2, &small), "size 8 with 4 nodes: sets of 4");
    n = sets_partition(g8, 8, 2, 2, set);
    ok(n == 4 && valid(g8, 8, set, 2, &small) && small == 0, "size 2: 4 pairs");

    /* uneven nodes: 3,2,2 ranks */
    int gu[7] = {0, 0, 0, 1, 1, 2, 2};
    n = sets_partition(gu, 7, 8, 2, set);
    ok(n > 0 && valid(gu, 7, set, 2, &small) && small == 0,
       "uneven nodes: leftover rank joins a set without its group");
    /* one node: every set would repeat the group */
    int g1[4] = {0, 0, 0, 0};
    n = sets_partition(g1, 4, 4, 2, set);
    ok(n == 4 && valid(g1, 4, set, 2, &small) && small == 4, "one group: singletons");

    /* a larger random case */
    int ranks = 1000, *g = malloc(sizeof(int) * 1000), *s = malloc(sizeof(int) * 1000);
    srand(3);
    for (int r = 0; r < ranks; r++)
        g[r] = rand() % 37;
    n = sets_partition(g, ranks, 8, 3, s);
    ok(n > 0 && valid(g, ranks, s, 3, &small) && small == 0,
       "1000 ranks, 37 groups: %d sets", n);
    ok(sets_partition(g, 0, 8, 2, s) < 0, "no ranks rejected");
    free(g);
    free(s);
    return done_testing();
}
