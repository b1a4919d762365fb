/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ec.c - the erasure code without MPI: encode by summing every
 * process's contributions as the reduce-scatter does, lose up to m
 * processes, recover by summing the survivors' contributions, compare.
 * And the serial rebuild (ecfile.c): an RS set of spread.h's code rebuilt
 * from its files after every loss it survives, and headers that would make
 * it write outside the dataset or count files past an int refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32.h"
#include "ec.h"
#include "ec_file.h"
#include "ecfile.h"
#include "kvtree.h"
#include "spread.h"
#include "tap.h"
#include "testutil.h"

#define CH 97 /* chunk bytes: odd, to stay off any alignment */

/* sym[i][slot]: set rank i's chunks; slots 0..k-1 data, k..n-1 parity */
static unsigned char ***alloc_syms(int n)
{
    unsigned char ***sym = calloc((size_t)n, sizeof(*sym));
    for (int i = 0; i < n; i++) {
        sym[i] = calloc((size_t)n, sizeof(**sym));
        for (int sl = 0; sl < n; sl++)
            sym[i][sl] = calloc(CH, 1);
    }
    return sym;
}

static void free_syms(unsigned char ***sym, int n)
{
    for (int i = 0; i < n; i++) {
        for (int sl = 0; sl < n; sl++)
            free(sym[i][sl]);
        free(sym[i]);
    }
    free(sym);
}

static void encode(const ec_code_t *c, unsigned char ***sym)
{
    unsigned char *outs[32], prod[32][CH];
    for (int p = 0; p < c->m; p++)
        outs[p] = prod[p];
    for (int i = 0; i < c->n; i++)
        for (int p = 0; p < c->m; p++)
            memset(sym[i][c->k + p], 0, CH);
    for (int i = 0; i < c->n; i++) {
        for (int q = 0; q < c->k; q++) {
            int s, t;
            ec_slot_symbol(c, i, q, &s, &t);
            ec_encode_part(c, t, CH, sym[i][q], outs);
            for (int p = 0; p < c->m; p++) {
                int r = ec_holder(c, s, c->k + p);
                for (int b = 0; b < CH; b++)
                    sym[r][c->k + p][b] ^= prod[p][b];
            }
        }
    }
}

/* wipe lost ranks, rebuild them from the survivors */
static int recover(const ec_code_t *c, unsigned char ***sym, const int *lost)
{
    ec_plan_t plans[64];
    if (ec_plan_create(c, lost, plans) < 0)
        return -1;
    for (int i = 0; i < c->n; i++)
        if (lost[i])
            for (int sl = 0; sl < c->n; sl++)
                memset(sym[i][sl], 0, CH);
    unsigned char prod[32][CH], *outs[32];
    for (int x = 0; x < 32; x++)
        outs[x] = prod[x];
    for (int i = 0; i < c->n; i++) {
        if (lost[i])
            continue;
        for (int sl = 0; sl < c->n; sl++) {
            int s, t;
            ec_slot_symbol(c, i, sl, &s, &t);
            int u = ec_plan_chosen_index(c, &plans[s], t);
            if (u < 0)
                continue;
            ec_decode_part(&plans[s], u, CH, sym[i][sl], outs);
            for (int x = 0; x < plans[s].ntargets; x++) {
                int tt = plans[s].targets[x];
                int r = ec_holder(c, s, tt), slot = ec_symbol_slot(c, s, tt);
                for (int b = 0; b < CH; b++)
                    sym[r][slot][b] ^= prod[x][b];
            }
        }
    }
    ec_plan_free(c, plans);
    return 0;
}

static int same(unsigned char ***a, unsigned char ***b, int n)
{
    for (int i = 0; i < n; i++)
        for (int sl = 0; sl < n; sl++)
            if (memcmp(a[i][sl], b[i][sl], CH) != 0)
                return 0;
    return 1;
}

static void copy_syms(unsigned char ***dst, unsigned char ***src, int n)
{
    for (int i = 0; i < n; i++)
        for (int sl = 0; sl < n; sl++)
            memcpy(dst[i][sl], src[i][sl], CH);
}

