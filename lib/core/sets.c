/* SPDX-License-Identifier: BSD-3-Clause */
/* sets.c - redundancy set partition, O(ranks log ranks) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sets.h"

typedef struct {
    int row; /* index of the rank within its group */
    int group;
    int rank;
} sets_key_t;

static int sets_key_cmp(const void *a, const void *b)
{
    const sets_key_t *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* 1 if set s (a list of ranks) contains a rank of group g */
static int set_has_group(const int *members, int n, const int *group, int g)
{
    for (int i = 0; i < n; i++)
        if (group[members[i]] == g)
            return 1;
    return 0;
}

/* Grow small set s by taking members from sets that can spare one: a rank
 * whose group s lacks, from a set larger than min_size. */
static void sets_borrow(const int *group, int ranks, int min_size, int *label, int s,
                        int *size, int *members)
{
    while (size[s] < min_size) {
        int n = 0, moved = 0;
        for (int r = 0; r < ranks; r++)
            if (label[r] == s)
                members[n++] = r;
        for (int r = 0; r < ranks && !moved; r++) {
            int t = label[r];
            if (t == s || size[t] <= min_size ||
                set_has_group(members, n, group, group[r]))
                continue;
            label[r] = s;
            size[t]--;
            size[s]++;
            moved = 1;
        }
        if (!moved)
            return;
    }
}

/* Fix sets smaller than min_size: borrow members, else merge into a set
 * with none of their groups.  label[r] is the creation index of r's set.
 * Small sets are rare (a remainder), so the quadratic scans here run on few
 * ranks. */
static void sets_merge_small(const int *group, int ranks, int min_size, int *label,
                             int nsets, int *size)
{
    int *members = malloc(sizeof(int) * (size_t)ranks);
    int *other = malloc(sizeof(int) * (size_t)ranks);
    for (int s = nsets - 1; members && other && s >= 0; s--) {
        if (size[s] == 0 || size[s] >= min_size)
            continue;
        sets_borrow(group, ranks, min_size, label, s, size, members);
        if (size[s] >= min_size)
            continue;
        int n = 0;
        for (int r = 0; r < ranks; r++)
            if (label[r] == s)
                members[n++] = r;
        for (int t = 0; t < nsets; t++) {
            if (t == s || size[t] == 0)
                continue;
            int m = 0, clash = 0;
            for (int r = 0; r < ranks; r++)
                if (label[r] == t)
                    other[m++] = r;
            for (int i = 0; i < n && !clash; i++)
                clash = set_has_group(other, m, group, group[members[i]]);
            if (!clash) {
                for (int i = 0; i < n; i++)
                    label[members[i]] = t;
                size[t] += n;
                size[s] = 0;
                break;
            }
        }
    }
    free(members);
    free(other);
}

int sets_partition(const int *group, int ranks, int set_size, int min_size, int *set_of)
{
    if (!group || !set_of || ranks <= 0 || set_size < 1)
        return -1;
    int groups = 0;
    for (int r = 0; r < ranks; r++) {
        if (group[r] < 0)
            return -1;
        groups = group[r] + 1 > groups ? group[r] + 1 : groups;
    }
    sets_key_t *keys = malloc(sizeof(*keys) * (size_t)ranks);
    int *count = calloc((size_t)groups, sizeof(int));
    int *last_set = malloc(sizeof(int) * (size_t)groups);
    int *label = malloc(sizeof(int) * (size_t)ranks);
    int *size = calloc((size_t)ranks, sizeof(int));
    int *lowest = malloc(sizeof(int) * (size_t)ranks);
    int nsets = -1;
    if (!keys || !count || !last_set || !label || !size || !lowest)
        goto out;
    for (int r = 0; r < ranks; r++)
        keys[r] = (sets_key_t){count[group[r]]++, group[r], r};
    qsort(keys, (size_t)ranks, sizeof(*keys), sets_key_cmp);
    for (int g = 0; g < groups; g++)
        last_set[g] = -1;
    int cur = -1;
    for (int i = 0; i < ranks; i++) {
        int g = keys[i].group;
        if (cur < 0 || size[cur] == set_size || last_set[g] == cur)
            cur++;
        label[keys[i].rank] = cur;
        last_set[g] = cur;
        size[cur]++;
    }
    sets_merge_small(group, ranks, min_size, label, cur + 1, size);
    /* name each set by its lowest member */
    for (int s = 0; s <= cur; s++)
        lowest[s] = -1;
    nsets = 0;
    for (int r = 0; r < ranks; r++) {
        if (lowest[label[r]] < 0) {
            lowest[label[r]] = r;
            nsets++;
        }
        set_of[r] = lowest[label[r]];
    }
out:
    free(keys);
    free(count);
    free(last_set);
    free(label);
    free(size);
    free(lowest);
    return nsets;
}

int sets_row_piece(int n, int set_size, int min_size, int pos)
{
    if (set_size < 1 || pos < 0 || pos >= n || n < min_size)
        return -1;
    int full = n / set_size, rest = n % set_size, piece = pos / set_size;
    if (rest > 0 && rest < min_size && full > 0 && piece == full)
        piece--;
    return piece;
}

int sets_piece_size(int n, int set_size, int min_size, int piece)
{
    if (set_size < 1 || n < min_size || n < 1 || piece < 0)
        return -1;
    int last = sets_row_piece(n, set_size, min_size, n - 1);
    if (piece > last)
        return -1;
    return piece < last ? set_size : n - last * set_size;
}

/* splitmix64's finalizer: every input bit moves every output bit */
static uint64_t sets_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int sets_agree_terms(const int *members, int n, int self, uint64_t sums[2])
{
    uint64_t list = sets_mix((uint64_t)n), sum = 0;
    int has_self = 0;
    for (int i = 0; i < n; i++) {
        if (members[i] < 0 || (i > 0 && members[i] <= members[i - 1]))
            return -1;
        has_self |= members[i] == self;
        list = sets_mix(list ^ (uint64_t)members[i]);
    }
    if (n < 1 || !has_self)
        return -1;
    for (int i = 0; i < n; i++)
        sum += sets_mix(list ^ sets_mix((uint64_t)members[i] + 1));
    sums[0] += sum;
    sums[1] += (uint64_t)n * sets_mix(list ^ sets_mix((uint64_t)self + 1));
    return 0;
}
