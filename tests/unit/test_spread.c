/* SPDX-License-Identifier: BSD-3-Clause */
/* test_spread.c - the RS code of spread.h without MPI: every member encodes
 * its slices and the receivers their parity; then for every pattern of up
 * to m lost members the survivors solve for the lost slices, the lost
 * members decode their chunks and encode their parity again, and all of it
 * must equal what was lost.  More than m lost must be refused. */
#include <stdlib.h>
#include <string.h>

#include "spread.h"
#include "tap.h"

#define CH 101 /* bytes per chunk: odd, off any alignment */

typedef struct {
    int n, m, k;
    unsigned char chunk[16][16][CH]; /* [member][chunk] */
    unsigned char slice[16][16][CH]; /* [member][slice]: member's own slices */
    unsigned char parity[16][16][CH];
} set_t;

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* member i's n-1 slices from its chunks */
static void slices_of(const spread_code_t *c, set_t *s, int i)
{
    unsigned char *in[16], *out[16];
    for (int q = 0; q < c->k; q++) {
        memcpy(s->slice[i][q], s->chunk[i][q], CH);
        in[q] = s->chunk[i][q];
    }
    for (int x = 0; x < c->m - 1; x++)
        out[x] = s->slice[i][c->k + x];
    spread_inner(c, CH, in, out);
}

/* member j's parity from the slices it receives */
static void parity_of(const spread_code_t *c, set_t *s, int j, unsigned char out[][CH])
{
    unsigned char *in[16], *o[16];
    for (int d = 1; d < c->n; d++) {
        int i = mod(j - d, c->n);
        in[d - 1] = s->slice[i][spread_slice_of(c, j, i)];
        if (spread_dest(c, i, spread_slice_of(c, j, i)) != j)
            diag("slice numbering is inconsistent");
    }
    for (int p = 0; p < c->m; p++)
        o[p] = out[p];
    spread_outer(c, CH, in, o);
}

static void encode(const spread_code_t *c, set_t *s)
{
    for (int i = 0; i < c->n; i++)
        slices_of(c, s, i);
    for (int j = 0; j < c->n; j++)
        parity_of(c, s, j, s->parity[j]);
}

/* 1 if some lost member decodes from survivor j's solved slice */
static int solver(const spread_code_t *c, const int *lost, int j)
{
    unsigned char from[16];
    for (int a = 0; a < c->n; a++) {
        if (!lost[a])
            continue;
        spread_decode_senders(c, lost, a, from);
        if (from[j])
            return 1;
    }
    return 0;
}

/* the slices no lost member is sent (spread_decode_senders: as red_rs.c
 * sends them) are spoilt, so a decode that read one would fail; and each
 * lost member is sent exactly k, by survivors only.  0, or -1 */
static int spoil_unsent(const spread_code_t *c, const int *lost,
                        unsigned char got[][16][CH])
{
    unsigned char from[16];
    for (int a = 0; a < c->n; a++) {
        int sent = 0;
        if (lost[a])
            spread_decode_senders(c, lost, a, from);
        for (int j = 0; lost[a] && j < c->n; j++) {
            if (j == a || lost[j]) {
                if (from[j])
                    return diag("lost member %d decodes from lost member %d", a, j), -1;
                continue;
            }
            if (from[j])
                sent++;
            else
                memset(got[a][spread_slice_of(c, j, a)], 0xa5, CH);
        }
        if (lost[a] && sent != c->k)
            return diag("lost member %d is sent %d slices, not k = %d", a, sent, c->k),
                   -1;
    }
    return 0;
}

