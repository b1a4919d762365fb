/* SPDX-License-Identifier: BSD-3-Clause */
/* test_filepool.c - kept files are taken over by size, cut to the length
 * asked for, never through a link, and unlinked by drain and sweep */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filepool.h"
#include "tap.h"

static char top[256];

static void mkfile(const char *path, size_t size, int byte)
{
    char *buf = malloc(size ? size : 1);
    memset(buf, byte, size);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, buf, size) != (ssize_t)size)
        perror(path);
    close(fd);
    free(buf);
}

static long fsize(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int first_byte(const char *path)
{
    unsigned char c = 0;
    int fd = open(path, O_RDONLY);
    int n = fd >= 0 ? (int)read(fd, &c, 1) : -1;
    if (fd >= 0)
        close(fd);
    return n == 1 ? c : -1;
}

static void test_take_by_size(filepool_t *p)
{
    char a[300], b[300], c[300], dst[300];
    snprintf(a, sizeof(a), "%s/a", top);
    snprintf(b, sizeof(b), "%s/b", top);
    snprintf(c, sizeof(c), "%s/c", top);
    mkfile(a, 10, 'a');
    mkfile(b, 100, 'b');
    mkfile(c, 1000, 'c');
    ok(filepool_put(p, a, "3") == 0 && filepool_put(p, b, "3") == 0 &&
           filepool_put(p, c, "3") == 0,
       "three files kept");
    uint64_t bytes;
    ok(filepool_count(p, &bytes) == 3 && bytes == 1110, "count 3, 1110 bytes");
    ok(fsize(a) < 0 && fsize(b) < 0 && fsize(c) < 0, "the originals are gone");

    int reused = 0;
    scr_error_t err;
    snprintf(dst, sizeof(dst), "%s/new1", top);
    int fd = filepool_open(p, dst, 50, &reused, &err);
    ok(fd >= 0 && reused, "a 50-byte file takes a kept one");
    ok(first_byte(dst) == 'b' && fsize(dst) == 50, "the 100-byte one, cut to 50");
    close(fd);
    snprintf(dst, sizeof(dst), "%s/new2", top);
    fd = filepool_open(p, dst, 5000, &reused, &err);
    ok(fd >= 0 && reused && first_byte(dst) == 'c' && fsize(dst) == 1000,
       "none holds 5000 bytes: the largest, left at its length");
    close(fd);
    snprintf(dst, sizeof(dst), "%s/new3", top);
    fd = filepool_open(p, dst, 10, &reused, &err);
    ok(fd >= 0 && reused && first_byte(dst) == 'a' && fsize(dst) == 10,
       "one of exactly the size is taken as it is");
    close(fd);
    snprintf(dst, sizeof(dst), "%s/new4", top);
    fd = filepool_open(p, dst, 10, &reused, &err);
    ok(fd >= 0 && !reused && fsize(dst) == 0, "an empty pool: a new empty file");
    close(fd);
    ok(filepool_reused(p) == 3, "three taken over");
}

static void test_links(filepool_t *p)
{
    char target[300], link[300], f[300];
    snprintf(target, sizeof(target), "%s/victim", top);
    snprintf(link, sizeof(link), "%s/link", top);
    snprintf(f, sizeof(f), "%s/f", top);
    mkfile(target, 64, 'v');
    ok(symlink(target, link) == 0, "a planted link");
    ok(filepool_put(p, link, "3") < 0 && fsize(link) >= 0,
       "a link is not kept, and stays where it was");
    mkfile(f, 64, 'f');
    ok(filepool_put(p, f, "3") == 0, "a file kept");
    int reused = 0;
    scr_error_t err;
    int fd = filepool_open(p, link, 64, &reused, &err);
    ok(fd >= 0 && reused, "opening over the link takes the kept file");
    if (fd >= 0)
        close(fd);
    struct stat st;
    ok(lstat(link, &st) == 0 && S_ISREG(st.st_mode),
       "the link was replaced, not followed");
    ok(first_byte(target) == 'v' && fsize(target) == 64, "its target is untouched");
    mkfile(f, 64, 'f');
    filepool_put(p, f, "3");
    char dst[300];
    snprintf(dst, sizeof(dst), "%s.other", top);
    fd = filepool_open(p, dst, 64, &reused, &err);
    ok(fd >= 0 && !reused, "a path outside the root does not take a kept file");
    close(fd);
    unlink(dst);
    ok(filepool_put(p, "/etc/hostname", "3") < 0 && fsize("/etc/hostname") >= 0,
       "nor is a file outside the root kept");
    snprintf(dst, sizeof(dst), "%s/no/such/dir/h", top);
    fd = filepool_open(p, dst, 64, &reused, &err);
    ok(fd < 0 && strstr(err.text, dst) != NULL, "a failed open names the path: %s",
       err.text);
}

/* a kept file swapped for a link in the pool directory (the user owns it) */
static void test_swapped(filepool_t *p, const char *pool)
{
    char f[300], kept[700], target[300], dst[300];
    snprintf(f, sizeof(f), "%s/s", top);
    snprintf(target, sizeof(target), "%s/target", top);
    snprintf(dst, sizeof(dst), "%s/dst", top);
    mkfile(f, 64, 's');
    mkfile(target, 64, 't');
    filepool_drain(p);
    ok(filepool_put(p, f, "9") == 0, "a file kept");
    DIR *d = opendir(pool);
    struct dirent *e;
    kept[0] = '\0';
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "9.", 2))
            snprintf(kept, sizeof(kept), "%s/%s", pool, e->d_name);
    if (d)
        closedir(d);
    ok(fsize(kept) == 64, "as %s", kept);
    unlink(kept);
    ok(symlink(target, kept) == 0, "swapped for a link");
    int reused = 1;
    scr_error_t err;
    int fd = filepool_open(p, dst, 64, &reused, &err);
    struct stat st;
    ok(fd >= 0 && !reused && lstat(dst, &st) == 0 && S_ISREG(st.st_mode) &&
           st.st_size == 0,
       "not taken over: a new regular file instead");
    if (fd >= 0)
        close(fd);
    ok(first_byte(target) == 't' && fsize(target) == 64,
       "the link's target is untouched");
}

