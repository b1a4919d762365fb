/* SPDX-License-Identifier: BSD-3-Clause */
/* test_node.c - node storage (prolog/node.c), privilege-dropping runs
 * (privs.c), the job settings (jobopts.c), the serial rank2file writer and
 * the indexer (dsindex.c), the scavenge's node records (dsrec.c) and the
 * nodes' own placement (scavenge_place) */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dsindex.h"
#include "dsrec.h"
#include "jobopts.h"
#include "kvtree.h"
#include "node.h"
#include "pfs.h"
#include "privs.h"
#include "place.h"
#include "r2f.h"
#include "scavenge.h"
#include "tap.h"

static char base[256];

static int alive_odd(const char *jobid, void *arg)
{
    (void)arg;
    return atoi(jobid) % 2;
}

static int whoami(void *arg)
{
    *(uid_t *)arg = geteuid();
    return geteuid() == 0 ? -1 : 0;
}

static void test_prepare(job_ident_t *job)
{
    char p[512];
    scr_error_t err = {""};
    struct stat st;
    ok(node_prepare_dir(base, job, &err) == 0, "prepare: %s", err.text);
    snprintf(p, sizeof(p), "%s/%s/scr.%s", base, job->user, job->jobid);
    ok(stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 &&
           st.st_uid == job->uid,
       "job directory is 0700 and the user's");
    ok(node_prepare_dir(base, job, &err) == 0, "prepare twice is fine");
    /* a planted symlink in the user's place */
    snprintf(p, sizeof(p), "%s/%s", base, job->user);
    job_ident_t other = *job;
    other.user = "planted";
    snprintf(p, sizeof(p), "%s/planted", base);
    symlink("/etc", p);
    if (geteuid() == 0) { /* root moves it aside and makes the real one */
        struct stat ls;
        ok(node_prepare_dir(base, &other, &err) == 0 && lstat(p, &ls) == 0 &&
               S_ISDIR(ls.st_mode),
           "a planted symlink is moved aside, the directory made");
        ok(lstat("/etc", &ls) == 0 && ls.st_uid == 0, "what it pointed at is untouched");
    } else {
        ok(node_prepare_dir(base, &other, &err) < 0 &&
               strstr(err.text, "refusing to follow"),
           "a symlink is refused: %s", err.text);
        unlink(p);
        FILE *fp = fopen(p, "w");
        fclose(fp);
        ok(node_prepare_dir(base, &other, &err) < 0 &&
               strstr(err.text, "not a directory"),
           "a file is refused: %s", err.text);
    }
}

static void test_health(void)
{
    scr_error_t err;
    char p[512];
    ok(node_health(base, 0, &err) == 0, "healthy: %s", err.text);
    ok(node_health(base, 1ULL << 60, &err) < 0 && strstr(err.text, "expected"),
       "capacity: %s", err.text);
    snprintf(p, sizeof(p), "%s/missing", base);
    ok(node_health(p, 0, &err) < 0 && strstr(err.text, "missing"), "missing: %s",
       err.text);
    if (geteuid() != 0) { /* root writes anywhere */
        snprintf(p, sizeof(p), "%s/ro", base);
        mkdir(p, 0500);
        ok(node_health(p, 0, &err) < 0 && strstr(err.text, "cannot create"),
           "read-only: %s", err.text);
    }
}

static void test_stale(job_ident_t *job)
{
    char p[512], **dirs = NULL;
    int n = 0;
    const char *ids[] = {"10", "11", "12"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s/%s/scr.%s", base, job->user, ids[i]);
        mkdir(p, 0700);
    }
    node_stale_dirs(base, job, alive_odd, NULL, &dirs, &n);
    ok(n == 2, "two ended jobs (10, 12; 11 runs; %s is ours): %d", job->jobid, n);
    int removed = 0;
    scr_error_t err;
    for (int i = 0; i < n; i++) {
        /* a symlink inside must be removed, not followed */
        char link[600], keep[512];
        snprintf(keep, sizeof(keep), "%s/keep", base);
        FILE *fp = fopen(keep, "w");
        fclose(fp);
        snprintf(link, sizeof(link), "%s/trap", dirs[i]);
        snprintf(keep, sizeof(keep), "%s", base);
        symlink(keep, link);
        removed += node_remove_tree(dirs[i], &err) == 0;
    }
    ok(removed == 2, "removed both");
    snprintf(p, sizeof(p), "%s/keep", base);
    ok(access(p, F_OK) == 0, "what their symlinks pointed at is still there");
    snprintf(p, sizeof(p), "%s/%s/scr.11", base, job->user);
    ok(access(p, F_OK) == 0, "the running job's directory is still there");
    node_free_dirs(dirs, n);
}

