/* SPDX-License-Identifier: BSD-3-Clause */
/* test_r2f.c - the rank2file tree for a very large simulated job, without
 * MPI: ranks are grouped level by level with r2f_assign (the grouping the
 * MPI code computes with scans), files are written, then the tree is read
 * from the root the way a restart does.  Every file must be within the 1 MiB
 * reader bound and every rank's entry must come back intact.  A rank whose
 * entry alone is over the bound gets a file to itself, which reads; a file
 * over the bound that holds more than one rank does not. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "r2f.h"
#include "tap.h"
#include "testutil.h"

static char *dir;
static uint64_t largest;

/* The big job: 200000 ranks make ~70 MB of metadata in many files on two
 * levels.  The sanitized build (SCR_SANITIZE) sets a quarter: the same paths
 * (still many files on two levels) in 10 s instead of 80 under ASan. */
#ifndef R2F_BIG_JOB
#define R2F_BIG_JOB 200000
#endif

/* write one level; entries[r] become pointer entries of the writers */
static int write_level(kvtree_t **entries, int n, int level, int *nwriters)
{
    uint64_t *sizes = calloc((size_t)n, sizeof(uint64_t));
    int *writer = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++)
        sizes[r] = entries[r] ? kvtree_pack_size(entries[r]) : 0;
    *nwriters = r2f_assign(sizes, n, writer);
    kvtree_t **merged = calloc((size_t)n, sizeof(kvtree_t *));
    for (int r = 0; r < n; r++) {
        if (writer[r] < 0)
            continue;
        if (!merged[writer[r]])
            merged[writer[r]] = kvtree_new();
        kvtree_merge(merged[writer[r]], entries[r]);
        kvtree_delete(&entries[r]);
    }
    int ok = 1;
    for (int r = 0; r < n; r++) {
        if (!merged[r])
            continue;
        kvtree_t *file =
            r2f_file(level, kvtree_size(kvtree_get(merged[r], "RANK")), merged[r]);
        char rel[128], path[4400];
        r2f_name(level, r, 0, rel, sizeof(rel));
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        ok &= kvtree_write_file(path, file, NULL) == 0;
        struct stat st;
        if (stat(path, &st) == 0 && (uint64_t)st.st_size > largest)
            largest = (uint64_t)st.st_size;
        kvtree_delete(&file);
        kvtree_delete(&merged[r]);
        entries[r] = r2f_entry_pointer(level, r);
    }
    free(merged);
    free(sizes);
    free(writer);
    return ok;
}

/* read from the root, breadth first; returns entries found, -1 for a bad
 * file, -2 for a walk that does not end */
static long read_tree(kvtree_t *all)
{
    kvtree_t *todo = kvtree_new();
    kvtree_util_set_str(kvtree_set(todo, "root", NULL), "FILE", ".scr/rank2file.scr");
    long files = 0;
    for (int level = 0; files >= 0 && kvtree_size(todo) > 0; level++) {
        if (level > 64) {
            diag("still walking at level %d: the tree loops", level);
            files = -2;
            break;
        }
        kvtree_t *next = kvtree_new();
        for (kvtree_elem_t *e = kvtree_first(todo); e && files >= 0;
             e = kvtree_elem_next(e)) {
            kvtree_t *t = kvtree_new(), *ps = kvtree_new();
            scr_error_t err = {""};
            if (r2f_read_file(dir, kvtree_get_val(kvtree_elem_tree(e), "FILE"), t, &err) <
                    0 ||
                r2f_parse(t, all, ps) < 0) {
                diag("%s", err.text[0] ? err.text : "malformed");
                files = -1;
            } else
                files++;
            kvtree_merge(next, ps);
            kvtree_delete(&t);
            kvtree_delete(&ps);
        }
        kvtree_delete(&todo);
        todo = next;
    }
    kvtree_delete(&todo);
    return files;
}

