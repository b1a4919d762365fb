/* SPDX-License-Identifier: BSD-3-Clause */
/* ec.c - erasure code layout, encode tables and decode plans (ISA-L) */
#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "ec.h"

#define EC_TBL 32 /* bytes of ISA-L tables per coefficient */

int ec_code_init(ec_code_t *c, int n, int m, int is_xor)
{
    memset(c, 0, sizeof(*c));
    if (n < 2 || m < 1 || m >= n || n > 255 || m > 32)
        return -1;
    c->n = n;
    c->m = m;
    c->k = n - m;
    c->is_xor = is_xor && m == 1;
    c->gen = calloc((size_t)n * (size_t)c->k, 1);
    c->enc_tbls = malloc((size_t)c->k * (size_t)m * EC_TBL);
    unsigned char *col = malloc((size_t)m);
    if (!c->gen || !c->enc_tbls || !col) {
        free(col);
        ec_code_free(c);
        return -1;
    }
    if (is_xor) {
        for (int i = 0; i < c->k; i++)
            c->gen[i * c->k + i] = 1;
        memset(c->gen + (size_t)c->k * (size_t)c->k, 1, (size_t)m * (size_t)c->k);
    } else {
        gf_gen_cauchy1_matrix(c->gen, n, c->k);
    }
    for (int j = 0; j < c->k; j++) {
        for (int p = 0; p < m; p++)
            col[p] = c->gen[(c->k + p) * c->k + j];
        ec_init_tables(1, m, col, c->enc_tbls + (size_t)j * (size_t)m * EC_TBL);
    }
    free(col);
    return 0;
}

void ec_code_free(ec_code_t *c)
{
    free(c->gen);
    free(c->enc_tbls);
    c->gen = c->enc_tbls = NULL;
}

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

int ec_holder(const ec_code_t *c, int s, int t)
{
    return t < c->k ? mod(s + c->m + t, c->n) : mod(s + (t - c->k), c->n);
}

void ec_slot_symbol(const ec_code_t *c, int i, int slot, int *s, int *t)
{
    if (slot < c->k) { /* data chunk q = slot sits at position k-1-q of stripe i+1+q */
        *s = mod(i + 1 + slot, c->n);
        *t = c->k - 1 - slot;
    } else { /* parity p = slot-k of stripe i-p */
        *s = mod(i - (slot - c->k), c->n);
        *t = slot;
    }
}

int ec_symbol_slot(const ec_code_t *c, int s, int t)
{
    (void)s;
    return t < c->k ? c->k - 1 - t : t;
}

void ec_encode_part(const ec_code_t *c, int j, int len, unsigned char *src,
                    unsigned char **outs)
{
    ec_encode_data(len, 1, c->m, c->enc_tbls + (size_t)j * (size_t)c->m * EC_TBL, &src,
                   outs);
}

/* plan one stripe: pick k survivors, invert, derive target rows */
static int ec_plan_stripe(const ec_code_t *c, const int *lost, int s, ec_plan_t *p)
{
    int k = c->k, nchosen = 0;
    p->ntargets = 0;
    for (int t = 0; t < c->n; t++) {
        if (lost[ec_holder(c, s, t)])
            p->targets[p->ntargets++] = t;
        else if (nchosen < k)
            p->chosen[nchosen++] = t;
    }
    if (p->ntargets == 0)
        return 0;
    if (nchosen < k || p->ntargets > c->m)
        return -1;
    unsigned char *a = malloc((size_t)k * (size_t)k),
                  *inv = malloc((size_t)k * (size_t)k);
    unsigned char *w = calloc((size_t)p->ntargets * (size_t)k, 1);
    unsigned char *col = malloc((size_t)p->ntargets);
    p->tbls = malloc((size_t)k * (size_t)p->ntargets * EC_TBL);
    int rc = -1;
    if (!a || !inv || !w || !col || !p->tbls)
        goto out;
    for (int u = 0; u < k; u++)
        memcpy(a + u * k, c->gen + (size_t)p->chosen[u] * (size_t)k, (size_t)k);
    if (gf_invert_matrix(a, inv, k) != 0)
        goto out;
    /* data symbol t: row t of inv; symbol t of any kind: gen row t times inv */
    for (int x = 0; x < p->ntargets; x++)
        for (int u = 0; u < k; u++) {
            unsigned char sum = 0;
            for (int j = 0; j < k; j++)
                sum ^= gf_mul(c->gen[p->targets[x] * k + j], inv[j * k + u]);
            w[x * k + u] = sum;
        }
    for (int u = 0; u < k; u++) {
        for (int x = 0; x < p->ntargets; x++)
            col[x] = w[x * k + u];
        ec_init_tables(1, p->ntargets, col,
                       p->tbls + (size_t)u * (size_t)p->ntargets * EC_TBL);
    }
    rc = 0;
out:
    free(a);
    free(inv);
    free(w);
    free(col);
    return rc;
}

int ec_plan_create(const ec_code_t *c, const int *lost, ec_plan_t *plans)
{
    memset(plans, 0, sizeof(ec_plan_t) * (size_t)c->n);
    for (int s = 0; s < c->n; s++) {
        if (ec_plan_stripe(c, lost, s, &plans[s]) < 0) {
            ec_plan_free(c, plans);
            return -1;
        }
    }
    return 0;
}

void ec_plan_free(const ec_code_t *c, ec_plan_t *plans)
{
    for (int s = 0; s < c->n; s++) {
        free(plans[s].tbls);
        plans[s].tbls = NULL;
    }
}

int ec_plan_chosen_index(const ec_code_t *c, const ec_plan_t *p, int t)
{
    for (int u = 0; u < c->k && p->ntargets > 0; u++)
        if (p->chosen[u] == t)
            return u;
    return -1;
}

void ec_decode_part(const ec_plan_t *p, int u, int len, unsigned char *src,
                    unsigned char **outs)
{
    ec_encode_data(len, 1, p->ntargets,
                   p->tbls + (size_t)u * (size_t)p->ntargets * EC_TBL, &src, outs);
}
