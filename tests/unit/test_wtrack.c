/* SPDX-License-Identifier: BSD-3-Clause */
/* test_wtrack.c - the kernel reports exactly the pages written between two
 * scans (by the CPU and by a read() into them), refuses memory it cannot
 * track, and gives up on a range remapped behind its back */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "wtrack.h"

#define PAGES 64

static size_t pg;
static char *mem;

/* the pages of mem that scan reports, as a string of '.' and 'w' */
static ssize_t written(wtrack_t *t, const void *ptr, size_t len, char *map)
{
    wtrack_range_t *r;
    ssize_t n = wtrack_scan(t, ptr, len, &r);
    memset(map, '.', PAGES);
    map[PAGES] = '\0';
    for (ssize_t i = 0; i < n; i++)
        for (uintptr_t a = r[i].start; a < r[i].end; a += pg)
            if (a >= (uintptr_t)mem && a < (uintptr_t)mem + PAGES * pg)
                map[(a - (uintptr_t)mem) / pg] = 'w';
    free(r);
    return n;
}

static void expect(const char *map, const char *pages, const char *what)
{
    char want[PAGES + 1];
    memset(want, '.', PAGES);
    want[PAGES] = '\0';
    for (const char *p = pages; *p;) {
        char *end;
        long i = strtol(p, &end, 10);
        want[i] = 'w';
        p = *end ? end + 1 : end;
    }
    ok(strcmp(map, want) == 0, "%s: %s", what, map);
}

static void check_refusals(wtrack_t *t)
{
    scr_error_t err = {""};
    char path[] = "/tmp/test_wtrack.XXXXXX";
    int fd = mkstemp(path);
    ok(fd >= 0 && ftruncate(fd, (off_t)pg * 4) == 0, "a file to map");
    unlink(path);
    void *f = mmap(NULL, pg * 4, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ok(f != MAP_FAILED && wtrack_add(t, f, pg * 4, &err) < 0 &&
           strstr(err.text, "not private anonymous memory"),
       "a shared file mapping is refused: %s", err.text);
    void *s = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ok(s != MAP_FAILED && wtrack_add(t, s, pg, &err) < 0,
       "shared anonymous memory is refused: %s", err.text);
    munmap(f, pg * 4);
    munmap(s, pg);
    close(fd);
}

int main(void)
{
    scr_error_t err = {""};
    wtrack_t *t = wtrack_open(&err);
    if (!t) {
        /* an older kernel: the library falls back to hashing every block */
        ok(err.text[0] != '\0', "no write tracking here, said why: %s", err.text);
        return done_testing();
    }
    pg = wtrack_page_size(t);
    mem = mmap(NULL, PAGES * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
               0);
    memset(mem, 1, PAGES * pg);
    char map[PAGES + 1];
    wtrack_range_t *r;
    ok(wtrack_scan(t, mem, PAGES * pg, &r) < 0, "a range never added cannot be scanned");

    /* an unaligned variable in the middle: its pages, partial ones too */
    ok(wtrack_add(t, mem + 2 * pg + 100, 10 * pg, &err) == 0, "add pages 2..12: %s",
       err.text);
    ok(wtrack_add(t, mem + 20 * pg, 40 * pg, &err) == 0, "add pages 20..59");
    written(t, mem + 2 * pg + 100, 10 * pg, map);
    expect(map, "2,3,4,5,6,7,8,9,10,11,12", "first scan: every page it holds");
    ok(written(t, mem + 2 * pg + 100, 10 * pg, map) == 0, "second scan: none");

    mem[3 * pg] = 2;
    memset(mem + 7 * pg + 5, 3, 2 * pg); /* 7, 8 and part of 9 */
    mem[12 * pg + 1] = 4;
    written(t, mem + 2 * pg + 100, 10 * pg, map);
    expect(map, "3,7,8,9,12", "the pages written");
    ok(written(t, mem + 2 * pg + 100, 10 * pg, map) == 0, "then none again");

    /* the kernel writing for us counts: read() into the buffer */
    written(t, mem + 20 * pg, 40 * pg, map);
    int z = open("/dev/zero", O_RDONLY);
    ok(z >= 0 && read(z, mem + 30 * pg + 9, 16) == 16, "read() into page 30");
    close(z);
    written(t, mem + 20 * pg, 40 * pg, map);
    expect(map, "30", "a read() into the buffer is seen");

    /* a write outside the tracked pages is not reported */
    mem[15 * pg] = 5;
    ok(written(t, mem + 20 * pg, 40 * pg, map) == 0, "page 15 is not tracked");

    /* many scattered pages: more ranges than one ioctl returns */
    for (int i = 20; i < 60; i += 2)
        mem[(size_t)i * pg] = 6;
    ok(written(t, mem + 20 * pg, 40 * pg, map) == 20, "20 separate ranges");

    /* remapped behind our back: no longer tracked, the caller must know */
    void *again = mmap(mem + 20 * pg, 4 * pg, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    ok(again == mem + 20 * pg && wtrack_scan(t, mem + 20 * pg, 40 * pg, &r) < 0,
       "a remapped range fails the scan");
    ok(wtrack_add(t, mem + 20 * pg, 40 * pg, &err) == 0, "added again");
    written(t, mem + 20 * pg, 40 * pg, map);
    ok(written(t, mem + 20 * pg, 40 * pg, map) == 0, "tracked again");

    check_refusals(t);
    wtrack_close(t);
    munmap(mem, PAGES * pg);
    return done_testing();
}
