/* SPDX-License-Identifier: BSD-3-Clause */
/* ecpipe.c - the piece pipeline of XOR and RS operations (ecpipe.h) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <isa-l/raid.h>

#include "bigbuf.h"
#include "ecpipe.h"
#include "fault.h"
#include "io.h"
#include "log.h"
#include "worker.h"

#define EC_TRADE_TAG 0x5c72
#define EC_CHAIN_TAG 0x5c74

int ec_pipe_len(const ec_pipe_t *pp, int p)
{
    uint64_t left = pp->j->chunk - (uint64_t)p * (uint64_t)pp->len;
    return left < (uint64_t)pp->len ? (int)left : pp->len;
}

static void ec_pipe_stage(ec_pipe_t *pp, ec_stage_fn fn, int piece, unsigned char *buf)
{
    uint64_t off = (uint64_t)piece * (uint64_t)pp->len;
    int len = ec_pipe_len(pp, piece);
    /* keep going after an error so the collective completes everywhere */
    if (fn(pp, off, len, buf, pp->rc ? NULL : pp->err) < 0)
        pp->rc = -1;
}

static int ec_pipe_task(void *arg)
{
    ec_pipe_t *pp = arg;
    if (pp->fin >= 0)
        ec_pipe_stage(pp, pp->finish, pp->fin, pp->recv[pp->fin & 1]);
    if (pp->prep >= 0)
        ec_pipe_stage(pp, pp->prepare, pp->prep, pp->send[pp->prep & 1]);
    return 0;
}

size_t ec_encode_cap(const ec_job_t *j, size_t cap)
{
    return j->background && cap < EC_PIPE_CAP_BG ? EC_PIPE_CAP_BG : cap;
}

int ec_piece_len(const scr_ctx_t *ctx, uint64_t chunk, size_t units, size_t cap_bytes)
{
    /* a buffer holds units pieces (every member's block of one): with
     * large sets the pieces shrink so it stays within cap_bytes (the ring
     * sends 256 KiB segments whatever the piece) */
    size_t bufsize = ctx->buf_size;
    if (units > 0 && bufsize > cap_bytes / units)
        bufsize = (cap_bytes / units) & ~(size_t)63;
    if (bufsize < ((size_t)64 << 10))
        bufsize = (size_t)64 << 10;
    return (int)(chunk < bufsize ? chunk : bufsize);
}

void ec_pipe_init(ec_pipe_t *pp, ec_job_t *j, const scr_ctx_t *ctx, size_t sendu,
                  size_t recvu, size_t datau, size_t cap_bytes, MPI_Comm comm,
                  scr_error_t *err)
{
    memset(pp, 0, sizeof(*pp));
    pp->j = j;
    pp->overlap = ctx->overlap;
    pp->err = err;
    pp->len = ec_piece_len(ctx, j->chunk, sendu, cap_bytes);
    pp->pieces =
        pp->len ? (int)((j->chunk + (uint64_t)pp->len - 1) / (uint64_t)pp->len) : 0;
    size_t cap = (size_t)(pp->len ? pp->len : 1);
    int n = pp->pieces > 1 ? 2 : 1;
    for (int i = 0; i < n; i++) {
        pp->send[i] = bigbuf_alloc(sendu * cap);
        pp->recv[i] = bigbuf_alloc(recvu * cap);
        if (!pp->send[i] || !pp->recv[i])
            MPI_Abort(comm, 1);
    }
    if (n == 1) {
        pp->send[1] = pp->send[0];
        pp->recv[1] = pp->recv[0];
    }
    if (!(pp->data = bigbuf_alloc(datau * cap)))
        MPI_Abort(comm, 1);
}

void ec_pipe_free(ec_pipe_t *pp)
{
    ec_pipe_unmap(pp, 0);
    ec_pipe_unmap(pp, 1);
    if (pp->send[1] != pp->send[0]) {
        bigbuf_free(pp->send[1]);
        bigbuf_free(pp->recv[1]);
    }
    bigbuf_free(pp->send[0]);
    bigbuf_free(pp->recv[0]);
    bigbuf_free(pp->data);
}

