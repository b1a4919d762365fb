/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sets.c - redundancy sets never hold two ranks of one failure group */
#include <stdint.h>
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

/* 1 if the sums over ranks 0..n-1 of sets_agree_terms agree; rank r's
 * list is the ranks of its set in set_of, but for rank odd, whose list is
 * odd_list (NULL: it adds nothing, as a rank without a stored set) */
static int agree(const int *set_of, int n, int odd, const int *odd_list, int odd_n)
{
    uint64_t sums[2] = {0, 0};
    int *list = malloc(sizeof(int) * (size_t)n), bad = 0;
    for (int r = 0; r < n; r++) {
        int k = 0;
        for (int q = 0; q < n; q++)
            if (set_of[q] == set_of[r])
                list[k++] = q;
        if (r == odd && odd_list)
            bad |= sets_agree_terms(odd_list, odd_n, r, sums) < 0;
        else if (r != odd)
            bad |= sets_agree_terms(list, k, r, sums) < 0;
    }
    free(list);
    return !bad && sums[0] == sums[1];
}

/* the check that lets each set make its communicator from its own list
 * (lib/base/desc.c) instead of MPI_Comm_split over the job */
static void test_agree(int *set_of, int n)
{
    ok(agree(set_of, n, -1, NULL, 0), "the lists of a partition of %d ranks agree", n);
    int r = 17, mine[300], k = 0;
    for (int q = 0; q < n; q++)
        if (set_of[q] == set_of[r])
            mine[k++] = q;
    int fewer[300], f = 0, dropped = 0;
    for (int i = 0; i < k; i++) /* all but the first member other than r */
        if (mine[i] == r || dropped++)
            fewer[f++] = mine[i];
    ok(f == k - 1 && !agree(set_of, n, r, fewer, f),
       "rank %d listing one member fewer than its set's others: they do not", r);
    ok(!agree(set_of, n, r, NULL, 0), "rank %d without a list: they do not", r);
    int other = set_of[r] == set_of[0] ? n - 1 : 0, more[600], m = 0;
    for (int q = 0; q < n; q++)
        if (set_of[q] == set_of[r] || set_of[q] == set_of[other])
            more[m++] = q;
    ok(!agree(set_of, n, r, more, m),
       "rank %d listing its set and another as one: they do not", r);
    /* a set moved whole: every member says so, and they agree again */
    int old = set_of[r], with = set_of[other];
    for (int q = 0; q < n; q++)
        if (set_of[q] == old)
            set_of[q] = with;
    ok(agree(set_of, n, -1, NULL, 0),
       "two sets merged in every member's list: they agree");
    uint64_t sums[2] = {0, 0};
    int unsorted[2] = {5, 3}, noself[2] = {3, 5};
    ok(sets_agree_terms(unsorted, 2, 3, sums) < 0 &&
           sets_agree_terms(noself, 2, 4, sums) < 0 && sums[0] == 0 && sums[1] == 0,
       "a list out of order or without its own rank is refused, adding nothing");
}

/* the distributed rule as SCR_Init runs it, one process here: each rank's
 * row (its index in its group) and position in its row (by rank), the
 * rows' counts, a piece per rank, and a set per (row, piece) named by its
 * lowest rank.  -1 when some row is too short for a set. */
static int by_rows(const int *group, int ranks, int set_size, int min_size, int *set_of)
{
    int *row = calloc((size_t)ranks, sizeof(int)),
        *seen = calloc((size_t)ranks, sizeof(int));
    int *count = calloc((size_t)ranks, sizeof(int)),
        *pos = malloc(sizeof(int) * (size_t)ranks);
    int *key = malloc(sizeof(int) * (size_t)ranks), sets = 0, fit;
    for (int r = 0; r < ranks; r++) {
        row[r] = seen[group[r]]++;
        pos[r] = count[row[r]]++;
    }
    fit = 1;
    for (int r = 0; r < ranks; r++)
        fit &= count[r] == 0 || count[r] >= min_size;
    for (int r = 0; fit && r < ranks; r++) {
        int piece = sets_row_piece(count[row[r]], set_size, min_size, pos[r]);
        key[r] = row[r] * ranks + piece;
        fit = piece >= 0;
        set_of[r] = r;
        for (int q = 0; q < r; q++)
            if (key[q] == key[r]) {
                set_of[r] = set_of[q];
                break;
            }
        sets += set_of[r] == r;
    }
    free(row);
    free(seen);
    free(count);
    free(pos);
    free(key);
    return fit ? sets : -1;
}

