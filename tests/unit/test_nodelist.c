/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nodelist.c - expand, compress, minus, intersect */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodelist.h"
#include "tap.h"

static int expands_to(const char *in, const char *want_joined)
{
    scr_error_t err;
    nodelist_t *hl = nodelist_from_str(in, &err);
    if (!hl) {
        diag("%s", err.text);
        return 0;
    }
    char got[4096] = "";
    for (int i = 0; i < nodelist_count(hl); i++) {
        if (i)
            strcat(got, " ");
        strcat(got, nodelist_nth(hl, i));
    }
    nodelist_delete(&hl);
    if (strcmp(got, want_joined) != 0)
        diag("'%s' expanded to '%s'", in, got);
    return strcmp(got, want_joined) == 0;
}

static int rejects(const char *in)
{
    scr_error_t err;
    nodelist_t *hl = nodelist_from_str(in, &err);
    int r = hl == NULL && strstr(err.text, in) != NULL;
    if (hl)
        diag("'%s' was accepted", in);
    nodelist_delete(&hl);
    return r;
}

static int compresses_to(const char *in, const char *want)
{
    nodelist_t *hl = nodelist_from_str(in, NULL);
    char *s = nodelist_compress(hl);
    int r = s && strcmp(s, want) == 0;
    if (!r)
        diag("'%s' compressed to '%s', want '%s'", in, s ? s : "(null)", want);
    free(s);
    nodelist_delete(&hl);
    return r;
}

/* minus and intersect keep a's order and drop a's repeats */
static void check_filter_order(void)
{
    nodelist_t *a = nodelist_from_str("n5,n1,n5,n3,n2,n1", NULL);
    nodelist_t *b = nodelist_from_str("n3,n1,n9,n3", NULL);
    nodelist_t *m = nodelist_minus(a, b), *i = nodelist_intersect(a, b);
    nodelist_t *none = nodelist_minus(a, NULL), *e = nodelist_new();
    nodelist_t *all = nodelist_intersect(e, b);
    ok(nodelist_count(m) == 2 && !strcmp(nodelist_nth(m, 0), "n5") &&
           !strcmp(nodelist_nth(m, 1), "n2"),
       "minus keeps a's order, each host once");
    ok(nodelist_count(i) == 2 && !strcmp(nodelist_nth(i, 0), "n1") &&
           !strcmp(nodelist_nth(i, 1), "n3"),
       "intersect keeps a's order, each host once");
    ok(nodelist_count(none) == 4, "minus nothing: a without repeats");
    ok(all && nodelist_count(all) == 0, "an empty list intersects to nothing");
    nodelist_delete(&a);
    nodelist_delete(&b);
    nodelist_delete(&m);
    nodelist_delete(&i);
    nodelist_delete(&none);
    nodelist_delete(&e);
    nodelist_delete(&all);
}

/* a machine's worth of nodes: every other one down (a search per host
 * took minutes at this size before the lookups were sorted) */
static void check_filter_big(void)
{
    nodelist_t *a = nodelist_from_str("n[1-200000]", NULL);
    nodelist_t *b = nodelist_from_str("n[1-200000]", NULL);
    nodelist_t *down = nodelist_new();
    for (int k = 2; k <= 200000; k += 2) {
        char h[16];
        snprintf(h, sizeof(h), "n%d", k);
        nodelist_append(down, h);
    }
    nodelist_t *up = nodelist_minus(a, down), *same = nodelist_intersect(a, b);
    ok(nodelist_count(up) == 100000 && !strcmp(nodelist_nth(up, 0), "n1") &&
           !strcmp(nodelist_nth(up, 99999), "n199999"),
       "200000 nodes minus 100000: %d left", nodelist_count(up));
    ok(nodelist_count(same) == 200000 && !strcmp(nodelist_nth(same, 12345), "n12346"),
       "200000 nodes intersect themselves in order");
    nodelist_delete(&a);
    nodelist_delete(&b);
    nodelist_delete(&down);
    nodelist_delete(&up);
    nodelist_delete(&same);
}

