/* SPDX-License-Identifier: BSD-3-Clause */
/* red_rs.c - RS encode and recovery over MPI with the code of spread.h
 *
 * Encode, per piece of the chunks (ecpipe.h): a member reads its k chunk
 * pieces straight into the send slots of the members that get them as
 * slices and computes its m - 1 other slices beside them; the exchange
 * sends each slot to its member and brings one slice from every other
 * member; the parity pieces are the outer code of what arrived.  A member
 * sends and receives n - 1 slices per piece: (n - 1) / k of its checkpoint.
 *
 * Recovery, per piece, on this thread: the survivors send their slices to
 * the lost members and to the survivors that solve, as in the encode; each
 * of those solves its parity for the slices the lost members had sent it
 * and sends those to them.  A lost member needs k of them: with fewer than
 * m lost, the rest of the survivors neither solve nor receive, and the
 * solvers do without their slices too, solving for them with the parity
 * chunks the fewer losses leave spare (spread_solve_skip): 43 slices a
 * piece instead of 56 for RS(8, 2) and one node lost.  A lost member
 * decodes its chunks from them and writes them, computes its own slices,
 * trades them with the other lost members, and encodes its parity again
 * from all it received.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bigbuf.h"
#include "fault.h"
#include "io.h"
#include "log.h"
#include "red_rs.h"

#define RS_CAP ((size_t)2 << 20) /* bytes of one send (or receive) buffer */

static unsigned char *slot(unsigned char *buf, int r, int len)
{
    return buf + (size_t)r * (size_t)len;
}

/* my slices k..n-2 from my chunks, all in their receivers' slots of buf */
static void rs_inner(const ec_job_t *j, int len, unsigned char *buf)
{
    unsigned char *chunks[256], *outs[32];
    for (int q = 0; q < j->k; q++)
        chunks[q] = slot(buf, spread_dest(&j->sp, j->i, q), len);
    for (int x = 0; x < j->m - 1; x++)
        outs[x] = slot(buf, spread_dest(&j->sp, j->i, j->k + x), len);
    spread_inner(&j->sp, len, chunks, outs);
}

/* where a member's slices of one piece are: at[d] for receiver d, in buf
 * or in a read-only mapping of my file (base[d], len[d]) */
typedef struct {
    unsigned char **at;
    void **base;
    size_t *len;
} rs_at_t;

/* my chunk pieces at off into their receivers' slots of buf (through crc
 * when given), then my slices k..n-2 from them into theirs.  With a, a
 * piece that can be mapped is (ec_job_map: when j->map) and a->at says
 * where each slot's bytes are. */
static int rs_slices(ec_job_t *j, const rs_at_t *a, uint64_t off, int len,
                     unsigned char *buf, crcseg_t *crc, double *tread, double *tmul,
                     scr_error_t *err)
{
    io_concat_t cat = {j->files.n, j->files.fds, j->files.names, j->files.sizes};
    unsigned char *chunks[256], *outs[32];
    int rc = 0;
    if (a)
        ec_unmap_all(j->n, a->base, a->len);
    double t0 = scr_now();
    for (int q = 0; q < j->k; q++) {
        uint64_t pos = (uint64_t)q * j->chunk + off;
        int d = spread_dest(&j->sp, j->i, q);
        unsigned char *to =
            a ? ec_job_map(j, pos, (size_t)len, &a->base[d], &a->len[d]) : NULL;
        if (!to) {
            to = slot(buf, d, len);
            if (rc == 0 && io_read_pad_n(&cat, to, (size_t)len, pos, err) < 0)
                rc = -1;
        }
        if (crc)
            crcseg_update(crc, pos, to, (size_t)len);
        chunks[q] = to;
        if (a)
            a->at[d] = to;
    }
    for (int x = 0; x < j->m - 1; x++) {
        int d = spread_dest(&j->sp, j->i, j->k + x);
        outs[x] = slot(buf, d, len);
        if (a)
            a->at[d] = outs[x];
    }
    double t1 = scr_now();
    spread_inner(&j->sp, len, chunks, outs);
    *tread += t1 - t0;
    *tmul += scr_now() - t1;
    return rc;
}

/* the parity of the slices in recv (slot r from member r) into outs */
static void rs_outer(const ec_job_t *j, int len, unsigned char *recv,
                     unsigned char **outs)
{
    unsigned char *ins[256];
    for (int d = 1; d < j->n; d++)
        ins[d - 1] = slot(recv, (j->i + j->n - d) % j->n, len);
    spread_outer(&j->sp, len, ins, outs);
}

