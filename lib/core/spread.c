/* SPDX-License-Identifier: BSD-3-Clause */
/* spread.c - the Reed-Solomon code of RS sets (spread.h), over ISA-L */
#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "spread.h"

#define SP_TBL 32 /* bytes of ISA-L tables per coefficient */

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

int spread_init(spread_code_t *c, int n, int m)
{
    memset(c, 0, sizeof(*c));
    if (n < 2 || m < 1 || m >= n || n + m > 256 || m > 32)
        return -1;
    c->n = n;
    c->m = m;
    c->k = n - m;
    int s = n - 1; /* slices per member */
    unsigned char *big = malloc((size_t)(s + m) * (size_t)s);
    c->inner = malloc((size_t)s * (size_t)c->k);
    c->outer = malloc((size_t)m * (size_t)s);
    c->inner_tbls = malloc((size_t)(m - 1 ? m - 1 : 1) * (size_t)c->k * SP_TBL);
    c->outer_tbls = malloc((size_t)m * (size_t)s * SP_TBL);
    if (!big || !c->inner || !c->outer || !c->inner_tbls || !c->outer_tbls) {
        free(big);
        spread_free(c);
        return -1;
    }
    /* any k rows of the inner generator, any square part of the outer
     * matrix: invertible (Cauchy rows 1 / (x ^ y) with x and y apart) */
    gf_gen_cauchy1_matrix(c->inner, s, c->k);
    gf_gen_cauchy1_matrix(big, s + m, s);
    memcpy(c->outer, big + (size_t)s * (size_t)s, (size_t)m * (size_t)s);
    free(big);
    if (m > 1)
        ec_init_tables(c->k, m - 1, c->inner + (size_t)c->k * (size_t)c->k,
                       c->inner_tbls);
    ec_init_tables(s, m, c->outer, c->outer_tbls);
    return 0;
}

void spread_free(spread_code_t *c)
{
    free(c->inner);
    free(c->inner_tbls);
    free(c->outer);
    free(c->outer_tbls);
    c->inner = c->inner_tbls = c->outer = c->outer_tbls = NULL;
}

int spread_dest(const spread_code_t *c, int i, int u)
{
    return mod(i + 1 + u, c->n);
}

int spread_slice_of(const spread_code_t *c, int j, int i)
{
    return mod(j - i, c->n) - 1;
}

void spread_inner(const spread_code_t *c, int len, unsigned char **chunks,
                  unsigned char **outs)
{
    if (c->m > 1)
        ec_encode_data(len, c->k, c->m - 1, c->inner_tbls, chunks, outs);
}

void spread_outer(const spread_code_t *c, int len, unsigned char **in,
                  unsigned char **outs)
{
    ec_encode_data(len, c->n - 1, c->m, c->outer_tbls, in, outs);
}

/* coefficients of lost slice x: Minv row x over the npar parity chunks,
 * then through the outer matrix over each surviving input */
static void solve_rows(const spread_code_t *c, spread_solve_t *s,
                       const unsigned char *inv, unsigned char *w)
{
    int t = s->npar, cols = t + s->nsrc;
    for (int x = 0; x < s->nlost; x++) {
        for (int p = 0; p < t; p++)
            w[x * cols + p] = inv[x * t + p];
        for (int l = 0; l < s->nsrc; l++) {
            unsigned char sum = 0;
            for (int p = 0; p < t; p++)
                sum ^= gf_mul(inv[x * t + p], c->outer[p * (c->n - 1) + s->src_d[l] - 1]);
            w[x * cols + t + l] = sum;
        }
    }
}

/* the unknowns of member j's parity: the lost members' slices first, then
 * the skipped survivors'; -1 when they are more than its m equations */
static int solve_unknowns(const spread_code_t *c, const int *lost,
                          const unsigned char *skip, int j, spread_solve_t *s)
{
    int skip_d[32], nskip = 0;
    for (int d = 1; d < c->n; d++) {
        int i = mod(j - d, c->n);
        if (!lost[i] && !(skip && skip[i])) {
            s->src_d[s->nsrc++] = d;
            continue;
        }
        if (s->nlost + nskip == c->m) /* checked before lost_d[m] is written */
            return -1;
        if (lost[i])
            s->lost_d[s->nlost++] = d;
        else
            skip_d[nskip++] = d;
    }
    s->npar = s->nlost + nskip;
    for (int x = 0; x < nskip; x++)
        s->lost_d[s->nlost + x] = skip_d[x];
    return 0;
}