static void run(int ranks, int max_files)
{
    char sub[4200];
    snprintf(sub, sizeof(sub), "rm -rf '%s/.scr' && mkdir -p '%s/.scr'", dir, dir);
    if (system(sub) != 0)
        return;
    largest = 0;
    kvtree_t **entries = calloc((size_t)ranks, sizeof(kvtree_t *));
    srand(11);
    for (int r = 0; r < ranks; r++) {
        kvtree_t *files = kvtree_new();
        int nf = rand() % (max_files + 1); /* some ranks write nothing */
        for (int f = 0; f < nf; f++) {
            kvtree_t *m =
                kvtree_setf(files, NULL, "ckpt/step_00042/rank_%d_part_%d.dat", r, f);
            kvtree_util_set_u64(m, "SIZE", (uint64_t)rand() * 1000);
            kvtree_util_set_crc32(m, "CRC", (uint32_t)rand());
        }
        entries[r] = r2f_entry_files(r, files);
        kvtree_delete(&files);
    }
    int level = 0, nwriters, ok = 1;
    do {
        ok &= write_level(entries, ranks, level, &nwriters);
        level++;
    } while (nwriters > 1);
    /* the root points at the last level's single file */
    kvtree_t *last = NULL;
    for (int r = 0; r < ranks; r++)
        if (entries[r]) {
            last = entries[r];
            entries[r] = NULL;
        }
    kvtree_t *root = r2f_file(level, ranks, last);
    snprintf(sub, sizeof(sub), "%s/.scr/rank2file.scr", dir);
    ok &= kvtree_write_file(sub, root, NULL) == 0;
    ok(ok, "%d ranks: tree of %d levels written", ranks, level + 1);
    kvtree_t *all = kvtree_new();
    long files = read_tree(all);
    ok(files > 0, "%d ranks: tree read back through %ld files", ranks, files);
    ok(largest <= R2F_LIMIT, "%d ranks: largest file %llu bytes <= %d", ranks,
       (unsigned long long)largest, R2F_LIMIT);
    int complete = kvtree_size(all) == ranks;
    srand(11);
    for (int r = 0; r < ranks && complete; r++) {
        int nf = rand() % (max_files + 1);
        for (int f = 0; f < nf; f++) {
            rand();
            rand();
        }
        complete = kvtree_size(kvtree_getf(all, "%d FILE", r)) == nf;
    }
    ok(complete, "%d ranks: every rank's file list came back", ranks);
    kvtree_delete(&all);
    kvtree_delete(&root);
    kvtree_delete(&last);
    free(entries);
}

/* write rel holding a file of level whose rank 0 points at target */
static void write_pointer(const char *rel, int level, const char *target)
{
    char path[4400];
    kvtree_t *e = kvtree_new();
    kvtree_util_set_str(kvtree_setf(e, NULL, "RANK 0"), "FILE", target);
    kvtree_t *file = r2f_file(level, 1, e);
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    kvtree_write_file(path, file, NULL);
    kvtree_delete(&file);
    kvtree_delete(&e);
}

/* found by fuzz_r2f: a tree that points back up was walked forever (every
 * rank of a restart spinning in r2f_read_tree) */
static void test_loops(void)
{
    kvtree_t *all = kvtree_new();
    write_pointer(".scr/rank2file.scr", 1, ".scr/rank2file.scr");
    ok(read_tree(all) == -1, "a root pointing at itself: malformed, the walk ends");
    write_pointer(".scr/rank2file.scr", 2, ".scr/rank2file.1.0.scr");
    write_pointer(".scr/rank2file.1.0.scr", 1, ".scr/rank2file.1.0.scr");
    ok(read_tree(all) == -1,
       "a level 1 file pointing at itself: malformed, the walk ends");
    write_pointer(".scr/rank2file.scr", 1, ".scr/rank2file.0.0.scr");
    write_pointer(".scr/rank2file.0.0.scr", 1, ".scr/rank2file.0.0.scr");
    ok(read_tree(all) == -1, "a file whose level is not its name's: malformed");
    kvtree_delete(&all);
}

/* a tree names only files inside its dataset, and is made of regular files */
static void test_outside(void)
{
    char path[4400], target[4400];
    kvtree_t *all = kvtree_new(), *e = kvtree_new(), *t = kvtree_new();
    scr_error_t err = {""};
    kvtree_util_set_u64(kvtree_setf(e, NULL, "RANK 0 FILE ../../etc/passwd"), "SIZE", 1);
    kvtree_t *file = r2f_file(0, 1, e);
    snprintf(path, sizeof(path), "%s/.scr/rank2file.scr", dir);
    kvtree_write_file(path, file, NULL);
    ok(read_tree(all) == -1, "an entry naming a file outside the dataset: refused");
    snprintf(target, sizeof(target), "%s/elsewhere.scr", dir);
    rename(path, target);
    ok(symlink(target, path) == 0 &&
           r2f_read_file(dir, ".scr/rank2file.scr", t, &err) == -1 &&
           strstr(err.text, "not a regular file"),
       "a linked tree file is not followed");
    unlink(path);
    kvtree_delete(&file);
    kvtree_delete(&e);
    kvtree_delete(&t);
    kvtree_delete(&all);
}

/* r2f_file_from: the file r2f_file makes of the merged entries, the same
 * packed bytes, with the entries moved out of what was received */