/* every loss pattern of up to m ranks (n <= 10: at most 2^10 patterns) */
static int check_all_losses(int n, int m, int is_xor)
{
    ec_code_t c;
    if (ec_code_init(&c, n, m, is_xor) < 0)
        return 0;
    unsigned char ***orig = alloc_syms(n), ***work = alloc_syms(n);
    for (int i = 0; i < n; i++)
        for (int q = 0; q < c.k; q++)
            for (int b = 0; b < CH; b++)
                orig[i][q][b] = (unsigned char)rand();
    encode(&c, orig);
    int good = 1, lost[64];
    for (int mask = 1; mask < (1 << n) && good; mask++) {
        int count = __builtin_popcount((unsigned)mask);
        for (int i = 0; i < n; i++)
            lost[i] = (mask >> i) & 1;
        copy_syms(work, orig, n);
        int rc = recover(&c, work, lost);
        if (count <= m)
            good = rc == 0 && same(work, orig, n);
        else
            good = rc < 0;
        if (!good)
            diag("n=%d m=%d mask=0x%x failed", n, m, mask);
    }
    free_syms(orig, n);
    free_syms(work, n);
    ec_code_free(&c);
    return good;
}

/* dir/red0: member 0 of a 2-member XOR set with 8 parity bytes and a
 * header saying CHUNK chunk, member 1 global rank rank1 (NULL: none), its
 * CURRENT holding nfiles files and its PARTNER copy (member 1's list) one
 * file of size bytes at rel; member 1 is lost.  Returns the rebuild's
 * result. */
static int rebuild_set_group(const char *dir, const char *nfiles, const char *rel,
                             uint64_t size, uint64_t chunk, const char *rank1,
                             scr_error_t *err)
{
    kvtree_t *h = kvtree_new(), *set = kvtree_new(), *out = kvtree_new();
    char path[4200];
    kvtree_util_set_str(h, "TYPE", "XOR");
    kvtree_util_set_int(h, "FAILURES", 1);
    kvtree_util_set_u64(h, "CHUNK", chunk);
    kvtree_util_set_int(kvtree_set(h, "GROUP", NULL), "RANKS", 2);
    kvtree_setf(h, NULL, "GROUP RANK 0 0");
    kvtree_t *g1 = kvtree_setf(h, NULL, "GROUP RANK 1");
    if (rank1)
        kvtree_set(g1, rank1, NULL);
    kvtree_util_set_str(kvtree_set(h, "CURRENT", NULL), "FILES", nfiles);
    kvtree_t *p = kvtree_set(h, "PARTNER", NULL);
    kvtree_util_set_int(p, "FILES", 1);
    kvtree_t *f = kvtree_setf(p, NULL, "FILE 0");
    kvtree_util_set_str(f, "REL", rel);
    kvtree_util_set_u64(f, "SIZE", size);
    void *img;
    size_t len;
    kvtree_file_image(h, &img, &len);
    char *red = malloc(len + 8);
    memcpy(red, img, len);
    memset(red + len, 0x5a, 8); /* the parity chunk */
    snprintf(path, sizeof(path), "%s/red0", dir);
    tu_write(path, red, len + 8);
    kvtree_util_set_int(set, "MEMBERS", 2);
    kvtree_util_set_str(kvtree_setf(set, NULL, "MEMBER 0"), "FILE", path);
    int rc = ecfile_rebuild(dir, set, out, err);
    free(red);
    free(img);
    kvtree_delete(&h);
    kvtree_delete(&set);
    kvtree_delete(&out);
    return rc;
}

static int rebuild_set(const char *dir, const char *nfiles, const char *rel,
                       uint64_t size, uint64_t chunk, scr_error_t *err)
{
    return rebuild_set_group(dir, nfiles, rel, size, chunk, "1", err);
}

/* found writing and running fuzz_ecfile: a header's REL, FILES, SIZE,
 * CHUNK and GROUP were trusted */
