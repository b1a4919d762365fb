/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ecpipe.c - the XOR encode's pieces (ecpipe.h): ec_xor_slots equals
 * a byte-by-byte XOR for any slot count, skipped slot, length and
 * alignment, and writes nothing past len; ec_trade_at delivers slot r of
 * every member to member r from wherever each slot lies, in every pattern
 * the encode and recovery use (all to all, all to one, none).  Run under
 * mpirun with any number of processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecpipe.h"

static unsigned char pattern(int from, int to, int i)
{
    return (unsigned char)(from * 131 + to * 31 + i * 7 + (i >> 8));
}

/* ec_xor_slots against the obvious loop; 0 when all agree */
static int check_xor(void)
{
    static const int lens[] = {1, 63, 64, 65, 4096 + 7, 65536, 524288 + 24};
    int bad = 0;
    for (int n = 1; n <= 6; n++)
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
            for (int shift = 0; shift < 2; shift++) {
                int len = lens[l];
                /* shift 1: every slot and dst off the 32-byte alignment */
                unsigned char *src = malloc((size_t)n * (size_t)len + 64);
                unsigned char *dst = malloc((size_t)len + 64), *s = src + shift;
                for (size_t i = 0; i < (size_t)n * (size_t)len; i++)
                    s[i] = (unsigned char)rand();
                for (int skip = -1; skip < n; skip++) {
                    unsigned char *d = dst + shift * 3;
                    memset(dst, 0x5a, (size_t)len + 64);
                    ec_xor_slots(d, s, n, skip, len);
                    for (int i = 0; i < len && !bad; i++) {
                        unsigned char x = 0;
                        for (int r = 0; r < n; r++)
                            if (r != skip)
                                x ^= s[(size_t)r * (size_t)len + (size_t)i];
                        bad = d[i] != x;
                    }
                    bad = bad || d[len] != 0x5a;
                }
                free(src);
                free(dst);
            }
    return bad;
}

/* one ec_trade_at round: to[r] and from[r] as given by the rule */
static int check_trade(MPI_Comm comm, int rule, int len)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    unsigned char *pool = malloc((size_t)n * ((size_t)len + 8)), *at[256];
    unsigned char *in = malloc((size_t)n * (size_t)len);
    int to[256], from[256], bad = 0;
    memset(in, 0xee, (size_t)n * (size_t)len);
    for (int r = 0; r < n; r++) {
        /* slots in reverse order at odd offsets: nothing assumes a layout */
        at[r] = pool + (size_t)(n - 1 - r) * ((size_t)len + 8) + (size_t)(r % 8);
        for (int i = 0; i < len; i++)
            at[r][i] = pattern(me, r, i);
        int other = r != me;
        to[r] = other && (rule == 0 || (rule == 1 && r == 0));
        from[r] = other && (rule == 0 || (rule == 1 && me == 0));
    }
    ec_trade_at(comm, me, n, at, to, in, from, len);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < len && !bad; i++)
            bad = in[(size_t)r * (size_t)len + (size_t)i] !=
                  (from[r] ? pattern(r, me, i) : 0xee);
    free(pool);
    free(in);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, fails = 0, t = 0, any;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    srand(99 + (unsigned)me);
    int bad = check_xor();
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s - ec_xor_slots: every count, skip, length, alignment\n",
               any ? "not ok" : "ok");
    fails += any, t++;
    static const char *rules[] = {"all to all", "all to one", "nobody"};
    static const int lens[] = {1, 4099, 1 << 20};
    for (int rule = 0; rule < 3; rule++)
        for (int l = 0; l < 3; l++) {
            bad = check_trade(MPI_COMM_WORLD, rule, lens[l]);
            MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
            if (me == 0)
                printf("%s - ec_trade_at: %s, %d-byte slots\n", any ? "not ok" : "ok",
                       rules[rule], lens[l]);
            fails += any, t++;
        }
    if (me == 0)
        printf("# %d of %d passed\n", t - fails, t);
    MPI_Finalize();
    return fails ? 1 : 0;
}
