/* SPDX-License-Identifier: BSD-3-Clause */
/* bare.h - what a redundancy scheme must do to the bytes, with no library
 * around it: the tighter floor of bench/run --against.  For SINGLE, which
 * sends nothing, the whole checkpoint with nothing but the writes and the
 * two agreements every synchronous checkpoint needs (bare_single).
 *
 * net_sendrecv (benchutil.h) times the bytes a scheme sends off a node,
 * from the application's memory into a small buffer used again and again.
 * A checkpoint library cannot do only that: it reads the checkpoint from
 * the file the application wrote, and PARTNER lands a whole copy in a file,
 * XOR lands parity computed from what it received.  These functions do
 * exactly that and nothing else (no CRC32, no metadata, no agreement), in
 * the cheapest way measured on the simulated nodes: the source file mapped
 * once, messages straight from the mapping, PARTNER's copy received into a
 * mapping of its file, XOR's pieces into small buffers and the parity
 * written with pwrite.  Header only, MPI, libc and (BENCH_HAVE_ISAL) ISA-L,
 * so scr-ckpt.c still builds against any scr.h.
 *
 * bare_partner and bare_xor write the rank's checkpoint to
 * DIR/bare.<rank>.src first (untimed, as the application's write is not
 * part of the encode) and time the scheme's work from a barrier to the
 * slowest rank's end.  The copy or parity is written over the previous
 * call's, whose pages are there, as a library that keeps evicted files
 * does (lib/common/filepool.c); the last call (last != 0) removes it.
 *
 * bare_arrive is a rebuild's floor: the lost node's bytes land on the spare;
 * bare_xor_rebuild is XOR's, the chain of XORs that brings them there.
 */
#ifndef SCR_BENCH_BARE_H
#define SCR_BENCH_BARE_H

#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef BENCH_HAVE_ISAL
#include <isa-l/raid.h>
#endif

#include "benchutil.h"

#define BARE_PARTNER_PIECE (4 << 20) /* XFER_SYNC_PIECE of lib/red/xfer.h */
#define BARE_XOR_PIECE (512 << 10)   /* the XOR encode's pieces, set of 4 */

typedef struct {
    MPI_Comm set;  /* this rank and the same local rank of every other node */
    int me, n;     /* place in the set, nodes */
    char src[512]; /* the checkpoint file */
    char dst[512]; /* the copy or parity */
} bare_t;

static inline void bare_die(const char *what, const char *path)
{
    fprintf(stderr, "bare: %s %s failed\n", what, path);
    MPI_Abort(MPI_COMM_WORLD, 4);
}

/* this rank and the same local rank of every other node: *set, *me and *n
 * as in bare_t; returns the rank in MPI_COMM_WORLD */
static inline int bare_set(MPI_Comm *set, int *me, int *n)
{
    MPI_Comm node;
    int rank, local;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    MPI_Comm_split(MPI_COMM_WORLD, local, rank, set);
    MPI_Comm_rank(*set, me);
    MPI_Comm_size(*set, n);
    return rank;
}

/* the set, the paths, and the source file written (untimed) */
static inline void bare_setup(bare_t *b, const char *dir, const char *buf, size_t per)
{
    int rank = bare_set(&b->set, &b->me, &b->n);
    snprintf(b->src, sizeof(b->src), "%s/bare.%d.src", dir, rank);
    snprintf(b->dst, sizeof(b->dst), "%s/bare.%d.dst", dir, rank);
    FILE *fp = fopen(b->src, "w");
    if (!fp || fwrite(buf, 1, per, fp) != per || fclose(fp) != 0)
        bare_die("write", b->src);
    MPI_Barrier(MPI_COMM_WORLD);
}

static inline void bare_done(bare_t *b, int last)
{
    unlink(b->src);
    if (last)
        unlink(b->dst);
    MPI_Comm_free(&b->set);
}

/* scratch memory straight from the kernel, not malloc: freed, it leaves
 * nothing resident behind (glibc would keep it in its heap once a free
 * raised its mmap threshold), so the library's peak memory, measured around
 * the bare work in scr-ckpt.c, is not the bare work's */