/* the largest set of a partition */
static int largest(const int *set_of, int ranks)
{
    int most = 0;
    for (int r = 0; r < ranks; r++) {
        int n = 0;
        for (int q = 0; q < ranks; q++)
            n += set_of[q] == set_of[r];
        most = n > most ? n : most;
    }
    return most;
}

static void test_rows(void)
{
    ok(sets_row_piece(10, 4, 2, 3) == 0 && sets_row_piece(10, 4, 2, 4) == 1 &&
           sets_row_piece(10, 4, 2, 9) == 2,
       "a row of 10 in sets of 4: pieces of 4, 4 and 2");
    ok(sets_row_piece(9, 4, 2, 8) == 1 && sets_row_piece(9, 4, 2, 7) == 1,
       "a row of 9, minimum 2: the last rank joins the piece before it");
    ok(sets_row_piece(3, 8, 2, 2) == 0, "a row shorter than the set size: one piece");
    ok(sets_piece_size(10, 4, 2, 0) == 4 && sets_piece_size(10, 4, 2, 2) == 2 &&
           sets_piece_size(9, 4, 2, 1) == 5 && sets_piece_size(9, 4, 2, 2) < 0 &&
           sets_piece_size(3, 8, 2, 0) == 3 && sets_piece_size(1, 4, 2, 0) < 0,
       "piece sizes: 4, 4, 2 of 10; 4, 5 of 9; 3 of 3; none of a row too short");
    int agree = 1;
    for (int n = 1; n < 40; n++)
        for (int size = 1; size < 9; size++)
            for (int min = 1; min <= 3; min++) {
                int seen[40] = {0};
                for (int pos = 0; pos < n && n >= min; pos++)
                    seen[sets_row_piece(n, size, min, pos)]++;
                for (int piece = 0; piece < n && n >= min; piece++)
                    agree &= seen[piece] == (sets_piece_size(n, size, min, piece) < 0
                                                 ? 0
                                                 : sets_piece_size(n, size, min, piece));
            }
    ok(agree, "piece sizes agree with the cut for rows of 1-39, sets of 1-8");
    ok(sets_row_piece(1, 4, 2, 0) < 0 && sets_row_piece(5, 4, 2, 5) < 0 &&
           sets_row_piece(5, 0, 2, 0) < 0,
       "a row too short, a position past it, no set size: refused");

    int g8[8] = {0, 0, 1, 1, 2, 2, 3, 3}, set[64], small;
    ok(by_rows(g8, 8, 4, 2, set) == 2 && valid(g8, 8, set, 2, &small) && set[6] == 0 &&
           set[7] == 1,
       "8 ranks/4 nodes, size 4: sets 0,2,4,6 and 1,3,5,7 as sets_partition makes");
    int g10[10] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4};
    ok(by_rows(g10, 10, 4, 2, set) == 2 && valid(g10, 10, set, 2, &small) && small == 0 &&
           largest(set, 10) == 5,
       "5 nodes, size 4: the fifth node's ranks join the sets of their rows");
    int gu[7] = {0, 0, 0, 1, 1, 2, 2};
    ok(by_rows(gu, 7, 8, 2, set) < 0, "3,2,2 ranks, minimum 2: the third row is short");
    int ranks = 1000, *g = malloc(sizeof(int) * 1000), *s = malloc(sizeof(int) * 1000);
    for (int r = 0; r < ranks; r++)
        g[r] = (r / 5) % 40; /* 40 nodes of 25 ranks, 5 at a time */
    int n = by_rows(g, ranks, 8, 3, s);
    ok(n == 125 && valid(g, ranks, s, 3, &small) && small == 0 && largest(s, ranks) == 8,
       "1000 ranks on 40 nodes, size 8: %d sets of 8", n);
    n = by_rows(g, ranks, 7, 3, s);
    ok(n > 0 && valid(g, ranks, s, 3, &small) && small == 0 && largest(s, ranks) <= 9,
       "size 7, minimum 3: %d sets of 7 or, with a row's rest, 9 at most", n);
    free(g);
    free(s);
}

int main(void)
{
    test_rows();

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
    test_agree(s, ranks);
    free(g);
    free(s);
    return done_testing();
}
