/* SPDX-License-Identifier: BSD-3-Clause */
/* ftiff.c - FTI-FF layout, encoding and validation (see ftiff.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#ifdef SCR_HAVE_XXH_DISPATCH
/* XXH3 through libxxhash's run-time choice of vector unit (CMakeLists.txt):
 * the same hashes as the SSE2 build, faster where AVX2 or AVX-512 exist */
#include <xxh_x86dispatch.h>
#endif

#include "ftiff.h"
#include "io.h"

/* the canonical (big-endian) bytes, as the file stores them */
static void hash_bytes(XXH128_hash_t x, ftiff_hash_t *out)
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, x);
    memcpy(out->b, c.digest, sizeof(out->b));
}

void ftiff_hash(const void *buf, size_t len, ftiff_hash_t *out)
{
    hash_bytes(XXH3_128bits(buf, len), out);
}

ftiff_hasher_t *ftiff_hasher_new(void)
{
    XXH3_state_t *st = XXH3_createState();
    if (st)
        XXH3_128bits_reset(st);
    return (ftiff_hasher_t *)st;
}

void ftiff_hasher_add(ftiff_hasher_t *h, const void *buf, size_t len)
{
    XXH3_128bits_update((XXH3_state_t *)h, buf, len);
}

void ftiff_hasher_end(ftiff_hasher_t *h, ftiff_hash_t *out)
{
    hash_bytes(XXH3_128bits_digest((XXH3_state_t *)h), out);
    XXH3_freeState((XXH3_state_t *)h);
}

uint64_t ftiff_app_tag(const char *name)
{
    return XXH3_64bits(name, strlen(name));
}

