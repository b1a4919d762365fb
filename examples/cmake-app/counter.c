/* SPDX-License-Identifier: BSD-3-Clause */
/* counter.c - the smallest real SCR application, built against an installed
 * SCR by CMake (find_package(SCR), CMakeLists.txt here) or by pkg-config
 * (mpicc counter.c $(pkg-config --cflags --libs scr)).
 *
 * Each rank keeps a counter, advances it --steps times and checkpoints it
 * after every step through SCR (one small file per rank).  A run that finds
 * a checkpoint continues from it, so running it twice in the same job
 * (SCR_JOB_ID) counts on from where the first run stopped:
 *
 *   counter: rank 0: starting at 0
 *   counter: rank 0: reached 3
 *   counter: rank 0: restarted from ckpt.3 at 3
 *   counter: rank 0: reached 6
 *
 * Exits 0 when every checkpoint and restart went through.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scr.h>

static int rank;

static void die(const char *what, const char *name)
{
    fprintf(stderr, "counter: rank %d: %s %s\n", rank, what, name);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void file_name(char *buf, size_t len)
{
    snprintf(buf, len, "counter/rank_%d.txt", rank);
}

/* the counter of the newest checkpoint that reads back, or 0 */
static long restart(void)
{
    int have = 0;
    char dset[SCR_MAX_FILENAME], name[256], path[SCR_MAX_FILENAME];
    while (SCR_Have_restart(&have, dset) == SCR_SUCCESS && have) {
        long value = 0;
        if (SCR_Start_restart(dset) != SCR_SUCCESS)
            die("cannot start restart from", dset);
        file_name(name, sizeof(name));
        FILE *fp = SCR_Route_file(name, path) == SCR_SUCCESS ? fopen(path, "r") : NULL;
        int valid = fp && fscanf(fp, "%ld", &value) == 1;
        if (fp)
            fclose(fp);
        /* every rank must agree; SCR drops a dataset some rank calls bad */
        if (SCR_Complete_restart(valid) == SCR_SUCCESS) {
            if (rank == 0)
                printf("counter: rank 0: restarted from %s at %ld\n", dset, value);
            return value;
        }
        if (rank == 0)
            printf("counter: rank 0: %s did not read back, trying an older one\n", dset);
    }
    return 0;
}

static void checkpoint(long value)
{
    char dset[64], name[256], path[SCR_MAX_FILENAME];
    snprintf(dset, sizeof(dset), "ckpt.%ld", value);
    if (SCR_Start_output(dset, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS)
        die("cannot start checkpoint", dset);
    file_name(name, sizeof(name));
    if (SCR_Route_file(name, path) != SCR_SUCCESS)
        die("cannot route", name);
    FILE *fp = fopen(path, "w");
    int valid = fp && fprintf(fp, "%ld\n", value) > 0;
    if (fp && fclose(fp) != 0)
        valid = 0;
    if (SCR_Complete_output(valid) != SCR_SUCCESS || !valid)
        die("checkpoint failed:", path);
}

int main(int argc, char **argv)
{
    long steps = 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc == 3 && strcmp(argv[1], "--steps") == 0)
        steps = strtol(argv[2], NULL, 10);
    if (SCR_Init() != SCR_SUCCESS)
        die("SCR_Init failed", "");
    long value = restart();
    if (rank == 0 && value == 0)
        printf("counter: rank 0: starting at 0\n");
    for (long i = 0; i < steps; i++)
        checkpoint(++value);
    if (rank == 0)
        printf("counter: rank 0: reached %ld\n", value);
    SCR_Finalize();
    MPI_Finalize();
    return 0;
}
