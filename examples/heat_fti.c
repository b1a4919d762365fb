/* SPDX-License-Identifier: BSD-3-Clause */
/* heat_fti.c - heat diffusion on a plate, checkpointed through FTI's
 * interface (fti.h), which libscr implements: an FTI application built with
 * "mpicc heat_fti.c -lscr".
 *
 * The plate has --rows rows per rank and --cols columns, split by rows over
 * the ranks of FTI_COMM_WORLD.  Its top edge is held at 100 degrees, the
 * other edges at 0.  Each step exchanges the boundary rows with the
 * neighbours (MPI_Sendrecv) and does one Jacobi sweep.  Rank 0 prints
 * "step N sum S" after every step, S to full precision; the arithmetic is
 * the same whatever the nodes (each rank sums its rows in order, rank 0
 * adds the sums in rank order), so a run that recovered prints, from the
 * step it recovered at, exactly the lines of a run that never stopped.
 *
 *   heat_fti CONFIG STEPS LEVEL EVERY [options]
 *
 *   CONFIG         FTI configuration file
 *   STEPS          run to step STEPS
 *   LEVEL EVERY    FTI_Checkpoint(id, LEVEL) every EVERY steps (EVERY 0: no
 *                  checkpoints); LEVEL 0: call FTI_Snapshot every step
 *                  instead, which checkpoints at the intervals in CONFIG
 *   --die-at S     after step S every rank dies (SIGKILL): a crash
 *   --sleep-ms MS  compute time per step (default 0)
 *   --rows R       rows per rank (default 16)
 *   --cols C       columns (default 64)
 *   --icp 1        checkpoint a variable at a time (FTI_InitICP,
 *                  FTI_AddVarICP, FTI_FinalizeICP), and check FTI's rules
 *                  on the first: an inactive one does nothing, a variable
 *                  goes in once, an unprotected one not at all
 *   --icp-leave-out S  with --icp, the checkpoint after step S leaves the
 *                  step counter out: FTI_FinalizeICP must refuse it
 *   --bitflip S    after step S every process calls FTI_BitFlip on the plate
 *                  twice and on the step counter once; rank 0 says how many
 *                  flipped a bit ([injection] in CONFIG: one, once, and
 *                  never in the counter, which is neither float nor double)
 *   --stage DIR    at the end each process writes a file in FTI's stage
 *                  directory and sends it to DIR (FTI_SendFile), checks
 *                  its status, and that sending a missing file or to a
 *                  missing directory fails; rank 0 says how many succeeded
 *   --composite 1  the step counter's type is a composite type with its
 *                  fields (FTI_InitCompositeType, FTI_AddScalarField,
 *                  FTI_AddVectorField), and FTI's checks on fields hold
 *   --names 1      the variables get their ids from their names
 *                  (FTI_setIDFromString "plate", then "progress"); a
 *                  restart first asks the checkpoint for them
 *                  (FTI_getIDFromString) and says what it found
 *
 * A restart (FTI_Status() != 0) checks the plate's size in the checkpoint
 * (FTI_GetStoredSize), reads the step alone (FTI_RecoverVar), then
 * everything (FTI_Recover), prints "recovered at step N" and goes on from
 * there; with FTI_Snapshot, its first call recovers.  Exits 0 when it
 * reached STEPS.
 */
#include <mpi.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fti.h"

/* what the run has done, kept with the plate in each checkpoint */
typedef struct {
    int step;
    double top_heat;   /* the temperature of the top edge */
    int history[2][3]; /* unused: a vector field for the composite type */
} progress_t;

static struct {
    const char *config;
    int steps, level, every, die_at, sleep_ms, rows, cols, icp, icp_leave_out, names,
        bitflip, composite;
    int id_progress, id_plate; /* the variables' ids */
    const char *stage;
    int rank, ranks;
} app = {.die_at = -1,
         .rows = 16,
         .cols = 64,
         .icp_leave_out = -1,
         .id_plate = 1,
         .bitflip = -1};

static void usage(const char *why)
{
    if (app.rank == 0)
        fprintf(stderr,
                "heat_fti: %s\nusage: heat_fti CONFIG STEPS LEVEL EVERY [--die-at S] "
                "[--sleep-ms MS] [--rows R] [--cols C] [--icp 1] [--icp-leave-out S] "
                "[--names 1] [--bitflip S] [--stage DIR] [--composite 1]\n",
                why);
    MPI_Finalize();
    exit(2);
}