int spread_solve_plan(const spread_code_t *c, const int *lost, const unsigned char *skip,
                      int j, spread_solve_t *s)
{
    memset(s, 0, sizeof(*s));
    if (solve_unknowns(c, lost, skip, j, s) < 0)
        return -1;
    int t = s->npar;
    if (s->nlost == 0)
        return 0;
    unsigned char *a = malloc((size_t)t * (size_t)t),
                  *inv = malloc((size_t)t * (size_t)t);
    unsigned char *w = malloc((size_t)s->nlost * (size_t)(t + s->nsrc));
    s->tbls = malloc((size_t)s->nlost * (size_t)(t + s->nsrc) * SP_TBL);
    int rc = -1;
    if (a && inv && w && s->tbls) {
        for (int p = 0; p < t; p++)
            for (int x = 0; x < t; x++)
                a[p * t + x] = c->outer[p * (c->n - 1) + s->lost_d[x] - 1];
        if (gf_invert_matrix(a, inv, t) == 0) {
            solve_rows(c, s, inv, w);
            ec_init_tables(t + s->nsrc, s->nlost, w, s->tbls);
            rc = 0;
        }
    }
    free(a);
    free(inv);
    free(w);
    if (rc < 0)
        spread_solve_free(s);
    return rc;
}

void spread_solve(const spread_solve_t *s, int len, unsigned char **parity,
                  unsigned char **by_d, unsigned char **lost_by_d)
{
    unsigned char *ins[32 + 255], *outs[32];
    if (s->nlost == 0)
        return;
    for (int p = 0; p < s->npar; p++)
        ins[p] = parity[p];
    for (int l = 0; l < s->nsrc; l++)
        ins[s->npar + l] = by_d[s->src_d[l]];
    for (int x = 0; x < s->nlost; x++)
        outs[x] = lost_by_d[s->lost_d[x]];
    ec_encode_data(len, s->npar + s->nsrc, s->nlost, s->tbls, ins, outs);
}

void spread_solve_free(spread_solve_t *s)
{
    free(s->tbls);
    s->tbls = NULL;
}

/* the first k slices of lost member a that survivors hold, in increasing
 * order, into chosen; returns how many there were (k, or fewer) */
static int decode_choose(const spread_code_t *c, const int *lost, int a, int *chosen)
{
    int n = 0, have[256] = {0};
    for (int j = 0; j < c->n; j++)
        if (j != a && !lost[j])
            have[spread_slice_of(c, j, a)] = 1;
    for (int u = 0; u < c->n - 1 && n < c->k; u++)
        if (have[u])
            chosen[n++] = u;
    return n;
}

void spread_decode_senders(const spread_code_t *c, const int *lost, int a,
                           unsigned char *from)
{
    int chosen[255], n = decode_choose(c, lost, a, chosen);
    memset(from, 0, (size_t)c->n);
    for (int x = 0; x < n; x++)
        from[spread_dest(c, a, chosen[x])] = 1;
}

void spread_solve_skip(const spread_code_t *c, const int *lost, unsigned char *skip)
{
    unsigned char from[256];
    for (int r = 0; r < c->n; r++)
        skip[r] = !lost[r];
    for (int a = 0; a < c->n; a++) {
        if (!lost[a])
            continue;
        spread_decode_senders(c, lost, a, from);
        for (int r = 0; r < c->n; r++)
            skip[r] &= (unsigned char)!from[r];
    }
}

int spread_decode_plan(const spread_code_t *c, const int *lost, int a, spread_decode_t *d)
{
    int k = c->k;
    memset(d, 0, sizeof(*d));
    if (decode_choose(c, lost, a, d->chosen) < k)
        return -1;
    int present[256] = {0};
    for (int x = 0; x < k; x++)
        if (d->chosen[x] < k)
            present[d->chosen[x]] = 1;
    for (int q = 0; q < k; q++)
        if (!present[q])
            d->targets[d->ntargets++] = q;
    if (d->ntargets == 0)
        return 0;
    unsigned char *m = malloc((size_t)k * (size_t)k),
                  *inv = malloc((size_t)k * (size_t)k);
    unsigned char *w = malloc((size_t)d->ntargets * (size_t)k);
    d->tbls = malloc((size_t)d->ntargets * (size_t)k * SP_TBL);
    int rc = -1;
    if (m && inv && w && d->tbls) {
        for (int x = 0; x < k; x++)
            memcpy(m + x * k, c->inner + (size_t)d->chosen[x] * (size_t)k, (size_t)k);
        if (gf_invert_matrix(m, inv, k) == 0) {
            for (int y = 0; y < d->ntargets; y++)
                memcpy(w + y * k, inv + d->targets[y] * k, (size_t)k);
            ec_init_tables(k, d->ntargets, w, d->tbls);
            rc = 0;
        }
    }
    free(m);
    free(inv);
    free(w);
    if (rc < 0)
        spread_decode_free(d);
    return rc;
}

void spread_decode(const spread_code_t *c, const spread_decode_t *d, int len,
                   unsigned char **slice, unsigned char **scratch, unsigned char **chunk)
{
    unsigned char *ins[255];
    for (int q = 0; q < c->k; q++)
        chunk[q] = slice[q]; /* a chosen slice, unless q is a target */
    for (int x = 0; x < c->k; x++)
        ins[x] = slice[d->chosen[x]];
    for (int y = 0; y < d->ntargets; y++)
        chunk[d->targets[y]] = scratch[y];
    if (d->ntargets > 0)
        ec_encode_data(len, c->k, d->ntargets, d->tbls, ins, scratch);
}

void spread_decode_free(spread_decode_t *d)
{
    free(d->tbls);
    d->tbls = NULL;
}
