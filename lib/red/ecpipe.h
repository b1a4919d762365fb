/* SPDX-License-Identifier: BSD-3-Clause */
/* ecpipe.h - one member's side of an XOR or RS operation (encode or
 * recovery), and the piece pipeline that runs it.
 *
 * The chunks are cut into pieces.  For each piece a member prepares a send
 * buffer (reads its files, multiplies), exchanges it with the set, and
 * finishes what it received (writes parity or rebuilt data).  A worker
 * thread finishes piece p-1 and prepares piece p+1 while this thread runs
 * the exchange of piece p, so files and network are busy at once; two send
 * and two receive buffers take turns.  Only this thread calls MPI.  The
 * exchange is the operation's own: the encodes' direct messages (XOR's in
 * red_ec.c, RS's in red_rs.c with the code of spread.h, both ec_trade) and
 * XOR recovery's chain (ec_pipe_chain).
 */
#ifndef SCR_ECPIPE_H
#define SCR_ECPIPE_H

#include <mpi.h>
#include <stdint.h>

#include "crcseg.h"
#include "ec.h"
#include "error.h"
#include "kvtree.h"
#include "scr_ctx.h"
#include "spread.h"
#include "xfer.h"

typedef struct {
    int spread;       /* RS: the code of spread.h; else the stripes of ec.h */
    ec_code_t code;   /* XOR */
    spread_code_t sp; /* RS */
    int i, n, m, k;
    uint64_t chunk;
    kvtree_t *metas;   /* "<set rank>" -> CURRENT of that member */
    xfer_open_t files; /* my user files */
    int pfd;           /* my redundancy file */
    uint64_t data_off; /* where its chunks start */
    uint32_t hcrc;     /* CRC32 of the header */
    crcseg_t pcrc;     /* CRC32 of the chunks as they are written */
    crcseg_t ucrc;     /* CRC32 of user files as the encode reads them, or as
                          a recovery writes them */
    int map;           /* encode: pieces of my files may be sent from
                          mappings of them (xfer_open marked which) */
    int background;    /* encode: beside the application (redbg.h) */
    char ppath[4200];
    int rank; /* mine in the world, for the fault points */
} ec_job_t;

typedef struct ec_pipe ec_pipe_t;
typedef int (*ec_stage_fn)(ec_pipe_t *pp, uint64_t off, int len, unsigned char *buf,
                           scr_error_t *err);
/* the exchange of piece p: send[p & 1] out, recv[p & 1] in */
typedef void (*ec_xchg_fn)(ec_pipe_t *pp, int p, MPI_Comm comm);
struct ec_pipe {
    ec_job_t *j;
    int len; /* bytes per piece; the last may be shorter */
    int pieces;
    unsigned char *at[2][256]; /* slot r of send[k] as sent: in it, or in a
                                  mapping of a file (ec_pipe_map) */
    void *mbase[2][256];
    size_t mlen[2][256];
    unsigned char *send[2], *recv[2], *data;
    ec_stage_fn prepare, finish;
    ec_xchg_fn xchg;
    void *xstate;     /* what xchg keeps from piece to piece */
    const void *plan; /* recovery: what is lost and how to decode it */
    int overlap;      /* the worker runs on its own thread (scr_ctx.h) */
    int prep, fin;    /* the worker's task: pieces, -1 for none */
    int rc;
    scr_error_t *err;
    double read, mul, comm, write, wait; /* seconds, reported at SCR_DEBUG=2 */
};

/* Encode: bytes [pos, pos + len) of my files' concatenation as slot r of
 * send buffer k, in a read-only mapping of the one file they lie in (when
 * j->map and that file is mappable), or NULL: read them into the buffer.
 * The mappings of buffer k last until ec_pipe_unmap(pp, k) or
 * ec_pipe_free. */
unsigned char *ec_pipe_map(ec_pipe_t *pp, int k, int r, uint64_t pos, size_t len);
void ec_pipe_unmap(ec_pipe_t *pp, int k);
/* the same for any holder of mappings: bytes [pos, pos + len) of j's
 * files, mapped into *base (*mlen bytes) when j->map, or NULL; and the
 * n mappings of base[] undone */
unsigned char *ec_job_map(const ec_job_t *j, uint64_t pos, size_t len, void **base,
                          size_t *mlen);
void ec_unmap_all(int n, void **base, const size_t *mlen);

/* bytes per piece of chunks of chunk bytes: at most SCR_MPI_BUF_SIZE (and
 * 64 KiB at the least), cut so that units of it fit in cap_bytes */
int ec_piece_len(const scr_ctx_t *ctx, uint64_t chunk, size_t units, size_t cap_bytes);