static int number(const char *s, int min)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < min || v > 1000000000)
        usage("bad number");
    return (int)v;
}

static void parse(int argc, char **argv)
{
    if (argc < 5)
        usage("missing arguments");
    app.config = argv[1];
    app.steps = number(argv[2], 0);
    app.level = number(argv[3], 0);
    app.every = number(argv[4], 0);
    for (int i = 5; i < argc; i += 2) {
        if (i + 1 >= argc)
            usage("an option without its value");
        if (!strcmp(argv[i], "--die-at"))
            app.die_at = number(argv[i + 1], 0);
        else if (!strcmp(argv[i], "--sleep-ms"))
            app.sleep_ms = number(argv[i + 1], 0);
        else if (!strcmp(argv[i], "--rows"))
            app.rows = number(argv[i + 1], 1);
        else if (!strcmp(argv[i], "--cols"))
            app.cols = number(argv[i + 1], 3);
        else if (!strcmp(argv[i], "--icp"))
            app.icp = number(argv[i + 1], 0);
        else if (!strcmp(argv[i], "--icp-leave-out"))
            app.icp_leave_out = number(argv[i + 1], 0);
        else if (!strcmp(argv[i], "--names"))
            app.names = number(argv[i + 1], 0);
        else if (!strcmp(argv[i], "--bitflip"))
            app.bitflip = number(argv[i + 1], 0);
        else if (!strcmp(argv[i], "--stage"))
            app.stage = argv[i + 1];
        else if (!strcmp(argv[i], "--composite"))
            app.composite = number(argv[i + 1], 0);
        else
            usage("unknown option");
    }
}

/* row r (0 and rows+1 are the neighbours' rows) */
static double *row(double *plate, int r)
{
    return plate + (size_t)r * (size_t)app.cols;
}

/* the fixed edges: top of the plate hot, the rest cold */
static void edges(double *plate, const progress_t *p)
{
    for (int r = 1; r <= app.rows; r++)
        row(plate, r)[0] = row(plate, r)[app.cols - 1] = 0.0;
    if (app.rank == 0)
        for (int c = 0; c < app.cols; c++)
            row(plate, 1)[c] = p->top_heat;
    if (app.rank == app.ranks - 1)
        for (int c = 0; c < app.cols; c++)
            row(plate, app.rows)[c] = 0.0;
}

