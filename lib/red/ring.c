/* SPDX-License-Identifier: BSD-3-Clause */
/* ring.c - XOR reduce-scatter over a ring of neighbours (see ring.h) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/raid.h>

#include "ring.h"

#define RING_TAG 4711
#define RING_ALIGN 64
#define RING_SEG ((size_t)256 << 10) /* bytes per message */
#define RING_WINDOW 8                /* receives posted ahead */

int ring_init(ring_t *r)
{
    void *p = NULL;
    memset(r, 0, sizeof(*r));
    if (posix_memalign(&p, RING_ALIGN, RING_WINDOW * RING_SEG) != 0)
        return -1;
    r->slot = p;
    return 0;
}

void ring_free(ring_t *r)
{
    free(r->slot);
    free(r->reqs);
    memset(r, 0, sizeof(*r));
}

/* dst = a ^ b over len bytes (ISA-L for the aligned bulk); dst may be b */
static void ring_xor(unsigned char *dst, const unsigned char *a, const unsigned char *b,
                     size_t len)
{
    size_t bulk = 0;
    /* ISA-L wants 32-byte aligned vectors; the tail goes byte by byte */
    if ((((uintptr_t)dst | (uintptr_t)a | (uintptr_t)b) & 31) == 0 && len <= INT32_MAX) {
        bulk = len & ~(size_t)63;
        void *v[3] = {(void *)a, (void *)b, dst};
        if (bulk && xor_gen(3, (int)bulk, v) != 0)
            bulk = 0;
    }
    for (size_t i = bulk; i < len; i++)
        dst[i] = a[i] ^ b[i];
}

static int ring_mod(int a, int n)
{
    return ((a % n) + n) % n;
}

static size_t ring_segs(size_t count)
{
    return (count + RING_SEG - 1) / RING_SEG;
}

/* bytes of the segment at off in a block of count bytes */
static size_t ring_seg_len(size_t count, size_t off)
{
    return count - off < RING_SEG ? count - off : RING_SEG;
}

/* The receive events, in the order the left neighbour sends them: step t
 * (block me-t-2), segment s.  Both ends walk the same list. */
typedef struct {
    int me, n;
    const size_t *counts;
    int t;    /* current step */
    size_t s; /* current segment */
} ring_walk_t;

/* move to the next event (callers stop at the counted total) */
static void ring_walk_next(ring_walk_t *w)
{
    while (w->t < w->n - 1 &&
           w->s >= ring_segs(w->counts[ring_mod(w->me - w->t - 2, w->n)])) {
        w->t++;
        w->s = 0;
    }
}

static void ring_post(ring_t *r, ring_walk_t *w, int e, int left, MPI_Comm comm)
{
    size_t count = w->counts[ring_mod(w->me - w->t - 2, w->n)];
    size_t len = ring_seg_len(count, w->s * RING_SEG);
    MPI_Irecv(r->slot + (size_t)(e % RING_WINDOW) * RING_SEG, (int)len, MPI_BYTE, left,
              RING_TAG, comm, &r->reqs[e % RING_WINDOW]);
    w->s++;
}

static int ring_reserve(ring_t *r, size_t n)
{
    if (n <= r->nreqs)
        return 0;
    MPI_Request *q = realloc(r->reqs, n * sizeof(*q));
    if (!q)
        return -1;
    r->reqs = q;
    r->nreqs = n;
    return 0;
}

/* step 0 passes my own block for the left neighbour, whole */
static size_t ring_start(unsigned char *block, size_t count, int right,
                         MPI_Request *sends, MPI_Comm comm)
{
    size_t ns = 0;
    for (size_t off = 0; off < count; off += RING_SEG) {
        size_t len = ring_seg_len(count, off);
        MPI_Isend(block + off, (int)len, MPI_BYTE, right, RING_TAG, comm, &sends[ns++]);
    }
    return ns;
}

void ring_xor_reduce_scatter(ring_t *r, unsigned char *send, const size_t *counts,
                             unsigned char *recv, MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    size_t offs[n], at = 0, events = 0;
    for (int i = 0; i < n; i++) {
        offs[i] = at;
        at += counts[i];
    }
    if (n == 1) {
        memcpy(recv, send, counts[0]);
        return;
    }
    int right = ring_mod(me + 1, n), left = ring_mod(me - 1, n);
    for (int t = 0; t < n - 1; t++)
        events += ring_segs(counts[ring_mod(me - t - 2, n)]);
    if (ring_reserve(r, RING_WINDOW + ring_segs(counts[left]) + events) < 0)
        MPI_Abort(comm, 1);
    MPI_Request *sends = r->reqs + RING_WINDOW;
    size_t ns = ring_start(send + offs[left], counts[left], right, sends, comm);
    ring_walk_t post = {me, n, counts, 0, 0}, cur = post;
    for (size_t e = 0; e < events && e < RING_WINDOW; e++) {
        ring_walk_next(&post);
        ring_post(r, &post, (int)e, left, comm);
    }
    for (size_t e = 0; e < events; e++) {
        ring_walk_next(&cur);
        int rb = ring_mod(me - cur.t - 2, n);
        size_t off = cur.s * RING_SEG;
        size_t len = ring_seg_len(counts[rb], off);
        unsigned char *in = r->slot + (e % RING_WINDOW) * RING_SEG;
        unsigned char *mine = send + offs[rb] + off;
        MPI_Wait(&r->reqs[e % RING_WINDOW], MPI_STATUS_IGNORE);
        if (cur.t == n - 2) {
            ring_xor(recv + off, in, mine, len);
        } else {
            ring_xor(mine, in, mine, len);
            MPI_Isend(mine, (int)len, MPI_BYTE, right, RING_TAG, comm, &sends[ns++]);
        }
        cur.s++;
        if (e + RING_WINDOW < events) {
            ring_walk_next(&post);
            ring_post(r, &post, (int)(e + RING_WINDOW), left, comm);
        }
    }
    MPI_Waitall((int)ns, sends, MPI_STATUSES_IGNORE);
}