static inline void *bare_alloc(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline const char *bare_map(const char *path, size_t len, int *fd)
{
    *fd = open(path, O_RDONLY);
    void *m = *fd < 0 ? MAP_FAILED
                      : mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, *fd, 0);
    if (m == MAP_FAILED)
        bare_die("map", path);
    return m;
}

/* the end of a timed encode: the source unmapped, the result on disk; the
 * slowest rank's seconds since t0, then the files removed (bare_done) */
static inline double bare_end(bare_t *b, const char *s, size_t per, int sfd, int dfd,
                              double t0, int last)
{
    munmap((void *)s, per);
    if (fsync(dfd) < 0)
        bare_die("fsync", b->dst);
    close(dfd);
    close(sfd);
    double t = bench_slowest(bench_now() - t0);
    bare_done(b, last);
    return t;
}

/* SINGLE: a whole checkpoint with nothing a library adds but what any
 * synchronous one must: an agreement before the dataset starts (nobody
 * evicts an older one before every rank got there) and one after its files
 * are written.  The application's write, into a new file as each dataset's
 * is, counts, timed as scr-ckpt times a checkpoint: from a barrier to the
 * slowest rank's end.  The file is removed after the timing.
 *
 * It is written once untimed and removed first, so that the timed write
 * takes pages the node has just freed, as a library's checkpoint takes
 * those of the dataset it evicted.  Without that it took pages that had
 * lain free for a whole compute step, which a node whose free memory goes
 * back to its host (a VM's balloon with free page reporting) pays for
 * again at the first write: the bare write then took longer than the
 * library's own checkpoint (bench/README.md). */
static inline void bare_single_write(const char *path, const char *buf, size_t per)
{
    FILE *fp = fopen(path, "w");
    if (!fp || fwrite(buf, 1, per, fp) != per || fclose(fp) != 0)
        bare_die("write", path);
}

static inline double bare_single(const char *dir, const char *buf, size_t per)
{
    char path[512];
    int rank, ok = 1, all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof(path), "%s/bare.%d.single", dir, rank);
    bare_single_write(path, buf, per);
    unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    bare_single_write(path, buf, per);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    double t = bench_slowest(bench_now() - t0);
    unlink(path);
    return t;
}

/* PARTNER: the file to the same rank of the next node, its copy from the
 * previous one into a file, two pieces in flight */
static inline double bare_partner(const char *dir, const char *buf, size_t per, int last)
{
    bare_t b;
    bare_setup(&b, dir, buf, per);
    int right = (b.me + 1) % b.n, left = (b.me + b.n - 1) % b.n, sfd;
    double t0 = bench_now();
    const char *s = bare_map(b.src, per, &sfd);
    int dfd = open(b.dst, O_RDWR | O_CREAT, 0600);
    if (dfd < 0 || posix_fallocate(dfd, 0, (off_t)per) != 0)
        bare_die("fallocate", b.dst);
    char *d = mmap(NULL, per, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, dfd, 0);
    if (d == MAP_FAILED)
        bare_die("map", b.dst);
    MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                          MPI_REQUEST_NULL};
    for (size_t off = 0, i = 0; off < per; off += BARE_PARTNER_PIECE, i++) {
        int len = per - off < BARE_PARTNER_PIECE ? (int)(per - off) : BARE_PARTNER_PIECE;
        MPI_Request *r = &req[2 * (i & 1)];
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE); /* piece i - 2 */
        MPI_Irecv(d + off, len, MPI_BYTE, left, 8, b.set, &r[0]);
        MPI_Isend(s + off, len, MPI_BYTE, right, 8, b.set, &r[1]);
    }
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    munmap(d, per);
    return bare_end(&b, s, per, sfd, dfd, t0, last);
}