static void test_rebuild_headers(void)
{
    char *top = tu_tmpdir(), dset[4200], victim[4200];
    scr_error_t err = {""};
    size_t len;
    snprintf(dset, sizeof(dset), "%s/dset", top);
    snprintf(victim, sizeof(victim), "%s/victim", top);
    mkdir(dset, 0700);
    tu_write(victim, "precious data", 13);
    ok(rebuild_set(dset, "0", "../victim", 8, 8, &err) < 0,
       "a lost member's file at ../victim: not rebuilt (%s)", err.text);
    char *v = tu_read(victim, &len);
    ok(v && len == 13 && memcmp(v, "precious data", 13) == 0,
       "the file next to the dataset is untouched");
    free(v);
    ok(rebuild_set(dset, "2147483647", "f", 8, 8, &err) < 0 &&
           rebuild_set(dset, "-3", "f", 8, 8, &err) < 0,
       "FILES 2147483647 or -3 with no such files listed: refused");
    /* a lost file of 1 TB (sparse) took an hour to check its CRC32 */
    ok(rebuild_set(dset, "0", "f", 1ULL << 40, 8, &err) < 0,
       "a lost file larger than its chunks: refused (%s)", err.text);
    ok(rebuild_set(dset, "0", "f", 8, 1ULL << 40, &err) < 0,
       "a CHUNK larger than the parity file holds: refused (%s)", err.text);
    ok(rebuild_set_group(dset, "0", "f", 8, 8, NULL, &err) < 0,
       "a set member without its global rank: refused (%s)", err.text);
    ok(rebuild_set(dset, "0", "sub/f", 8, 8, &err) == 1,
       "the same set with a file inside the dataset rebuilds (%s)", err.text);

    tu_rmrf(top);
    free(top);
}

/* a file list of a 3-member XOR set's header: n files of 8 bytes */
static void put_list(kvtree_t *list, const char **rels, int n)
{
    kvtree_util_set_int(list, "FILES", n);
    for (int i = 0; i < n; i++) {
        kvtree_t *f = kvtree_setf(list, NULL, "FILE %d", i);
        kvtree_util_set_str(f, "REL", rels[i]);
        kvtree_util_set_u64(f, "SIZE", 8);
    }
}

/* dir/red<s>: member s of the set, its own list and its left neighbour's */
static void put_red3(const char *dir, int s, const char **mine, int nmine,
                     const char **left, int nleft, kvtree_t *set)
{
    kvtree_t *h = kvtree_new();
    kvtree_util_set_str(h, "TYPE", "XOR");
    kvtree_util_set_int(h, "FAILURES", 1);
    kvtree_util_set_u64(h, "CHUNK", 8);
    kvtree_util_set_int(kvtree_set(h, "GROUP", NULL), "RANKS", 3);
    for (int r = 0; r < 3; r++)
        kvtree_setf(h, NULL, "GROUP RANK %d %d", r, r);
    put_list(kvtree_set(h, "CURRENT", NULL), mine, nmine);
    put_list(kvtree_set(h, "PARTNER", NULL), left, nleft);
    void *img;
    size_t len;
    kvtree_file_image(h, &img, &len);
    char *red = malloc(len + 8), path[4200];
    memcpy(red, img, len);
    memset(red + len, 0x5a, 8);
    snprintf(path, sizeof(path), "%s/red%d", dir, s);
    tu_write(path, red, len + 8);
    kvtree_util_set_str(kvtree_setf(set, NULL, "MEMBER %d", s), "FILE", path);
    free(red);
    free(img);
    kvtree_delete(&h);
}

/* found by the fuzzing: a member counted lost for one bad file had its
 * good files created afresh (cut to nothing) before the rebuild knew the
 * set was beyond repair.  Member 0 has a good file and one of the wrong
 * size, member 1 is whole, member 2 is gone: two lost, one too many. */
static void test_rebuild_keeps_survivors(void)
{
    char *top = tu_tmpdir(), path[4300];
    const char *l0[] = {"good", "bad"}, *l1[] = {"m1"}, *l2[] = {"z2"};
    kvtree_t *set = kvtree_new(), *out = kvtree_new();
    kvtree_util_set_int(set, "MEMBERS", 3);
    put_red3(top, 0, l0, 2, l2, 1, set);
    put_red3(top, 1, l1, 1, l0, 2, set);
    snprintf(path, sizeof(path), "%s/good", top);
    tu_write(path, "GOODGOOD", 8);
    snprintf(path, sizeof(path), "%s/bad", top);
    tu_write(path, "BAD", 3);
    snprintf(path, sizeof(path), "%s/m1", top);
    tu_write(path, "member-1", 8);
    scr_error_t err = {""};
    ok(ecfile_rebuild(top, set, out, &err) < 0,
       "two of three XOR members lost: refused (%s)", err.text);
    size_t len;
    snprintf(path, sizeof(path), "%s/good", top);
    char *v = tu_read(path, &len);
    ok(v && len == 8 && memcmp(v, "GOODGOOD", 8) == 0,
       "member 0's good file is left as it was");
    free(v);
    snprintf(path, sizeof(path), "%s/bad", top);
    v = tu_read(path, &len);
    ok(v && len == 3, "and so is its bad one");
    free(v);
    struct stat st;
    snprintf(path, sizeof(path), "%s/z2", top);
    ok(stat(path, &st) < 0, "member 2's file is not created");
    kvtree_delete(&set);
    kvtree_delete(&out);
    tu_rmrf(top);
    free(top);
}