static int rs_write_parity(ec_job_t *j, uint64_t off, int len, unsigned char **par,
                           scr_error_t *err)
{
    for (int p = 0; p < j->m; p++) {
        uint64_t at = (uint64_t)p * j->chunk + off;
        crcseg_update(&j->pcrc, at, par[p], (size_t)len);
        if (io_pwrite_full(j->pfd, par[p], (size_t)len, (off_t)(j->data_off + at)) < 0)
            return errprintf(err, "write %s: %s", j->ppath, strerror(errno));
    }
    return 0;
}

static int rs_encode_prepare(ec_pipe_t *pp, uint64_t off, int len, unsigned char *send,
                             scr_error_t *err)
{
    int b = (int)((off / (uint64_t)pp->len) & 1);
    rs_at_t a = {pp->at[b], pp->mbase[b], pp->mlen[b]};
    return rs_slices(pp->j, &a, off, len, send, &pp->j->ucrc, &pp->read, &pp->mul, err);
}

static int rs_encode_finish(ec_pipe_t *pp, uint64_t off, int len, unsigned char *recv,
                            scr_error_t *err)
{
    ec_job_t *j = pp->j;
    unsigned char *outs[32];
    double t0 = scr_now();
    for (int p = 0; p < j->m; p++)
        outs[p] = slot(pp->data, p, len);
    rs_outer(j, len, recv, outs);
    double t1 = scr_now();
    int rc = rs_write_parity(j, off, len, outs, err);
    pp->mul += t1 - t0;
    pp->write += scr_now() - t1;
    ec_pipe_fault(pp, off, "encode.block", "encode.half");
    return rc;
}

int red_rs_encode(ec_job_t *j, const scr_ctx_t *ctx, MPI_Comm comm, scr_error_t *err)
{
    ec_pipe_t pp;
    /* n slots to send and n to receive, twice: pieces of 256 KiB for a set
     * of 8 keep that to 8 MiB, and were no slower than 512 KiB
     * (bench/README.md); larger in the background (EC_PIPE_CAP_BG) */
    ec_pipe_init(&pp, j, ctx, (size_t)j->n, (size_t)j->n, (size_t)j->m,
                 ec_encode_cap(j, RS_CAP), comm, err);
    pp.prepare = rs_encode_prepare;
    pp.finish = rs_encode_finish;
    pp.xchg = ec_pipe_trade_all;
    int rc = ec_pipe_run(&pp, comm, "RS encode");
    ec_pipe_free(&pp);
    return rc;
}

/* ---- recovery ---- */

typedef struct {
    ec_job_t *j;
    MPI_Comm comm;
    const int *lost;
    int me_lost;
    spread_solve_t sv;      /* a survivor's */
    spread_decode_t dp;     /* a lost member's */
    int pieces, len;        /* pieces of len bytes, the last one shorter */
    unsigned char *S;       /* n slots: my slices, by receiver */
    unsigned char *at[256]; /* a survivor's: where each slice of S is sent
                               from, S or a mapping of its file (mbase) */
    void *mbase[256];
    size_t mlen[256];
    unsigned char *R;          /* n slots: the slices received, by sender */
    unsigned char *X;          /* n slots: solved slices, by lost member (survivor)
                                  or by the survivor they came from (lost) */
    unsigned char *P;          /* m slots: parity */
    unsigned char *C;          /* k slots: decoded chunks */
    unsigned char solver[256]; /* survivors a lost member decodes from */
    unsigned char feed[256];   /* a survivor's: the lost members that decode from
                                  it; a lost member's: the survivors it decodes from */
    double read, mul, comm_s, write;
} rs_rec_t;

/* survivor: my slices to all, the first nlost parity pieces */
static int rec_read(rs_rec_t *rr, uint64_t off, int len, scr_error_t *err)
{
    ec_job_t *j = rr->j;
    rs_at_t a = {rr->at, rr->mbase, rr->mlen};
    int rc = rs_slices(j, &a, off, len, rr->S, NULL, &rr->read, &rr->mul, err);
    double t0 = scr_now();
    for (int p = 0; rr->solver[j->i] && p < rr->sv.npar; p++) {
        uint64_t at = j->data_off + (uint64_t)p * j->chunk + off;
        if (rc == 0 &&
            io_pread_full(j->pfd, slot(rr->P, p, len), (size_t)len, (off_t)at) != len)
            rc = errprintf(err, "read %s: short read", j->ppath);
    }
    rr->read += scr_now() - t0;
    return rc;
}

