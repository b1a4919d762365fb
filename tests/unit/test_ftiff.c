/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ftiff.c - FTI-FF layout (the specification's worked example),
 * encoding round trip, and damage detection */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftiff.h"
#include "tap.h"

#define MB 1000000LL

/* the chunk of variable id in container cid, or NULL */
static ftiff_chunk_t *chunk(ftiff_layout_t *l, int id, int cid, int *block)
{
    for (int b = 0; b < l->nblocks; b++)
        for (int k = 0; k < l->blocks[b].numvars; k++)
            if (l->blocks[b].vars[k].id == id &&
                l->blocks[b].vars[k].containerid == cid) {
                *block = b;
                return &l->blocks[b].vars[k];
            }
    return NULL;
}

/* expect: block, chunksize, containersize, dptr, fptr relative to the FB */
static void expect(ftiff_layout_t *l, int ckpt, int id, int cid, int blk, int64_t cs,
                   int64_t ctr, int64_t dptr, int64_t rel)
{
    int b = -1;
    ftiff_chunk_t *c = chunk(l, id, cid, &b);
    ok(c && b == blk && c->chunksize == cs && c->containersize == ctr &&
           c->dptr == dptr && c->fptr - FTIFF_FB_SIZE == rel && c->hascontent == (cs > 0),
       "checkpoint %d: variable %d container %d in block %d, %lld of %lld at dptr %lld, "
       "fptr FB+%lld (got block %d, %lld of %lld, dptr %lld, FB+%lld)",
       ckpt, id, cid, blk, (long long)cs, (long long)ctr, (long long)dptr, (long long)rel,
       b, c ? (long long)c->chunksize : -1, c ? (long long)c->containersize : -1,
       c ? (long long)c->dptr : -1, c ? (long long)(c->fptr - FTIFF_FB_SIZE) : -1);
}

static void step(ftiff_layout_t *l, ftiff_var_t *v, int n, ftiff_meta_t *m)
{
    scr_error_t err;
    ok(ftiff_layout_update(l, v, n, 0, &err) == 0, "layout update");
    memset(m, 0, sizeof(*m));
    ftiff_layout_place(l, m);
}

/* fti-file-format.txt's example: ints, so sizes are 4 bytes an element;
 * offsets there include FTI's 96-byte FB, here relative to ours */
static void test_spec_example(void)
{
    ftiff_layout_t l = {0};
    ftiff_meta_t m;
    ftiff_var_t v[5] = {
        {1, 4 * MB}, {2, 8 * MB}, {3, 12 * MB}, {4, 16 * MB}, {5, 20 * MB}};
    step(&l, v, 3, &m);
    ok(l.nblocks == 1 && l.blocks[0].numvars == 3 && l.blocks[0].dbsize == 24000204,
       "checkpoint 1: one block of 3 variables, dbsize 24000204");
    expect(&l, 1, 1, 0, 0, 4 * MB, 4 * MB, 0, 204);
    expect(&l, 1, 2, 0, 0, 8 * MB, 8 * MB, 0, 4000204);
    expect(&l, 1, 3, 0, 0, 12 * MB, 12 * MB, 0, 12000204);
    step(&l, v, 4, &m);
    ok(l.nblocks == 2 && l.blocks[1].dbsize == 16000076, "checkpoint 2: block 1 dbsize");
    expect(&l, 2, 4, 0, 1, 16 * MB, 16 * MB, 0, 24000280);
    v[1].size = 24 * MB, v[2].size = 28 * MB;
    step(&l, v, 4, &m);
    ok(l.nblocks == 3 && l.blocks[2].dbsize == 32000140, "checkpoint 3: block 2 dbsize");
    expect(&l, 3, 2, 1, 2, 16 * MB, 16 * MB, 8 * MB, 40000420);
    expect(&l, 3, 3, 1, 2, 16 * MB, 16 * MB, 12 * MB, 56000420);
    step(&l, v, 5, &m);
    expect(&l, 4, 5, 0, 3, 20 * MB, 20 * MB, 0, 72000496);
    v[1].size = 20 * MB, v[2].size = 24 * MB;
    step(&l, v, 5, &m);
    ok(l.nblocks == 4 && l.blocks[2].dbsize == 32000140, "checkpoint 5: containers kept");
    expect(&l, 5, 2, 1, 2, 12 * MB, 16 * MB, 8 * MB, 40000420);
    expect(&l, 5, 3, 1, 2, 12 * MB, 16 * MB, 12 * MB, 56000420);
    v[1].size = 32 * MB, v[2].size = 36 * MB;
    step(&l, v, 5, &m);
    ok(l.nblocks == 5 && l.blocks[4].dbsize == 16000140, "checkpoint 6: block 4 dbsize");
    expect(&l, 6, 2, 2, 4, 8 * MB, 8 * MB, 24 * MB, 92000636);
    expect(&l, 6, 3, 2, 4, 8 * MB, 8 * MB, 28 * MB, 100000636);
    v[1].size = 4 * MB, v[2].size = 8 * MB;
    step(&l, v, 5, &m);
    expect(&l, 7, 2, 0, 0, 4 * MB, 8 * MB, 0, 4000204);
    expect(&l, 7, 3, 0, 0, 8 * MB, 12 * MB, 0, 12000204);
    expect(&l, 7, 2, 1, 2, 0, 16 * MB, 8 * MB, 40000420);
    expect(&l, 7, 3, 2, 4, 0, 8 * MB, 28 * MB, 100000636);
    ok(m.fs == FTIFF_FB_SIZE + 108000636 && m.ckpt_size == 4 * (1 + 1 + 2 + 4 + 5) * MB,
       "checkpoint 7: fs %lld ckptSize %lld", (long long)m.fs, (long long)m.ckpt_size);
    ftiff_layout_free(&l);
}

/* a small layout written to a file; returns the fd (data bytes are 'x') */
static int write_file(const char *path, ftiff_layout_t *l, ftiff_meta_t *m)
{
    ftiff_layout_place(l, m);
    for (int b = 0; b < l->nblocks; b++)
        for (int k = 0; k < l->blocks[b].numvars; k++)
            l->blocks[b].vars[k].hash.b[0] = (uint8_t)(b * 16 + k + 1);
    ftiff_layout_checksum(l, m);
    uint8_t fb[FTIFF_FB_SIZE];
    ftiff_meta_encode(m, fb);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    char *zero = calloc(1, (size_t)m->fs);
    memset(zero, 'x', (size_t)m->fs);
    ok(pwrite(fd, zero, (size_t)m->fs, 0) == m->fs, "file written");
    free(zero);
    ok(pwrite(fd, fb, sizeof(fb), 0) == FTIFF_FB_SIZE, "FB written");
    int64_t off = FTIFF_FB_SIZE;
    for (int b = 0; b < l->nblocks; b++) {
        size_t n = FTIFF_BMD_SIZE + (size_t)l->blocks[b].numvars * FTIFF_VMD_SIZE;
        uint8_t *buf = malloc(n);
        ftiff_block_encode(&l->blocks[b], buf);
        ok(pwrite(fd, buf, n, off) == (ssize_t)n, "block %d written", b);
        free(buf);
        off += l->blocks[b].dbsize;
    }
    return fd;
}

static int chunk_eq(const ftiff_chunk_t *a, const ftiff_chunk_t *b)
{
    return a->id == b->id && a->idx == b->idx && a->containerid == b->containerid &&
           a->hascontent == b->hascontent && a->dptr == b->dptr && a->fptr == b->fptr &&
           a->chunksize == b->chunksize && a->containersize == b->containersize &&
           memcmp(a->hash.b, b->hash.b, 16) == 0;
}

static void flip(int fd, off_t off)
{
    uint8_t c;
    ok(pread(fd, &c, 1, off) == 1, "read byte at %lld", (long long)off);
    c ^= 0x40;
    ok(pwrite(fd, &c, 1, off) == 1, "flip byte at %lld", (long long)off);
}

static void test_roundtrip(const char *dir, int diff)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/rt%d", dir, diff);
    ftiff_layout_t l = {0}, r;
    ftiff_var_t v[2] = {{7, 1000}, {9, 300}};
    scr_error_t err;
    ok(ftiff_layout_update(&l, v, 2, 256, &err) == 0, "dcp layout");
    ok(l.nblocks == 1 && l.blocks[0].numvars == 4 + 2, "1000 + 300 bytes in 256-byte "
                                                       "containers: 6 chunks");
    ftiff_meta_t m = {.rank = 3,
                      .ranks = 4,
                      .base = diff ? 5 : -1,
                      .seq = diff,
                      .app_tag = 42,
                      .flags = diff ? FTIFF_FLAG_DIFF : 0};
    if (diff)
        l.blocks[0].vars[1].hascontent = 0; /* unchanged: in the base */
    int fd = write_file(path, &l, &m);
    ftiff_meta_t got;
    int rc = ftiff_read(fd, path, m.fs, &got, &r, &err);
    ok(rc == 0, "read back: %s", rc ? err.text : "ok");
    ok(got.rank == 3 && got.ranks == 4 && got.base == m.base && got.app_tag == 42 &&
           got.flags == m.flags && got.fs == m.fs && got.ckpt_size == m.ckpt_size,
       "FB fields survive");
    int same = r.nblocks == 1 && r.blocks[0].numvars == 6;
    for (int k = 0; same && k < 6; k++)
        same = chunk_eq(&r.blocks[0].vars[k], &l.blocks[0].vars[k]);
    ok(same, "chunk entries survive");
    if (diff)
        ok(m.fs == FTIFF_FB_SIZE + FTIFF_BMD_SIZE + 6 * FTIFF_VMD_SIZE + 1300 - 256,
           "differential file holds only the changed chunks");
    ftiff_layout_free(&r);
    ok(ftiff_read(fd, path, m.fs - 1, &got, &r, &err) < 0 &&
           strstr(err.text, "truncated"),
       "short file: %s", err.text);
    flip(fd, FTIFF_FB_SIZE + FTIFF_BMD_SIZE + 50);
    ok(ftiff_read(fd, path, m.fs, &got, &r, &err) < 0 && strstr(err.text, "metadata"),
       "flipped chunk hash: %s", err.text);
    flip(fd, FTIFF_FB_SIZE + FTIFF_BMD_SIZE + 50);
    flip(fd, 80);
    ok(ftiff_read(fd, path, m.fs, &got, &r, &err) < 0 && strstr(err.text, "file block"),
       "flipped FB: %s", err.text);
    flip(fd, 0);
    ok(ftiff_read(fd, path, m.fs, &got, &r, &err) < 0 && strstr(err.text, "magic"),
       "not an FTI-FF file: %s", err.text);
    close(fd);
    ftiff_layout_free(&l);
}

