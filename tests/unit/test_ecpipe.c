/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ecpipe.c - the pieces of XOR and RS (ecpipe.h): ec_xor_slots equals
 * a byte-by-byte XOR for any slot count, skipped slot, length and
 * alignment, and writes nothing past len; ec_trade_at delivers slot r of
 * every member to member r from wherever each slot lies, in every pattern
 * the encodes use (all to all, all to one, none); ec_pipe_run with
 * recovery's chain (ec_pipe_chain) gives the lost member, piece by piece,
 * the XOR of every survivor's send buffers, whichever member is lost, with
 * one piece or many (the last one short), with the worker thread and
 * without, and with a survivor's slot outside its send buffer (pp->at)
 * off the 32-byte alignment; an encode in the background takes larger
 * buffers (ec_encode_cap) and so larger pieces, one in the foreground the
 * caller's cap.  Run under mpirun with any number of processes (the chain
 * needs two). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecpipe.h"

static unsigned char pattern(int from, int to, int i)
{
    return (unsigned char)(from * 131 + to * 31 + i * 7 + (i >> 8));
}

/* ec_xor_slots against the obvious loop; 0 when all agree */
static int check_xor(void)
{
    static const int lens[] = {1, 63, 64, 65, 4096 + 7, 65536, 524288 + 24};
    int bad = 0;
    for (int n = 1; n <= 6; n++)
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
            for (int shift = 0; shift < 2; shift++) {
                int len = lens[l];
                /* shift 1: every slot and dst off the 32-byte alignment */
                unsigned char *src = malloc((size_t)n * (size_t)len + 64);
                unsigned char *dst = malloc((size_t)len + 64), *s = src + shift;
                for (size_t i = 0; i < (size_t)n * (size_t)len; i++)
                    s[i] = (unsigned char)rand();
                for (int skip = -1; skip < n; skip++) {
                    unsigned char *d = dst + shift * 3;
                    memset(dst, 0x5a, (size_t)len + 64);
                    ec_xor_slots(d, s, n, skip, len);
                    for (int i = 0; i < len && !bad; i++) {
                        unsigned char x = 0;
                        for (int r = 0; r < n; r++)
                            if (r != skip)
                                x ^= s[(size_t)r * (size_t)len + (size_t)i];
                        bad = d[i] != x;
                    }
                    bad = bad || d[len] != 0x5a;
                }
                free(src);
                free(dst);
            }
    return bad;
}

/* one ec_trade_at round: to[r] and from[r] as given by the rule */
static int check_trade(MPI_Comm comm, int rule, int len)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    unsigned char *pool = malloc((size_t)n * ((size_t)len + 8)), *at[256];
    unsigned char *in = malloc((size_t)n * (size_t)len);
    int to[256], from[256], bad = 0;
    memset(in, 0xee, (size_t)n * (size_t)len);
    for (int r = 0; r < n; r++) {
        /* slots in reverse order at odd offsets: nothing assumes a layout */
        at[r] = pool + (size_t)(n - 1 - r) * ((size_t)len + 8) + (size_t)(r % 8);
        for (int i = 0; i < len; i++)
            at[r][i] = pattern(me, r, i);
        int other = r != me;
        to[r] = other && (rule == 0 || (rule == 1 && r == 0));
        from[r] = other && (rule == 0 || (rule == 1 && me == 0));
    }
    ec_trade_at(comm, me, n, at, to, in, from, len);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < len && !bad; i++)
            bad = in[(size_t)r * (size_t)len + (size_t)i] !=
                  (from[r] ? pattern(r, me, i) : 0xee);
    free(pool);
    free(in);
    return bad;
}

/* the chain's test: every member's buffers hold pattern(me, slot, off + i);
 * in odd pieces a survivor in the middle puts slot 1 elsewhere, 8 bytes off
 * the 32-byte alignment (as a mapped slot of a file can be), and points
 * pp->at to it, with its place in the send buffer spoilt */
typedef struct {
    int me, lost, bad, seen;
    unsigned char *aside[2]; /* per send buffer */
} chain_case_t;

static int chain_prepare(ec_pipe_t *pp, uint64_t off, int len, unsigned char *send,
                         scr_error_t *err)
{
    (void)err;
    chain_case_t *c = (chain_case_t *)pp->plan;
    const ec_chain_t *ch = pp->xstate;
    int k = (int)((off / (uint64_t)pp->len) & 1);
    for (int q = 0; q < pp->j->n; q++) {
        pp->at[k][q] = NULL;
        for (int i = 0; i < len; i++)
            send[(size_t)q * (size_t)len + (size_t)i] =
                c->me == c->lost ? 0xa5 : pattern(c->me, q, (int)off + i);
    }
    if (k == 1 && ch->prev >= 0 && ch->next >= 0 && pp->j->n > 1) {
        unsigned char *a = c->aside[k] + 8;
        memcpy(a, send + (size_t)len, (size_t)len);
        memset(send + (size_t)len, 0x3c, (size_t)len);
        pp->at[k][1] = a;
    }
    return 0;
}