/* a tree of several levels: ranks whose entries fill many buckets, every
 * rank found again with its files by a reader of the whole tree */
static void test_r2f_levels(void)
{
    enum { RANKS = 3000, FILES = 8 };
    char d[512], p[600];
    scr_error_t err = {""};
    snprintf(d, sizeof(d), "%s/dset-big", base);
    snprintf(p, sizeof(p), "%s/.scr", d);
    mkdir(d, 0700);
    mkdir(p, 0700);
    kvtree_t *files = kvtree_new(), *all = kvtree_new();
    for (int r = 0; r < RANKS; r++)
        for (int f = 0; f < FILES; f++) {
            char name[128];
            snprintf(
                name, sizeof(name),
                "output/a-rather-long-directory-name-to-fill-buckets/rank%06d-%d.dat", r,
                f);
            kvtree_t *m = kvtree_setf(files, NULL, "RANK %d FILE %s", r, name);
            kvtree_util_set_u64(m, "SIZE", (uint64_t)r * FILES + (uint64_t)f);
        }
    ok(dsindex_write_r2f(d, RANKS, files, &err) == 0, "serial rank2file, %d ranks: %s",
       RANKS, err.text);
    ok(r2f_read_all(d, all, &err) == 0, "the whole tree reads: %s", err.text);
    int whole = 0, bad = 0;
    for (int r = 0; r < RANKS; r++) {
        kvtree_t *mine = kvtree_getf(all, "RANK %d FILE", r);
        char name[128];
        uint64_t size = 0;
        snprintf(name, sizeof(name),
                 "output/a-rather-long-directory-name-to-fill-buckets/rank%06d-%d.dat", r,
                 FILES - 1);
        kvtree_util_get_u64(kvtree_getf(mine, "%s", name), "SIZE", &size);
        if (kvtree_size(mine) == FILES && size == (uint64_t)r * FILES + FILES - 1)
            whole++;
        else
            bad = bad ? bad : r + 1;
    }
    ok(whole == RANKS, "every rank's %d files come back (first wrong: rank %d)", FILES,
       bad - 1);
    snprintf(p, sizeof(p), "%s/.scr/rank2file.1.0.scr", d);
    ok(access(p, F_OK) == 0, "the tree has a level above the leaves");
    kvtree_delete(&files);
    kvtree_delete(&all);
}

static void test_r2f(void)
{
    char d[512], p[600];
    scr_error_t err;
    snprintf(d, sizeof(d), "%s/dset", base);
    snprintf(p, sizeof(p), "%s/.scr", d);
    mkdir(d, 0700);
    mkdir(p, 0700);
    kvtree_t *files = kvtree_new();
    for (int r = 0; r < 5; r++) {
        if (r == 3)
            continue; /* a rank without files */
        kvtree_t *f = kvtree_setf(files, NULL, "RANK %d FILE ckpt/r%d.dat", r, r);
        kvtree_util_set_u64(f, "SIZE", (uint64_t)r * 100);
    }
    ok(dsindex_write_r2f(d, 5, files, &err) == 0, "serial rank2file: %s", err.text);
    kvtree_t *root = kvtree_new(), *ranks = kvtree_new(), *ptrs = kvtree_new();
    ok(r2f_read_file(d, ".scr/rank2file.scr", root, &err) == 0, "root reads: %s",
       err.text);
    int level = r2f_parse(root, ranks, ptrs);
    int n = 0;
    kvtree_util_get_int(kvtree_get(root, "RANK2FILE") ? kvtree_get(root, "RANK2FILE")
                                                      : root,
                        "RANKS", &n);
    ok(level >= 1 && n == 5 && kvtree_size(ptrs) == 1,
       "root: 5 ranks, points at one file");
    kvtree_t *l0 = kvtree_new(), *r0 = kvtree_new(), *p0 = kvtree_new();
    const char *name = kvtree_get_val(kvtree_elem_tree(kvtree_first(ptrs)), "FILE");
    ok(name && r2f_read_file(d, name, l0, &err) == 0 && r2f_parse(l0, r0, p0) == 0,
       "level 0 reads");
    ok(kvtree_size(r0) == 5 && kvtree_getf(r0, "4 FILE ckpt/r4.dat") &&
           kvtree_getf(r0, "3"),
       "every rank is in it, with or without files");
    kvtree_delete(&files);
    kvtree_delete(&root);
    kvtree_delete(&ranks);
    kvtree_delete(&ptrs);
    kvtree_delete(&l0);
    kvtree_delete(&r0);
    kvtree_delete(&p0);
}

