/* SPDX-License-Identifier: BSD-3-Clause */
/* test_namejoin.c - namejoin_hits finds exactly the sets that name one of
 * some process's own names, wherever the names hash to (blanks in names,
 * sets held by one process, empty sets), and r2f_read_names spreads the
 * names of a tree written for 13 ranks over any number of processes: each
 * gets the ranks r % size == its rank, together every name once */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsindex.h"
#include "kvtree.h"
#include "namejoin.h"
#include "nameset.h"
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
        printf("1..11\n");
    test_hits();
    if (ok)
        test_read_names(dir);
    else
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