/* survivor: the slices the lost members had sent me, by lost member */
static void rec_solve(rs_rec_t *rr, int len)
{
    ec_job_t *j = rr->j;
    unsigned char *par[32], *by_d[256], *lost_by_d[256];
    double t0 = scr_now();
    for (int p = 0; p < j->m; p++)
        par[p] = slot(rr->P, p, len);
    for (int d = 1; d < j->n; d++) {
        by_d[d] = slot(rr->R, (j->i + j->n - d) % j->n, len);
        lost_by_d[d] = slot(rr->X, (j->i + j->n - d) % j->n, len);
    }
    spread_solve(&rr->sv, len, par, by_d, lost_by_d);
    rr->mul += scr_now() - t0;
}

/* lost: my chunks from the survivors' slices, written; my own slices */
static int rec_decode(rs_rec_t *rr, uint64_t off, int len, scr_error_t *err)
{
    ec_job_t *j = rr->j;
    unsigned char *slice[256], *scratch[256], *chunk[256];
    double t0 = scr_now();
    for (int u = 0; u < j->n - 1; u++)
        slice[u] = slot(rr->X, spread_dest(&j->sp, j->i, u), len);
    for (int y = 0; y < rr->dp.ntargets; y++)
        scratch[y] = slot(rr->C, y, len);
    spread_decode(&j->sp, &rr->dp, len, slice, scratch, chunk);
    double t1 = scr_now();
    int rc = 0;
    for (int q = 0; q < j->k; q++) {
        memcpy(slot(rr->S, spread_dest(&j->sp, j->i, q), len), chunk[q], (size_t)len);
        /* S holds the copy the slices are made of: read back over chunk */
        if (rc == 0 && ec_write_back(j, chunk[q], chunk[q], (size_t)len,
                                     (uint64_t)q * j->chunk + off, err) < 0)
            rc = -1;
    }
    double t2 = scr_now();
    rs_inner(j, len, rr->S);
    rr->mul += (t1 - t0) + (scr_now() - t2);
    rr->write += t2 - t1;
    return rc;
}

/* lost: my parity again from every member's slice */
static int rec_parity(rs_rec_t *rr, uint64_t off, int len, scr_error_t *err)
{
    unsigned char *outs[32];
    double t0 = scr_now();
    for (int p = 0; p < rr->j->m; p++)
        outs[p] = slot(rr->P, p, len);
    rs_outer(rr->j, len, rr->R, outs);
    double t1 = scr_now();
    int rc = rs_write_parity(rr->j, off, len, outs, err);
    rr->mul += t1 - t0;
    rr->write += scr_now() - t1;
    return rc;
}

/* one exchange: who sends to whom given who is lost */
enum { TO_ALL, TO_LOST, AMONG_LOST };

static void rec_trade(rs_rec_t *rr, int what, int len)
{
    const int *lost = rr->lost;
    int n = rr->j->n, me = rr->j->i, to[256], from[256];
    unsigned char *out = what == TO_LOST ? rr->X : rr->S;
    unsigned char *in = what == TO_LOST ? rr->X : rr->R;
    for (int r = 0; r < n; r++) {
        int other = r != me;
        if (what == TO_ALL) { /* to the lost, and among the survivors that solve */
            int among = rr->solver[me] && rr->solver[r];
            to[r] = other && !rr->me_lost && (lost[r] || among);
            from[r] = other && !lost[r] && (rr->me_lost || among);
        } else if (what == TO_LOST) {
            to[r] = !rr->me_lost && rr->feed[r];
            from[r] = rr->me_lost && rr->feed[r];
        } else {
            to[r] = from[r] = other && rr->me_lost && lost[r];
        }
    }
    unsigned char *at[256];
    for (int r = 0; r < n; r++) /* a survivor's own slices from where they are */
        at[r] = what == TO_ALL && !rr->me_lost ? rr->at[r] : slot(out, r, len);
    double t0 = scr_now();
    ec_trade_at(rr->comm, me, n, at, to, in, from, len);
    rr->comm_s += scr_now() - t0;
}

