/* SPDX-License-Identifier: BSD-3-Clause */
/* test_scavenge.c - the dataset a node's epilog scavenges
 * (scavenge_pick_below, prolog/scavenge.c): the newest complete checkpoint
 * in the control directory's filemaps, unless the prefix already has it:
 * complete in the index with the same creation time, or, as each rank
 * stamps its own creation time and the index holds rank 0's, with this
 * rank's copy of its filemap that an earlier scavenge left on the prefix;
 * and the verdict `scr postrun` reports (scavenge_job_verdict) */
#include <limits.h>

#include "dsindex.h"
#include "dsrec.h"
#include "filemap.h"
#include "io.h"
#include "kvtree.h"
#include "pfs.h"
#include "scavenge.h"
#include "tap.h"
#include "testutil.h"

#define RANK 6          /* the rank whose filemap this node holds */
#define X 1700000006ULL /* rank 6's creation time of dataset 15 */
#define Y 1700000000ULL /* rank 0's, the one the index records */
#define Z 1600000006ULL /* rank 6's of another job's dataset 15 */

static char *base;
static char cntldir[4200], prefix[4200];

/* a fresh control directory and prefix for case n */
static void fresh(int n)
{
    char dir[4100];
    snprintf(dir, sizeof(dir), "%s/case%d", base, n);
    snprintf(cntldir, sizeof(cntldir), "%s/cntl", dir);
    snprintf(prefix, sizeof(prefix), "%s/prefix", dir);
    io_mkdir_p(cntldir, 0700, NULL);
    io_mkdir_p(prefix, 0700, NULL);
}

/* the dataset descriptor a rank stamps: a complete checkpoint */
static kvtree_t *dsetdesc(int id, uint64_t created, int complete)
{
    char s[64];
    kvtree_t *d = kvtree_new();
    kvtree_util_set_int(d, "ID", id);
    snprintf(s, sizeof(s), "ckpt.%d", id);
    kvtree_util_set_str(d, "NAME", s);
    kvtree_util_set_int(d, "FLAGS", 1);
    kvtree_util_set_int(d, "CKPT", id);
    kvtree_util_set_u64(d, "CREATED", created);
    kvtree_util_set_str(d, "USER", "user");
    kvtree_util_set_str(d, "JOBID", "100");
    kvtree_util_set_int(d, "COMPLETE", complete);
    return d;
}

/* add dataset id (created) with one file of RANK to filemap fm */
static void fm_add(kvtree_t *fm, int id, uint64_t created)
{
    char path[4400];
    kvtree_t *desc = dsetdesc(id, created, 1);
    snprintf(path, sizeof(path), "%s/cache/scr.dataset.%d", base, id);
    kvtree_util_set_str(desc, "DIR", path);
    filemap_set_desc(fm, id, "DSETDESC", desc);
    kvtree_delete(&desc);
    snprintf(path, sizeof(path), "%s/cache/scr.dataset.%d/rank_%d.ckpt", base, id, RANK);
    kvtree_t *meta = kvtree_new();
    kvtree_util_set_str(meta, "TYPE", FM_TYPE_USER);
    kvtree_util_set_u64(meta, "SIZE", 4);
    kvtree_util_set_int(meta, "COMPLETE", 1);
    filemap_add_file(fm, id, RANK, path, meta);
    kvtree_delete(&meta);
    kvtree_util_set_int(filemap_rank(fm, id, RANK), "FILES", 1);
}

/* RANK's filemap in the control directory, with datasets ids (created) */
static void write_filemap(const int *ids, const uint64_t *created, int n)
{
    char path[4400];
    kvtree_t *fm = kvtree_new();
    for (int i = 0; i < n; i++)
        fm_add(fm, ids[i], created[i]);
    snprintf(path, sizeof(path), "%s/filemap_%d.scrinfo", cntldir, RANK);
    scr_error_t err = {""};
    if (filemap_write(path, fm, &err) < 0)
        diag("filemap_write: %s", err.text);
    kvtree_delete(&fm);
}

/* the prefix's index gets dataset id as a flush records it: rank 0's
 * descriptor (created), complete or not */
static void write_index(int id, uint64_t created, int complete)
{
    char name[64];
    scr_error_t err = {""};
    kvtree_t *d = dsetdesc(id, created, 1);
    pfs_dset_name(id, name, sizeof(name));
    if (index_add(prefix, id, name, d, complete, &err) < 0)
        diag("index_add: %s", err.text);
    kvtree_delete(&d);
}

/* the record of RANK a scavenge of dataset id on node host left on the
 * prefix, in the layout scavenge_rank writes (RANK <r> DSET <id> DSETDESC
 * ...); host NULL: an older scavenge's file of the rank alone */
static void write_copy(int id, uint64_t created, const char *host)
{
    char dsetdir[4200], path[4400];
    pfs_dset_dir(prefix, id, dsetdir, sizeof(dsetdir));
    if (host)
        dsrec_node_name(dsetdir, host, 0, path, sizeof(path));
    else
        dsrec_rank_name(dsetdir, RANK, path, sizeof(path));
    char *slash = strrchr(path, '/');
    *slash = '\0';
    io_mkdir_p(path, 0700, NULL);
    *slash = '/';
    kvtree_t *out = kvtree_new();
    kvtree_t *rk = kvtree_setf(out, NULL, "RANK %d DSET %d", RANK, id);
    kvtree_setf(out, NULL, "DSET %d RANK %d", id, RANK);
    char rel[64];
    snprintf(rel, sizeof(rel), "rank_%d.ckpt", RANK);
    kvtree_t *m = kvtree_setf(rk, NULL, "FILE %s META", rel);
    kvtree_util_set_str(m, "FILE", rel);
    kvtree_set(rk, "DSETDESC", dsetdesc(id, created, 1));
    kvtree_util_set_int(rk, "FILES", 1);
    scr_error_t err = {""};
    if (kvtree_write_file(path, out, &err) < 0)
        diag("kvtree_write_file: %s", err.text);
    kvtree_delete(&out);
}

