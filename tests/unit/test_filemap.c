/* SPDX-License-Identifier: BSD-3-Clause */
/* test_filemap.c - filemap_purge_dir removes a dataset directory whole
 * (files no filemap names, nested directories, links) without following a
 * link out of it, and leaves alone a path that is not a directory;
 * filemap_delete_dset_files removes only the files the map names and the
 * directories they leave empty. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filemap.h"
#include "tap.h"
#include "testutil.h"

static char *dir;

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static void mk(const char *rel)
{
    char p[4200];
    snprintf(p, sizeof(p), "%s/%s", dir, rel);
    tu_write(p, "x", 1);
}

static void test_purge(void)
{
    char d[1024], p[4200], out[1024], outdir[1024];
    snprintf(d, sizeof(d), "%s/scr.dataset.3", dir);
    snprintf(p, sizeof(p), "%s/ckpt/sub", d);
    snprintf(out, sizeof(out), "%s/outside.dat", dir);
    snprintf(outdir, sizeof(outdir), "%s/outside", dir);
    mkdir(d, 0700);
    mkdir(outdir, 0700);
    snprintf(p, sizeof(p), "%s/ckpt", d);
    mkdir(p, 0700);
    snprintf(p, sizeof(p), "%s/ckpt/sub", d);
    mkdir(p, 0700);
    mk("scr.dataset.3/ckpt/a.dat");
    mk("scr.dataset.3/ckpt/sub/b.dat");
    mk("scr.dataset.3/.partner.0");
    mk("outside.dat");
    mk("outside/keep.dat");
    snprintf(p, sizeof(p), "%s/ckpt/link", d);
    int l1 = symlink(out, p);
    snprintf(p, sizeof(p), "%s/ckpt/dirlink", d);
    int l2 = symlink(outdir, p);
    ok(l1 == 0 && l2 == 0, "a dataset directory with files, subdirectories and links");
    ok(filemap_purge_dir(d) == 0 && !exists(d), "purged whole");
    snprintf(p, sizeof(p), "%s/keep.dat", outdir);
    ok(exists(out) && exists(p), "what its links pointed to is left alone");
    ok(filemap_purge_dir(d) == 0, "a directory that is gone: nothing to do");
    ok(filemap_purge_dir(out) == 0 && exists(out), "a file is not a directory: left");
}

static void test_delete(void)
{
    char d[1024], p[4200];
    snprintf(d, sizeof(d), "%s/scr.dataset.4", dir);
    mkdir(d, 0700);
    snprintf(p, sizeof(p), "%s/named.dat", d);
    tu_write(p, "x", 1);
    kvtree_t *fm = kvtree_new(), *m = kvtree_new();
    filemap_add_file(fm, 4, 0, p, m);
    snprintf(p, sizeof(p), "%s/unnamed.dat", d);
    tu_write(p, "x", 1);
    ok(filemap_delete_dset_files(fm, 4, d) == 0 && exists(p) && exists(d),
       "delete: only the named file goes; the directory stays with the other");
    ok(filemap_purge_dir(d) == 0 && !exists(d), "purge: the rest goes too");
    kvtree_delete(&m);
    kvtree_delete(&fm);
}

int main(void)
{
    dir = tu_tmpdir();
    test_purge();
    test_delete();
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
