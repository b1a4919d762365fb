/* SPDX-License-Identifier: BSD-3-Clause */
/* spread.h - the Reed-Solomon code of RS sets, laid out so that the encode
 * sends each member's bytes (n - 1) / (n - m) times and no more.
 *
 * A set of n members tolerating m losses (k = n - m) cuts each member's
 * logical file into k chunks of c bytes, as ec.h does.  Here a member i
 * encodes its own chunks locally into n - 1 slices with an (n - 1, k) MDS
 * code: slices 0..k-1 are the chunks themselves, slices k..n-2 are Cauchy
 * combinations of them, and any k slices give the chunks back.  Slice u goes
 * to member i + 1 + u (mod n), so every other member gets exactly one slice
 * of every member.  Member j keeps m parity chunks: Cauchy combinations of
 * the n - 1 slices it received (the slice from member j - d is input d - 1).
 *
 * Why it survives any m losses L: a surviving member j knows every slice it
 * got from a survivor (the survivor can send it again), so its m parity
 * chunks are m equations in the |L| <= m slices it got from the lost
 * members; any square part of a Cauchy matrix is invertible, so it solves
 * them.  A lost member then holds slices from its n - |L| >= k surviving
 * receivers and decodes its chunks; its own parity is encoded again from the
 * slices everyone sends it.
 *
 * Compared with the stripes of ec.h, whose parity needs every data chunk of
 * a stripe combined on its way to the holder (a reduce-scatter that sends
 * m (n - 1) / k chunks per member), a member here sends its (n - 1) slices
 * once: 7/6 of its checkpoint for n = 8, m = 2, against 7/3.  Storage is the
 * same m chunks per member.  ISA-L does the arithmetic.
 */
#ifndef SCR_SPREAD_H
#define SCR_SPREAD_H

typedef struct {
    int n, m, k;
    unsigned char *inner;      /* n-1 x k: identity, then m-1 Cauchy rows */
    unsigned char *inner_tbls; /* ISA-L tables of the m-1 Cauchy rows */
    unsigned char *outer;      /* m x n-1: parity from the received slices */
    unsigned char *outer_tbls;
} spread_code_t;

/* what a surviving member j computes in a recovery: the slices it got
 * from the lost members, from its first nlost parity chunks and the slices
 * of the survivors.  Members are named by their distance d = j - i (mod n):
 * the slice from member j - d is input d - 1 of the outer code. */
typedef struct {
    int nlost;
    int npar;       /* parity chunks it reads: nlost + the skipped survivors */
    int lost_d[32]; /* the lost members' distances, then the skipped ones' */
    int nsrc;       /* surviving inputs it receives */
    int src_d[255]; /* their distances, increasing */
    unsigned char *tbls;
} spread_solve_t;

/* what a lost member computes: its k chunks from k of the slices it got
 * (chosen[x], slice numbers, increasing); chunks among them are the slices
 * themselves, the others (targets) products */
typedef struct {
    int chosen[255];
    int ntargets;
    int targets[255]; /* chunk numbers */
    unsigned char *tbls;
} spread_decode_t;

int spread_init(spread_code_t *c, int n, int m);
void spread_free(spread_code_t *c);

/* member that receives slice u of member i */
int spread_dest(const spread_code_t *c, int i, int u);
/* slice number member j gets from member i (i != j): d - 1, d = j - i mod n */
int spread_slice_of(const spread_code_t *c, int j, int i);

/* slices k..n-2 (outs[0..m-2]) from the k chunks, len bytes each */
void spread_inner(const spread_code_t *c, int len, unsigned char **chunks,
                  unsigned char **outs);
/* m parity chunks from the n-1 received slices, in[d-1] from member j-d */
void spread_outer(const spread_code_t *c, int len, unsigned char **in,
                  unsigned char **outs);

/* plan for surviving member j given lost[] flags (1..m set, j not lost)
 * and skip[] (n flags, or NULL): survivors whose slices j does without,
 * solving for them too (it has m equations, so lost and skipped together
 * may be up to m); -1 when they are more or memory runs out */
int spread_solve_plan(const spread_code_t *c, const int *lost, const unsigned char *skip,
                      int j, spread_solve_t *s);
/* parity[p]: j's parity chunks (the first npar are read); by_d[d]: the
 * slice j got from member j - d (the sources' are read); the slice each
 * lost member had sent is written to lost_by_d[d] (nothing for the
 * skipped) */
void spread_solve(const spread_solve_t *s, int len, unsigned char **parity,
                  unsigned char **by_d, unsigned char **lost_by_d);
void spread_solve_free(spread_solve_t *s);

/* plan for lost member a given lost[] flags: which slices to use */
int spread_decode_plan(const spread_code_t *c, const int *lost, int a,
                       spread_decode_t *d);
/* from[j] (n flags) = 1 if that plan uses the slice member j got from a
 * (so j must solve for it), else 0: with fewer than m members lost, k of
 * the n - |L| survivors' slices are enough, and the others need not solve
 * nor be sent to */
void spread_decode_senders(const spread_code_t *c, const int *lost, int a,
                           unsigned char *from);
/* skip[r] (n flags) = 1 for a survivor no lost member decodes from.  The
 * survivors that solve (the others) are at least k, so these are at most
 * m - |L|: a solver can treat them as unknowns beside the lost ones and
 * take slices from the other solvers only (spread_solve_plan's skip) */
void spread_solve_skip(const spread_code_t *c, const int *lost, unsigned char *skip);
/* slice[u]: slice u of the lost member (the chosen ones are read);
 * scratch[y]: room for target y.  chunk[q] is set to where chunk q is:
 * its slice, or the scratch its product was written to. */
void spread_decode(const spread_code_t *c, const spread_decode_t *d, int len,
                   unsigned char **slice, unsigned char **scratch, unsigned char **chunk);
void spread_decode_free(spread_decode_t *d);

#endif
