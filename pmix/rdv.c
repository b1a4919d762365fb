/* SPDX-License-Identifier: BSD-3-Clause */
/* rdv.c - rendezvous of equal keys at a home process (rdv.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdv.h"
#include "xchg.h"

#define RDV_TAG_ANS 7902

typedef struct {
    int src;
    int len;
    char *key;
} rdv_entry_t;

typedef struct {
    rdv_entry_t *e;
    int n, cap, ok;
} rdv_home_t;

static int rdv_entry_cmp(const void *a, const void *b)
{
    const rdv_entry_t *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    int c = memcmp(x->key, y->key, (size_t)x->len);
    if (c)
        return c;
    return (x->src > y->src) - (x->src < y->src);
}

/* keep a key that arrived here (xchg_take_fn); on no memory the home
 * says so and the exchange still completes */
static int rdv_take(int src, const char *buf, int len, void *arg)
{
    rdv_home_t *h = arg;
    if (h->ok && h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 16;
        rdv_entry_t *e = realloc(h->e, sizeof(*e) * (size_t)cap);
        if (e) {
            h->e = e;
            h->cap = cap;
        }
    }
    char *key = h->ok && h->n < h->cap ? malloc((size_t)(len > 0 ? len : 1)) : NULL;
    if (!key) {
        h->ok = 0;
        return -1;
    }
    memcpy(key, buf, (size_t)len);
    h->e[h->n++] = (rdv_entry_t){src, len, key};
    return 0;
}

/* the answer for entry i of a run of count equal keys from run[0] */
static int *rdv_answer(const rdv_entry_t *run, int count, int i, int want, int *n)
{
    *n = 3 + (want ? count : 0);
    int *a = malloc(sizeof(int) * (size_t)*n);
    if (!a)
        return NULL;
    a[0] = count;
    a[1] = i;
    a[2] = run[0].src;
    for (int j = 0; want && j < count; j++)
        a[3 + j] = run[j].src;
    return a;
}

static int rdv_same_key(const rdv_entry_t *x, const rdv_entry_t *y)
{
    return x->len == y->len && memcmp(x->key, y->key, (size_t)x->len) == 0;
}

/* answer every sender; reqs and bufs, one per entry, are for the caller
 * to wait on and free.  The number of answers sent. */
static int rdv_answer_all(MPI_Comm comm, rdv_home_t *h, int want, MPI_Request *reqs,
                          int **bufs)
{
    int sent = 0; /* h->e is sorted */
    for (int start = 0, end; start < h->n; start = end) {
        for (end = start + 1; end < h->n && rdv_same_key(&h->e[start], &h->e[end]);)
            end++;
        for (int i = start; i < end; i++) {
            int n;
            bufs[i] = rdv_answer(&h->e[start], end - start, i - start, want, &n);
            if (!bufs[i])
                return sent;
            MPI_Isend(bufs[i], n, MPI_INT, h->e[i].src, RDV_TAG_ANS, comm, &reqs[i]);
            sent++;
        }
    }
    return sent;
}

/* A rendezvous that cannot go on (no memory, or a caller's key too long):
 * a home that cannot keep or answer a key leaves its sender waiting, so
 * the job ends (as SCR_Init's other allocations of a set's few ranks do)
 * instead of hanging or spending a collective per call to agree on it. */
static void rdv_fail(MPI_Comm comm, const char *what)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    fprintf(stderr, "SCR: rank %d: SCR_Init's rendezvous: %s\n", rank, what);
    MPI_Abort(comm, 1);
}

/* this process's answer from home */
static void rdv_receive(MPI_Comm comm, int home, int want, rdv_peers_t *peers)
{
    MPI_Status st;
    int n;
    MPI_Probe(home, RDV_TAG_ANS, comm, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    int *a = malloc(sizeof(int) * (size_t)n);
    if (!a)
        rdv_fail(comm, "out of memory for an answer");
    MPI_Recv(a, n, MPI_INT, home, RDV_TAG_ANS, comm, MPI_STATUS_IGNORE);
    peers->count = a[0];
    peers->row = a[1];
    peers->first = a[2];
    if (want) {
        peers->members = malloc(sizeof(int) * (size_t)a[0]);
        if (!peers->members)
            rdv_fail(comm, "out of memory for a list of members");
        memcpy(peers->members, a + 3, sizeof(int) * (size_t)a[0]);
    }
    free(a);
}

static void rdv_home_free(rdv_home_t *h)
{
    for (int i = 0; i < h->n; i++)
        free(h->e[i].key);
    free(h->e);
}

void rdv_find(MPI_Comm comm, const void *key, int len, uint64_t hash, int want_members,
              rdv_peers_t *peers)
{
    int ranks;
    MPI_Comm_size(comm, &ranks);
    memset(peers, 0, sizeof(*peers));
    peers->row = peers->first = -1;
    if (key && (len < 0 || len > RDV_KEY_MAX))
        rdv_fail(comm, "a key longer than RDV_KEY_MAX");
    int home = (int)(hash % (uint64_t)ranks);
    rdv_home_t h = {NULL, 0, 0, 1};
    const char *buf = key;
    xchg_bytes_open(comm, key ? 1 : 0, &home, &buf, &len, rdv_take, &h);
    MPI_Request *reqs = malloc(sizeof(*reqs) * (size_t)(h.n ? h.n : 1));
    int **bufs = calloc((size_t)(h.n ? h.n : 1), sizeof(int *));
    if (!h.ok || !reqs || !bufs)
        rdv_fail(comm, "out of memory for the keys sent here");
    if (h.n > 1) /* h.e is NULL with no keys, which qsort may not take */
        qsort(h.e, (size_t)h.n, sizeof(*h.e), rdv_entry_cmp);
    int keys = 0; /* distinct keys here; their sum closes the exchange */
    for (int i = 0; i < h.n; i++)
        keys += i == 0 || !rdv_same_key(&h.e[i - 1], &h.e[i]);
    MPI_Allreduce(&keys, &peers->keys, 1, MPI_INT, MPI_SUM, comm);
    int answered = rdv_answer_all(comm, &h, want_members, reqs, bufs);
    if (answered < h.n)
        rdv_fail(comm, "out of memory for the answers");
    if (key)
        rdv_receive(comm, home, want_members, peers);
    MPI_Waitall(answered, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < h.n; i++)
        free(bufs[i]);
    free(bufs);
    free(reqs);
    rdv_home_free(&h);
}

void rdv_peers_free(rdv_peers_t *peers)
{
    free(peers->members);
    peers->members = NULL;
}

int rdv_comm_create(MPI_Comm comm, const int *members, int n, int tag, MPI_Comm *out)
{
    MPI_Group all, mine;
    MPI_Comm_group(comm, &all);
    int rc = MPI_Group_incl(all, n, members, &mine);
    MPI_Group_free(&all);
    if (rc != MPI_SUCCESS)
        return -1;
    rc = MPI_Comm_create_group(comm, mine, tag, out);
    MPI_Group_free(&mine);
    return rc == MPI_SUCCESS ? 0 : -1;
}