/* one step: neighbours' rows in, one Jacobi sweep into next, back */
static void sweep(double *plate, double *next, const progress_t *p)
{
    int up = app.rank > 0 ? app.rank - 1 : MPI_PROC_NULL;
    int down = app.rank < app.ranks - 1 ? app.rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(row(plate, 1), app.cols, MPI_DOUBLE, up, 1, row(plate, app.rows + 1),
                 app.cols, MPI_DOUBLE, down, 1, FTI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(row(plate, app.rows), app.cols, MPI_DOUBLE, down, 2, row(plate, 0),
                 app.cols, MPI_DOUBLE, up, 2, FTI_COMM_WORLD, MPI_STATUS_IGNORE);
    size_t bytes = sizeof(double) * (size_t)app.cols * (size_t)(app.rows + 2);
    memcpy(next, plate, bytes);
    for (int r = 1; r <= app.rows; r++)
        for (int c = 1; c < app.cols - 1; c++)
            row(next, r)[c] = 0.25 * (row(plate, r - 1)[c] + row(plate, r + 1)[c] +
                                      row(plate, r)[c - 1] + row(plate, r)[c + 1]);
    edges(next, p);
    memcpy(plate, next, bytes); /* the protected buffer stays where it is */
}

/* every rank's sum of its rows, added in rank order on rank 0 */
static double plate_sum(double *plate, double *sums)
{
    double mine = 0, all = 0;
    for (int r = 1; r <= app.rows; r++)
        for (int c = 0; c < app.cols; c++)
            mine += row(plate, r)[c];
    MPI_Gather(&mine, 1, MPI_DOUBLE, sums, 1, MPI_DOUBLE, 0, FTI_COMM_WORLD);
    for (int i = 0; app.rank == 0 && i < app.ranks; i++)
        all += sums[i];
    return all;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a line on rank 0's stdout */
static void say(const char *fmt, ...)
{
    va_list ap;
    if (app.rank != 0)
        return;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void fail(const char *what, int rc)
{
    fprintf(stderr, "heat_fti: rank %d: %s returned %d\n", app.rank, what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* a collective call failed, so it failed everywhere: stop together (an
 * abort could cut rank 0 off before it said why) */
static void fail_all(const char *what, int rc)
{
    if (app.rank == 0)
        fprintf(stderr, "heat_fti: %s returned %d\n", what, rc);
    MPI_Finalize();
    exit(1);
}

/* FTI 1.6's rules for incremental checkpoints, before the first: an
 * inactive one takes nothing */
static void icp_rules_inactive(void)
{
    int rc = FTI_InitICP(99, 1, false);
    if (rc == FTI_SCES)
        rc = FTI_AddVarICP(app.id_progress);
    if (rc == FTI_SCES)
        rc = FTI_FinalizeICP();
    if (rc != FTI_SCES)
        fail_all("an inactive FTI_InitICP/AddVarICP/FinalizeICP", rc);
}

/* checkpoint id at level a variable at a time; leave_out: without the
 * step counter (variable 0) */
static int checkpoint_icp(int id, int level, int leave_out)
{
    static int first = 1;
    if (first)
        icp_rules_inactive();
    int rc = FTI_InitICP(id, level, true);
    if (rc != FTI_SCES)
        return rc;
    if ((rc = FTI_AddVarICP(app.id_plate)) != FTI_SCES)
        return rc;
    if (first &&
        (FTI_AddVarICP(app.id_plate) != FTI_NSCS || FTI_AddVarICP(7) != FTI_NSCS))
        fail_all("FTI_AddVarICP of a variable again or of one not protected", FTI_SCES);
    if (first)
        say("icp rules hold\n");
    first = 0;
    if (!leave_out && (rc = FTI_AddVarICP(app.id_progress)) != FTI_SCES)
        return rc;
    return FTI_FinalizeICP();
}

/* checkpoint id at app.level: FTI_DONE when taken */
static void checkpoint(int step)
{
    int id = step / app.every, rc;
    if (!app.icp) {
        if ((rc = FTI_Checkpoint(id, app.level)) != FTI_DONE)
            fail_all("FTI_Checkpoint", rc);
    } else if (step == app.icp_leave_out) {
        if ((rc = checkpoint_icp(id, app.level, 1)) != FTI_NSCS)
            fail_all("FTI_FinalizeICP without every variable", rc);
        say("checkpoint %d without the step counter refused\n", id);
        return;
    } else if ((rc = checkpoint_icp(id, app.level, 0)) != FTI_SCES) {
        fail_all("FTI_FinalizeICP", rc);
    }
    say("checkpoint %d at step %d, level %d\n", id, step, app.level);
}

/* FTI_BitFlip on every process: the plate twice, the step counter once */
static void bitflip(void)
{
    int first = FTI_BitFlip(app.id_plate) == FTI_SCES;
    int again = FTI_BitFlip(app.id_plate) == FTI_SCES;
    again += FTI_BitFlip(app.id_progress) == FTI_SCES;
    int mine[2] = {first, again}, sum[2], who = first ? app.rank : -1, at = -1;
    MPI_Reduce(mine, sum, 2, MPI_INT, MPI_SUM, 0, FTI_COMM_WORLD);
    MPI_Reduce(&who, &at, 1, MPI_INT, MPI_MAX, 0, FTI_COMM_WORLD);
    say("bitflip: %d flipped a bit (rank %d); again: %d\n", sum[0], at, sum[1]);
}

/* a file at path of five pages and a bit (an output file is larger than a
 * page), its first line "rank R"; 1 if written */
static int write_note(const char *path)
{
    FILE *f = fopen(path, "w");
    int ok = f && fprintf(f, "rank %d\n", app.rank) > 0;
    for (int i = 0; ok && i < 320; i++)
        ok = fprintf(f, "# %61d\n", i) > 0;
    return f && fclose(f) == 0 && ok;
}

/* this process's file through FTI's staging to app.stage; 1 if each call
 * did what FTI's does */
static int stage_one(const char *local)
{
    char remote[4200];
    snprintf(remote, sizeof(remote), "%s/note.%d", app.stage, app.rank);
    if (!write_note(local))
        return 0;
    int id = FTI_SendFile(local, remote), s = FTI_SI_FAIL;
    /* the copy runs in the background: pending, active, then done */
    while (id >= 0 && ((s = FTI_GetStageStatus(id)) == FTI_SI_PEND || s == FTI_SI_ACTV))
        usleep(1000);
    int ok = id >= 0 && s == FTI_SI_SCES && FTI_GetStageStatus(id) == FTI_SI_NINI &&
             access(local, F_OK) != 0;
    /* the local file is gone now; and no directory "none" */
    ok = ok && FTI_SendFile(local, remote) == FTI_NSCS;
    snprintf(remote, sizeof(remote), "%s/none/note.%d", app.stage, app.rank);
    ok = ok && write_note(local) && FTI_SendFile(local, remote) == FTI_NSCS &&
         access(local, F_OK) == 0;
    unlink(local);
    return ok;
}

static void stage_out(void)
{
    char local[4096];
    if (FTI_GetStageDir(local, sizeof(local)) != FTI_SCES) {
        say("stage: FTI_GetStageDir failed\n");
        return;
    }
    size_t n = strlen(local);
    snprintf(local + n, sizeof(local) - n, "/note.%d", app.rank);
    int ok = stage_one(local), all = 0;
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_SUM, 0, FTI_COMM_WORLD);
    say("stage: %d of %d processes sent their file\n", all, app.ranks);
    /* one more, left to FTI_Finalize to wait for (stage_last checks it) */
    char remote[4200];
    snprintf(local + n, sizeof(local) - n, "/last.%d", app.rank);
    snprintf(remote, sizeof(remote), "%s/last.%d", app.stage, app.rank);
    if (!write_note(local) || FTI_SendFile(local, remote) < 0)
        say("stage: a last file could not be queued\n");
}

/* after FTI_Finalize: the last files are whole on the prefix */
static void stage_last(void)
{
    char remote[4200], line[64] = "", want[64];
    snprintf(remote, sizeof(remote), "%s/last.%d", app.stage, app.rank);
    snprintf(want, sizeof(want), "rank %d\n", app.rank);
    FILE *f = fopen(remote, "r");
    int ok = f && fgets(line, sizeof(line), f) && strcmp(line, want) == 0, all = 0;
    if (f)
        fclose(f);
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    say("stage: %d of %d files queued before FTI_Finalize arrived\n", all, app.ranks);
}

/* progress_t as a composite type; FTI's checks on fields hold */
static fti_id_t progress_composite(void)
{
    int dims[2] = {2, 3}, bad[1] = {0};
    fti_id_t t = FTI_InitCompositeType("progress", sizeof(progress_t), NULL);
    if (t == FTI_NSCS ||
        FTI_AddScalarField(t, "step", FTI_INTG, offsetof(progress_t, step)) != FTI_SCES ||
        FTI_AddScalarField(t, "top_heat", FTI_DBLE, offsetof(progress_t, top_heat)) !=
            FTI_SCES ||
        FTI_AddVectorField(t, "history", FTI_INTG, offsetof(progress_t, history), 2,
                           dims) != FTI_SCES)
        fail_all("FTI_InitCompositeType or a field", FTI_NSCS);
    if (FTI_AddScalarField(FTI_DBLE, "x", FTI_INTG, 0) != FTI_NSCS ||
        FTI_AddScalarField(t, "x", 12345, 0) != FTI_NSCS ||
        FTI_AddVectorField(t, "x", FTI_INTG, 0, 1, bad) != FTI_NSCS ||
        FTI_AddVectorField(t, "x", FTI_INTG, 0, 33, dims) != FTI_NSCS)
        fail_all("a field FTI refuses", FTI_SCES);
    say("composite type %d: 3 fields\n", t);
    return t;
}

/* the ids from the names, after what a checkpoint says they are */
static void name_variables(void)
{
    int plate = FTI_getIDFromString("plate"), progress = FTI_getIDFromString("progress");
    if (plate >= 0 || progress >= 0)
        say("names from the checkpoint: plate %d, progress %d\n", plate, progress);
    app.id_plate = FTI_setIDFromString("plate");
    app.id_progress = FTI_setIDFromString("progress");
    if (app.id_plate < 0 || app.id_progress < 0 ||
        (plate >= 0 && plate != app.id_plate) ||
        (progress >= 0 && progress != app.id_progress))
        fail_all("FTI_setIDFromString", app.id_plate);
    if (FTI_setIDFromString("plate") != app.id_plate || FTI_getIDFromString("none") != -1)
        fail_all("FTI_setIDFromString of a name again, or FTI_getIDFromString of none",
                 0);
    say("named: plate %d, progress %d\n", app.id_plate, app.id_progress);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &app.rank);
    parse(argc, argv);
    if (FTI_Init(app.config, MPI_COMM_WORLD) != FTI_SCES) {
        if (app.rank == 0)
            fprintf(stderr, "heat_fti: FTI_Init failed\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(FTI_COMM_WORLD, &app.rank);
    MPI_Comm_size(FTI_COMM_WORLD, &app.ranks);

    size_t cells = (size_t)app.cols * (size_t)(app.rows + 2);
    double *plate = calloc(cells, sizeof(double)), *next = calloc(cells, sizeof(double));
    double *sums = calloc((size_t)app.ranks, sizeof(double));
    progress_t p = {.step = 0, .top_heat = 100.0};
    fti_id_t progress_type;
    if (!plate || !next || !sums)
        fail("calloc", -1);
    edges(plate, &p);
    int rc = FTI_SCES;
    if (app.composite)
        progress_type = progress_composite();
    else if ((rc = FTI_InitType(&progress_type, sizeof(progress_t))) != FTI_SCES)
        fail("FTI_InitType", rc);
    if (app.names)
        name_variables();
    if ((rc = FTI_Protect(app.id_progress, &p, 1, progress_type)) != FTI_SCES ||
        (rc = FTI_Protect(app.id_plate, plate, (int64_t)cells, FTI_DBLE)) != FTI_SCES)
        fail("FTI_Protect", rc);

    int restart = FTI_Status() != 0;
    if (restart && app.level > 0) {
        /* look before leaping: the plate's size, then the step alone */
        int64_t stored = FTI_GetStoredSize(app.id_plate);
        if (stored != (int64_t)(cells * sizeof(double)))
            fail_all("FTI_GetStoredSize", (int)stored);
        if ((rc = FTI_RecoverVarInit()) != FTI_SCES ||
            (rc = FTI_RecoverVar(app.id_progress)) != FTI_SCES ||
            (rc = FTI_RecoverVarFinalize()) != FTI_SCES)
            fail_all("FTI_RecoverVar", rc);
        say("found the checkpoint of step %d (plate: %lld bytes per rank)\n", p.step,
            (long long)stored);
        if ((rc = FTI_Recover()) != FTI_SCES)
            fail_all("FTI_Recover", rc);
        say("recovered at step %d\n", p.step);
    }
    while (p.step < app.steps) {
        if (app.level == 0) {
            rc = FTI_Snapshot();
            if (rc != FTI_SCES && rc != FTI_DONE)
                fail_all("FTI_Snapshot", rc);
            if (restart) {
                say("recovered at step %d\n", p.step);
                restart = 0;
                continue;
            }
            if (rc == FTI_DONE)
                say("snapshot checkpoint at step %d\n", p.step);
        }
        sweep(plate, next, &p);
        p.step++;
        double s = plate_sum(plate, sums);
        if (app.rank == 0) {
            printf("step %d sum %.17g\n", p.step, s);
            fflush(stdout);
        }
        if (p.step == app.bitflip)
            bitflip();
        if (app.level > 0 && app.every > 0 && p.step % app.every == 0)
            checkpoint(p.step);
        if (p.step == app.die_at) {
            MPI_Barrier(FTI_COMM_WORLD);
            say("dying after step %d\n", p.step);
            raise(SIGKILL);
        }
        if (app.sleep_ms)
            usleep((useconds_t)app.sleep_ms * 1000);
    }
    if (app.stage)
        stage_out();
    say("done: %d steps\n", p.step);
    free(plate);
    free(next);
    free(sums);
    if ((rc = FTI_Finalize()) != FTI_SCES)
        fail_all("FTI_Finalize", rc);
    if (app.stage)
        stage_last();
    MPI_Finalize();
    return 0;
}