/* into p: the XOR of the n - 1 pieces in slots, skipping slot me */
static inline void bare_xor_slots(unsigned char *p, unsigned char *slots, int n, int me,
                                  size_t len)
{
    void *v[64];
    int k = 0;
    for (int j = 0; j < n && k < 62; j++)
        if (j != me)
            v[k++] = slots + (size_t)j * len;
    if (k == 1) {
        memcpy(p, v[0], len);
        return;
    }
#ifdef BENCH_HAVE_ISAL
    v[k] = p;
    if (len % 32 == 0 && xor_gen(k + 1, (int)len, v) == 0)
        return;
#endif
    memcpy(p, v[0], len);
    for (int i = 1; i < k; i++)
        for (size_t x = 0; x < len; x++)
            p[x] ^= ((const unsigned char *)v[i])[x];
}

/* the bytes [pos, pos + len) of the file, zeros past its end */
static inline const void *bare_range(const char *s, size_t per, size_t pos, size_t len,
                                     unsigned char *pad)
{
    if (pos + len <= per)
        return s + pos;
    size_t have = pos < per ? per - pos : 0;
    memcpy(pad, s + pos, have);
    memset(pad + have, 0, len - have);
    return pad;
}

/* XOR over the set: the file in n - 1 chunks, chunk c to the member that
 * holds the parity of stripe c (each member one stripe); the holder XORs
 * what the others sent, piece by piece, into its parity file */
static inline double bare_xor(const char *dir, const char *buf, size_t per, int last)
{
    bare_t b;
    bare_setup(&b, dir, buf, per);
    int n = b.n, sfd;
    size_t chunk = (per + (size_t)n - 2) / (size_t)(n - 1);
    chunk = (chunk + 7) & ~(size_t)7;
    size_t sz = (size_t)n * BARE_XOR_PIECE;
    unsigned char *slots = bare_alloc(sz), *par = bare_alloc(BARE_XOR_PIECE),
                  *pad = bare_alloc(sz);
    MPI_Request *req = malloc(2 * (size_t)n * sizeof(*req));
    if (!slots || !par || !pad || !req || n < 2 || n > 64)
        bare_die("set up", "the XOR encode");
    double t0 = bench_now();
    const char *s = bare_map(b.src, per, &sfd);
    int dfd = open(b.dst, O_WRONLY | O_CREAT, 0600);
    if (dfd < 0)
        bare_die("open", b.dst);
    for (size_t off = 0; off < chunk; off += BARE_XOR_PIECE) {
        size_t len = chunk - off < BARE_XOR_PIECE ? chunk - off : BARE_XOR_PIECE;
        int r = 0;
        for (int j = 0; j < n; j++) {
            if (j == b.me)
                continue;
            /* my chunk for holder j: the holders other than me, in order */
            size_t c = (size_t)(j < b.me ? j : j - 1);
            const void *from = bare_range(s, per, c * chunk + off, len,
                                          pad + (size_t)j * BARE_XOR_PIECE);
            MPI_Irecv(slots + (size_t)j * len, (int)len, MPI_BYTE, j, 9, b.set,
                      &req[r++]);
            MPI_Isend(from, (int)len, MPI_BYTE, j, 9, b.set, &req[r++]);
        }
        MPI_Waitall(r, req, MPI_STATUSES_IGNORE);
        bare_xor_slots(par, slots, n, b.me, len);
        if (pwrite(dfd, par, len, (off_t)off) != (ssize_t)len)
            bare_die("write", b.dst);
    }
    double t = bare_end(&b, s, per, sfd, dfd, t0, last);
    munmap(slots, sz);
    munmap(par, BARE_XOR_PIECE);
    munmap(pad, sz);
    free(req);
    return t;
}

/* A rebuild's floor: the bytes the lost node held for each of its ranks
 * (its files and the redundancy it kept, measured by bench/run before the
 * wipe) arrive on the spare from another node and land in a file there,
 * fsync'd.  Any library's rebuild does at least this; it also reads the
 * survivors, decodes and agrees.  The ranks on host spare receive from the
 * same local rank of the next node, in BARE_PARTNER_PIECE pieces, two in
 * flight, sent from the application's memory (buf, per bytes, over and
 * over).  Returns the slowest rank's seconds. */