/* buffers for pieces (ec_piece_len of sendu): send blocks of sendu,
 * receive blocks of recvu piece lengths, scratch of datau.  Aborts when
 * memory runs out (the set would hang). */
void ec_pipe_init(ec_pipe_t *pp, ec_job_t *j, const scr_ctx_t *ctx, size_t sendu,
                  size_t recvu, size_t datau, size_t cap_bytes, MPI_Comm comm,
                  scr_error_t *err);

/* XOR's cap: 1 MiB of send buffer per piece, all n slots (ec_encode,
 * ec_recover_data) */
#define EC_PIPE_CAP ((size_t)1 << 20)

/* An encode beside the application (SCR_REDUNDANCY_ASYNC) has the cores
 * only when the computing ranks leave them: each round of the exchange
 * waits for every member's thread to get a time slice, so the rounds, not
 * the bytes, set its length.  Buffers of 4 MiB (1 MiB pieces for XOR(4))
 * ended XOR(4)'s background encode 0.93-0.97 s after the checkpoint began
 * instead of 2.22-2.37 s, the compute step no slower, for 11 MiB more a
 * rank while it runs (bench/README.md).  The cap an encode uses: cap, or this
 * one in the background when it is larger. */
#define EC_PIPE_CAP_BG ((size_t)4 << 20)
size_t ec_encode_cap(const ec_job_t *j, size_t cap);

/* One round of direct messages between the members of comm, each buffer
 * cut into slots of len bytes: slot r of out goes to member r when to[r],
 * and slot r of in comes from member r when from[r].  Every message is
 * posted at once, so no member waits on another's forwarding. */
void ec_trade(MPI_Comm comm, int me, int n, unsigned char *out, const int *to,
              unsigned char *in, const int *from, int len);
/* the same with slot r of what is sent at out[r], wherever that is */
void ec_trade_at(MPI_Comm comm, int me, int n, unsigned char *const *out, const int *to,
                 unsigned char *in, const int *from, int len);
/* An encode's exchange (ec_xchg_fn): slot r of piece p's send buffer, as
 * pp->at[p & 1] places it, to every other member r.  With eight ranks to
 * two cores a ring's n - 1 forwarding hops per piece each waited for a time
 * slice; one round of direct messages moves the same bytes
 * (bench/README.md). */
void ec_pipe_trade_all(ec_pipe_t *pp, int p, MPI_Comm comm);

/* XOR recovery's exchange (ec_xchg_fn, with pp->xstate an ec_chain_t):
 * a chain from the member after the lost one round to the lost one, each
 * survivor adding its whole send buffer to the sum from its left and
 * passing it on; the lost one receives the sum of every survivor's.  A
 * ring reduce-scatter moved the same bytes in 256 KiB segments and
 * finished every piece before the next began: each segment's hop waited
 * for a time slice where ranks outnumber cores (bench/README.md).  Here a
 * survivor receives piece p + 1 while it adds and sends piece p; the sums
 * travel in the receive buffers, so the next send buffer can be prepared
 * meanwhile.  A survivor in the middle adds slot r of piece p from
 * pp->at[p & 1][r] when the prepare set it (a mapping of its file: no copy
 * into the send buffer), else from the send buffer; the chain's first
 * sends its send buffer whole.  Members me of n, the lost one lost
 * (n >= 2). */
typedef struct {
    int prev, next; /* members, -1: none (the chain's first, the lost one) */
    MPI_Request rq[2], sq[2];
} ec_chain_t;
void ec_chain_init(ec_chain_t *c, int me, int n, int lost);
void ec_pipe_chain(ec_pipe_t *pp, int p, MPI_Comm comm);

/* dst = the XOR of the n slots of len bytes in src other than slot skip
 * (ISA-L for the aligned bulk); dst must not be one of them */
void ec_xor_slots(unsigned char *dst, const unsigned char *src, int n, int skip, int len);
void ec_pipe_free(ec_pipe_t *pp);
/* bytes in piece p: pp->len, less for the last */
int ec_pipe_len(const ec_pipe_t *pp, int p);
/* every piece through prepare, exchange, finish; 0 or -1 */
int ec_pipe_run(ec_pipe_t *pp, MPI_Comm comm, const char *what);
/* after a finished piece at off: first, the fault point block; the middle
 * one, half (fault.h; on the worker thread when there is one) */
/* a rebuilt piece: write it at pos of the job's files, read it back into
 * back (which may be buf) and add what landed to the files' CRC32s (ucrc):
 * the application reads these files next.  0 or -1 with err set. */
int ec_write_back(ec_job_t *j, const unsigned char *buf, unsigned char *back, size_t len,
                  uint64_t pos, scr_error_t *err);

void ec_pipe_fault(const ec_pipe_t *pp, uint64_t off, const char *block,
                   const char *half);

#endif
