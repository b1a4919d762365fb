/* SPDX-License-Identifier: BSD-3-Clause */
/* test_place.c - datasets staged on the prefix and moved to the
 * application's own paths (place.c), and the whole rank2file tree read by
 * one process (r2f_read_all): placement finished by a second try, a dataset
 * whose names a newer one takes leaving the index, and removals that keep
 * every file another dataset names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsindex.h"
#include "io.h"
#include "pfs.h"
#include "place.h"
#include "r2f.h"
#include "tap.h"

static char prefix[256];

static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", prefix, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    io_mkdir_p(path, 0700, NULL);
    *slash = '/';
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static int exists(const char *rel)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", prefix, rel);
    return lstat(path, &st) == 0;
}

static int holds(const char *rel, const char *text)
{
    char path[1024], buf[64] = "";
    snprintf(path, sizeof(path), "%s/%s", prefix, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strcmp(buf, text) == 0;
}

/* dataset id staged with rank r's files names[r] ("a b"), its rank2file
 * tree written, complete in the index; files: RANK r FILE rel */
static kvtree_t *stage(int id, int ranks, const char *const *names, const char *text)
{
    char dir[64], dsetdir[400];
    pfs_dset_name(id, dir, sizeof(dir));
    pfs_dset_dir(prefix, id, dsetdir, sizeof(dsetdir));
    kvtree_t *files = kvtree_new();
    for (int r = 0; r < ranks; r++) {
        char list[256], *save = NULL;
        snprintf(list, sizeof(list), "%s", names[r]);
        for (char *n = strtok_r(list, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
            char rel[320];
            snprintf(rel, sizeof(rel), "%s/%s", dir, n);
            put(rel, text);
            kvtree_util_set_u64(kvtree_setf(files, NULL, "RANK %d FILE %s", r, n), "SIZE",
                                strlen(text));
        }
    }
    char meta[420];
    snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
    io_mkdir_p(meta, 0700, NULL);
    dsindex_write_r2f(dsetdir, ranks, files, NULL);
    kvtree_t *d = kvtree_new();
    kvtree_util_set_int(d, "FLAGS", 1);
    kvtree_util_set_str(d, "NAME", dir);
    index_add(prefix, id, dir, d, 1, NULL);
    kvtree_delete(&d);
    return files;
}

static void test_r2f_all(void)
{
    const char *names[] = {"ckpt/a ckpt/b", "", "ckpt/c"};
    kvtree_t *files = stage(2, 3, names, "one"), *all = kvtree_new();
    char dsetdir[400];
    scr_error_t err = {""};
    pfs_dset_dir(prefix, 2, dsetdir, sizeof(dsetdir));
    ok(r2f_read_all(dsetdir, all, &err) == 0 && kvtree_getf(all, "RANK 0 FILE ckpt/b") &&
           kvtree_getf(all, "RANK 2 FILE ckpt/c") &&
           kvtree_size(kvtree_getf(all, "RANK 1 FILE")) == 0,
       "r2f_read_all: every rank's files from the tree (%s)", err.text);
    ok(r2f_read_all("/nonexistent", all, &err) < 0 && strstr(err.text, "/nonexistent"),
       "r2f_read_all: a missing tree is an error naming it");
    kvtree_delete(&all);
    kvtree_delete(&files);
}

static void test_place_basics(void)
{
    char buf[600];
    ok(place_staged(".scr/scr.dataset.4") && !place_staged("scr.dataset.4"),
       "place_staged: .scr/scr.dataset.<id> is staged, scr.dataset.<id> the older "
       "layout");
    place_file_path(prefix, ".scr/scr.dataset.2", "ckpt/a", buf, sizeof(buf));
    ok(strstr(buf, "/.scr/scr.dataset.2/ckpt/a") != NULL,
       "before placement a file is read from the staging area");
    place_file_path(prefix, "scr.dataset.1", "ckpt/a", buf, sizeof(buf));
    ok(strstr(buf, "/scr.dataset.1/ckpt/a") != NULL, "older layout: from its directory");
    scr_error_t err = {""};
    ok(place_file(prefix, ".scr/scr.dataset.2", "ckpt/a", &err) == 0 &&
           holds("ckpt/a", "one") && !exists(".scr/scr.dataset.2/ckpt/a"),
       "place_file moves a file to its own path (%s)", err.text);
    ok(place_file(prefix, ".scr/scr.dataset.2", "ckpt/a", &err) == 0,
       "placing it again (a second try) succeeds");
    place_file_path(prefix, ".scr/scr.dataset.2", "ckpt/a", buf, sizeof(buf));
    ok(strstr(buf, ".scr") == NULL, "after placement it is read at its own path");
    ok(place_file(prefix, ".scr/scr.dataset.2", "../x", &err) < 0 &&
           strstr(err.text, "unsafe"),
       "a name climbing out of the prefix is refused");
    ok(place_file(prefix, ".scr/scr.dataset.2", "ckpt/none", &err) < 0 &&
           strstr(err.text, "ckpt/none"),
       "a file neither staged nor placed: an error naming it");
}

/* output dataset 1 has names of its own; checkpoint 2 (placed) has
 * ckpt/a ckpt/b ckpt/c; checkpoint 3 reuses ckpt/a and ckpt/c */
static void test_supersede(void)
{
    const char *names1[] = {"out/x", "", ""};
    const char *names3[] = {"ckpt/a ckpt/b2", "", "ckpt/c"};
    kvtree_t *f1 = stage(1, 3, names1, "out");
    ok(place_all(prefix, 1, ".scr/scr.dataset.1", f1, NULL) == 0 && holds("out/x", "out"),
       "place_all: an output dataset with names of its own");
    kvtree_t *rest = kvtree_new();
    kvtree_util_set_u64(kvtree_setf(rest, NULL, "RANK 0 FILE ckpt/b"), "SIZE", 3);
    kvtree_util_set_u64(kvtree_setf(rest, NULL, "RANK 2 FILE ckpt/c"), "SIZE", 3);
    place_all(prefix, 2, ".scr/scr.dataset.2", rest, NULL);
    index_mark_placed(prefix, 2, ".scr/scr.dataset.2", NULL);
    kvtree_t *f3 = stage(3, 3, names3, "two"), *index = kvtree_new();
    scr_error_t err = {""};
    ok(place_all(prefix, 3, ".scr/scr.dataset.3", f3, &err) == 0 &&
           holds("ckpt/a", "two") && holds("ckpt/c", "two") && holds("ckpt/b", "one"),
       "dataset 3 replaces the files it reuses, leaves ckpt/b (%s)", err.text);
    index_read(prefix, index, NULL);
    ok(!kvtree_getf(index, "DSET 2") && !exists(".scr/scr.dataset.2"),
       "dataset 2, a mix now, left the index and its staging area went");
    ok(kvtree_getf(index, "DSET 1") != NULL, "dataset 1 (no name in common) stays");
    ok(!exists(".scr/scr.dataset.3/ckpt") && exists(".scr/scr.dataset.3/.scr"),
       "the staging area's emptied directories went, its metadata stays");
    ok(!place_done(index, 3, ".scr/scr.dataset.3"), "place_done: not marked yet");
    index_mark_placed(prefix, 3, ".scr/scr.dataset.3", NULL);
    kvtree_clear(index);
    index_read(prefix, index, NULL);
    ok(place_done(index, 3, ".scr/scr.dataset.3"), "place_done: marked PLACED");
    kvtree_delete(&index);
    kvtree_delete(&rest);
    kvtree_delete(&f1);
    kvtree_delete(&f3);
}

/* a dataset 4 that names out/x too, complete, its files moved without
 * place_all (whose supersede would have taken 1 out of the index: as a
 * placement cut short and finished later may leave it); removing 1 keeps
 * out/x, removing 4 then removes it and the emptied out/ */
static void test_remove(void)
{
    const char *names4[] = {"out/x", "ckpt/d", ""};
    kvtree_t *f4 = stage(4, 3, names4, "four"), *index = kvtree_new();
    place_file(prefix, ".scr/scr.dataset.4", "out/x", NULL);
    place_file(prefix, ".scr/scr.dataset.4", "ckpt/d", NULL);
    index_read(prefix, index, NULL);
    scr_error_t err = {""};
    ok(kvtree_getf(index, "DSET 1") && place_remove(prefix, index, 1, &err) == 0 &&
           holds("out/x", "four") && !exists(".scr/scr.dataset.1"),
       "removing 1: its staging area goes, out/x stays (4 names it) (%s)", err.text);
    ok(!kvtree_getf(index, "DSET 1"), "and 1 left the in-memory index");
    ok(place_remove(prefix, index, 4, &err) == 0 && !exists("out/x") && !exists("out") &&
           !exists("ckpt/d") && holds("ckpt/a", "two"),
       "removing 4: its own files and the emptied out/ go, 3's stay");
    put("scr.dataset.7/ckpt/old", "old");
    kvtree_setf(index, NULL, "DSET 7 DIR scr.dataset.7 COMPLETE 1");
    ok(place_remove(prefix, index, 7, &err) == 0 && !exists("scr.dataset.7"),
       "an older layout's dataset: its directory goes");
    kvtree_delete(&index);
    kvtree_delete(&f4);
}

int main(void)
{
    char tmpl[] = "/tmp/test_place.XXXXXX";
    if (!mkdtemp(tmpl))
        return 1;
    snprintf(prefix, sizeof(prefix), "%s", tmpl);
    char meta[300];
    snprintf(meta, sizeof(meta), "%s/.scr", prefix);
    mkdir(meta, 0700);
    test_r2f_all();
    test_place_basics();
    test_supersede();
    test_remove();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", prefix);
    if (system(cmd) != 0)
        return 1;
    return done_testing();
}
