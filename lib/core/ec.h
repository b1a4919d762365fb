/* SPDX-License-Identifier: BSD-3-Clause */
/* ec.h - the erasure code behind XOR and Reed-Solomon sets.
 *
 * A set of n processes tolerating m losses (XOR: m = 1) cuts each process's
 * logical file (its files concatenated and zero padded) into k = n - m data
 * chunks of c bytes.  There are n stripes; stripe s holds k data chunks, one
 * from each of the processes s+m .. s+n-1 (mod n), and m parity chunks kept by
 * processes s .. s+m-1.  Every process holds k data chunks and m parity
 * chunks (RAID-5 rotation), so losing any m processes loses at most m of the
 * n symbols of any stripe.  Parity p of a stripe is sum_j coef[p][j] * d_j
 * in GF(2^8): XOR uses all-ones coefficients, RS a Cauchy matrix (every k x k
 * submatrix of the generator is invertible).  ISA-L does the arithmetic.
 *
 * Symbols of a stripe are numbered t = 0..k-1 (data, position j = t) and
 * k..n-1 (parity p = t - k).  A process names its own chunks by slot:
 * 0..k-1 its data chunks q, k..n-1 its parity chunks p.
 */
#ifndef SCR_EC_H
#define SCR_EC_H

typedef struct {
    int n, m, k;
    int is_xor;              /* m = 1 and every coefficient 1: products are copies */
    unsigned char *gen;      /* n x k generator: identity, then m coefficient rows */
    unsigned char *enc_tbls; /* per data position j: ISA-L tables for m products */
} ec_code_t;

/* recovery plan for one stripe */
typedef struct {
    int ntargets;        /* lost symbols in this stripe */
    int targets[32];     /* their symbol numbers */
    int chosen[255];     /* the k surviving symbols decoded from */
    unsigned char *tbls; /* per chosen u: tables for ntargets products */
} ec_plan_t;

int ec_code_init(ec_code_t *c, int n, int m, int is_xor);
void ec_code_free(ec_code_t *c);

/* set rank holding symbol t of stripe s */
int ec_holder(const ec_code_t *c, int s, int t);
/* stripe and symbol of set rank i's slot */
void ec_slot_symbol(const ec_code_t *c, int i, int slot, int *s, int *t);
/* slot under which the holder of symbol t of stripe s keeps it */
int ec_symbol_slot(const ec_code_t *c, int s, int t);

/* outs[p] = coef[p][j] * src for p = 0..m-1 (len bytes each) */
void ec_encode_part(const ec_code_t *c, int j, int len, unsigned char *src,
                    unsigned char **outs);

/* Plans for every stripe given lost[i] flags for set ranks (at most m set).
 * Returns 0, or -1 if more than m are lost. */
int ec_plan_create(const ec_code_t *c, const int *lost, ec_plan_t *plans);
void ec_plan_free(const ec_code_t *c, ec_plan_t *plans);
/* index u of symbol t among a plan's chosen survivors, or -1 */
int ec_plan_chosen_index(const ec_code_t *c, const ec_plan_t *p, int t);
/* outs[x] = w[target x][u] * src for every target of the plan */
void ec_decode_part(const ec_plan_t *p, int u, int len, unsigned char *src,
                    unsigned char **outs);

#endif
