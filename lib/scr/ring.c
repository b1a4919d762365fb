/* ring.c - XOR reduce-scatter over a ring of neighbours (see ring.h) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/raid.h>

#include "ring.h"

#define RING_TAG 4711
#define RING_ALIGN 64

int ring_init(ring_t *r, size_t cap)
{
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < 3; i++) {
        void *p = NULL;
        if (posix_memalign(&p, RING_ALIGN, cap ? cap : RING_ALIGN) != 0) {
            ring_free(r);
            return -1;
        }
        r->buf[i] = p;
    }
    return 0;
}

void ring_free(ring_t *r)
{
    for (int i = 0; i < 3; i++) {
        free(r->buf[i]);
        r->buf[i] = NULL;
    }
}

/* dst = a ^ b over len bytes (ISA-L for the aligned bulk) */
static void ring_xor(unsigned char *dst, const unsigned char *a, const unsigned char *b,
                     size_t len)
{
    size_t bulk = 0;
    /* ISA-L wants 32-byte aligned vectors; the tail goes word by word */
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

void ring_xor_reduce_scatter(ring_t *r, const unsigned char *send, const size_t *counts,
                             unsigned char *recv, MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    size_t offs[n];
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        offs[i] = at;
        at += counts[i];
    }
    if (n == 1) {
        memcpy(recv, send, counts[0]);
        return;
    }
    int right = ring_mod(me + 1, n), left = ring_mod(me - 1, n);
    const unsigned char *out = send + offs[left];
    /* step t: pass the sum for block me-t-1, receive the one for me-t-2,
     * add mine; buf[0] receives, buf[1] and buf[2] take turns as the sum */
    for (int t = 0; t < n - 1; t++) {
        int sb = ring_mod(me - t - 1, n), rb = ring_mod(me - t - 2, n);
        unsigned char *dst = t == n - 2 ? recv : r->buf[1 + (t & 1)];
        MPI_Sendrecv(out, (int)counts[sb], MPI_BYTE, right, RING_TAG, r->buf[0],
                     (int)counts[rb], MPI_BYTE, left, RING_TAG, comm, MPI_STATUS_IGNORE);
        ring_xor(dst, r->buf[0], send + offs[rb], counts[rb]);
        out = dst;
    }
}
