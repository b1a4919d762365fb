/* SPDX-License-Identifier: BSD-3-Clause */
/* reshape.c - an SCR 3.1 style application for the tests of files at their
 * own paths, shared files and restarts on another number of ranks.
 *
 * A global array of --total doubles, value(i, step) = i + step * 1e6, is
 * spread over the ranks in blocks.  Every --every steps it checkpoints
 * "ckpt.<step>": rank 0 writes ckpt.<step>/meta ("ranks N total T"), and the
 * data goes, by --mode,
 *   fpp    one file per rank, ckpt.<step>/part_<r>.dat (first index, count,
 *          values)
 *   posix  one file every rank writes its block of with pwrite,
 *          ckpt.<step>/data.bin
 *   mpiio  the same file through MPI_File_write_at_all
 *   hdf5   a parallel HDF5 file ckpt.<step>/data.h5, dataset "x" (only when
 *          built with HDF5)
 * A restart reads the block of each rank of this job, whatever number of
 * ranks wrote it, and checks every value:
 *   through SCR's restart API (SCR_Have_restart, SCR_Start_restart,
 *   SCR_Route_file for any file, SCR_Complete_restart), or
 *   with --read-step S straight from the prefix with POSIX / MPI-IO / HDF5,
 *   then SCR_Current("ckpt.S"), as SCR 3.1's "restart without SCR" does.
 *
 *   --steps N --every K --total T --mode M --expect-restart S (0: none)
 *   --die-after S (every rank exits at once after checkpoint S completes)
 *   --probe A,B,... (in a restart through SCR's API, rank 0 routes
 *   ckpt.<step>/A, ... and says which were routed: files the dataset did
 *   not write)
 *   --delete NAME (after the restart, SCR_Delete(NAME))
 *
 * Lines the tests look for start with "reshape:".  Exits 0 when it reached
 * --steps with every check passed.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef SCR_TEST_HDF5
#include <hdf5.h>
#endif

#include "scr.h"

static struct {
    int rank, ranks, steps, every, expect, read_step, die_after;
    long total;
    const char *mode, *probe, *delete_name;
} app = {.steps = 6,
         .every = 2,
         .expect = -1,
         .read_step = -1,
         .die_after = -1,
         .total = 100000,
         .mode = "fpp"};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "reshape: rank %d: %s %s\n", app.rank, what, path ? path : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* this rank's block of the array among ranks: [*first, *first + *count) */
static void block(int rank, int ranks, long *first, long *count)
{
    long base = app.total / ranks, extra = app.total % ranks;
    *first = rank * base + (rank < extra ? rank : extra);
    *count = base + (rank < extra);
}

static double value(long i, int step)
{
    return (double)i + step * 1e6;
}

static void route(const char *name, char *path)
{
    if (SCR_Route_file(name, path) != SCR_SUCCESS)
        die("cannot route", name);
}

static void write_all(int fd, const void *buf, size_t n, off_t off, const char *path)
{
    if (pwrite(fd, buf, n, off) != (ssize_t)n)
        die("cannot write", path);
}

static void read_all(int fd, void *buf, size_t n, off_t off, const char *path)
{
    if (pread(fd, buf, n, off) != (ssize_t)n)
        die("cannot read", path);
}

/* write this rank's block of step's data to the routed file */
static void write_data(int step, const char *file, const double *v, long first,
                       long count)
{
    if (!strcmp(app.mode, "fpp") || !strcmp(app.mode, "posix")) {
        int fd = open(file, O_WRONLY | O_CREAT, 0644);
        if (fd < 0)
            die("cannot open", file);
        int64_t head[2] = {first, count};
        off_t at = 0;
        if (!strcmp(app.mode, "fpp"))
            write_all(fd, head, sizeof(head), 0, file), at = sizeof(head);
        else
            at = (off_t)first * 8;
        write_all(fd, v, (size_t)count * 8, at, file);
        if (fsync(fd) < 0 || close(fd) < 0)
            die("cannot close", file);
    } else if (!strcmp(app.mode, "mpiio")) {
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                          MPI_INFO_NULL, &fh) != MPI_SUCCESS)
            die("MPI_File_open", file);
        MPI_File_write_at_all(fh, first * 8, v, (int)count, MPI_DOUBLE,
                              MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }
#ifdef SCR_TEST_HDF5
    else if (!strcmp(app.mode, "hdf5")) {
        hid_t fa = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fa, MPI_COMM_WORLD, MPI_INFO_NULL);
        hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fa);
        hsize_t dims[1] = {(hsize_t)app.total}, off[1] = {(hsize_t)first},
                cnt[1] = {(hsize_t)count};
        hid_t space = H5Screate_simple(1, dims, NULL);
        hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        hid_t mem = H5Screate_simple(1, cnt, NULL);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, off, NULL, cnt, NULL);
        hid_t x = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
        if (f < 0 || d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, space, x, v) < 0)
            die("HDF5 write", file);
        H5Pclose(x), H5Sclose(mem), H5Dclose(d), H5Sclose(space), H5Fclose(f);
        H5Pclose(fa);
    }