/* ---- an RS set of spread.h on disk, rebuilt by ecfile.c ---- */

#define SP_N 4
#define SP_M 2
#define SP_C 24 /* CHUNK: the largest file, 40 bytes, over k = 2, in words */

static const int sp_size[SP_N] = {40, 33, 0, 25};

/* member s's file list, as CURRENT and its neighbours' PARTNER(S) hold it */
static void sp_list(kvtree_t *list, int s, unsigned char data[][SP_N * SP_C])
{
    char rel[16];
    snprintf(rel, sizeof(rel), "m%d", s);
    kvtree_util_set_int(list, "FILES", 1);
    kvtree_t *f = kvtree_setf(list, NULL, "FILE 0");
    kvtree_util_set_str(f, "REL", rel);
    kvtree_util_set_u64(f, "SIZE", (uint64_t)sp_size[s]);
    kvtree_util_set_crc32(f, "CRC", crc32_update(0, data[s], (size_t)sp_size[s]));
}

/* every member's parity, as the encode of red_rs.c computes it */
static void sp_parity(const spread_code_t *c, unsigned char data[][SP_N * SP_C],
                      unsigned char par[][SP_M * SP_C])
{
    unsigned char sl[SP_N][SP_N - 1][SP_C];
    for (int i = 0; i < SP_N; i++) {
        unsigned char *in[SP_N], *out[SP_M];
        for (int q = 0; q < c->k; q++) {
            memcpy(sl[i][q], data[i] + q * SP_C, SP_C);
            in[q] = sl[i][q];
        }
        for (int x = 0; x < SP_M - 1; x++)
            out[x] = sl[i][c->k + x];
        spread_inner(c, SP_C, in, out);
    }
    for (int j = 0; j < SP_N; j++) {
        unsigned char *in[SP_N], *out[SP_M];
        for (int d = 1; d < SP_N; d++)
            in[d - 1] = sl[(j + SP_N - d) % SP_N][d - 1];
        for (int p = 0; p < SP_M; p++)
            out[p] = par[j] + p * SP_C;
        spread_outer(c, SP_C, in, out);
    }
}

/* the set's files in dir; set gets MEMBERS and each MEMBER's FILE */
static void sp_write_set(const char *dir, unsigned char data[][SP_N * SP_C],
                         unsigned char par[][SP_M * SP_C], kvtree_t *set)
{
    kvtree_util_set_int(set, "MEMBERS", SP_N);
    for (int s = 0; s < SP_N; s++) {
        kvtree_t *h = kvtree_new();
        kvtree_util_set_str(h, "TYPE", "RS");
        kvtree_util_set_str(h, "CODE", EC_CODE_SPREAD);
        kvtree_util_set_int(h, "FAILURES", SP_M);
        kvtree_util_set_u64(h, "CHUNK", SP_C);
        kvtree_util_set_int(kvtree_set(h, "GROUP", NULL), "RANKS", SP_N);
        for (int r = 0; r < SP_N; r++)
            kvtree_setf(h, NULL, "GROUP RANK %d %d", r, 10 + r);
        sp_list(kvtree_set(h, "CURRENT", NULL), s, data);
        sp_list(kvtree_set(h, "PARTNER", NULL), (s + SP_N - 1) % SP_N, data);
        sp_list(kvtree_setf(h, NULL, "PARTNERS 2"), (s + SP_N - 2) % SP_N, data);
        void *img;
        size_t len;
        kvtree_file_image(h, &img, &len);
        char *red = malloc(len + sizeof(par[s])), path[4200];
        memcpy(red, img, len);
        memcpy(red + len, par[s], sizeof(par[s]));
        snprintf(path, sizeof(path), "%s/red%d", dir, s);
        tu_write(path, red, len + sizeof(par[s]));
        kvtree_util_set_str(kvtree_setf(set, NULL, "MEMBER %d", s), "FILE", path);
        snprintf(path, sizeof(path), "%s/m%d", dir, s);
        tu_write(path, data[s], (size_t)sp_size[s]);
        free(red);
        free(img);
        kvtree_delete(&h);
    }
}