static inline size_t bare_arrive_len(size_t off, size_t bytes, size_t per)
{
    size_t len = bytes - off, in = per - off % per;
    len = len < in ? len : in;
    return len < BARE_PARTNER_PIECE ? len : BARE_PARTNER_PIECE;
}

static inline void bare_arrive_send(const char *buf, size_t per, size_t bytes, int to,
                                    MPI_Comm set)
{
    MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (size_t off = 0, i = 0, len; off < bytes; off += len, i++) {
        len = bare_arrive_len(off, bytes, per);
        MPI_Wait(&q[i & 1], MPI_STATUS_IGNORE);
        MPI_Isend(buf + off % per, (int)len, MPI_BYTE, to, 10, set, &q[i & 1]);
    }
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
}

static inline void bare_arrive_recv(const char *path, size_t per, size_t bytes, int from,
                                    MPI_Comm set)
{
    char *rb = bare_alloc(2 * (size_t)BARE_PARTNER_PIECE);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!rb || fd < 0)
        bare_die("open", path);
    MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    size_t len = bare_arrive_len(0, bytes, per), off = 0;
    MPI_Irecv(rb, (int)len, MPI_BYTE, from, 10, set, &q[0]);
    for (size_t i = 0; off < bytes; i++) {
        MPI_Wait(&q[i & 1], MPI_STATUS_IGNORE);
        size_t next = off + len,
               nlen = next < bytes ? bare_arrive_len(next, bytes, per) : 0;
        if (nlen)
            MPI_Irecv(rb + ((i + 1) & 1) * (size_t)BARE_PARTNER_PIECE, (int)nlen,
                      MPI_BYTE, from, 10, set, &q[(i + 1) & 1]);
        if (pwrite(fd, rb + (i & 1) * (size_t)BARE_PARTNER_PIECE, len, (off_t)off) !=
            (ssize_t)len)
            bare_die("write", path);
        off = next, len = nlen;
    }
    if (fsync(fd) < 0 || close(fd) < 0)
        bare_die("fsync", path);
    unlink(path);
    munmap(rb, 2 * (size_t)BARE_PARTNER_PIECE);
}

/* the place in set of the member on host spare (the lost one's) */
static inline int bare_spare_member(MPI_Comm set, int me, const char *spare)
{
    char host[256] = "";
    int mine = -1, who;
    gethostname(host, sizeof(host) - 1);
    if (strcmp(host, spare) == 0)
        mine = me;
    MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MAX, set);
    if (who < 0)
        bare_die("find the spare", spare);
    return who;
}

