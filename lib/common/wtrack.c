/* SPDX-License-Identifier: BSD-3-Clause */
/* wtrack.c - written pages from userfaultfd write protection (wtrack.h) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/userfaultfd.h>

#include "wtrack.h"

/* The kernel's interface (Linux 6.7), for C libraries whose headers are
 * older than the kernel they run on.  Values from the kernel's stable ABI. */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
    uint64_t start, end, categories;
};
struct pm_scan_arg {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
    uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#define SCAN_VEC 16 /* ranges per ioctl: few when little changed */

struct wtrack {
    int uffd;
    int pagemap;
    size_t page;
};

wtrack_t *wtrack_open(scr_error_t *err)
{
    wtrack_t *t = calloc(1, sizeof(*t));
    if (!t)
        return errprintf(err, "out of memory"), NULL;
    t->page = (size_t)sysconf(_SC_PAGESIZE);
    t->pagemap = -1;
    /* user-mode faults only: no privilege needed (vm.unprivileged_userfaultfd) */
    t->uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (t->uffd < 0) {
        errprintf(err, "userfaultfd: %s", strerror(errno));
        goto fail;
    }
    struct uffdio_api api = {
        .api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED};
    if (ioctl(t->uffd, UFFDIO_API, &api) < 0) {
        errprintf(err, "userfaultfd: no asynchronous write protection (Linux 6.7+): %s",
                  strerror(errno));
        goto fail;
    }
    t->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (t->pagemap < 0) {
        errprintf(err, "/proc/self/pagemap: %s", strerror(errno));
        goto fail;
    }
    return t;
fail:
    wtrack_close(t);
    return NULL;
}

void wtrack_close(wtrack_t *t)
{
    if (!t)
        return;
    /* closing the userfaultfd unregisters every range it holds */
    if (t->uffd >= 0)
        close(t->uffd);
    if (t->pagemap >= 0)
        close(t->pagemap);
    free(t);
}

size_t wtrack_page_size(const wtrack_t *t)
{
    return t->page;
}

void wtrack_page_span(const wtrack_t *t, const void *ptr, size_t len, uintptr_t *s,
                      uintptr_t *e)
{
    *s = (uintptr_t)ptr & ~(uintptr_t)(t->page - 1);
    *e = ((uintptr_t)ptr + len + t->page - 1) & ~(uintptr_t)(t->page - 1);
}

/* one line of /proc/self/maps: private, anonymous, no file behind it */
static int maps_line_anon(const char *line, uintptr_t *lo, uintptr_t *hi)
{
    char perms[8] = "", path[64] = "";
    unsigned long long a, b, off, ino;
    char dev[32];
    int n = sscanf(line, "%llx-%llx %7s %llx %31s %llu %63s", &a, &b, perms, &off, dev,
                   &ino, path);
    if (n < 6)
        return -1;
    *lo = (uintptr_t)a;
    *hi = (uintptr_t)b;
    int named = n == 7 && path[0] != '\0';
    int special = named && strcmp(path, "[heap]") != 0 && strcmp(path, "[stack]") != 0 &&
                  strncmp(path, "[anon:", 6) != 0;
    return perms[3] == 'p' && ino == 0 && !special ? 1 : 0;
}

/* is all of [s, e) private anonymous memory? */
static int range_anon(uintptr_t s, uintptr_t e, scr_error_t *err)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return errprintf(err, "/proc/self/maps: %s", strerror(errno));
    char line[512];
    uintptr_t at = s;
    int ok = 1;
    while (ok && at < e && fgets(line, sizeof(line), f)) {
        uintptr_t lo, hi;
        int anon = maps_line_anon(line, &lo, &hi);
        if (anon < 0 || hi <= at)
            continue;
        if (lo > at)
            break; /* a hole */
        ok = anon;
        at = hi;
    }
    fclose(f);
    if (!ok || at < e)
        return errprintf(err, "0x%" PRIxPTR "-0x%" PRIxPTR " is %s", s, e,
                         ok ? "not all mapped" : "not private anonymous memory");
    return 0;
}

int wtrack_add(wtrack_t *t, const void *ptr, size_t len, scr_error_t *err)
{
    uintptr_t s, e;
    wtrack_page_span(t, ptr, len, &s, &e);
    if (s == e)
        return 0;
    if (range_anon(s, e, err) < 0)
        return -1;
    struct uffdio_register reg = {.range = {.start = s, .len = e - s},
                                  .mode = UFFDIO_REGISTER_MODE_WP};
    if (ioctl(t->uffd, UFFDIO_REGISTER, &reg) < 0)
        return errprintf(err, "userfaultfd register 0x%" PRIxPTR "-0x%" PRIxPTR ": %s", s,
                         e, strerror(errno));
    return 0;
}

/* append [s, e) to the list, merged with the last range when they touch */
static int ranges_push(wtrack_range_t **v, size_t *n, size_t *cap, uintptr_t s,
                       uintptr_t e)
{
    if (*n > 0 && (*v)[*n - 1].end == s) {
        (*v)[*n - 1].end = e;
        return 0;
    }
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        wtrack_range_t *nv = realloc(*v, c * sizeof(*nv));
        if (!nv)
            return -1;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = (wtrack_range_t){s, e};
    return 0;
}

ssize_t wtrack_scan(wtrack_t *t, const void *ptr, size_t len, wtrack_range_t **out)
{
    uintptr_t s, e;
    wtrack_page_span(t, ptr, len, &s, &e);
    struct page_region reg[SCAN_VEC];
    wtrack_range_t *v = NULL;
    size_t n = 0, cap = 0;
    *out = NULL;
    while (s < e) {
        struct pm_scan_arg a = {.size = sizeof(a),
                                .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
                                .start = s,
                                .end = e,
                                .vec = (uintptr_t)reg,
                                .vec_len = SCAN_VEC,
                                .category_mask = PAGE_IS_WRITTEN,
                                .return_mask = PAGE_IS_WRITTEN};
        long got = ioctl(t->pagemap, PAGEMAP_SCAN, &a);
        if (got < 0 || a.walk_end <= s)
            goto fail;
        for (long i = 0; i < got; i++)
            if (ranges_push(&v, &n, &cap, (uintptr_t)reg[i].start,
                            (uintptr_t)reg[i].end) < 0)
                goto fail;
        s = (uintptr_t)a.walk_end;
    }
    *out = v;
    return (ssize_t)n;
fail:
    free(v);
    return -1;
}