static int rec_piece(rs_rec_t *rr, int piece, scr_error_t *err)
{
    ec_job_t *j = rr->j;
    uint64_t off = (uint64_t)piece * (uint64_t)rr->len;
    int len = j->chunk - off < (uint64_t)rr->len ? (int)(j->chunk - off) : rr->len;
    int rc = 0;
    if (!rr->me_lost && rec_read(rr, off, len, err) < 0)
        rc = -1;
    rec_trade(rr, TO_ALL, len);
    if (!rr->me_lost && rr->solver[j->i])
        rec_solve(rr, len);
    rec_trade(rr, TO_LOST, len);
    if (rr->me_lost && rec_decode(rr, off, len, rc ? NULL : err) < 0)
        rc = -1;
    rec_trade(rr, AMONG_LOST, len);
    if (rr->me_lost && rec_parity(rr, off, len, rc ? NULL : err) < 0)
        rc = -1;
    if (rr->me_lost && piece == 0)
        fault_point("recover.block", j->rank);
    if (rr->me_lost && piece == rr->pieces / 2)
        fault_point("recover.half", j->rank);
    return rc;
}

static int rec_init(rs_rec_t *rr, ec_job_t *j, const scr_ctx_t *ctx, MPI_Comm comm,
                    const int *lost)
{
    memset(rr, 0, sizeof(*rr));
    rr->j = j;
    rr->comm = comm;
    rr->lost = lost;
    rr->me_lost = lost[j->i];
    /* with fewer than m lost, k survivors are enough for each lost member:
     * the others neither solve nor receive, nor send to those that solve
     * (spread_solve_skip) */
    unsigned char skip[256], from[256];
    spread_solve_skip(&j->sp, lost, skip);
    for (int r = 0; r < j->n; r++)
        rr->solver[r] = !lost[r] && !skip[r];
    for (int a = 0; a < j->n; a++) {
        if (!lost[a])
            continue;
        spread_decode_senders(&j->sp, lost, a, from);
        for (int r = 0; a == j->i && r < j->n; r++)
            rr->feed[r] = from[r];
        if (!rr->me_lost)
            rr->feed[a] = from[j->i];
    }
    /* slot arrays of n, each within RS_CAP as the encode's */
    rr->len = ec_piece_len(ctx, j->chunk, (size_t)j->n, RS_CAP);
    rr->len = rr->len ? rr->len : 1;
    rr->pieces = (int)((j->chunk + (uint64_t)rr->len - 1) / (uint64_t)rr->len);
    size_t l = (size_t)rr->len;
    rr->S = bigbuf_alloc((size_t)j->n * l);
    rr->R = bigbuf_alloc((size_t)j->n * l);
    rr->X = bigbuf_alloc((size_t)j->n * l);
    rr->P = bigbuf_alloc((size_t)j->m * l);
    rr->C = bigbuf_alloc((size_t)j->k * l);
    if (!rr->S || !rr->R || !rr->X || !rr->P || !rr->C)
        return -1;
    return rr->me_lost ? spread_decode_plan(&j->sp, lost, j->i, &rr->dp)
                       : spread_solve_plan(&j->sp, lost, skip, j->i, &rr->sv);
}

static void rec_free(rs_rec_t *rr)
{
    ec_unmap_all(rr->j->n, rr->mbase, rr->mlen);
    spread_solve_free(&rr->sv);
    spread_decode_free(&rr->dp);
    bigbuf_free(rr->S);
    bigbuf_free(rr->R);
    bigbuf_free(rr->X);
    bigbuf_free(rr->P);
    bigbuf_free(rr->C);
}

int red_rs_recover(ec_job_t *j, const scr_ctx_t *ctx, MPI_Comm comm, const int *lost,
                   int nlost, scr_error_t *err)
{
    rs_rec_t rr;
    /* every member plans alike from the same flags: none fails alone */
    if (nlost > j->m || rec_init(&rr, j, ctx, comm, lost) < 0)
        MPI_Abort(comm, 1);
    int rc = 0;
    for (int p = 0; p < rr.pieces; p++)
        if (rec_piece(&rr, p, rc ? NULL : err) < 0)
            rc = -1;
    log_dbg(2,
            "RS recovery, %llu-byte chunks in %d pieces: read %.3f s, multiply %.3f s, "
            "exchange %.3f s, write %.3f s",
            (unsigned long long)j->chunk, rr.pieces, rr.read, rr.mul, rr.comm_s,
            rr.write);
    rec_free(&rr);
    return rc;
}
