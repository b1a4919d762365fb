/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nameset.c - the flat records of the name join (nameset.h): every
 * name goes to the judge nameset_owner picks, one buffer per judge in
 * ascending order; the judges together find exactly the tags that share a
 * name with tag 0 (blanks in names, an empty set, a name in several sets);
 * a truncated record is refused */
#include <string.h>

#include "nameset.h"
#include "tap.h"

#define RANKS 7

/* the records packed for each judge, handed to that judge */
static void judge_all(const nameset_out_t *out, int k, int *hit)
{
    for (int t = 1; t < k; t++)
        hit[t - 1] = 0;
    for (int i = 0; i < out->n; i++) {
        nameset_in_t in = {0};
        int h[8];
        nameset_take(&in, out->buf[i], (size_t)out->len[i]);
        if (nameset_judge(&in, k, h) == 0)
            for (int t = 1; t < k; t++)
                hit[t - 1] |= h[t - 1];
        nameset_in_free(&in);
    }
}

int main(void)
{
    kvtree_t *s[5];
    for (int i = 0; i < 5; i++)
        s[i] = kvtree_new();
    for (int r = 0; r < 20; r++)
        kvtree_setf(s[0], NULL, "ckpt/rank_%d.dat", r);
    kvtree_set(s[0], "a b/c d.dat", NULL);
    kvtree_set(s[1], "ckpt/rank_13.dat", NULL); /* 1: one of tag 0's */
    kvtree_set(s[1], "other.dat", NULL);
    kvtree_set(s[2], "other.dat", NULL);   /* 2: nobody's */
    kvtree_set(s[3], "a b/c d.dat", NULL); /* 3: the blank name */
    nameset_out_t out;
    ok(nameset_pack((const kvtree_t *const *)s, 5, RANKS, &out) == 0, "packed");
    int ascending = 1, total = 0;
    for (int i = 0; i < out.n; i++) {
        ascending &= i == 0 || out.dest[i] > out.dest[i - 1];
        total += out.len[i];
    }
    ok(ascending && out.n <= RANKS, "one buffer per judge, ascending (%d)", out.n);
    int right = 1;
    for (int i = 0; i < out.n; i++) {
        nameset_in_t in = {0};
        nameset_take(&in, out.buf[i], (size_t)out.len[i]);
        for (size_t at = 0; at < in.len;) {
            const char *name = in.buf + at + 4;
            right &= nameset_owner(name, RANKS) == out.dest[i];
            at += 4 + strlen(name) + 1;
        }
        nameset_in_free(&in);
    }
    ok(right, "every name at the judge nameset_owner picks");
    int want = 0;
    for (int t = 0; t < 5; t++)
        for (kvtree_elem_t *e = kvtree_first(s[t]); e; e = kvtree_elem_next(e))
            want += 4 + (int)strlen(kvtree_elem_key(e)) + 1;
    ok(total == want, "every name once a set (%d bytes of %d)", total, want);
    int hit[4];
    judge_all(&out, 5, hit);
    ok(hit[0] == 1, "a set naming one of tag 0's names is hit");
    ok(hit[1] == 0, "a set naming nobody's is not");
    ok(hit[2] == 1, "a name with blanks is found");
    ok(hit[3] == 0, "an empty set is not hit");
    nameset_in_t in = {0};
    nameset_take(&in, out.buf[0], (size_t)out.len[0] - 1);
    ok(nameset_judge(&in, 5, hit) < 0, "a record cut short is refused");
    nameset_in_free(&in);
    nameset_out_free(&out);
    for (int i = 0; i < 5; i++)
        kvtree_delete(&s[i]);
    return done_testing();
}