/* found by fuzz_dsindex: one scavenged rank filemap claiming 100 million
 * ranks kept `scr index` (and the epilog's indexer) looping over them */
static void test_dsindex_ranks(void)
{
    char d[512], p[600];
    scr_error_t err = {""};
    dsindex_report_t rep;
    snprintf(d, sizeof(d), "%s/pfs/.scr/scr.dataset.1/.scr", base);
    snprintf(p, sizeof(p), "mkdir -p %s", d);
    if (system(p) != 0)
        return;
    kvtree_t *fm = kvtree_new();
    kvtree_t *rk = kvtree_setf(fm, NULL, "RANK 0 DSET 1");
    kvtree_util_set_int(kvtree_set(rk, "DSETDESC", NULL), "RANKS", 100000000);
    kvtree_util_set_int(rk, "FILES", 0);
    snprintf(p, sizeof(p), "%s/0.scrfilemap", d);
    kvtree_write_file(p, fm, NULL);
    snprintf(p, sizeof(p), "%s/pfs", base);
    time_t t0 = time(NULL);
    ok(dsindex_dataset(p, 1, 0, &rep, &err) < 0 && strstr(err.text, "100000000 ranks") &&
           time(NULL) - t0 < 10,
       "a filemap claiming 100000000 ranks, one scavenged: refused (%s)", err.text);
    kvtree_delete(&fm);
}

/* rank r's record in fm: FILES 1, the file rank_<r>.dat (7 bytes) listed
 * only if listed */
static void record_rank(kvtree_t *fm, int id, int r, int listed)
{
    kvtree_t *rk = kvtree_setf(fm, NULL, "RANK %d DSET %d", r, id);
    kvtree_setf(fm, NULL, "DSET %d RANK %d", id, r);
    kvtree_t *d = kvtree_set(rk, "DSETDESC", NULL);
    char name[32];
    snprintf(name, sizeof(name), "ckpt.%d", id);
    kvtree_util_set_int(d, "RANKS", 2);
    kvtree_util_set_int(d, "ID", id);
    kvtree_util_set_str(d, "NAME", name);
    kvtree_set(d, "CKPT", NULL);
    kvtree_util_set_int(d, "COMPLETE", 1);
    kvtree_util_set_int(rk, "FILES", 1);
    if (!listed)
        return;
    kvtree_t *m = kvtree_setf(rk, NULL, "FILE rank_%d.dat META", r);
    kvtree_util_set_str(m, "TYPE", "USER");
    kvtree_util_set_u64(m, "SIZE", 7);
}

/* dataset id's directory in pfs with rank_0.dat and rank_1.dat holding
 * text (7 bytes) staged; into d */
static int stage_dataset(const char *pfs, int id, const char *text, char *d, size_t len)
{
    char p[4400];
    pfs_dset_dir(pfs, id, d, len);
    snprintf(p, sizeof(p), "mkdir -p %s/.scr", d);
    if (system(p) != 0)
        return -1;
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof(p), "%s/rank_%d.dat", d, r);
        FILE *f = fopen(p, "w");
        if (f)
            fputs(text, f), fclose(f);
    }
    return 0;
}