static inline double bare_arrive(const char *dir, const char *buf, size_t per,
                                 size_t bytes, const char *spare)
{
    MPI_Comm set;
    int me, n, rank = bare_set(&set, &me, &n), who = bare_spare_member(set, me, spare);
    char path[512];
    if (n < 2 || per == 0)
        bare_die("find the spare", spare);
    snprintf(path, sizeof(path), "%s/bare.%d.arrive", dir, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (me == who)
        bare_arrive_recv(path, per, bytes, (who + 1) % n, set);
    else if (me == (who + 1) % n)
        bare_arrive_send(buf, per, bytes, who, set);
    double t = bench_slowest(bench_now() - t0);
    MPI_Comm_free(&set);
    return t;
}

/* An XOR rebuild's floor, tighter than bare_arrive's: each of the lost
 * member's n chunks (its data's n - 1 and its parity) is the XOR of what
 * the n - 1 survivors hold of one stripe, so every survivor must send n
 * chunks' worth off its node, as many bytes as the whole set sends in an
 * encode.  The cheapest way: a chain from the member after the lost one
 * round to the lost one, each adding its own pieces (the data's chunks
 * from a mapping, its parity stood in for by its first chunk), the lost one
 * writing what arrives into one file.  The spare (host spare) is the lost
 * member; timed from a barrier to the slowest rank's end. */
static inline void bare_chain_slots(unsigned char *out, const char *s, size_t per,
                                    size_t chunk, size_t off, size_t len, int n,
                                    unsigned char *pad)
{
    for (int q = 0; q < n; q++) {
        size_t c = q < n - 1 ? (size_t)q : 0;
        memcpy(out + (size_t)q * len, bare_range(s, per, c * chunk + off, len, pad), len);
    }
}

static inline void bare_chain_step(unsigned char *out, const unsigned char *in,
                                   size_t bytes)
{
#ifdef BENCH_HAVE_ISAL
    void *v[3] = {(void *)in, out, out};
    if (bytes % 32 == 0 && xor_gen(3, (int)bytes, v) == 0)
        return;
#endif
    for (size_t x = 0; x < bytes; x++)
        out[x] ^= in[x];
}

static inline double bare_xor_rebuild(const char *dir, const char *buf, size_t per,
                                      const char *spare)
{
    bare_t b;
    bare_setup(&b, dir, buf, per);
    int n = b.n, sfd = -1, dfd = -1, who = bare_spare_member(b.set, b.me, spare);
    int p = (b.me - who - 1 + n) % n, last = p == n - 1;
    size_t chunk = ((per + (size_t)n - 2) / (size_t)(n - 1) + 7) & ~(size_t)7;
    size_t msg = (size_t)n * BARE_XOR_PIECE;
    unsigned char *in = bare_alloc(2 * msg), *out = bare_alloc(2 * msg),
                  *pad = bare_alloc(BARE_XOR_PIECE);
    if (!in || !out || !pad || n < 2)
        bare_die("set up", "the XOR rebuild");
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                sq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int left = (b.me + n - 1) % n, right = (b.me + 1) % n;
    double t0 = bench_now();
    const char *s = last ? NULL : bare_map(b.src, per, &sfd);
    if (last && (dfd = open(b.dst, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
        bare_die("open", b.dst);
    size_t first = chunk < BARE_XOR_PIECE ? chunk : BARE_XOR_PIECE;
    if (p > 0)
        MPI_Irecv(in, (int)((size_t)n * first), MPI_BYTE, left, 11, b.set, &rq[0]);
    for (size_t off = 0, i = 0; off < chunk; off += BARE_XOR_PIECE, i++) {
        size_t len = chunk - off < BARE_XOR_PIECE ? chunk - off : BARE_XOR_PIECE;
        size_t next = off + len,
               nlen = chunk - next < BARE_XOR_PIECE ? chunk - next : BARE_XOR_PIECE;
        unsigned char *ik = in + (i & 1) * msg, *ok = out + (i & 1) * msg;
        MPI_Wait(&rq[i & 1], MPI_STATUS_IGNORE);
        if (p > 0 && next < chunk)
            MPI_Irecv(in + ((i + 1) & 1) * msg, (int)((size_t)n * nlen), MPI_BYTE, left,
                      11, b.set, &rq[(i + 1) & 1]);
        if (last) {
            for (int q = 0; q < n; q++)
                if (pwrite(dfd, ik + (size_t)q * len, len,
                           (off_t)((size_t)q * chunk + off)) != (ssize_t)len)
                    bare_die("write", b.dst);
            continue;
        }
        MPI_Wait(&sq[i & 1], MPI_STATUS_IGNORE); /* piece i - 2 is out */
        bare_chain_slots(ok, s, per, chunk, off, len, n, pad);
        if (p > 0)
            bare_chain_step(ok, ik, (size_t)n * len);
        MPI_Isend(ok, (int)((size_t)n * len), MPI_BYTE, right, 11, b.set, &sq[i & 1]);
    }
    MPI_Waitall(2, sq, MPI_STATUSES_IGNORE);
    if (s)
        munmap((void *)s, per);
    if (sfd >= 0)
        close(sfd);
    if (last && (fsync(dfd) < 0 || close(dfd) < 0))
        bare_die("fsync", b.dst);
    double t = bench_slowest(bench_now() - t0);
    bare_done(&b, 1);
    munmap(in, 2 * msg);
    munmap(out, 2 * msg);
    munmap(pad, BARE_XOR_PIECE);
    return t;
}

#endif