static void test_drain_sweep(filepool_t *p, const char *pool)
{
    uint64_t bytes;
    ok(filepool_count(p, &bytes) == 1, "one file still kept");
    filepool_drain(p);
    ok(filepool_count(p, &bytes) == 0 && bytes == 0, "drain forgets it");
    int left = 0;
    char path[700];
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof(path), "%s/3.%d", pool, i);
        left += fsize(path) >= 0;
    }
    ok(left == 0, "and unlinks it");
    snprintf(path, sizeof(path), "%s/7.0", pool);
    mkfile(path, 32, 'x');
    snprintf(path, sizeof(path), "%s/stray", pool);
    ok(symlink("/etc/passwd", path) == 0, "a leftover and a link in the pool directory");
    filepool_sweep(p);
    ok(fsize(pool) < 0 && fsize("/etc/passwd") > 0,
       "sweep removes them and the directory, not the link's target");
    filepool_sweep(p); /* gone already: nothing to do */
}

/* a file far larger than asked for is not cut (that frees its pages on
 * the caller's time); the largest shorter one is taken instead */
static void test_too_large(filepool_t *p)
{
    char big[300], small[300], dst[300];
    size_t mib = (size_t)1 << 20;
    snprintf(big, sizeof(big), "%s/big", top);
    snprintf(small, sizeof(small), "%s/small", top);
    snprintf(dst, sizeof(dst), "%s/parity", top);
    filepool_drain(p);
    mkfile(big, 4 * mib, 'B');
    mkfile(small, mib - 10, 's');
    filepool_put(p, big, "5");
    filepool_put(p, small, "5");
    int reused = 0;
    scr_error_t err;
    int fd = filepool_open(p, dst, mib, &reused, &err);
    ok(fd >= 0 && reused && first_byte(dst) == 's' && fsize(dst) == (long)mib - 10,
       "1 MiB asked, 4 MiB and 1 MiB - 10 kept: the shorter one, to grow");
    close(fd);
    unlink(dst);
    fd = filepool_open(p, dst, mib, &reused, &err);
    ok(fd >= 0 && !reused && fsize(dst) == 0, "with only the 4 MiB one left: a new file");
    close(fd);
    unlink(dst);
    fd = filepool_open(p, dst, 3 * mib, &reused, &err);
    ok(fd >= 0 && reused && first_byte(dst) == 'B' && fsize(dst) == 3 * (long)mib,
       "3 MiB asked: the 4 MiB one, cut");
    close(fd);
    unlink(dst);
}

