/* test_filepool.c - kept files are taken over by size, cut to the length
 * asked for, never through a link, and unlinked by drain and sweep */
#include <dirent.h>
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
    filepool_free(&p);
    ok(p == NULL, "filepool_free clears the pointer");
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
    (void)!system(cmd);
    return done_testing();
}
