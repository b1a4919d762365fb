/* SPDX-License-Identifier: BSD-3-Clause */
/* crcseg.c - CRC32 of files whose bytes pass by out of order (see crcseg.h) */
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "crc32.h"
#include "crcseg.h"
#include "io.h"
#include "log.h"

int crcseg_init(crcseg_t *c, int nfiles, const uint64_t *sizes, uint64_t stream_len)
{
    memset(c, 0, sizeof(*c));
    c->nfiles = nfiles;
    c->stream_len = stream_len ? stream_len : UINT64_MAX;
    c->start = calloc((size_t)nfiles + 1, sizeof(uint64_t));
    for (int f = 0; c->start && f < nfiles; f++)
        c->start[f + 1] = c->start[f] + sizes[f];
    uint64_t total = c->start ? c->start[nfiles] : 0;
    c->nstreams = stream_len ? (int)((total + stream_len - 1) / stream_len) : 1;
    if (c->nstreams < 1)
        c->nstreams = 1;
    size_t segs = (size_t)nfiles * (size_t)c->nstreams;
    c->next = calloc(segs ? segs : 1, sizeof(uint64_t));
    c->crc = calloc(segs ? segs : 1, sizeof(uint32_t));
    c->broken = calloc((size_t)nfiles + 1, sizeof(int));
    if (!c->start || !c->next || !c->crc || !c->broken) {
        crcseg_free(c);
        return -1;
    }
    /* each segment begins where its file meets its stream */
    for (int f = 0; f < nfiles; f++)
        for (int s = 0; s < c->nstreams; s++) {
            uint64_t from = (uint64_t)s * c->stream_len;
            c->next[(size_t)f * (size_t)c->nstreams + (size_t)s] =
                from > c->start[f] ? from : c->start[f];
        }
    return 0;
}

void crcseg_free(crcseg_t *c)
{
    free(c->start);
    free(c->next);
    free(c->crc);
    free(c->broken);
    memset(c, 0, sizeof(*c));
}

/* the first file holding byte pos (files may be empty) */
static int crcseg_find(const crcseg_t *c, uint64_t pos)
{
    int lo = 0, hi = c->nfiles;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (c->start[mid + 1] <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void crcseg_update(crcseg_t *c, uint64_t pos, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t end = pos + len, total = c->start[c->nfiles];
    int s = (int)(pos / c->stream_len);
    if (end > total)
        end = total;
    for (int f = crcseg_find(c, pos); f < c->nfiles && pos < end; f++) {
        uint64_t to = c->start[f + 1] < end ? c->start[f + 1] : end;
        if (to <= pos)
            continue;
        size_t i = (size_t)f * (size_t)c->nstreams + (size_t)s;
        if (s >= c->nstreams || c->next[i] != pos)
            c->broken[f] = 1;
        else
            c->crc[i] = crc32_update(c->crc[i], p, (size_t)(to - pos));
        c->next[i] = to;
        p += to - pos;
        pos = to;
    }
}

int crcseg_file(const crcseg_t *c, int f, uint32_t *crc)
{
    if (f < 0 || f >= c->nfiles || c->broken[f])
        return -1;
    uint32_t sum = 0;
    for (int s = 0; s < c->nstreams; s++) {
        size_t i = (size_t)f * (size_t)c->nstreams + (size_t)s;
        uint64_t from = (uint64_t)s * c->stream_len;
        uint64_t begin = from > c->start[f] ? from : c->start[f];
        uint64_t stop = c->start[f + 1];
        if (s + 1 < c->nstreams && (uint64_t)(s + 1) * c->stream_len < stop)
            stop = (uint64_t)(s + 1) * c->stream_len;
        if (begin >= stop)
            continue;
        if (c->next[i] != stop)
            return -1; /* not all of it went by */
        sum = crcseg_combine(sum, c->crc[i], stop - begin);
    }
    *crc = sum;
    return 0;
}

int crcseg_file_or_read(const crcseg_t *c, int f, const char *path, uint32_t *crc,
                        scr_error_t *err)
{
    if (crcseg_file(c, f, crc) == 0)
        return 0;
    log_dbg(2, "CRC32 of %s: not every byte passed in order, reading it again", path);
    return io_file_crc(path, crc, NULL, err);
}

uint32_t crcseg_combine(uint32_t a, uint32_t b, uint64_t len_b)
{
    /* z_off_t is 64 bits on the LP64 systems SCR runs on */
    _Static_assert(sizeof(z_off_t) >= 8, "zlib offsets must hold file sizes");
    return (uint32_t)crc32_combine(a, b, (z_off_t)len_b);
}