/* scavenge_pick_below's result on node HOST; *id -1 when it left id alone */
#define HOST "node7"
static int pick(int below, int *id)
{
    scr_error_t err = {""};
    *id = -1;
    int rc = scavenge_pick_below(prefix, cntldir, HOST, below, id, &err);
    if (rc < 0)
        diag("scavenge_pick_below: %s", err.text);
    return rc;
}

int main(void)
{
    int id, rc;
    const int one[] = {15}, two[] = {14, 15};
    const uint64_t one_c[] = {X}, two_c[] = {X - 100, X};
    base = tu_tmpdir();

    fresh(1);
    rc = pick(INT_MAX, &id);
    ok(rc == 0, "1: no filemap in the control directory: nothing to scavenge (rc %d)",
       rc);

    /* dataset 15 in rank 6's filemap (created X); what the prefix holds */
    static const struct {
        uint64_t index;   /* the index's CREATED, 0: no index */
        int complete;     /* the index's COMPLETE */
        uint64_t copy;    /* CREATED of rank 6's filemap copy, 0: none */
        const char *host; /* the node whose record it is, NULL: a file of its own */
        int want;         /* 1: scavenge 15, 0: nothing to do */
        const char *what;
    } cases[] = {
        {0, 0, 0, NULL, 1, "no index: scavenge 15"},
        {X, 1, 0, NULL, 0,
         "the index has 15 complete with the same CREATED: nothing to do"},
        {Y, 1, 0, NULL, 1,
         "the index has 15 with rank 0's CREATED, no copy of rank 6's filemap on the "
         "prefix: scavenge 15"},
        {Y, 1, X, NULL, 0,
         "the index has 15 with rank 0's CREATED, an older scavenge's file of rank 6 "
         "has rank 6's: already scavenged"},
        {Y, 1, X, HOST, 0,
         "the index has 15 with rank 0's CREATED, this node's record has rank 6's: "
         "already scavenged"},
        {Y, 1, X, "node8", 1,
         "only another node's record has rank 6 (a partner copy): scavenge 15"},
        {Y, 1, Z, NULL, 1,
         "the prefix's copy of rank 6's filemap is another job's dataset 15 (CREATED "
         "differs): scavenge 15"},
        {Y, 1, Z, HOST, 1,
         "this node's record of rank 6 is another job's dataset 15: scavenge 15"},
        {X, 0, 0, NULL, 1,
         "the index has 15 with the same CREATED but COMPLETE 0: scavenge 15"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int n = (int)i + 2;
        fresh(n);
        write_filemap(one, one_c, 1);
        if (cases[i].index)
            write_index(15, cases[i].index, cases[i].complete);
        if (cases[i].copy)
            write_copy(15, cases[i].copy, cases[i].host);
        rc = pick(INT_MAX, &id);
        ok(rc == cases[i].want && id == (cases[i].want ? 15 : -1),
           "%d: %s (rc %d, id %d)", n, cases[i].what, rc, id);
    }

    fresh(11);
    write_filemap(two, two_c, 2);
    rc = pick(15, &id);
    ok(rc == 1 && id == 14,
       "11: datasets 14 and 15 in the filemap, below 15: scavenge 14 (rc %d, id %d)", rc,
       id);
    rc = pick(INT_MAX, &id);
    ok(rc == 1 && id == 15, "11: and without a bound, 15 (rc %d, id %d)", rc, id);

    /* the verdict postrun reports: the last try's */
    fresh(12);
    int vid = -1, vok = -1;
    rc = scavenge_job_verdict(prefix, "77", &vid, &vok);
    ok(rc == -1, "12: no scavenge file: no verdict (rc %d)", rc);
    scr_error_t err = {""};
    scavenge_mark_try(prefix, "77", 0, "node1", "COPIED", 15, NULL, NULL, &err);
    rc = scavenge_job_verdict(prefix, "77", &vid, &vok);
    ok(rc == -1, "12: marks but nobody indexed yet: no verdict (rc %d)", rc);
    scavenge_verdict(prefix, "77", 0, 15, 0, &err);
    rc = scavenge_job_verdict(prefix, "77", &vid, &vok);
    ok(rc == 0 && vid == 15 && vok == 0,
       "12: 15 could not be indexed: that verdict (rc %d, id %d, ok %d)", rc, vid, vok);
    scavenge_mark_try(prefix, "77", 1, "node1", "COPIED", 14, NULL, NULL, &err);
    scavenge_verdict(prefix, "77", 1, 14, 1, &err);
    rc = scavenge_job_verdict(prefix, "77", &vid, &vok);
    ok(rc == 0 && vid == 14 && vok == 1,
       "12: the fallback indexed 14: the last try's verdict (rc %d, id %d, ok %d)", rc,
       vid, vok);

    tu_rmrf(base);
    free(base);
    return done_testing();
}