static void test_rules(void)
{
    ftiff_layout_t l = {0};
    scr_error_t err;
    ftiff_var_t v[3] = {{1, 10}, {1, 20}, {2, -1}};
    ok(ftiff_layout_update(&l, v, 2, 0, &err) < 0 && strstr(err.text, "twice"),
       "same id twice: %s", err.text);
    ok(ftiff_layout_update(&l, v + 2, 1, 0, &err) < 0 && strstr(err.text, "negative"),
       "negative size: %s", err.text);
    ftiff_var_t a[2] = {{1, 100}, {2, 50}};
    ok(ftiff_layout_update(&l, a, 2, 0, &err) == 0, "two variables");
    ok(ftiff_layout_update(&l, a + 1, 1, 0, &err) == 0, "variable 1 unprotected");
    ok(ftiff_layout_var_size(&l, 1) == -1 && ftiff_layout_var_size(&l, 2) == 50,
       "an unprotected variable has no size, its container stays (%d chunks)",
       l.blocks[0].numvars);
    ftiff_layout_free(&l);
}

int main(void)
{
    char dir[] = "/tmp/test_ftiff.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    ftiff_hash_t h1, h2;
    ftiff_hash("abc", 3, &h1);
    ftiff_hash("abd", 3, &h2);
    ok(memcmp(&h1, &h2, 16) != 0, "hash tells bytes apart");
    test_spec_example();
    test_roundtrip(dir, 0);
    test_roundtrip(dir, 1);
    test_rules();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