/* the first bytes of path, "" if it cannot be read */
static const char *slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f) {
        size_t n = fread(buf, 1, len - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

/* node records (scavenge.h): one node's record lists rank 1 without its
 * file (its copy failed), another node's lists it whole (the partner
 * copy): the indexer takes the whole one; a host name is made safe.  Then
 * dataset 3 with the same file names: it supersedes 2 (place_all). */
static void test_dsindex_records(void)
{
    char pfs[512], d[4200], p[4400], text[16];
    scr_error_t err = {""};
    dsindex_report_t rep;
    snprintf(pfs, sizeof(pfs), "%s/pfs2", base);
    if (stage_dataset(pfs, 2, "1234567", d, sizeof(d)) < 0)
        return;
    kvtree_t *a = kvtree_new(), *b = kvtree_new();
    record_rank(a, 2, 0, 1);
    record_rank(a, 2, 1, 0);
    record_rank(b, 2, 1, 1);
    ok(dsrec_rank_listed(kvtree_getf(a, "RANK 0 DSET 2")) &&
           !dsrec_rank_listed(kvtree_getf(a, "RANK 1 DSET 2")),
       "dsrec_rank_listed: a rank whose file is not listed is not whole");
    dsrec_node_write(d, "nodeA", a, NULL);
    dsrec_node_name(d, "node/B x", 0, p, sizeof(p));
    ok(strstr(p, "/.scr/node.node_B_x.scrfilemap") != NULL,
       "a host's '/' and ' ' become '_' in its record's name (%s)", p);
    dsrec_node_write(d, "node/B x", b, NULL);
    int rc = dsindex_dataset(pfs, 2, 0, &rep, &err);
    ok(rc == 0 && rep.ranks == 2 && rep.missing == 0 && rep.files == 2,
       "rank 1 in two records, whole in one: indexed complete (ranks %d missing %d "
       "files %d%s%s)",
       rep.ranks, rep.missing, rep.files, rc < 0 ? ": " : "", rc < 0 ? err.text : "");
    snprintf(p, sizeof(p), "%s/rank_1.dat", pfs);
    ok(strcmp(slurp(p, text, sizeof(text)), "1234567") == 0,
       "its files at their own paths (rank_1.dat: '%s')", text);
    kvtree_clear(a);
    record_rank(a, 3, 0, 1);
    record_rank(a, 3, 1, 1);
    if (stage_dataset(pfs, 3, "abcdefg", d, sizeof(d)) < 0)
        return;
    dsrec_node_write(d, "nodeA", a, NULL);
    rc = dsindex_dataset(pfs, 3, 0, &rep, &err);
    kvtree_t *index = kvtree_new();
    index_read(pfs, index, NULL);
    ok(rc == 0 && strcmp(slurp(p, text, sizeof(text)), "abcdefg") == 0 &&
           kvtree_getf(index, "DSET 3") && !kvtree_getf(index, "DSET 2"),
       "dataset 3 with the same names: indexed, its files in place of 2's, which left "
       "the index (rank_1.dat: '%s'%s%s)",
       text, rc < 0 ? ": " : "", rc < 0 ? err.text : "");
    kvtree_delete(&index);
    kvtree_delete(&a);
    kvtree_delete(&b);
}

/* landed record rk (as scavenge_rank marks one) */
static void record_landed(kvtree_t *rk, int taken)
{
    kvtree_util_set_int(rk, DSREC_LANDED, 1);
    kvtree_util_set_int(rk, DSREC_TAKEN, taken);
}

/* 1 if dataset id of pfs's index is marked PLACED */
static int index_placed(const char *pfs, int id)
{
    char name[64];
    kvtree_t *index = kvtree_new();
    index_read(pfs, index, NULL);
    pfs_dset_name(id, name, sizeof(name));
    int placed = kvtree_getf(index, "DSET %d", id) && place_done(index, id, name);
    kvtree_delete(&index);
    return placed;
}

/* Landed records (dsrec.h): the indexer believes them without looking at
 * the files and, told the nodes place their own (DSINDEX_NODES_PLACE),
 * leaves those ranks' files staged; each node then places what its record
 * lists (scavenge_place), twice without harm; PLACED waits for the next
 * fetch.  A rank some node says has a taken name makes the indexer
 * supersede the older dataset first (place_supersede_staged). */
static void test_dsindex_landed(void)
{
    char pfs[512], d[4200], p[4400], q[4400], text[16];
    scr_error_t err = {""};
    dsindex_report_t rep;
    struct stat st;
    snprintf(pfs, sizeof(pfs), "%s/pfs5", base);
    if (stage_dataset(pfs, 5, "1234567", d, sizeof(d)) < 0)
        return;
    kvtree_t *a = kvtree_new(), *b = kvtree_new();
    record_rank(a, 5, 0, 1);
    record_landed(kvtree_getf(a, "RANK 0 DSET 5"), 0);
    record_rank(b, 5, 1, 1); /* not landed: an older scavenge's record */
    kvtree_t *c = kvtree_new();
    record_rank(c, 5, 0, 1);
    snprintf(q, sizeof(q), "%s/rank_0.dat", d);
    ok(unlink(q) == 0 && dsrec_rank_ok(d, kvtree_getf(a, "RANK 0 DSET 5")) &&
           !dsrec_rank_ok(d, kvtree_getf(c, "RANK 0 DSET 5")),
       "dsrec_rank_ok believes a landed record without looking at its file, not another");
    kvtree_delete(&c);
    FILE *f = fopen(q, "w");
    if (f)
        fputs("1234567", f), fclose(f);
    dsrec_node_write(d, "nodeA", a, NULL);
    dsrec_node_write(d, "nodeB", b, NULL);
    int rc = dsindex_dataset(pfs, 5, DSINDEX_NODES_PLACE, &rep, &err);
    snprintf(p, sizeof(p), "%s/rank_0.dat", pfs);
    ok(rc == 0 && rep.missing == 0 && rep.left == 1 && lstat(q, &st) == 0 &&
           lstat(p, &st) < 0,
       "indexed with the nodes placing: the landed rank 0 left staged (left %d%s%s)",
       rep.left, rc < 0 ? ": " : "", rc < 0 ? err.text : "");
    snprintf(p, sizeof(p), "%s/rank_1.dat", pfs);
    ok(strcmp(slurp(p, text, sizeof(text)), "1234567") == 0,
       "the indexer placed rank 1, whose record is not landed ('%s')", text);
    ok(!index_placed(pfs, 5), "not marked PLACED while a node still has files to place");
    int placed = -1, bad = scavenge_place(pfs, "nodeA", 5, &placed);
    snprintf(p, sizeof(p), "%s/rank_0.dat", pfs);
    ok(bad == 0 && placed == 1 && strcmp(slurp(p, text, sizeof(text)), "1234567") == 0 &&
           lstat(q, &st) < 0,
       "nodeA placed its rank's file (placed %d, bad %d, '%s')", placed, bad, text);
    bad = scavenge_place(pfs, "nodeA", 5, &placed);
    ok(bad == 0 && placed == 1, "placing again finds it there (placed %d, bad %d)",
       placed, bad);
    bad = scavenge_place(pfs, "nodeB", 5, &placed);
    ok(bad == 0 && placed == 0,
       "nodeB's record is not landed: nothing of it to place (%d)", placed);

    /* dataset 6 reuses the names, and a node saw rank_1.dat taken */
    kvtree_clear(a);
    record_rank(a, 6, 0, 1);
    record_rank(a, 6, 1, 1);
    record_landed(kvtree_getf(a, "RANK 0 DSET 6"), 0);
    record_landed(kvtree_getf(a, "RANK 1 DSET 6"), 1);
    if (stage_dataset(pfs, 6, "abcdefg", d, sizeof(d)) < 0)
        return;
    dsrec_node_write(d, "nodeA", a, NULL);
    rc = dsindex_dataset(pfs, 6, DSINDEX_NODES_PLACE, &rep, &err);
    kvtree_t *index = kvtree_new();
    index_read(pfs, index, NULL);
    snprintf(p, sizeof(p), "%s/rank_0.dat", pfs);
    ok(rc == 0 && rep.left == 2 && strcmp(slurp(p, text, sizeof(text)), "1234567") == 0 &&
           kvtree_getf(index, "DSET 6") && !kvtree_getf(index, "DSET 5") &&
           !index_placed(pfs, 6),
       "a name taken: the indexer superseded 5 (read a tree file at a time) and left "
       "the files to the node (left %d, rank_0.dat still 5's '%s'%s%s)",
       rep.left, text, rc < 0 ? ": " : "", rc < 0 ? err.text : "");
    kvtree_delete(&index);
    bad = scavenge_place(pfs, "nodeA", 6, &placed);
    ok(bad == 0 && placed == 2 && strcmp(slurp(p, text, sizeof(text)), "abcdefg") == 0,
       "the node then placed them over 5's (%d, '%s')", placed, text);
    kvtree_delete(&a);
    kvtree_delete(&b);
}

/* entries of dir whose names start with pre */
static int count_prefixed(const char *dir, const char *pre)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strncmp(e->d_name, pre, strlen(pre)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* A rank of 25,000 files with long names: its rank2file entry (about 2.3
 * MiB) is over R2F_LIMIT, so it gets a level 0 file of its own, which its
 * reader takes up to R2F_ENTRY_MAX.  test_node_entrymax builds the indexer
 * with a limit below the entry: it must refuse the dataset naming the rank
 * (the flush does the same, r2f_write_tree) and leave no tree, where it
 * once wrote a file no reader takes and indexed the dataset as complete. */
static void test_dsindex_entry_max(void)
{
    enum { N = 25000 };
    char pfs[512], d[4200], p[4400];
    scr_error_t err = {""};
    dsindex_report_t rep;
    snprintf(pfs, sizeof(pfs), "%s/pfs7", base);
    if (stage_dataset(pfs, 7, "1234567", d, sizeof(d)) < 0)
        return;
    kvtree_t *a = kvtree_new();
    record_rank(a, 7, 0, 1);
    record_rank(a, 7, 1, 0);
    kvtree_t *rk = kvtree_getf(a, "RANK 1 DSET 7");
    kvtree_util_set_int(rk, "FILES", N);
    for (int i = 0; i < N; i++) {
        char rel[128]; /* kvtree_setf takes %d, not %06d */
        snprintf(rel, sizeof(rel),
                 "output/of/a/long/running/simulation/rank_1/part_%06d.bin", i);
        kvtree_t *m = kvtree_setf(rk, NULL, "FILE %s META", rel);
        kvtree_util_set_str(m, "TYPE", "USER");
        kvtree_util_set_u64(m, "SIZE", 7);
    }
    record_landed(kvtree_getf(a, "RANK 0 DSET 7"), 0);
    record_landed(rk, 0);
    dsrec_node_write(d, "nodeA", a, NULL);
    kvtree_delete(&a);
    int rc = dsindex_dataset(pfs, 7, DSINDEX_NODES_PLACE, &rep, &err);
    kvtree_t *index = kvtree_new(), *all = kvtree_new();
    index_read(pfs, index, NULL);
    char want[64];
    snprintf(want, sizeof(want), "more than %d", R2F_ENTRY_MAX);
    if (R2F_ENTRY_MAX < 2 * 1024 * 1024) {
        char rec[4400];
        struct stat st;
        snprintf(p, sizeof(p), "%s/.scr", d);
        dsrec_node_name(d, "nodeA", 0, rec, sizeof(rec));
        ok(rc < 0 && strstr(err.text, "rank 1: its list of 25000 files") &&
               strstr(err.text, want) && !kvtree_getf(index, "DSET 7") &&
               count_prefixed(p, "rank2file") == 0 && lstat(rec, &st) == 0,
           "an entry over R2F_ENTRY_MAX: the indexer refuses the dataset, naming the "
           "rank, with no tree left and the record kept (%s)",
           rc < 0 ? err.text : "indexed");
    } else {
        int read = r2f_read_all(d, all, &err);
        ok(rc == 0 && read == 0 && kvtree_size(kvtree_getf(all, "RANK 1 FILE")) == N &&
               kvtree_getf(index, "DSET 7"),
           "an entry over R2F_LIMIT: indexed, and its file of its own reads back with "
           "its %d names (%s)",
           N, rc < 0 || read < 0 ? err.text : "ok");
    }
    kvtree_delete(&all);
    kvtree_delete(&index);
}

/* the streaming indexer's tree over several level 0 files: 2000 ranks of
 * two files with long names (about 1.2 MiB of entries), recorded by 25
 * nodes of 80 ranks dealt out cyclically, read back whole (r2f_read_all) */
static void test_dsindex_tree(void)
{
    char pfs[512], d[4200], p[8800], rel[300], host[32];
    scr_error_t err = {""};
    dsindex_report_t rep;
    const int ranks = 2000, nodes = 25;
    snprintf(pfs, sizeof(pfs), "%s/pfs4", base);
    pfs_dset_dir(pfs, 4, d, sizeof(d));
    snprintf(p, sizeof(p), "mkdir -p %s/.scr %s/ckpt", d, d);
    if (system(p) != 0)
        return;
    for (int n = 0; n < nodes; n++) {
        kvtree_t *rec = kvtree_new();
        for (int r = n; r < ranks; r += nodes) {
            kvtree_t *rk = kvtree_setf(rec, NULL, "RANK %d DSET 4", r);
            kvtree_setf(rec, NULL, "DSET 4 RANK %d", r);
            kvtree_t *desc = kvtree_set(rk, "DSETDESC", NULL);
            kvtree_util_set_int(desc, "RANKS", ranks);
            kvtree_util_set_str(desc, "NAME", "ckpt.4");
            kvtree_util_set_int(rk, "FILES", 2);
            for (int f = 0; f < 2; f++) {
                snprintf(rel, sizeof(rel), "ckpt/%0200d.%d.%d", 0, r, f);
                kvtree_t *m = kvtree_setf(rk, NULL, "FILE %s META", rel);
                kvtree_util_set_str(m, "TYPE", "USER");
                kvtree_util_set_u64(m, "SIZE", 0);
                snprintf(p, sizeof(p), "%s/%s", d, rel);
                FILE *fp = fopen(p, "w");
                if (fp)
                    fclose(fp);
            }
        }
        snprintf(host, sizeof(host), "n%d", n);
        dsrec_node_write(d, host, rec, NULL);
        kvtree_delete(&rec);
    }
    int rc = dsindex_dataset(pfs, 4, 0, &rep, &err);
    kvtree_t *all = kvtree_new();
    int read = r2f_read_all(d, all, &err), whole = 0, level0 = 0;
    for (int r = 0; r < ranks; r++)
        whole += kvtree_size(kvtree_getf(all, "RANK %d FILE", r)) == 2;
    for (int w = 0; w < ranks; w++) {
        struct stat st;
        r2f_name(0, w, 0, rel, sizeof(rel));
        snprintf(p, sizeof(p), "%s/%s", d, rel);
        level0 += stat(p, &st) == 0;
    }
    ok(rc == 0 && rep.files == 2 * ranks && read == 0 && whole == ranks && level0 >= 2,
       "2000 ranks from 25 node records: indexed (rc %d, files %d), the tree of %d "
       "level 0 files reads back every rank's two files (%d)",
       rc, rep.files, level0, whole);
    kvtree_delete(&all);
}

/* a node record over DSREC_PART_BYTES is written in parts, none much
 * bigger, and read back whole */
static void test_dsindex_parts(void)
{
    char d[512], p[4400];
    snprintf(d, sizeof(d), "%s/pfs3", base);
    snprintf(p, sizeof(p), "mkdir -p %s/.scr", d);
    if (system(p) != 0)
        return;
    kvtree_t *rec = kvtree_new(), *back = kvtree_new();
    for (int r = 0; r < 64; r++)
        for (int f = 0; f < 64; f++) { /* 64 ranks of 64 files: about 1 MiB */
            kvtree_t *m = kvtree_setf(
                rec, NULL, "RANK %d DSET 3 FILE ckpt/r%d/f%d.dat META", r, r, f);
            kvtree_setf(rec, NULL, "DSET 3 RANK %d", r);
            kvtree_util_set_str(m, "TYPE", "USER");
            kvtree_util_set_str(m, "ORIG", "/some/long/prefix/directory/of/the/job");
            kvtree_util_set_u64(m, "SIZE", 123456789);
            kvtree_util_set_crc32(m, "CRC", 0x12345678);
        }
    int rc = dsrec_node_write(d, "n1", rec, NULL), parts = dsrec_node_read(d, "n1", back);
    struct stat st;
    off_t big = 0;
    for (int k = 0; k < parts; k++) {
        dsrec_node_name(d, "n1", k, p, sizeof(p));
        if (stat(p, &st) == 0 && st.st_size > big)
            big = st.st_size;
    }
    ok(rc == 0 && parts >= 2 && big <= DSREC_PART_BYTES + 32 * 1024,
       "a record of %zu bytes: %d parts, the biggest %lld bytes", kvtree_pack_size(rec),
       parts, (long long)big);
    ok(kvtree_equal(rec, back), "its parts read back are the record");
    kvtree_t *none = kvtree_new();
    ok(dsrec_node_read(d, "n2", none) == 0 && kvtree_size(none) == 0,
       "a host without a record: none read");
    kvtree_delete(&none);
    kvtree_delete(&rec);
    kvtree_delete(&back);
}

/* jobopts_parse of argv (NULL-terminated), freed; returns its result */
static int parse(char **argv, scr_error_t *err)
{
    jobopts_t o;
    int argc = 0;
    while (argv[argc])
        argc++;
    int rc = jobopts_parse(&o, argc, argv, err);
    if (rc == 0)
        jobopts_free(&o);
    return rc;
}

/* what fuzz_jobopts found and what came up while writing it */
static void test_jobopts(void)
{
    char uid[32];
    scr_error_t err = {""};
    jobopts_t o;
    snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
    /* the message named the directory after freeing its string */
    char *rel[] = {"p", "--job", "1", "--uid", uid, "--cache-base", "/a,rel", NULL};
    ok(parse(rel, &err) < 0 && strstr(err.text, "'rel' is not an absolute"),
       "--cache-base with a relative directory: %s", err.text);
    /* nothing freed on that error: the cache bases parsed leaked (LSan) */
    char *cntl[] = {"p", "--job", "1", "--uid", uid, "--cntl-base", "x", NULL};
    ok(parse(cntl, &err) < 0, "--cntl-base not absolute: refused, nothing leaks");
    char *none[] = {"p", "--job", "1", "--uid", uid, "--cache-base", ",", NULL};
    ok(parse(none, &err) < 0 && strstr(err.text, "names no directory"),
       "--cache-base naming no directory: %s", err.text);
    char *nine[] = {
        "p", "--job", "1", "--uid", uid, "--cache-base", "/1,/2,/3,/4,/5,/6,/7,/8,/9",
        NULL};
    ok(parse(nine, &err) < 0 && strstr(err.text, "more than 8"), "nine cache bases: %s",
       err.text);
    char *nan[] = {"p", "--job", "1", "--uid", uid, "--timeout", "nan", NULL};
    char *neg[] = {"p", "--job", "1", "--uid", uid, "--timeout", "-5", NULL};
    char *junk[] = {"p", "--job", "1", "--uid", uid, "--timeout", "5s", NULL};
    ok(parse(nan, &err) < 0 && parse(neg, &err) < 0 && parse(junk, &err) < 0,
       "--timeout nan, -5, 5s: refused (an epilog would wait forever)");
    /* strtoul took 4294967296 as uid 0 (root) and any --gid as a number */
    char *wrap[] = {"p", "--job", "1", "--uid", "4294967296", NULL};
    char *sign[] = {"p", "--job", "1", "--uid", "-1", NULL};
    char *gid[] = {"p", "--job", "1", "--uid", uid, "--gid", "staff", NULL};
    ok(parse(wrap, &err) < 0 && parse(sign, &err) < 0 && parse(gid, &err) < 0,
       "--uid 4294967296, --uid -1, --gid staff: refused");
    /* getopt keeps state between parses: an error inside an option cluster,
     * then another parse of other arguments (jobopts resets it fully) */
    char *bad = strdup("-xy");
    char *cluster[] = {"p", bad, NULL};
    ok(parse(cluster, &err) < 0, "an unknown option cluster: refused");
    free(bad);
    char *good[] = {"p", "--job",     "7",   "--uid",        uid,         "--gid",
                    "0", "--timeout", "2.5", "--cache-base", "/a//b/,/c", NULL};
    ok(jobopts_parse(&o, 11, good, &err) == 0 && o.ncache == 2 &&
           strcmp(o.cache_base[0], "/a/b") == 0 && o.timeout == 2.5 && o.gid == 0,
       "a second parse after those: %s", err.text);
    jobopts_free(&o);
}

int main(void)
{
    snprintf(base, sizeof(base), "/tmp/test_node.XXXXXX");
    if (!mkdtemp(base))
        return 1;
    struct passwd *pw = getpwuid(geteuid());
    job_ident_t job = {pw ? pw->pw_name : "me", geteuid(), getegid(), "42"};
    if (R2F_ENTRY_MAX < 2 * 1024 * 1024) { /* test_node_entrymax: that alone */
        test_dsindex_entry_max();
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
        if (system(cmd) != 0)
            diag("cleanup of %s failed", base);
        return done_testing();
    }
    test_prepare(&job);
    test_health();
    test_stale(&job);
    test_r2f();
    test_r2f_levels();
    test_jobopts();
    test_dsindex_ranks();
    test_dsindex_records();
    test_dsindex_landed();
    test_dsindex_parts();
    test_dsindex_tree();
    test_dsindex_entry_max();
    if (geteuid() == 0 && (pw = getpwnam("nobody"))) {
        uid_t seen = 0;
        scr_error_t err;
        /* the child runs fn as nobody; root sees only the verdict */
        ok(privs_run_as("nobody", pw->pw_uid, pw->pw_gid, whoami, &seen, &err) == 0,
           "work runs as nobody");
        ok(privs_drop(NULL, 0, 0, &err) < 0, "dropping to uid 0 is refused");
    }
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", base, base);
    if (system(cmd) != 0)
        diag("cleanup of %s failed", base);
    return done_testing();
}
