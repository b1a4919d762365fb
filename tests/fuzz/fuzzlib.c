/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzzlib.c - scratch directory, kvtree images that pass their checks, and
 * archives of several files, for the file-parser fuzzers */
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32.h"
#include "fuzzlib.h"
#include "io.h"
#include "kvtree.h"
#include "path.h"

static char scratch[4096];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

static void scratch_empty(void)
{
    nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void scratch_remove(void)
{
    scratch_empty();
    rmdir(scratch);
}

const char *fuzz_scratch(void)
{
    if (!scratch[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(scratch, sizeof(scratch), "%s/scr-fuzz.XXXXXX",
                 tmp && *tmp ? tmp : "/dev/shm");
        if (!mkdtemp(scratch)) {
            perror(scratch);
            abort();
        }
        atexit(scratch_remove);
        /* product messages are noise at thousands of inputs a second */
        FILE *null = getenv("FUZZ_VERBOSE") ? NULL : fopen("/dev/null", "w");
        if (null)
            stderr = null;
    }
    scratch_empty();
    if (chdir(scratch) < 0)
        abort();
    return scratch;
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dprintf(2, "fuzz check failed: ");
    vdprintf(2, fmt, ap);
    dprintf(2, "\n");
    va_end(ap);
    abort();
}

void fuzz_path(const char *rel, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", scratch, rel);
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = (v << 8) | p[i];
    return v;
}

/* the length of a redundancy file's header image: as far as its hash goes
 * (mutations move the end), else what its size field says */
static uint64_t header_len(const uint8_t *f, size_t size)
{
    uint64_t len = get_be(f + 8, 8);
    int crc = f[19] & KVTREE_FILE_FLAGS_CRC32;
    kvtree_t *t = kvtree_new();
    int64_t n = kvtree_unpack(f + KVTREE_FILE_HEADER_SIZE, size - KVTREE_FILE_HEADER_SIZE,
                              t, NULL);
    kvtree_delete(&t);
    if (n >= 0 && KVTREE_FILE_HEADER_SIZE + (uint64_t)n + (crc ? 4 : 0) <= size)
        len = KVTREE_FILE_HEADER_SIZE + (uint64_t)n + (crc ? 4 : 0);
    return len;
}

/* A kvtree image's size field and CRC32 made to fit: the whole file, or for
 * a redundancy file (a header image, then the parity chunks) its header. */
static void kvtree_fix(const char *rel, uint8_t *f, size_t size)
{
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    int s, n, id, header_only = sscanf(base, "%d_of_%d_in_%d.", &s, &n, &id) == 3;
    if (size < KVTREE_FILE_HEADER_SIZE || get_be(f, 4) != KVTREE_MAGIC)
        return;
    uint64_t len = header_only ? header_len(f, size) : size;
    if (len > size || len < KVTREE_FILE_HEADER_SIZE + 4)
        len = size;
    put_be(f + 8, len, 8);
    if ((f[19] & KVTREE_FILE_FLAGS_CRC32) && len >= KVTREE_FILE_HEADER_SIZE + 4)
        put_be(f + len - 4, crc32_update(0, f, (size_t)len - 4), 4);
}

int fuzz_write(const char *rel, const uint8_t *data, size_t size)
{
    char path[4600], *slash;
    fuzz_path(rel, path, sizeof(path));
    if ((slash = strrchr(path, '/'))) {
        *slash = '\0';
        io_mkdir_p(path, 0700, NULL);
        *slash = '/';
    }
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    kvtree_fix(rel, copy, size);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = fd >= 0 && io_write_full(fd, copy, size) == 0 ? 0 : -1;
    if (fd >= 0)
        close(fd);
    free(copy);
    return rc;
}

int fuzz_unpack(const char *dir, const uint8_t *data, size_t size, fuzz_file_fn fn,
                void *arg)
{
    const size_t tlen = strlen(FUZZ_ARCHIVE_TAG);
    const uint8_t *p = data, *end = data + size;
    int written = 0;
    while ((p = memmem(p, (size_t)(end - p), FUZZ_ARCHIVE_TAG, tlen))) {
        const uint8_t *name = p + tlen;
        const uint8_t *nl = memchr(name, '\n', (size_t)(end - name));
        if (!nl)
            break;
        const uint8_t *body = nl + 1;
        const uint8_t *next = memmem(body, (size_t)(end - body), FUZZ_ARCHIVE_TAG, tlen);
        size_t blen = (size_t)((next ? next : end) - body);
        char rel[512], full[1100];
        size_t nlen = (size_t)(nl - name);
        if (nlen > 0 && nlen < sizeof(rel) && !memchr(name, '\0', nlen)) {
            memcpy(rel, name, nlen);
            rel[nlen] = '\0';
            snprintf(full, sizeof(full), "%s/%s", dir, rel);
            if (path_is_safe_relative(rel) && fuzz_write(full, body, blen) == 0) {
                written++;
                if (fn)
                    fn(rel, arg);
            }
        }
        p = body;
    }
    return written;
}