int ec_pipe_run(ec_pipe_t *pp, MPI_Comm comm, const char *what)
{
    worker_t w;
    worker_init(&w, pp->pieces > 1 && pp->overlap);
    pp->fin = -1;
    pp->prep = pp->pieces > 0 ? 0 : -1;
    ec_pipe_task(pp);
    for (int p = 0; p < pp->pieces; p++) {
        pp->fin = p - 1;
        pp->prep = p + 1 < pp->pieces ? p + 1 : -1;
        worker_post(&w, ec_pipe_task, pp);
        double t0 = scr_now();
        pp->xchg(pp, p, comm);
        double t1 = scr_now();
        worker_wait(&w);
        pp->comm += t1 - t0;
        pp->wait += scr_now() - t1;
    }
    pp->prep = -1;
    pp->fin = pp->pieces - 1;
    ec_pipe_task(pp);
    worker_fini(&w);
    log_dbg(2,
            "%s, %llu-byte chunks in %d pieces: read %.3f s, multiply %.3f s, "
            "exchange %.3f s, write %.3f s (worker), waited for the worker %.3f s",
            what, (unsigned long long)pp->j->chunk, pp->pieces, pp->read, pp->mul,
            pp->comm, pp->write, pp->wait);
    return pp->rc;
}

void ec_pipe_fault(const ec_pipe_t *pp, uint64_t off, const char *block, const char *half)
{
    uint64_t piece = pp->len ? off / (uint64_t)pp->len : 0;
    if (piece == 0)
        fault_point(block, pp->j->rank);
    if (piece == (uint64_t)pp->pieces / 2)
        fault_point(half, pp->j->rank);
}

int ec_write_back(ec_job_t *j, const unsigned char *buf, unsigned char *back, size_t len,
                  uint64_t pos, scr_error_t *err)
{
    io_concat_t cat = {j->files.n, j->files.fds, j->files.names, j->files.sizes};
    if (io_write_pad_n(&cat, buf, len, pos, err) < 0 ||
        io_read_pad_n(&cat, back, len, pos, err) < 0)
        return -1;
    crcseg_update(&j->ucrc, pos, back, len);
    return 0;
}

void ec_trade_at(MPI_Comm comm, int me, int n, unsigned char *const *out, const int *to,
                 unsigned char *in, const int *from, int len)
{
    MPI_Request reqs[512];
    int nr = 0;
    /* receives first, and each member starts with a different peer, so
     * the messages of a round spread over every link at once */
    for (int d = 1; d < n; d++) {
        int r = (me + n - d) % n;
        if (from[r])
            MPI_Irecv(in + (size_t)r * (size_t)len, len, MPI_BYTE, r, EC_TRADE_TAG, comm,
                      &reqs[nr++]);
    }
    for (int d = 1; d < n; d++) {
        int r = (me + d) % n;
        if (to[r])
            MPI_Isend(out[r], len, MPI_BYTE, r, EC_TRADE_TAG, comm, &reqs[nr++]);
    }
    MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE);
}

void ec_trade(MPI_Comm comm, int me, int n, unsigned char *out, const int *to,
              unsigned char *in, const int *from, int len)
{
    unsigned char *at[256];
    for (int r = 0; r < n; r++)
        at[r] = out + (size_t)r * (size_t)len;
    ec_trade_at(comm, me, n, at, to, in, from, len);
}

void ec_pipe_trade_all(ec_pipe_t *pp, int p, MPI_Comm comm)
{
    int all[256];
    for (int r = 0; r < pp->j->n; r++)
        all[r] = r != pp->j->i;
    ec_trade_at(comm, pp->j->i, pp->j->n, pp->at[p & 1], all, pp->recv[p & 1], all,
                ec_pipe_len(pp, p));
}

void ec_xor_slots(unsigned char *dst, const unsigned char *src, int n, int skip, int len)
{
    void *v[257];
    int nv = 0;
    uintptr_t bits = (uintptr_t)dst;
    for (int r = 0; r < n; r++)
        if (r != skip) {
            v[nv++] = (void *)(src + (size_t)r * (size_t)len);
            bits |= (uintptr_t)v[nv - 1];
        }
    if (nv == 0) {
        memset(dst, 0, (size_t)len);
        return;
    }
    if (nv == 1) {
        memcpy(dst, v[0], (size_t)len);
        return;
    }
    v[nv] = dst;
    /* ISA-L wants 32-byte aligned vectors; the rest goes byte by byte */
    int bulk = (bits & 31) == 0 ? len & ~63 : 0;
    if (bulk && xor_gen(nv + 1, bulk, v) != 0)
        bulk = 0;
    for (int i = bulk; i < len; i++) {
        unsigned char x = 0;
        for (int k = 0; k < nv; k++)
            x ^= ((const unsigned char *)v[k])[i];
        dst[i] = x;
    }
}

/* Pieces are mapped one at a time, not whole files: a mapping's pages
 * count in the process's resident size, and a piece's are in flight only
 * until its buffer is prepared again. */
