/* SPDX-License-Identifier: BSD-3-Clause */
/* subcomm.c - two groups of one job, each with SCR on its own communicator
 * (SCR_Init_comm), its own prefix and its own redundancy, and one process
 * outside both that never calls SCR.
 *
 *   subcomm --steps N [--size BYTES] [--expect-a STEP] [--expect-b STEP]
 *
 * World rank r is in group A when r is even, in group B when odd, except
 * the last rank, the helper.  Group A checkpoints steps 1..N with
 * SCR_COPY_TYPE=XOR over 4-rank sets and flushes every checkpoint to
 * ./prefixA; group B checkpoints steps 1..N-1 with PARTNER to ./prefixB
 * and never flushes.  A restart reads every byte back and says, per group,
 * which step it restarted from; --expect-a/-b fail the run when that is
 * not the step given (0: no restart).  The helper waits for group A's last
 * checkpoint in MPI_Recv: SCR in the groups must never need it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scr.h"

typedef struct {
    char name;     /* 'A' or 'B' */
    MPI_Comm comm; /* the group, as the application made it */
    int rank, size;
    int steps;
    size_t bytes;
    int expect;
} group_t;

static unsigned char byte_at(const group_t *g, int step, size_t i)
{
    return (unsigned char)(g->name * 7 + g->rank * 31 + step * 13 + i * 3);
}

static int file_io(const group_t *g, int step, int reading)
{
    char name[SCR_MAX_FILENAME], path[SCR_MAX_FILENAME];
    snprintf(name, sizeof(name), "prefix%c/step.%d/rank%d.ckpt", g->name, step, g->rank);
    if (SCR_Route_file(name, path) != SCR_SUCCESS)
        return 0;
    FILE *f = fopen(path, reading ? "rb" : "wb");
    if (!f)
        return 0;
    unsigned char *buf = malloc(g->bytes);
    int ok = buf != NULL;
    if (ok && reading) {
        ok = fread(buf, 1, g->bytes, f) == g->bytes && fgetc(f) == EOF;
        for (size_t i = 0; ok && i < g->bytes; i++)
            ok = buf[i] == byte_at(g, step, i);
    } else if (ok) {
        for (size_t i = 0; i < g->bytes; i++)
            buf[i] = byte_at(g, step, i);
        ok = fwrite(buf, 1, g->bytes, f) == g->bytes;
    }
    free(buf);
    return fclose(f) == 0 && ok;
}

/* the step the group restarts from, every byte checked; 0 for none */
static int group_restart(const group_t *g)
{
    char name[SCR_MAX_FILENAME];
    int have = 0, step = 0;
    if (SCR_Have_restart(&have, name) != SCR_SUCCESS || !have)
        return 0;
    if (SCR_Start_restart(name) != SCR_SUCCESS || sscanf(name, "step.%d", &step) != 1)
        return -1;
    int ok = file_io(g, step, 1), all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, g->comm);
    if (SCR_Complete_restart(ok) != SCR_SUCCESS || !all)
        return -1;
    return step;
}

static int group_checkpoint(const group_t *g, int step)
{
    char name[32];
    snprintf(name, sizeof(name), "step.%d", step);
    if (SCR_Start_output(name, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS)
        return -1;
    int ok = file_io(g, step, 0);
    return SCR_Complete_output(ok) == SCR_SUCCESS && ok ? 0 : -1;
}

static int group_settings(const group_t *g)
{
    char cwd[2048];
    if (!getcwd(cwd, sizeof(cwd)))
        return -1;
    SCR_Configf("SCR_PREFIX=%s/prefix%c", cwd, g->name);
    SCR_Config(g->name == 'A' ? "SCR_COPY_TYPE=XOR" : "SCR_COPY_TYPE=PARTNER");
    SCR_Config(g->name == 'A' ? "SCR_FLUSH=1" : "SCR_FLUSH=0");
    if (g->name == 'A')
        SCR_Config("SCR_SET_SIZE=4");
    return 0;
}

static int group_run(group_t *g)
{
    if (group_settings(g) < 0 || SCR_Init_comm(g->comm) != SCR_SUCCESS)
        return 1;
    int rc = 0;
    if (SCR_Init_comm(g->comm) != SCR_FAILURE || SCR_Init() != SCR_FAILURE) {
        fprintf(stderr, "subcomm: group %c: a second SCR_Init_comm was accepted\n",
                g->name);
        rc = 1;
    }
    int from = group_restart(g);
    if (g->rank == 0)
        printf("subcomm: group %c of %d ranks: %s %d\n", g->name, g->size,
               from > 0 ? "restarted from step" : "no restart, step", from);
    if (from < 0 || from != g->expect)
        rc = 1;
    for (int step = from + 1; step <= g->steps && rc == 0; step++)
        if (group_checkpoint(g, step) < 0)
            rc = 1;
    if (g->rank == 0 && rc == 0)
        printf("subcomm: group %c checkpointed up to step %d\n", g->name, g->steps);
    return SCR_Finalize() == SCR_SUCCESS ? rc : 1;
}

/* outside both groups: SCR is not this process's, and answers without
 * waiting for anybody */
static int helper_run(void)
{
    int flag = 0, done = 0, rc = 0;
    if (SCR_Init_comm(MPI_COMM_NULL) != SCR_FAILURE ||
        SCR_Need_checkpoint(&flag) != SCR_FAILURE) {
        fprintf(stderr, "subcomm: helper: SCR answered a process outside it\n");
        rc = 1;
    }
    MPI_Recv(&done, 1, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("subcomm: helper: group A is done (%d), without the helper in SCR\n", done);
    return rc;
}

static int parse(int argc, char **argv, group_t *g, int *exp_a, int *exp_b)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps"))
            g->steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--size"))
            g->bytes = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--expect-a"))
            *exp_a = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--expect-b"))
            *exp_b = atoi(argv[i + 1]);
        else
            return -1;
    }
    return g->steps > 1 && g->bytes > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    int wrank, wsize, exp_a = 0, exp_b = 0, rc;
    group_t g = {.steps = 0, .bytes = 4096};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (parse(argc, argv, &g, &exp_a, &exp_b) < 0 || wsize < 4) {
        if (wrank == 0)
            fprintf(stderr, "usage: subcomm --steps N [--size BYTES] [--expect-a STEP] "
                            "[--expect-b STEP] (4 or more processes)\n");
        MPI_Finalize();
        return 2;
    }
    int helper = wrank == wsize - 1;
    g.name = helper ? '-' : wrank % 2 == 0 ? 'A' : 'B';
    MPI_Comm_split(MPI_COMM_WORLD, helper ? MPI_UNDEFINED : wrank % 2, wrank, &g.comm);
    if (helper)
        rc = helper_run();
    else {
        MPI_Comm_rank(g.comm, &g.rank);
        MPI_Comm_size(g.comm, &g.size);
        g.expect = g.name == 'A' ? exp_a : exp_b;
        g.steps -= g.name == 'B';
        rc = group_run(&g);
        int done = 1;
        if (wrank == 0)
            MPI_Send(&done, 1, MPI_INT, wsize - 1, 41, MPI_COMM_WORLD);
        MPI_Comm_free(&g.comm);
    }
    int all = 0;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return all;
}