static int pool_files(const char *pool)
{
    int n = 0;
    DIR *d = opendir(pool);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* the background drain unlinks every kept file; a second drain (or free)
 * finishes what it has not reached */
static void test_drain_async(filepool_t *p, const char *pool)
{
    char f[300];
    filepool_drain(p);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 40; i++) {
            snprintf(f, sizeof(f), "%s/d%d", top, i);
            mkfile(f, 4096, 'd');
            filepool_put(p, f, "6");
        }
        ok(filepool_count(p, NULL) == 40 && pool_files(pool) == 40, "40 files kept");
        filepool_drain_async(p);
        ok(filepool_count(p, NULL) == 0, "drain_async forgets them at once");
        snprintf(f, sizeof(f), "%s/late", top);
        mkfile(f, 4096, 'l');
        filepool_put(p, f, "6");
        ok(filepool_count(p, NULL) == 1, "a file kept meanwhile is kept");
        if (round == 0)
            filepool_drain(p); /* joins the thread, however far it got */
        else
            filepool_drain_async(p);
        filepool_drain(p);
        ok(pool_files(pool) == 0 && filepool_count(p, NULL) == 0,
           "after a drain, none is left (%s)", round ? "two async" : "async, then sync");
    }
    filepool_drain_async(p); /* nothing kept: no thread */
    ok(pool_files(pool) == 0, "drain_async of an empty pool");
    ok(filepool_drained_later(p) == 81, "81 files counted as deleted in the background");
}

/* the background thread's unlink waits while held: the test decides how
 * far it gets */
static pthread_t main_thread;
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static int holding, held;

static int held_unlink(const char *path)
{
    if (!pthread_equal(pthread_self(), main_thread)) {
        pthread_mutex_lock(&hold_lock);
        held++;
        pthread_cond_broadcast(&hold_cond);
        while (holding)
            pthread_cond_wait(&hold_cond, &hold_lock);
        pthread_mutex_unlock(&hold_lock);
    }
    return unlink(path);
}