int main(void)
{
    ok(expands_to("n[1-4,7]", "n1 n2 n3 n4 n7"), "ranges and singles");
    ok(expands_to("n[01-03]", "n01 n02 n03"), "zero padding kept");
    ok(expands_to("r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2"), "product of groups");
    ok(expands_to("a,b c", "a b c"), "commas and spaces");
    ok(expands_to("login2,n[8-10]-ib", "login2 n8-ib n9-ib n10-ib"),
       "suffix after bracket");
    ok(expands_to("", ""), "empty list");
    ok(rejects("n[1-"), "unterminated bracket");
    ok(rejects("n[3-1]"), "reversed range");
    ok(rejects("n[]"), "empty brackets");
    ok(rejects("n]"), "stray ]");
    ok(rejects("n[6,7]n]n[1-3]"), "stray ] between groups");
    ok(rejects("n[[1-2]]"), "nested brackets");
    ok(rejects("n[a-b]"), "letters in range");
    ok(rejects("n[0-99999999]"), "huge range rejected");

    ok(compresses_to("n1,n2,n3,n4,n7", "n[1-4,7]"), "compress");
    ok(compresses_to("n7,n1,n2,n1", "n[1-2,7]"), "compress sorts and dedups");
    ok(compresses_to("n08,n09,n10", "n[08-10]"), "compress zero padded");
    ok(compresses_to("login,n1", "login,n1"), "single hosts stay plain");
    ok(compresses_to("n9,n10,n11", "n[9-11]"), "numeric order, not string order");
    ok(compresses_to("n[0-474]", "n[0-474]"), "run across widths keeps no padding");
    ok(compresses_to("a1,b1,b2", "a1,b[1-2]"), "several prefixes");
    ok(compresses_to("a-very-long-host-name-prefix-of-the-cluster-x[1-3]",
                     "a-very-long-host-name-prefix-of-the-cluster-x[1-3]"),
       "long prefixes keep every host");

    nodelist_t *a = nodelist_from_str("n[1-6]", NULL);
    nodelist_t *b = nodelist_from_str("n[2,4],x1", NULL);
    nodelist_t *m = nodelist_minus(a, b), *i = nodelist_intersect(a, b);
    char *ms = nodelist_compress(m), *is = nodelist_compress(i);
    ok(ms && strcmp(ms, "n[1,3,5-6]") == 0, "minus: %s", ms);
    ok(is && strcmp(is, "n[2,4]") == 0, "intersect: %s", is);
    ok(nodelist_find(a, "n5") == 4 && nodelist_find(a, "n9") == -1, "find");
    free(ms);
    free(is);
    nodelist_delete(&a);
    nodelist_delete(&b);
    nodelist_delete(&m);
    nodelist_delete(&i);
    check_filter_order();
    check_filter_big();

    /* names_index: equal names share an index, counted by first appearance */
    char names[6][8] = {"n2", "n1", "n2", "n3", "n1", "n2"};
    int idx[6];
    int nd = names_index(&names[0][0], 6, 8, idx);
    ok(nd == 3 && idx[0] == 0 && idx[1] == 1 && idx[2] == 0 && idx[3] == 2 &&
           idx[4] == 1 && idx[5] == 0,
       "names_index: %d %d %d %d %d %d", idx[0], idx[1], idx[2], idx[3], idx[4], idx[5]);
    int big = 200000, *bi = malloc(sizeof(int) * (size_t)big);
    char *bn = calloc((size_t)big, 16);
    for (int r = 0; r < big; r++)
        snprintf(bn + (size_t)r * 16, 16, "node%d", (r / 8) % 5000);
    int distinct = names_index(bn, big, 16, bi);
    int good = distinct == 5000;
    for (int r = 0; r < big && good; r++)
        good = bi[r] == (r / 8) % 5000;
    ok(good, "names_index: 200000 ranks on 5000 nodes in n log n");
    free(bi);
    free(bn);
    return done_testing();
}