#endif
    else
        die("unknown --mode", app.mode);
    (void)step;
}

static const char *data_name(void)
{
    return !strcmp(app.mode, "mpiio")  ? "data.bin"
           : !strcmp(app.mode, "hdf5") ? "data.h5"
                                       : "data.bin";
}

static void checkpoint(int step)
{
    char name[64], rel[128], path[SCR_MAX_FILENAME];
    long first, count;
    block(app.rank, app.ranks, &first, &count);
    double *v = malloc((size_t)(count ? count : 1) * 8);
    for (long i = 0; i < count; i++)
        v[i] = value(first + i, step);
    snprintf(name, sizeof(name), "ckpt.%d", step);
    if (SCR_Start_output(name, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS)
        die("SCR_Start_output", name);
    if (app.rank == 0) {
        snprintf(rel, sizeof(rel), "%s/meta", name);
        route(rel, path);
        FILE *f = fopen(path, "w");
        if (!f || fprintf(f, "ranks %d total %ld\n", app.ranks, app.total) < 0 ||
            fclose(f) != 0)
            die("cannot write", path);
    }
    if (!strcmp(app.mode, "fpp"))
        snprintf(rel, sizeof(rel), "%s/part_%d.dat", name, app.rank);
    else
        snprintf(rel, sizeof(rel), "%s/%s", name, data_name());
    route(rel, path);
    write_data(step, path, v, first, count);
    free(v);
    int rc = SCR_Complete_output(1);
    if (app.rank == 0)
        printf("reshape: checkpoint %s %s\n", name,
               rc == SCR_SUCCESS ? "done" : "FAILED");
    if (rc != SCR_SUCCESS)
        die("SCR_Complete_output", name);
    if (step == app.die_after)
        _exit(9);
}

/* the path of rel of checkpoint step: routed, or (read_step) on the prefix */
static void locate(int step, const char *file, char *path)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "ckpt.%d/%s", step, file);
    if (app.read_step >= 0)
        snprintf(path, SCR_MAX_FILENAME, "%s", rel); /* the current directory */
    else
        route(rel, path);
}

/* fpp: the values [first, first + count) from the parts of writers ranks */
static void read_parts(int step, int writers, long first, long count, double *v)
{
    for (int q = 0; q < writers; q++) {
        long qf, qc;
        block(q, writers, &qf, &qc);
        long lo = qf > first ? qf : first,
             hi = qf + qc < first + count ? qf + qc : first + count;
        if (lo >= hi)
            continue;
        char file[64], path[SCR_MAX_FILENAME];
        snprintf(file, sizeof(file), "part_%d.dat", q);
        locate(step, file, path);
        int fd = open(path, O_RDONLY);
        int64_t head[2];
        if (fd < 0)
            die("cannot open", path);
        read_all(fd, head, sizeof(head), 0, path);
        if (head[0] != qf || head[1] != qc)
            die("wrong header in", path);
        read_all(fd, v + (lo - first), (size_t)(hi - lo) * 8,
                 (off_t)(sizeof(head) + (size_t)(lo - qf) * 8), path);
        close(fd);
    }
}

static void read_data(int step, int writers, long first, long count, double *v)
{
    char path[SCR_MAX_FILENAME];
    if (!strcmp(app.mode, "fpp"))
        return read_parts(step, writers, first, count, v);
    locate(step, data_name(), path);
    if (!strcmp(app.mode, "posix")) {
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            die("cannot open", path);
        read_all(fd, v, (size_t)count * 8, (off_t)first * 8, path);
        close(fd);
    } else if (!strcmp(app.mode, "mpiio")) {
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) !=
            MPI_SUCCESS)
            die("MPI_File_open", path);
        MPI_File_read_at_all(fh, first * 8, v, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }
#ifdef SCR_TEST_HDF5
    else if (!strcmp(app.mode, "hdf5")) {
        hid_t fa = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fa, MPI_COMM_WORLD, MPI_INFO_NULL);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fa);
        hid_t d = f >= 0 ? H5Dopen2(f, "x", H5P_DEFAULT) : -1;
        hsize_t off[1] = {(hsize_t)first}, cnt[1] = {(hsize_t)count};
        hid_t space = d >= 0 ? H5Dget_space(d) : -1;
        hid_t mem = H5Screate_simple(1, cnt, NULL);
        if (space >= 0)
            H5Sselect_hyperslab(space, H5S_SELECT_SET, off, NULL, cnt, NULL);
        if (d < 0 || H5Dread(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, v) < 0)
            die("HDF5 read", path);
        H5Sclose(mem), H5Sclose(space), H5Dclose(d), H5Fclose(f), H5Pclose(fa);
    }