/* members in mask lose their redundancy and application files; rebuild */
static int sp_rebuild(const char *dir, int mask, unsigned char data[][SP_N * SP_C],
                      unsigned char par[][SP_M * SP_C], scr_error_t *err)
{
    kvtree_t *set = kvtree_new(), *out = kvtree_new();
    char path[4200];
    sp_write_set(dir, data, par, set);
    for (int s = 0; s < SP_N; s++)
        if (mask >> s & 1) {
            snprintf(path, sizeof(path), "%s/red%d", dir, s);
            unlink(path);
            snprintf(path, sizeof(path), "%s/m%d", dir, s);
            unlink(path);
        }
    /* -1: refused; -2: claimed rebuilt with a byte wrong */
    int rc = ecfile_rebuild(dir, set, out, err), good = 1;
    for (int s = 0; rc >= 0 && good && s < SP_N; s++) {
        size_t len;
        snprintf(path, sizeof(path), "%s/m%d", dir, s);
        char *v = tu_read(path, &len);
        good = v && len == (size_t)sp_size[s] && memcmp(v, data[s], len) == 0;
        if (mask >> s & 1)
            good = good && kvtree_getf(out, "RANK %d FILE m%d", 10 + s, s);
        free(v);
    }
    kvtree_delete(&set);
    kvtree_delete(&out);
    return good ? rc : -2;
}

static void test_spread_rebuild(void)
{
    static unsigned char data[SP_N][SP_N * SP_C], par[SP_N][SP_M * SP_C];
    spread_code_t c;
    spread_init(&c, SP_N, SP_M);
    for (int s = 0; s < SP_N; s++)
        for (int b = 0; b < sp_size[s]; b++)
            data[s][b] = (unsigned char)rand();
    sp_parity(&c, data, par);
    char *top = tu_tmpdir();
    scr_error_t err = {""};
    int good = 1;
    for (int mask = 1; mask < (1 << SP_N); mask++) {
        int lost = __builtin_popcount((unsigned)mask);
        int rc = sp_rebuild(top, mask, data, par, &err);
        if (lost <= SP_M ? rc != lost : rc != -1) {
            diag("lost 0x%x: rebuild returned %d (%s)", mask, rc, err.text);
            good = 0;
        }
    }
    ok(good, "RS n=4 m=2 on disk: every loss of 1 or 2 rebuilt byte for byte, 3 or 4 "
             "refused");
    /* member 0's first parity holds what member 1 sent it; with 1 and 2
     * lost, 1's chunks come from the slices at 3 and 0 */
    par[0][0] ^= 1;
    ok(sp_rebuild(top, 0x6, data, par, &err) == -1 && strstr(err.text, "CRC32"),
       "a flipped parity byte: caught by the rebuilt file's CRC32 (%s)", err.text);
    tu_rmrf(top);
    free(top);
    spread_free(&c);
}

int main(void)
{
    srand(7);
    ec_code_t c;
    ok(ec_code_init(&c, 4, 1, 1) == 0, "XOR code n=4");
    int seen[4][4] = {{0}};
    for (int i = 0; i < 4; i++)
        for (int sl = 0; sl < 4; sl++) {
            int s, t;
            ec_slot_symbol(&c, i, sl, &s, &t);
            seen[s][t]++;
            if (ec_holder(&c, s, t) != i || ec_symbol_slot(&c, s, t) != sl)
                seen[s][t] += 100;
        }
    int layout = 1;
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++)
            layout &= seen[s][t] == 1;
    ok(layout, "every symbol of every stripe has exactly one holder, slots invert");
    ec_code_free(&c);
    ok(ec_code_init(&c, 3, 3, 0) < 0 && ec_code_init(&c, 1, 1, 1) < 0,
       "bad n/m rejected");

    ok(check_all_losses(2, 1, 1), "XOR n=2 (mirror): every loss pattern");
    ok(check_all_losses(4, 1, 1), "XOR n=4: every loss pattern");
    ok(check_all_losses(8, 1, 1), "XOR n=8: every loss pattern");
    ok(check_all_losses(4, 2, 0), "RS n=4 m=2: every loss pattern");
    ok(check_all_losses(8, 2, 0), "RS n=8 m=2: every loss pattern");
    ok(check_all_losses(9, 3, 0), "RS n=9 m=3: every loss pattern");
    ok(check_all_losses(5, 1, 0), "RS n=5 m=1: every loss pattern");
    test_spread_rebuild();
    test_rebuild_headers();
    test_rebuild_keeps_survivors();
    return done_testing();
}
