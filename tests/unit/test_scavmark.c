/* SPDX-License-Identifier: BSD-3-Clause */
/* test_scavmark.c - the scavenge's marks (prolog/scavmark.c): in one root
 * file for a small job; for more live nodes than SCAVMARK_FANIN in leaf
 * files, the root holding one entry per leaf, with one indexer elected, the
 * waits, the newest dataset and the copiers as with one file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "kvtree.h"
#include "pfs.h"
#include "scavmark.h"
#include "tap.h"
#include "testutil.h"

static char *base;

static nodelist_t *hosts(int n)
{
    char spec[64];
    scr_error_t err;
    snprintf(spec, sizeof(spec), "n[1-%d]", n);
    return nodelist_from_str(spec, &err);
}

static long file_size(const char *prefix, const char *name)
{
    char path[4400];
    struct stat st;
    pfs_meta_path(prefix, name, path, sizeof(path));
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* every host of live marks phase with dataset id (host 3's is newer: id +
 * 2; the last host copied nothing: -1) in the order of step through live;
 * returns how many were elected, the elected one in *who */
static int mark_all(const char *prefix, const nodelist_t *live, const char *phase, int id,
                    int step, int *who, int *index_id)
{
    int n = nodelist_count(live), elected = 0;
    for (int i = 0, at = 0; i < n; i++, at = (at + step) % n) {
        const char *h = nodelist_nth(live, at);
        int mine = at == 2 ? id + 2 : at == n - 1 ? -1 : id, got = -1;
        scr_error_t err = {""};
        if (scavenge_mark(prefix, "9", h, phase, mine, live, &got, &err) < 0)
            diag("scavenge_mark %s: %s", h, err.text);
        if (got >= 0) {
            elected++;
            *who = at;
            *index_id = got;
        }
    }
    return elected;
}

static void test_small(void)
{
    char prefix[4200];
    snprintf(prefix, sizeof(prefix), "%s/small", base);
    nodelist_t *live = hosts(4);
    int who = -1, index_id = -1;
    ok(scavenge_wait(prefix, "9", "COPIED", live, 0) == 1, "small: nobody copied yet");
    mark_all(prefix, live, "COPIED", 15, 1, &who, &index_id);
    ok(scavenge_wait(prefix, "9", "COPIED", live, 0) == 0, "small: every node copied");
    int elected = mark_all(prefix, live, "FINISHED", 15, 1, &who, &index_id);
    ok(elected == 1 && who == 3 && index_id == 17,
       "small: the last to finish indexes the newest (%d elected, node %d, dataset %d)",
       elected, who, index_id);
    ok(file_size(prefix, "scavenge.9.0.scr") < 0, "small: no leaf file");
    nodelist_t *c = scavenge_copiers(prefix, "9", 0);
    ok(nodelist_count(c) == 3, "small: 3 copiers (%d)", nodelist_count(c));
    nodelist_delete(&c);
    nodelist_delete(&live);
}

static void test_leaves(void)
{
    char prefix[4200];
    snprintf(prefix, sizeof(prefix), "%s/big", base);
    int n = 2 * SCAVMARK_FANIN + 88, who = -1, index_id = -1;
    nodelist_t *live = hosts(n);
    /* every node but one */
    nodelist_t *all_but = nodelist_new();
    for (int i = 0; i < n; i++)
        if (i != 2 * SCAVMARK_FANIN - 1)
            nodelist_append(all_but, nodelist_nth(live, i));
    scr_error_t err = {""};
    for (int i = 0; i < nodelist_count(all_but); i++)
        scavenge_mark(prefix, "9", nodelist_nth(all_but, i), "COPIED", 15, live, NULL,
                      &err);
    ok(scavenge_wait(prefix, "9", "COPIED", live, 0) == 1,
       "leaves: one node has not copied: not every node has");
    scavenge_mark(prefix, "9", nodelist_nth(live, 2 * SCAVMARK_FANIN - 1), "COPIED", 15,
                  live, NULL, &err);
    ok(scavenge_wait(prefix, "9", "COPIED", live, 0) == 0, "leaves: now every node has");
    ok(file_size(prefix, "scavenge.9.2.scr") > 0 &&
           file_size(prefix, "scavenge.9.3.scr") < 0,
       "leaves: three leaf files for %d nodes", n);
    long root = file_size(prefix, "scavenge.9.scr"),
         leaf = file_size(prefix, "scavenge.9.0.scr");
    ok(root > 0 && root < 1024 && leaf < 64 * 1024,
       "leaves: the root holds the leaves, not the nodes (%ld bytes; a leaf %ld)", root,
       leaf);
    ok(scavenge_job_newest(prefix, "9") == 15, "leaves: the newest copied is 15");
    /* FINISHED in a stride through the nodes: the leaves complete late */
    int elected = mark_all(prefix, live, "FINISHED", 20, 7, &who, &index_id);
    ok(elected == 1 && index_id == 22,
       "leaves: one indexer, for the newest dataset (%d elected, dataset %d)", elected,
       index_id);
    nodelist_t *c = scavenge_copiers(prefix, "9", 0);
    ok(nodelist_count(c) == n, "leaves: every node copied (%d)", nodelist_count(c));
    nodelist_delete(&c);
    /* a node the live set does not have marks the root */
    scavenge_mark(prefix, "9", "other7", "COPIED", 30, live, NULL, &err);
    ok(scavenge_job_newest(prefix, "9") == 30,
       "leaves: a node outside the live set counts");
    /* a fallback's try keeps its own sections */
    scavenge_mark_try(prefix, "9", 1, nodelist_nth(live, 0), "COPIED", 12, live, NULL,
                      &err);
    c = scavenge_copiers(prefix, "9", 1);
    ok(nodelist_count(c) == 1, "leaves: try 1 has its own copier (%d)",
       nodelist_count(c));
    nodelist_delete(&c);
    scavenge_marks_remove(prefix, "9");
    ok(file_size(prefix, "scavenge.9.scr") < 0 &&
           file_size(prefix, "scavenge.9.0.scr") < 0 &&
           file_size(prefix, "scavenge.9.2.scr") < 0 &&
           file_size(prefix, "scavenge.9.2.scr.lock") < 0,
       "leaves: scavenge_marks_remove leaves no file of them");
    ok(scavenge_job_newest(prefix, "9") == -1, "leaves: and no mark");
    nodelist_delete(&all_but);
    nodelist_delete(&live);
}

int main(void)
{
    base = tu_tmpdir();
    test_small();
    test_leaves();
    tu_rmrf(base);
    free(base);
    return done_testing();
}