static void test_file_from(void)
{
    kvtree_t *recv = kvtree_new(), *merged = kvtree_new();
    for (int r = 0; r < 40; r++) { /* past the index threshold of a tree */
        kvtree_t *files = kvtree_new();
        kvtree_util_set_u64(kvtree_setf(files, NULL, "ckpt/rank %d.dat", r), "SIZE",
                            (uint64_t)r);
        kvtree_t *e = r2f_entry_files(r, files);
        kvtree_merge(merged, e);
        kvtree_setf(recv, e, "%d", (r * 7) % 40);
        kvtree_delete(&files);
    }
    kvtree_t *a = r2f_file(0, kvtree_size(kvtree_get(merged, "RANK")), merged);
    kvtree_t *b = r2f_file_from(0, recv);
    size_t na = kvtree_pack_size(a), nb = kvtree_pack_size(b);
    char *pa = malloc(na), *pb = malloc(nb);
    kvtree_pack(pa, a);
    kvtree_pack(pb, b);
    int moved = 1;
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e))
        moved &= kvtree_size(kvtree_get(kvtree_elem_tree(e), "RANK")) == 0;
    ok(na == nb && memcmp(pa, pb, na) == 0 && kvtree_equal(a, b),
       "r2f_file_from: the same file as r2f_file of the merge, byte for byte");
    ok(moved, "r2f_file_from: the entries were moved, not copied");
    free(pa);
    free(pb);
    kvtree_delete(&a);
    kvtree_delete(&b);
    kvtree_delete(&recv);
    kvtree_delete(&merged);
}

/* level 0 file name of writer w holding ranks [first, first + n) with
 * files files each; its size */
static long write_level0(int w, int first, int n, int files)
{
    kvtree_t *merged = kvtree_new();
    for (int r = first; r < first + n; r++) {
        kvtree_t *fs = kvtree_new();
        for (int f = 0; f < files; f++)
            kvtree_util_set_u64(
                kvtree_setf(fs, NULL, "output/field_%d/rank_%d_part_%d.h5", f % 5, r, f),
                "SIZE", (uint64_t)f);
        kvtree_t *e = r2f_entry_files(r, fs);
        kvtree_merge(merged, e);
        kvtree_delete(&e);
        kvtree_delete(&fs);
    }
    char path[4400];
    struct stat st;
    snprintf(path, sizeof(path), "%s/.scr/rank2file.0.%d.scr", dir, w);
    kvtree_t *file = r2f_file(0, n, merged);
    kvtree_write_file(path, file, NULL);
    kvtree_delete(&file);
    kvtree_delete(&merged);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* entries over R2F_BIG: alone in their file, and that file reads */
static void test_big(void)
{
    uint64_t sizes[6] = {10, R2F_BIG + 1, 7, 9, 2 * (uint64_t)R2F_LIMIT, 5};
    int w[6];
    int n = r2f_assign(sizes, 6, w);
    ok(n == 5 && w[0] == 0 && w[1] == 1 && w[2] == 2 && w[3] == 2 && w[4] == 4 &&
           w[5] == 5,
       "assign: an entry over R2F_BIG alone (%d writers: %d %d %d %d %d %d)", n, w[0],
       w[1], w[2], w[3], w[4], w[5]);
    scr_error_t err = {""};
    kvtree_t *t = kvtree_new();
    long one = write_level0(7, 7, 1, 20000);
    ok(one > R2F_LIMIT && r2f_read_file(dir, ".scr/rank2file.0.7.scr", t, &err) == 0,
       "one rank's entry of %ld bytes reads: %s", one, err.text);
    kvtree_clear(t);
    long two = write_level0(8, 8, 2, 10000);
    ok(two > R2F_LIMIT && r2f_read_file(dir, ".scr/rank2file.0.8.scr", t, &err) == -1 &&
           strstr(err.text, "not one rank's entry"),
       "two ranks in a file of %ld bytes: refused (%s)", two, err.text);
    kvtree_delete(&t);
}

int main(void)
{
    dir = tu_tmpdir();
    run(1, 3);
    run(4, 3);
    run(R2F_BIG_JOB, 6);
    test_loops();
    test_outside();
    test_file_from();
    test_big();
    uint64_t sizes[5] = {10, 0, R2F_BUCKET - 5, 7, R2F_BUCKET};
    int w[5];
    int n = r2f_assign(sizes, 5, w);
    ok(n == 2 && w[0] == 0 && w[1] == -1 && w[2] == 0 && w[3] == 3 && w[4] == 3,
       "assign: buckets by running offset (%d writers: %d %d %d %d %d)", n, w[0], w[1],
       w[2], w[3], w[4]);
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