/* recover the lost members of w (chunks and parity wiped) */
static int recover(const spread_code_t *c, set_t *w, const int *lost)
{
    static unsigned char got[16][16][CH]; /* [lost member][slice number] */
    static unsigned char spoilt[CH];
    unsigned char skip[16];
    int nsolvers = 0;
    memset(spoilt, 0x5a, CH);
    spread_solve_skip(c, lost, skip);
    for (int j = 0; j < c->n; j++) {
        if (!lost[j] && skip[j] == solver(c, lost, j))
            return diag("member %d: skip flag %d disagrees", j, skip[j]), -1;
        nsolvers += !lost[j] && !skip[j];
    }
    for (int j = 0; j < c->n; j++) { /* survivors solve, from solvers' slices */
        if (lost[j] || skip[j])
            continue;
        spread_solve_t sv;
        if (spread_solve_plan(c, lost, skip, j, &sv) < 0)
            return -1;
        if (sv.npar > c->m || sv.nsrc != nsolvers - 1)
            return diag("member %d reads %d parity chunks and %d slices", j, sv.npar,
                        sv.nsrc),
                   -1;
        unsigned char *par[16], *by_d[16], *lost_by_d[16];
        for (int p = 0; p < c->m; p++)
            par[p] = w->parity[j][p];
        for (int d = 1; d < c->n; d++) {
            int i = mod(j - d, c->n);
            by_d[d] = lost[i] || skip[i] ? spoilt : w->slice[i][d - 1];
            lost_by_d[d] = got[i][d - 1];
        }
        spread_solve(&sv, CH, par, by_d, lost_by_d);
        spread_solve_free(&sv);
    }
    if (spoil_unsent(c, lost, got) < 0)
        return -1;
    for (int a = 0; a < c->n; a++) { /* the lost decode */
        if (!lost[a])
            continue;
        spread_decode_t dp;
        if (spread_decode_plan(c, lost, a, &dp) < 0)
            return -1;
        unsigned char *slice[16], *scratch[16], *chunk[16], tmp[16][CH];
        for (int u = 0; u < c->n - 1; u++)
            slice[u] = got[a][u];
        for (int y = 0; y < dp.ntargets; y++)
            scratch[y] = tmp[y];
        spread_decode(c, &dp, CH, slice, scratch, chunk);
        for (int q = 0; q < c->k; q++)
            memcpy(w->chunk[a][q], chunk[q], CH);
        spread_decode_free(&dp);
        slices_of(c, w, a);
    }
    for (int a = 0; a < c->n; a++) /* and encode their parity again */
        if (lost[a])
            parity_of(c, w, a, w->parity[a]);
    return 0;
}

static int check_all_losses(int n, int m)
{
    static set_t orig, work;
    spread_code_t c;
    if (spread_init(&c, n, m) < 0)
        return 0;
    memset(&orig, 0, sizeof(orig));
    for (int i = 0; i < n; i++)
        for (int q = 0; q < c.k; q++)
            for (int b = 0; b < CH; b++)
                orig.chunk[i][q][b] = (unsigned char)rand();
    encode(&c, &orig);
    int good = 1, lost[16];
    for (int mask = 1; mask < (1 << n) && good; mask++) {
        int count = __builtin_popcount((unsigned)mask);
        for (int i = 0; i < n; i++)
            lost[i] = (mask >> i) & 1;
        work = orig;
        for (int i = 0; i < n; i++)
            if (lost[i]) {
                memset(work.chunk[i], 0, sizeof(work.chunk[i]));
                memset(work.slice[i], 0, sizeof(work.slice[i]));
                memset(work.parity[i], 0, sizeof(work.parity[i]));
            }
        int rc = count < n ? recover(&c, &work, lost) : -1;
        if (count <= m)
            good = rc == 0 && memcmp(&work, &orig, sizeof(work)) == 0;
        else
            good = rc < 0;
        if (!good)
            diag("n=%d m=%d mask=0x%x: rc %d", n, m, mask, rc);
    }
    spread_free(&c);
    return good;
}

/* the slices of a member reach every other member exactly once */
static int check_numbering(int n, int m)
{
    spread_code_t c;
    if (spread_init(&c, n, m) < 0)
        return 0;
    int good = 1;
    for (int i = 0; i < n; i++) {
        int seen[16] = {0};
        for (int u = 0; u < n - 1; u++) {
            int j = spread_dest(&c, i, u);
            good = good && j != i && !seen[j] && spread_slice_of(&c, j, i) == u;
            seen[j] = 1;
        }
    }
    spread_free(&c);
    return good;
}

/* the largest m a plan holds: one more lost member than it can solve for
 * is refused (under UBSan's bounds check, before lost_d[32] is written) */
static int check_too_many(void)
{
    spread_code_t c;
    spread_solve_t sv;
    int lost[40] = {0};
    if (spread_init(&c, 40, 32) < 0)
        return 0;
    for (int i = 1; i <= 33; i++)
        lost[i] = 1;
    int rc = spread_solve_plan(&c, lost, NULL, 0, &sv);
    lost[33] = 0;
    int fits = spread_solve_plan(&c, lost, NULL, 0, &sv) == 0 && sv.nlost == 32;
    spread_solve_free(&sv);
    spread_free(&c);
    return rc < 0 && fits;
}

int main(void)
{
    srand(7);
    for (int n = 2; n <= 10; n++)
        for (int m = 1; m < n && m <= 4; m++) {
            ok(check_numbering(n, m), "n=%d m=%d: each slice to one other member", n, m);
            ok(check_all_losses(n, m), "n=%d m=%d: every loss of up to m rebuilt", n, m);
        }
    spread_code_t c;
    ok(check_too_many(), "m = 32: 33 lost refused before the plan's arrays overflow");
    ok(spread_init(&c, 4, 4) < 0, "m = n refused");
    ok(spread_init(&c, 1, 1) < 0, "a set of one refused");
    ok(spread_init(&c, 200, 60) < 0, "n + m over 256 refused");
    return done_testing();
}
