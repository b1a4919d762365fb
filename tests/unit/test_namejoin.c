/* SPDX-License-Identifier: BSD-3-Clause */
/* test_namejoin.c - namejoin_hits finds exactly the sets that name one of
 * some process's own names, wherever the names hash to (blanks in names,
 * sets held by one process, empty sets), and r2f_read_names spreads the
 * names of a tree written for 13 ranks over any number of processes: each
 * gets the ranks r % size == its rank, together every name once; a process
 * of 15,000 files (an entry over 1 MiB) gets a file of the tree to itself,
 * every other file stays within 1 MiB, and the tree reads back whole */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsindex.h"
#include "kvtree.h"
#include "namejoin.h"
#include "nameset.h"
#include "r2f.h"
#include "r2f_mpi.h"

#define TREE_RANKS 13
#define TREE_FILES 3

static int rank, size, bad;

static void check(int ok, const char *what)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    static int n;
    n++;
    if (rank == 0)
        printf("%s %d - %s (%d processes)\n", all ? "ok" : "not ok", n, what, size);
    bad += !all;
}

static void test_hits(void)
{
    kvtree_t *mine = kvtree_new(), *sets[4];
    for (int i = 0; i < 4; i++)
        sets[i] = kvtree_new();
    kvtree_setf(mine, NULL, "ckpt/rank_%d.dat", rank);
    if (rank == 0)
        kvtree_set(mine, "a b/c d.dat", NULL);
    /* 0: another process's own name; 1: nobody's; 2: the blank name, held
     * by the last process only; 3: empty everywhere */
    kvtree_setf(sets[0], NULL, "ckpt/rank_%d.dat", (rank + 1) % size);
    kvtree_setf(sets[1], NULL, "other/rank_%d.dat", rank);
    if (rank == size - 1)
        kvtree_set(sets[2], "a b/c d.dat", NULL);
    int hit[4] = {-1, -1, -1, -1};
    int rc = namejoin_hits(MPI_COMM_WORLD, mine, sets, 4, hit);
    check(rc == 0, "namejoin_hits returns 0");
    check(hit[0] == 1, "a set naming another process's file is hit");
    check(hit[1] == 0, "a set naming nobody's file is not");
    check(hit[2] == 1, "a name with blanks, held by one process, is found");
    check(hit[3] == 0, "an empty set is not hit");
    int o = nameset_owner("ckpt/rank_7.dat", size);
    check(o >= 0 && o < size && o == nameset_owner("ckpt/rank_7.dat", size),
          "nameset_owner is in range and the same every time");
    kvtree_delete(&mine);
    for (int i = 0; i < 4; i++)
        kvtree_delete(&sets[i]);
}

static void test_read_names(const char *dir)
{
    int ok = 1;
    if (rank == 0) {
        kvtree_t *files = kvtree_new();
        for (int r = 0; r < TREE_RANKS; r++)
            for (int f = 0; f < TREE_FILES; f++) {
                kvtree_t *m =
                    kvtree_setf(files, NULL, "RANK %d FILE r%d/f_%d.dat", r, r, f);
                kvtree_util_set_u64(m, "SIZE", (uint64_t)(r * 10 + f));
            }
        scr_error_t err;
        ok = dsindex_write_r2f(dir, TREE_RANKS, files, &err) == 0;
        if (!ok)
            fprintf(stderr, "dsindex_write_r2f: %s\n", err.text);
        kvtree_delete(&files);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    check(ok, "a tree of 13 ranks written");
    kvtree_t *names = kvtree_new();
    scr_error_t err;
    check(r2f_read_names(MPI_COMM_WORLD, dir, names, &err) == 0,
          "r2f_read_names reads it");
    int count = kvtree_size(names), total = 0, mine = 1;
    for (int r = 0; r < TREE_RANKS; r++)
        for (int f = 0; f < TREE_FILES; f++) {
            char rel[64];
            snprintf(rel, sizeof(rel), "r%d/f_%d.dat", r, f);
            if ((kvtree_get(names, rel) != NULL) != (r % size == rank))
                mine = 0;
        }
    MPI_Allreduce(&count, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(mine, "each process has the names of ranks r % size == its rank");
    check(total == TREE_RANKS * TREE_FILES, "together every name once");
    kvtree_t *tree = kvtree_new();
    int strict = r2f_read_tree(MPI_COMM_WORLD, dir, tree, NULL);
    check(size >= TREE_RANKS ? strict == 0 : strict < 0,
          "r2f_read_tree still refuses a tree of more ranks than the job");
    kvtree_delete(&tree);
    kvtree_delete(&names);
}

/* one process with thousands of files: its entry alone is over R2F_LIMIT */
static void test_big_entry(const char *dir)
{
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/big", dir);
    if (rank == 0) {
        char cmd[200];
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.scr'", sub);
        if (system(cmd) != 0)
            bad++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int nf = rank == size / 2 ? 15000 : 3;
    kvtree_t *files = kvtree_new(), *got = kvtree_new();
    for (int f = 0; f < nf; f++) {
        kvtree_t *m = kvtree_setf(
            files, NULL, "output/step_100/field_%d/rank_%d_part_%d.h5", f % 7, rank, f);
        kvtree_util_set_u64(m, "SIZE", (uint64_t)(1000 + f));
        kvtree_util_set_crc32(m, "CRC", 0x1234u + (uint32_t)f);
    }
    scr_error_t err = {""};
    check(r2f_write_tree(MPI_COMM_WORLD, sub, files, &err) == 0,
          "a tree with one process of 15,000 files written");
    check(r2f_read_tree(MPI_COMM_WORLD, sub, got, &err) == 0 && kvtree_size(got) == nf &&
              kvtree_getf(got, "output/step_100/field_%d/rank_%d_part_%d.h5 SIZE %d",
                          (nf - 1) % 7, rank, nf - 1, 1000 + nf - 1),
          "it reads back: every process its own files");
    /* the files over the limit hold one rank each */
    int over = 0, shared_over = 0;
    if (rank == 0) {
        for (int w = 0; w < size; w++) {
            char rel[256];
            struct stat st;
            snprintf(rel, sizeof(rel), "%s/.scr/rank2file.0.%d.scr", sub, w);
            if (stat(rel, &st) == 0 && st.st_size > R2F_LIMIT) {
                over++;
                shared_over += w != size / 2;
            }
        }
    }
    MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&shared_over, 1, MPI_INT, 0, MPI_COMM_WORLD);
    check(over == 1 && shared_over == 0,
          "only the big process's own file is over 1 MiB, written by it alone");
    kvtree_delete(&files);
    kvtree_delete(&got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char dir[64] = "/tmp/test_namejoin.XXXXXX", cmd[160];
    int ok = 1;
    if (rank == 0) {
        ok = mkdtemp(dir) != NULL;
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.scr'", dir);
        ok = ok && system(cmd) == 0;
    }
    MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("1..14\n");
    test_hits();
    if (ok) {
        test_read_names(dir);
        test_big_entry(dir);
    } else
        check(0, "a scratch directory");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            bad++;
    }
    MPI_Finalize();
    return bad ? 1 : 0;
}