void ftiff_hash_hex(const ftiff_hash_t *h, char hex[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", h->b[i]);
}

void ftiff_layout_free(ftiff_layout_t *l)
{
    for (int i = 0; i < l->nblocks; i++)
        free(l->blocks[i].vars);
    free(l->blocks);
    l->blocks = NULL;
    l->nblocks = 0;
}

int ftiff_layout_copy(const ftiff_layout_t *src, ftiff_layout_t *dst)
{
    ftiff_layout_t c = {calloc((size_t)src->nblocks + 1, sizeof(ftiff_block_t)), 0};
    if (!c.blocks)
        return -1;
    for (int i = 0; i < src->nblocks; i++, c.nblocks++) {
        const ftiff_block_t *b = &src->blocks[i];
        c.blocks[i] = *b;
        c.blocks[i].vars = malloc(sizeof(ftiff_chunk_t) * ((size_t)b->numvars + 1));
        if (!c.blocks[i].vars) {
            ftiff_layout_free(&c);
            return -1;
        }
        memcpy(c.blocks[i].vars, b->vars, sizeof(ftiff_chunk_t) * (size_t)b->numvars);
    }
    *dst = c;
    return 0;
}

static int var_index(const ftiff_var_t *vars, int nvars, int32_t id)
{
    for (int i = 0; i < nvars; i++)
        if (vars[i].id == id)
            return i;
    return -1;
}

/* spread v's size over its existing containers; returns the bytes left
 * over and sets *cap to the containers' total and *next to the next
 * container id */
static int64_t layout_fill(ftiff_layout_t *l, const ftiff_var_t *v, int idx, int64_t *cap,
                           int32_t *next)
{
    int64_t left = v->size;
    *cap = 0;
    *next = 0;
    for (int b = 0; b < l->nblocks; b++)
        for (int k = 0; k < l->blocks[b].numvars; k++) {
            ftiff_chunk_t *c = &l->blocks[b].vars[k];
            if (c->id != v->id)
                continue;
            int64_t cs = left < c->containersize ? left : c->containersize;
            if (cs != c->chunksize)
                memset(&c->hash, 0, sizeof(c->hash));
            c->chunksize = cs;
            c->hascontent = cs > 0;
            c->idx = idx;
            left -= cs;
            *cap += c->containersize;
            *next = c->containerid + 1;
        }
    return left;
}

static int block_add(ftiff_block_t *nb, const ftiff_chunk_t *c)
{
    ftiff_chunk_t *v = realloc(nb->vars, sizeof(*v) * ((size_t)nb->numvars + 1));
    if (!v)
        return -1;
    nb->vars = v;
    nb->vars[nb->numvars++] = *c;
    return 0;
}

/* variables absent from vars: their containers stay, empty */
static void layout_empty_gone(ftiff_layout_t *l, const ftiff_var_t *vars, int nvars)
{
    for (int b = 0; b < l->nblocks; b++)
        for (int k = 0; k < l->blocks[b].numvars; k++) {
            ftiff_chunk_t *c = &l->blocks[b].vars[k];
            if (var_index(vars, nvars, c->id) >= 0)
                continue;
            if (c->chunksize)
                memset(&c->hash, 0, sizeof(c->hash));
            c->chunksize = 0;
            c->hascontent = 0;
            c->idx = -1;
        }
}

int ftiff_layout_update(ftiff_layout_t *l, const ftiff_var_t *vars, int nvars,
                        int64_t dcp_block, scr_error_t *err)
{
    ftiff_block_t nb = {0, 0, NULL};
    layout_empty_gone(l, vars, nvars);
    for (int i = 0; i < nvars; i++) {
        if (vars[i].size < 0 || var_index(vars, i, vars[i].id) >= 0) {
            free(nb.vars);
            return errprintf(err, "variable %d: %s", vars[i].id,
                             vars[i].size < 0 ? "negative size" : "protected twice");
        }
        int64_t cap;
        int32_t next;
        int64_t left = layout_fill(l, &vars[i], i, &cap, &next);
        while (left > 0) {
            int64_t n = dcp_block > 0 && left > dcp_block ? dcp_block : left;
            ftiff_chunk_t c = {.id = vars[i].id,
                               .idx = i,
                               .containerid = next++,
                               .hascontent = 1,
                               .dptr = cap,
                               .chunksize = n,
                               .containersize = n};
            if (block_add(&nb, &c) < 0) {
                free(nb.vars);
                return errprintf(err, "out of memory");
            }
            cap += n;
            left -= n;
        }
    }
    if (nb.numvars == 0)
        return 0;
    ftiff_block_t *bl = realloc(l->blocks, sizeof(*bl) * ((size_t)l->nblocks + 1));
    if (!bl) {
        free(nb.vars);
        return errprintf(err, "out of memory");
    }
    l->blocks = bl;
    l->blocks[l->nblocks++] = nb;
    return 0;
}

static int64_t block_meta_size(const ftiff_block_t *b)
{
    return FTIFF_BMD_SIZE + (int64_t)b->numvars * FTIFF_VMD_SIZE;
}

int64_t ftiff_layout_meta_size(const ftiff_layout_t *l)
{
    int64_t n = 0;
    for (int b = 0; b < l->nblocks; b++)
        n += block_meta_size(&l->blocks[b]);
    return n;
}

void ftiff_layout_place(ftiff_layout_t *l, ftiff_meta_t *m)
{
    int diff = (m->flags & FTIFF_FLAG_DIFF) != 0;
    int64_t off = FTIFF_FB_SIZE, data = 0;
    for (int b = 0; b < l->nblocks; b++) {
        ftiff_block_t *bl = &l->blocks[b];
        bl->dbsize = block_meta_size(bl);
        off += bl->dbsize;
        for (int k = 0; k < bl->numvars && !diff; k++) {
            bl->vars[k].fptr = off;
            off += bl->vars[k].containersize;
            bl->dbsize += bl->vars[k].containersize;
            data += bl->vars[k].chunksize;
        }
    }
    for (int b = 0; b < l->nblocks && diff; b++)
        for (int k = 0; k < l->blocks[b].numvars; k++) {
            ftiff_chunk_t *c = &l->blocks[b].vars[k];
            c->fptr = c->hascontent ? off : 0;
            off += c->hascontent ? c->chunksize : 0;
            data += c->hascontent ? c->chunksize : 0;
        }
    m->fs = off;
    m->ckpt_size = data;
}

int64_t ftiff_layout_var_size(const ftiff_layout_t *l, int32_t id)
{
    int64_t n = -1;
    for (int b = 0; b < l->nblocks; b++)
        for (int k = 0; k < l->blocks[b].numvars; k++)
            if (l->blocks[b].vars[k].id == id && l->blocks[b].vars[k].idx >= 0)
                n = (n < 0 ? 0 : n) + l->blocks[b].vars[k].chunksize;
    return n;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* the FB's bytes, with myHash zero */
static void meta_bytes(const ftiff_meta_t *m, uint8_t *p)
{
    memset(p, 0, FTIFF_FB_SIZE);
    memcpy(p, FTIFF_MAGIC, 8);
    put32(p + 8, m->version);
    put32(p + 12, m->hash_alg);
    memcpy(p + 16, m->checksum, 32);
    put32(p + 68, m->flags);
    put64(p + 72, (uint64_t)m->ckpt_size);
    put64(p + 80, (uint64_t)m->fs);
    put64(p + 88, (uint64_t)m->max_fs);
    put64(p + 96, (uint64_t)m->pt_fs);
    put64(p + 104, (uint64_t)m->timestamp);
    put32(p + 112, (uint32_t)m->rank);
    put32(p + 116, (uint32_t)m->ranks);
    put64(p + 120, (uint64_t)m->base);
    put64(p + 128, (uint64_t)m->seq);
    put64(p + 136, m->app_tag);
}

void ftiff_meta_encode(ftiff_meta_t *m, uint8_t *buf)
{
    m->version = FTIFF_VERSION;
    m->hash_alg = FTIFF_HASH_XXH3_128;
    meta_bytes(m, buf);
    ftiff_hash(buf, FTIFF_FB_SIZE, &m->myhash);
    memcpy(buf + 52, m->myhash.b, 16);
}

void ftiff_block_encode(const ftiff_block_t *b, uint8_t *p)
{
    put32(p, (uint32_t)b->numvars);
    put64(p + 4, (uint64_t)b->dbsize);
    for (int k = 0; k < b->numvars; k++) {
        const ftiff_chunk_t *c = &b->vars[k];
        uint8_t *q = p + FTIFF_BMD_SIZE + (size_t)k * FTIFF_VMD_SIZE;
        memset(q, 0, FTIFF_VMD_SIZE);
        put32(q, (uint32_t)c->id);
        put32(q + 4, (uint32_t)c->idx);
        put32(q + 8, (uint32_t)c->containerid);
        q[12] = c->hascontent;
        put64(q + 16, (uint64_t)c->dptr);
        put64(q + 24, (uint64_t)c->fptr);
        put64(q + 32, (uint64_t)c->chunksize);
        put64(q + 40, (uint64_t)c->containersize);
        memcpy(q + 48, c->hash.b, 16);
    }
}

void ftiff_layout_checksum(const ftiff_layout_t *l, ftiff_meta_t *m)
{
    ftiff_hasher_t *h = ftiff_hasher_new();
    if (!h)
        abort(); /* a few hundred bytes: not worth an error path */
    for (int b = 0; b < l->nblocks; b++) {
        size_t n = (size_t)block_meta_size(&l->blocks[b]);
        uint8_t *buf = malloc(n);
        if (!buf)
            abort(); /* a few KiB per block: not worth an error path */
        ftiff_block_encode(&l->blocks[b], buf);
        ftiff_hasher_add(h, buf, n);
        free(buf);
    }
    ftiff_hash_t sum;
    ftiff_hasher_end(h, &sum);
    ftiff_hash_hex(&sum, m->checksum);
}

static int read_at(int fd, const char *path, void *buf, size_t n, int64_t off,
                   scr_error_t *err)
{
    ssize_t got = io_pread_full(fd, buf, n, (off_t)off);
    if (got < 0)
        return errprintf(err, "%s: read at %lld: %s", path, (long long)off,
                         strerror(errno));
    if ((size_t)got != n)
        return errprintf(err, "%s: truncated at %lld", path, (long long)(off + got));
    return 0;
}

static int meta_decode(const uint8_t *p, const char *path, int64_t size, ftiff_meta_t *m,
                       scr_error_t *err)
{
    if (memcmp(p, FTIFF_MAGIC, 8) != 0)
        return errprintf(err, "%s: not an SCR FTI-FF checkpoint file (bad magic)", path);
    m->version = get32(p + 8);
    m->hash_alg = get32(p + 12);
    if (m->version != FTIFF_VERSION || m->hash_alg != FTIFF_HASH_XXH3_128)
        return errprintf(err, "%s: FTI-FF version %u hash %u, this SCR reads %d and %d",
                         path, m->version, m->hash_alg, FTIFF_VERSION,
                         FTIFF_HASH_XXH3_128);
    memcpy(m->checksum, p + 16, 32);
    m->checksum[32] = '\0';
    memcpy(m->myhash.b, p + 52, 16);
    m->flags = get32(p + 68);
    m->ckpt_size = (int64_t)get64(p + 72);
    m->fs = (int64_t)get64(p + 80);
    m->max_fs = (int64_t)get64(p + 88);
    m->pt_fs = (int64_t)get64(p + 96);
    m->timestamp = (int64_t)get64(p + 104);
    m->rank = (int32_t)get32(p + 112);
    m->ranks = (int32_t)get32(p + 116);
    m->base = (int64_t)get64(p + 120);
    m->seq = (int64_t)get64(p + 128);
    m->app_tag = get64(p + 136);
    uint8_t again[FTIFF_FB_SIZE];
    ftiff_hash_t h;
    meta_bytes(m, again);
    ftiff_hash(again, FTIFF_FB_SIZE, &h);
    if (memcmp(h.b, m->myhash.b, 16) != 0)
        return errprintf(err, "%s: the file block is damaged (its hash does not match)",
                         path);
    if (m->fs != size)
        return errprintf(err, "%s: %lld bytes, the file block says %lld%s", path,
                         (long long)size, (long long)m->fs,
                         size < m->fs ? " (truncated)" : "");
    if (m->ckpt_size < 0 || m->ckpt_size > m->fs - FTIFF_FB_SIZE)
        return errprintf(err, "%s: bad ckptSize %lld", path, (long long)m->ckpt_size);
    return 0;
}

/* a chunk entry that cannot describe this file */
static int chunk_check(const ftiff_chunk_t *c, const ftiff_meta_t *m, const char *path,
                       scr_error_t *err)
{
    int bad = c->id < 0 || c->containerid < 0 || c->hascontent > 1 || c->dptr < 0 ||
              c->chunksize < 0 || c->containersize < c->chunksize;
    if (!bad && c->hascontent)
        bad = c->fptr < FTIFF_FB_SIZE || c->fptr > m->fs - c->chunksize;
    if (bad)
        return errprintf(err,
                         "%s: damaged chunk entry (variable %d container %d: fptr %lld "
                         "chunksize %lld containersize %lld)",
                         path, c->id, c->containerid, (long long)c->fptr,
                         (long long)c->chunksize, (long long)c->containersize);
    return 0;
}

static void chunk_decode(const uint8_t *q, ftiff_chunk_t *c)
{
    c->id = (int32_t)get32(q);
    c->idx = (int32_t)get32(q + 4);
    c->containerid = (int32_t)get32(q + 8);
    c->hascontent = q[12];
    c->dptr = (int64_t)get64(q + 16);
    c->fptr = (int64_t)get64(q + 24);
    c->chunksize = (int64_t)get64(q + 32);
    c->containersize = (int64_t)get64(q + 40);
    memcpy(c->hash.b, q + 48, 16);
}

/* the block at *off; advances *off past it */
static int block_read(int fd, const char *path, const ftiff_meta_t *m, int64_t end,
                      int64_t *off, ftiff_block_t *b, scr_error_t *err)
{
    uint8_t hdr[FTIFF_BMD_SIZE];
    if (end - *off < FTIFF_BMD_SIZE)
        return errprintf(err, "%s: a block header at %lld runs past the metadata", path,
                         (long long)*off);
    if (read_at(fd, path, hdr, sizeof(hdr), *off, err) < 0)
        return -1;
    b->numvars = (int32_t)get32(hdr);
    b->dbsize = (int64_t)get64(hdr + 4);
    int64_t meta = FTIFF_BMD_SIZE + (int64_t)b->numvars * FTIFF_VMD_SIZE;
    if (b->numvars < 1 || (end - *off - FTIFF_BMD_SIZE) / FTIFF_VMD_SIZE < b->numvars ||
        b->dbsize < meta || b->dbsize > end - *off)
        return errprintf(err, "%s: damaged block header at %lld (numvars %d dbsize %lld)",
                         path, (long long)*off, b->numvars, (long long)b->dbsize);
    uint8_t *buf = malloc((size_t)meta);
    b->vars = calloc((size_t)b->numvars, sizeof(ftiff_chunk_t));
    int rc = !buf || !b->vars ? errprintf(err, "%s: out of memory", path)
                              : read_at(fd, path, buf, (size_t)meta, *off, err);
    for (int k = 0; rc == 0 && k < b->numvars; k++) {
        chunk_decode(buf + FTIFF_BMD_SIZE + (size_t)k * FTIFF_VMD_SIZE, &b->vars[k]);
        rc = chunk_check(&b->vars[k], m, path, err);
    }
    free(buf);
    *off += b->dbsize;
    return rc;
}

int ftiff_read(int fd, const char *path, int64_t size, ftiff_meta_t *m, ftiff_layout_t *l,
               scr_error_t *err)
{
    uint8_t fb[FTIFF_FB_SIZE];
    memset(l, 0, sizeof(*l));
    if (size < FTIFF_FB_SIZE)
        return errprintf(err, "%s: %lld bytes, too short for an FTI-FF file block", path,
                         (long long)size);
    if (read_at(fd, path, fb, sizeof(fb), 0, err) < 0 ||
        meta_decode(fb, path, size, m, err) < 0)
        return -1;
    int64_t end = m->flags & FTIFF_FLAG_DIFF ? m->fs - m->ckpt_size : m->fs;
    int64_t off = FTIFF_FB_SIZE;
    while (off < end) {
        ftiff_block_t *bl = realloc(l->blocks, sizeof(*bl) * ((size_t)l->nblocks + 1));
        if (!bl) {
            ftiff_layout_free(l);
            return errprintf(err, "%s: out of memory", path);
        }
        l->blocks = bl;
        memset(&bl[l->nblocks], 0, sizeof(*bl));
        int rc = block_read(fd, path, m, end, &off, &bl[l->nblocks], err);
        l->nblocks++;
        if (rc < 0) {
            ftiff_layout_free(l);
            return -1;
        }
    }
    ftiff_meta_t again = *m;
    ftiff_layout_checksum(l, &again);
    if (memcmp(again.checksum, m->checksum, 32) != 0) {
        ftiff_layout_free(l);
        return errprintf(err,
                         "%s: the variable metadata is damaged (checksum %.32s, "
                         "computed %.32s)",
                         path, m->checksum, again.checksum);
    }
    return 0;
}

static void print_chunk(int k, const ftiff_chunk_t *c, FILE *out)
{
    char hex[33];
    ftiff_hash_hex(&c->hash, hex);
    fprintf(out,
            " Var-id: %d\n id: %d\n idx: %d\n containerid: %d\n hascontent: %s\n"
            " dptr: %" PRId64 "\n fptr: %" PRId64 "\n chunksize: %" PRId64
            "\n containersize: %" PRId64 "\n hash: %s\n\n",
            k, c->id, c->idx, c->containerid, c->hascontent ? "true" : "false", c->dptr,
            c->fptr, c->chunksize, c->containersize, hex);
}

void ftiff_print(const ftiff_meta_t *m, const ftiff_layout_t *l, FILE *out)
{
    char hex[33];
    ftiff_hash_hex(&m->myhash, hex);
    fprintf(out, "FTI-FF version %u, hash XXH3-128, rank %d of %d, %s", m->version,
            m->rank, m->ranks, m->flags & FTIFF_FLAG_DIFF ? "differential" : "full");
    if (m->flags & FTIFF_FLAG_DIFF)
        fprintf(out, " on dataset %" PRId64 " (%" PRId64 " since the last full)", m->base,
                m->seq);
    fprintf(out,
            "\n checksum: %s\n myHash: %s\n ckptSize: %" PRId64 "\n fs: %" PRId64
            "\n maxFs: %" PRId64 "\n ptFs: %" PRId64 "\n timestamp: %" PRId64 "\n\n",
            m->checksum, hex, m->ckpt_size, m->fs, m->max_fs, m->pt_fs, m->timestamp);
    fprintf(out, "------------------- DATASTRUCTURE BEGIN -------------------\n\n");
    for (int b = 0; b < l->nblocks; b++) {
        const ftiff_block_t *bl = &l->blocks[b];
        fprintf(out,
                " DataBase-id: %d\n numvars: %d\n dbsize: %" PRId64
                "\n [size metadata: %lld]\n\n",
                b, bl->numvars, bl->dbsize,
                (long long)(FTIFF_BMD_SIZE + (int64_t)bl->numvars * FTIFF_VMD_SIZE));
        for (int k = 0; k < bl->numvars; k++)
            print_chunk(k, &bl->vars[k], out);
    }
    fprintf(out, "\n------------------- DATASTRUCTURE END ---------------------\n");
}