#endif
}

/* read checkpoint step back into this rank's block; 1 if every value is
 * right (the number of ranks that wrote it into *writers) */
static int restore(int step, int *writers)
{
    /* rank 0 wrote the meta file, and in a restart from cache only rank 0
     * can route it (as with SCR 3.1): it tells the others */
    if (app.rank == 0) {
        char path[SCR_MAX_FILENAME];
        long total = 0;
        locate(step, "meta", path);
        printf("reshape: reading %s\n", path);
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "ranks %d total %ld", writers, &total) != 2 ||
            total != app.total)
            die("bad meta file", path);
        fclose(f);
    }
    MPI_Bcast(writers, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long first, count, bad = 0;
    block(app.rank, app.ranks, &first, &count);
    double *v = calloc((size_t)(count ? count : 1), 8);
    read_data(step, *writers, first, count, v);
    for (long i = 0; i < count; i++)
        bad += v[i] != value(first + i, step);
    free(v);
    if (bad)
        fprintf(stderr, "reshape: rank %d: %ld values of step %d are wrong\n", app.rank,
                bad, step);
    return bad == 0;
}

/* rank 0 routes each name of --probe in checkpoint step's directory */
static void probe(int step)
{
    char list[512], *save = NULL;
    if (!app.probe || app.rank != 0)
        return;
    snprintf(list, sizeof(list), "%s", app.probe);
    for (char *n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        char rel[600], path[SCR_MAX_FILENAME];
        snprintf(rel, sizeof(rel), "ckpt.%d/%s", step, n);
        if (SCR_Route_file(rel, path) == SCR_SUCCESS)
            printf("reshape: probe %s routed to %s\n", rel, path);
        else
            printf("reshape: probe %s not routed\n", rel);
    }
}

/* the step to continue from (0: the beginning) */
static int restart(void)
{
    int have = 0, step = 0, writers = 0, ok = 1, all;
    char name[SCR_MAX_FILENAME];
    if (app.read_step >= 0) { /* without SCR's restart API */
        if (app.read_step == 0)
            return 0;
        ok = restore(app.read_step, &writers);
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        snprintf(name, sizeof(name), "ckpt.%d", app.read_step);
        if (!all || SCR_Current(name) != SCR_SUCCESS)
            die("restart without SCR failed at", name);
        step = app.read_step;
    } else {
        if (SCR_Have_restart(&have, name) != SCR_SUCCESS || !have)
            return 0;
        if (SCR_Start_restart(name) != SCR_SUCCESS || sscanf(name, "ckpt.%d", &step) != 1)
            die("SCR_Start_restart", name);
        probe(step);
        ok = restore(step, &writers);
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (SCR_Complete_restart(all) != SCR_SUCCESS || !all)
            die("restart failed from", name);
    }
    if (app.rank == 0)
        printf("reshape: restarted from ckpt.%d on %d ranks (written by %d), every value "
               "verified\n",
               step, app.ranks, writers);
    return step;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &app.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &app.ranks);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps"))
            app.steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--every"))
            app.every = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--total"))
            app.total = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode"))
            app.mode = argv[i + 1];
        else if (!strcmp(argv[i], "--expect-restart"))
            app.expect = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--read-step"))
            app.read_step = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--die-after"))
            app.die_after = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--probe"))
            app.probe = argv[i + 1];
        else if (!strcmp(argv[i], "--delete"))
            app.delete_name = argv[i + 1];
        else
            die("unknown option", argv[i]);
    }
    if (SCR_Init() != SCR_SUCCESS)
        die("SCR_Init", NULL);
    int step = restart();
    if (app.delete_name && SCR_Delete(app.delete_name) != SCR_SUCCESS)
        die("SCR_Delete", app.delete_name);
    if (app.delete_name && app.rank == 0)
        printf("reshape: deleted %s\n", app.delete_name);
    if (step == 0 && app.rank == 0)
        printf("reshape: starting from the beginning\n");
    if (app.expect >= 0 && step != app.expect) {
        fprintf(stderr, "reshape: rank %d: restarted from step %d, expected %d\n",
                app.rank, step, app.expect);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (step++; step <= app.steps; step++)
        if (step % app.every == 0)
            checkpoint(step);
    SCR_Finalize();
    if (app.rank == 0)
        printf("reshape: done at step %d\n", app.steps);
    MPI_Finalize();
    return 0;
}