static int chain_finish(ec_pipe_t *pp, uint64_t off, int len, unsigned char *recv,
                        scr_error_t *err)
{
    (void)err;
    chain_case_t *c = (chain_case_t *)pp->plan;
    if (c->me != c->lost)
        return 0;
    for (int q = 0; q < pp->j->n; q++)
        for (int i = 0; i < len && !c->bad; i++) {
            unsigned char x = 0;
            for (int r = 0; r < pp->j->n; r++)
                if (r != c->lost)
                    x ^= pattern(r, q, (int)off + i);
            c->bad = recv[(size_t)q * (size_t)len + (size_t)i] != x;
        }
    c->seen += len;
    return 0;
}

/* ec_encode_cap and the piece lengths it gives with SCR_MPI_BUF_SIZE at
 * its default, 1 MiB: 0 when each is as ecpipe.h says */
static int check_caps(void)
{
    ec_job_t j;
    scr_ctx_t ctx;
    memset(&j, 0, sizeof(j));
    memset(&ctx, 0, sizeof(ctx));
    ctx.buf_size = (size_t)1 << 20;
    const uint64_t chunk = (uint64_t)22 << 20; /* XOR(4) of 64 MiB a rank */
    int bad = ec_encode_cap(&j, EC_PIPE_CAP) != EC_PIPE_CAP ||
              ec_piece_len(&ctx, chunk, 4, ec_encode_cap(&j, EC_PIPE_CAP)) != 256 << 10;
    j.background = 1;
    bad = bad || ec_encode_cap(&j, EC_PIPE_CAP) != EC_PIPE_CAP_BG ||
          ec_encode_cap(&j, (size_t)8 << 20) != (size_t)8 << 20 ||
          ec_piece_len(&ctx, chunk, 4, ec_encode_cap(&j, EC_PIPE_CAP)) != 1 << 20 ||
          ec_piece_len(&ctx, chunk, 8, ec_encode_cap(&j, EC_PIPE_CAP)) != 512 << 10 ||
          ec_piece_len(&ctx, 4099, 8, ec_encode_cap(&j, EC_PIPE_CAP)) != 4099;
    return bad;
}

/* one recovery through the chain; 0 when the lost member got every sum */
static int check_chain(MPI_Comm comm, int lost, uint64_t chunk, int overlap)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    ec_job_t j;
    scr_ctx_t ctx;
    scr_error_t err;
    memset(&j, 0, sizeof(j));
    memset(&ctx, 0, sizeof(ctx));
    j.i = j.rank = me;
    j.n = n;
    j.chunk = chunk;
    ctx.buf_size = (size_t)64 << 10;
    ctx.overlap = overlap;
    ec_pipe_t pp;
    ec_pipe_init(&pp, &j, &ctx, (size_t)n, (size_t)n, 1, EC_PIPE_CAP, comm, &err);
    chain_case_t c = {
        me, lost, 0, 0, {malloc((size_t)pp.len + 64), malloc((size_t)pp.len + 64)}};
    if (!c.aside[0] || !c.aside[1])
        MPI_Abort(comm, 1);
    ec_chain_t chain;
    ec_chain_init(&chain, me, n, lost);
    pp.prepare = chain_prepare;
    pp.finish = chain_finish;
    pp.plan = &c;
    pp.xchg = ec_pipe_chain;
    pp.xstate = &chain;
    int rc = ec_pipe_run(&pp, comm, "test recovery");
    ec_pipe_free(&pp);
    free(c.aside[0]);
    free(c.aside[1]);
    return rc != 0 || c.bad || (me == lost && (uint64_t)c.seen != chunk);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, fails = 0, t = 0, any;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    srand(99 + (unsigned)me);
    int bad = check_xor();
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s - ec_xor_slots: every count, skip, length, alignment\n",
               any ? "not ok" : "ok");
    fails += any, t++;
    bad = check_caps();
    if (me == 0)
        printf("%s - ec_encode_cap: larger pieces in the background only\n",
               bad ? "not ok" : "ok");
    fails += bad, t++;
    static const char *rules[] = {"all to all", "all to one", "nobody"};
    static const int lens[] = {1, 4099, 1 << 20};
    for (int rule = 0; rule < 3; rule++)
        for (int l = 0; l < 3; l++) {
            bad = check_trade(MPI_COMM_WORLD, rule, lens[l]);
            MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
            if (me == 0)
                printf("%s - ec_trade_at: %s, %d-byte slots\n", any ? "not ok" : "ok",
                       rules[rule], lens[l]);
            fails += any, t++;
        }
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    /* one piece; six, the last 123 bytes (64 KiB pieces) */
    static const uint64_t chunks[] = {4099, 5 * 65536 + 123};
    for (int lost = 0; n > 1 && lost < n; lost++)
        for (int k = 0; k < 2; k++)
            for (int overlap = 0; overlap < 2; overlap++) {
                bad = check_chain(MPI_COMM_WORLD, lost, chunks[k], overlap);
                MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
                if (me == 0)
                    printf("%s - ec_pipe_chain: member %d of %d lost, %llu-byte chunks, "
                           "%s\n",
                           any ? "not ok" : "ok", lost, n, (unsigned long long)chunks[k],
                           overlap ? "worker thread" : "inline");
                fails += any, t++;
            }
    if (me == 0)
        printf("# %d of %d passed\n", t - fails, t);
    MPI_Finalize();
    return fails ? 1 : 0;
}