unsigned char *ec_job_map(const ec_job_t *j, uint64_t pos, size_t len, void **base,
                          size_t *mlen)
{
    const xfer_open_t *o = &j->files;
    io_concat_t c = {o->n, o->fds, o->names, o->sizes};
    return j->map ? io_map_concat(&c, o->mappable, pos, len, PROT_READ, base, mlen, NULL)
                  : NULL;
}

void ec_unmap_all(int n, void **base, const size_t *mlen)
{
    for (int r = 0; r < n; r++) {
        if (base[r])
            munmap(base[r], mlen[r]);
        base[r] = NULL;
    }
}

unsigned char *ec_pipe_map(ec_pipe_t *pp, int k, int r, uint64_t pos, size_t len)
{
    return ec_job_map(pp->j, pos, len, &pp->mbase[k][r], &pp->mlen[k][r]);
}

void ec_pipe_unmap(ec_pipe_t *pp, int k)
{
    ec_unmap_all(pp->j->n, pp->mbase[k], pp->mlen[k]);
}

void ec_chain_init(ec_chain_t *c, int me, int n, int lost)
{
    int left = (me + n - 1) % n;
    c->prev = left == lost ? -1 : left;
    c->next = me == lost ? -1 : (me + 1) % n;
    c->rq[0] = c->rq[1] = c->sq[0] = c->sq[1] = MPI_REQUEST_NULL;
}

/* 16 bytes at any address: memcpy to and from it is one unaligned load or
 * store */
typedef unsigned char ec_v16_t __attribute__((vector_size(16)));

/* dst ^= src, ISA-L for the bulk when both are 32-byte aligned; else 16
 * bytes at a time (a survivor's slot mapped from its file lies where the
 * chunk puts it, 8-byte aligned) */
static void ec_xor_into(unsigned char *dst, const unsigned char *src, size_t len)
{
    void *v[3] = {(void *)src, dst, dst};
    size_t bulk = ((uintptr_t)dst | (uintptr_t)src) % 32 == 0 ? len & ~(size_t)63 : 0;
    if (bulk && xor_gen(3, (int)bulk, v) != 0)
        bulk = 0;
    for (; bulk + 16 <= len; bulk += 16) {
        ec_v16_t a, b;
        memcpy(&a, dst + bulk, 16);
        memcpy(&b, src + bulk, 16);
        a ^= b;
        memcpy(dst + bulk, &a, 16);
    }
    for (size_t i = bulk; i < len; i++)
        dst[i] ^= src[i];
}

/* receive piece p from the left, into a buffer whose last sum is out */
static void ec_chain_post(ec_pipe_t *pp, ec_chain_t *c, int p, MPI_Comm comm)
{
    MPI_Wait(&c->sq[p & 1], MPI_STATUS_IGNORE);
    MPI_Irecv(pp->recv[p & 1], pp->j->n * ec_pipe_len(pp, p), MPI_BYTE, c->prev,
              EC_CHAIN_TAG, comm, &c->rq[p & 1]);
}

void ec_pipe_chain(ec_pipe_t *pp, int p, MPI_Comm comm)
{
    ec_chain_t *c = pp->xstate;
    int bytes = pp->j->n * ec_pipe_len(pp, p);
    unsigned char *sum = pp->recv[p & 1];
    if (c->next < 0) { /* the lost one: the worker may be finishing p - 1 */
        MPI_Recv(sum, bytes, MPI_BYTE, c->prev, EC_CHAIN_TAG, comm, MPI_STATUS_IGNORE);
        return;
    }
    if (c->prev < 0) { /* the first: the worker prepares p + 2 here next */
        MPI_Send(pp->send[p & 1], bytes, MPI_BYTE, c->next, EC_CHAIN_TAG, comm);
        return;
    }
    if (p == 0)
        ec_chain_post(pp, c, 0, comm);
    MPI_Wait(&c->rq[p & 1], MPI_STATUS_IGNORE);
    if (p + 1 < pp->pieces)
        ec_chain_post(pp, c, p + 1, comm);
    /* each slot where the prepare left it: in the send buffer, or in a
     * mapping of my file (ec_pipe_map) */
    size_t len = (size_t)ec_pipe_len(pp, p);
    for (int r = 0; r < pp->j->n; r++) {
        const unsigned char *at = pp->at[p & 1][r];
        ec_xor_into(sum + (size_t)r * len, at ? at : pp->send[p & 1] + (size_t)r * len,
                    len);
    }
    MPI_Isend(sum, bytes, MPI_BYTE, c->next, EC_CHAIN_TAG, comm, &c->sq[p & 1]);
    if (p + 1 == pp->pieces)
        MPI_Waitall(2, c->sq, MPI_STATUSES_IGNORE);
}