static int count_prefix(const char *pool, const char *prefix)
{
    int n = 0;
    DIR *d = opendir(pool);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* drain_async never waits for the thread, but never lets more than two
 * batches be on their way out: the third call finishes the first */
static void test_drain_async_bound(filepool_t *p, const char *pool)
{
    static const char *tag[3] = {"first", "second", "third"};
    char f[300];
    main_thread = pthread_self();
    filepool_set_unlink(p, held_unlink);
    holding = 1;
    for (int batch = 0; batch < 3; batch++) {
        for (int i = 0; i < 3; i++) {
            snprintf(f, sizeof(f), "%s/b%d.%d", top, batch, i);
            mkfile(f, 4096, 'b');
            filepool_put(p, f, tag[batch]);
        }
        filepool_drain_async(p); /* with the thread held, a wait hangs */
        if (batch == 0) {        /* the thread holds its first file */
            pthread_mutex_lock(&hold_lock);
            while (!held)
                pthread_cond_wait(&hold_cond, &hold_lock);
            pthread_mutex_unlock(&hold_lock);
        }
    }
    ok(count_prefix(pool, "first.") == 1,
       "the third drain_async unlinked the first batch but the file the thread holds");
    ok(count_prefix(pool, "second.") == 3 && count_prefix(pool, "third.") == 3,
       "the second and third batches are left to the thread");
    ok(filepool_pending(p) == 6,
       "filepool_pending counts them: the thread is behind (%d; cache_evict then deletes "
       "at once)",
       filepool_pending(p));
    pthread_mutex_lock(&hold_lock);
    holding = 0;
    pthread_cond_broadcast(&hold_cond);
    pthread_mutex_unlock(&hold_lock);
    filepool_drain(p);
    ok(pool_files(pool) == 0 && filepool_pending(p) == 0,
       "a drain after three leaves none");
    filepool_set_unlink(p, NULL);
}

static void test_can_hold(void)
{
    ok(filepool_can_hold(top, 1), "a byte fits in %s", top);
    ok(!filepool_can_hold(top, UINT64_MAX / 2), "8 EiB does not");
    ok(!filepool_can_hold("/no/such/dir", 1), "a missing directory holds nothing");
    if (access("/dev/shm", W_OK) == 0)
        ok(!filepool_can_hold("/dev/shm", (uint64_t)1 << 60),
           "nor does tmpfs hold more than memory");
}

/* the prefix's layout: files anywhere below the root, the pool in its
 * .scr/ (SCR_PREFIX_REUSE); a file replaced at its own path is taken over
 * by the next flush's staged file, and sweep empties that directory only */
static void test_root_dir(void)
{
    char root[300], meta[400], dir[500], own[400], staged[500], other[400];
    snprintf(root, sizeof(root), "%s/prefix", top);
    snprintf(meta, sizeof(meta), "%s/.scr", root);
    snprintf(dir, sizeof(dir), "%s/scr.recycle", meta);
    snprintf(own, sizeof(own), "%s/ckpt.dat", root);
    snprintf(staged, sizeof(staged), "%s/scr.dataset.2.dat", meta);
    snprintf(other, sizeof(other), "%s/scr.recycle", root);
    mkdir(root, 0700);
    mkdir(meta, 0700);
    filepool_t *q = filepool_new();
    ok(filepool_add_root_dir(q, root, dir) == 0, "a root with its pool in .scr/");
    mkfile(own, 1000, 'o');
    ok(filepool_put(q, own, "0") == 0 && fsize(own) < 0 && filepool_count(q, NULL) == 1,
       "a replaced file at its own path is kept");
    char kept[600];
    snprintf(kept, sizeof(kept), "%s/0.0", dir);
    ok(fsize(kept) == 1000 && fsize(other) < 0, "in .scr/scr.recycle, not in the root's");
    int reused = 0;
    scr_error_t err;
    int fd = filepool_open(q, staged, 1000, &reused, &err);
    ok(fd >= 0 && reused && fsize(staged) == 1000 && first_byte(staged) == 'o',
       "the next flush's staged file takes its blocks over");
    if (fd >= 0)
        close(fd);
    mkfile(kept, 10, 'x'); /* a crashed run's leftover */
    filepool_sweep(q);
    ok(fsize(dir) < 0 && fsize(staged) == 1000 && fsize(meta) >= 0,
       "sweep empties the pool directory and leaves the rest of .scr/");
    filepool_free(&q);
}

int main(void)
{
    snprintf(top, sizeof(top), "/tmp/test_filepool.%d", (int)getpid());
    mkdir(top, 0700);
    char pool[300];
    snprintf(pool, sizeof(pool), "%s/scr.recycle", top);
    filepool_t *p = filepool_new();
    ok(p != NULL && filepool_add_root(p, top) == 0, "filepool_new, one root");
    test_take_by_size(p);
    test_links(p);
    test_drain_sweep(p, pool);
    mkdir(pool, 0700);
    test_swapped(p, pool);
    test_too_large(p);
    test_drain_async(p, pool);
    test_drain_async_bound(p, pool);
    test_can_hold();
    test_root_dir();
    filepool_free(&p);
    ok(p == NULL, "filepool_free clears the pointer");
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
    (void)!system(cmd);
    return done_testing();
}
