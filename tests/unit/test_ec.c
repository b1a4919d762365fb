/* test_ec.c - the erasure code without MPI: encode by summing every
 * process's contributions as the reduce-scatter does, lose up to m
 * processes, recover by summing the survivors' contributions, compare.
 * And the serial rebuild (ecfile.c) refusing redundancy headers that would
 * make it write outside the dataset or count files past an int. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ec.h"
#include "ecfile.h"
#include "kvtree.h"
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
    test_rebuild_headers();
    test_rebuild_keeps_survivors();
    return done_testing();
}
