/* SPDX-License-Identifier: BSD-3-Clause */
/* misuse.c - the SCR API called wrongly: every misuse fails with
 * SCR_FAILURE (or NULL) and a message, nothing crashes or hangs.
 * "misuse disabled" runs with SCR_ENABLE=0 and checks the pass-through. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scr.h"
#include "scr_mem.h"

static int rank, pass, failed;

static void check(int cond, const char *what)
{
    if (cond)
        pass++;
    else {
        failed++;
        fprintf(stderr, "misuse: rank %d: FAILED: %s\n", rank, what);
    }
}

static void before_init(void)
{
    char buf[SCR_MAX_FILENAME];
    int flag;
    check(SCR_Start_checkpoint() == SCR_FAILURE, "Start_checkpoint before Init");
    check(SCR_Route_file("x", buf) == SCR_FAILURE, "Route_file before Init");
    check(SCR_Have_restart(&flag, buf) == SCR_FAILURE, "Have_restart before Init");
    check(SCR_Finalize() == SCR_FAILURE, "Finalize before Init");
    check(SCR_Config("SCR_CHECKPOINT_INTERVAL=3") == NULL, "Config set returns NULL");
    const char *v = SCR_Config("SCR_CHECKPOINT_INTERVAL");
    check(v && strcmp(v, "3") == 0, "Config query returns the value set");
    free((void *)v);
    check(SCR_Config("=oops") == NULL, "malformed Config string");
    check(SCR_Config(NULL) == NULL, "NULL Config string");
    int64_t n;
    check(SCR_Checkpoint("x") == SCR_FAILURE, "Checkpoint before Init");
    check(SCR_Recover() == SCR_FAILURE, "Recover before Init");
    check(SCR_Stored_size(1, &n) == SCR_FAILURE, "Stored_size before Init");
    v = SCR_Configf("SCR_CHECKPOINT_%s", "INTERVAL");
    check(v && strcmp(v, "3") == 0, "Configf query");
    free((void *)v);
}

static void in_run(void)
{
    char buf[SCR_MAX_FILENAME], path[SCR_MAX_FILENAME];
    int flag;
    check(SCR_Init() == SCR_FAILURE, "second Init");
    check(SCR_Config("SCR_FLUSH=5") == NULL, "Config set after Init is refused");
    check(SCR_Complete_checkpoint(1) == SCR_FAILURE, "Complete without Start");
    check(SCR_Complete_restart(1) == SCR_FAILURE,
          "Complete_restart without Start_restart");
    check(SCR_Start_restart(buf) == SCR_FAILURE, "Start_restart with nothing to restart");
    check(SCR_Start_output("x", 0) == SCR_FAILURE, "Start_output without flags");
    check(SCR_Start_output("a/b", SCR_FLAG_CHECKPOINT) == SCR_FAILURE,
          "name with a slash");
    check(SCR_Have_restart(NULL, buf) == SCR_FAILURE, "Have_restart NULL flag");
    check(SCR_Need_checkpoint(NULL) == SCR_FAILURE, "Need_checkpoint NULL flag");
    check(SCR_Route_file(NULL, buf) == SCR_FAILURE, "Route_file NULL name");
    check(SCR_Route_file("x", NULL) == SCR_FAILURE, "Route_file NULL buffer");
    check(SCR_Route_file("x", buf) == SCR_FAILURE, "Route_file outside a dataset");
    check(SCR_Start_output("first", SCR_FLAG_CHECKPOINT) == SCR_SUCCESS, "Start_output");
    check(SCR_Start_checkpoint() == SCR_FAILURE, "nested Start");
    check(SCR_Have_restart(&flag, buf) == SCR_FAILURE, "Have_restart inside an output");
    check(SCR_Route_file("/etc/passwd", path) == SCR_FAILURE, "file outside the prefix");
    snprintf(buf, sizeof(buf), "misuse_%d.dat", rank);
    check(SCR_Route_file(buf, path) == SCR_SUCCESS && strstr(path, "scr.dataset."),
          "Route_file into cache");
    FILE *fp = fopen(path, "w");
    check(fp && fputs("data", fp) >= 0 && fclose(fp) == 0, "write routed file");
    check(SCR_Complete_output(1) == SCR_SUCCESS, "Complete_output");
    check(SCR_Start_output("first", SCR_FLAG_CHECKPOINT) == SCR_FAILURE,
          "duplicate name");
    check(SCR_Start_output("second", SCR_FLAG_CHECKPOINT) == SCR_SUCCESS,
          "second output");
    snprintf(buf, sizeof(buf), "never_written_%d.dat", rank);
    check(SCR_Route_file(buf, path) == SCR_SUCCESS, "route a file never written");
    check(SCR_Complete_output(1) == SCR_FAILURE, "a routed file left unwritten fails");
    check(SCR_Start_output("third", SCR_FLAG_CHECKPOINT) == SCR_SUCCESS, "third output");
    check(SCR_Complete_output(rank != 0) == SCR_FAILURE, "one invalid rank fails all");
    check(SCR_Current("nope") == SCR_FAILURE, "Current of an unknown name");
    check(SCR_Current("first") == SCR_SUCCESS, "Current of a cached checkpoint");
    check(SCR_Have_restart(&flag, buf) == SCR_SUCCESS && flag &&
              strcmp(buf, "first") == 0,
          "Have_restart offers it");
    check(SCR_Drop("first") == SCR_SUCCESS, "Drop");
    check(SCR_Have_restart(&flag, buf) == SCR_SUCCESS && !flag,
          "nothing left after Drop");
    /* a failed restart offers the next older checkpoint */
    const char *names[2] = {"older", "newer"};
    for (int i = 0; i < 2; i++) {
        SCR_Start_output(names[i], SCR_FLAG_CHECKPOINT);
        snprintf(buf, sizeof(buf), "%s_%d.dat", names[i], rank);
        SCR_Route_file(buf, path);
        fp = fopen(path, "w");
        if (fp)
            fclose(fp);
        check(SCR_Complete_output(1) == SCR_SUCCESS, "checkpoint for the restart test");
    }
    check(SCR_Current("newer") == SCR_SUCCESS, "Current newer");
    check(SCR_Have_restart(&flag, buf) == SCR_SUCCESS && flag && !strcmp(buf, "newer"),
          "Have_restart offers newer");
    check(SCR_Start_restart(buf) == SCR_SUCCESS, "Start_restart newer");
    check(SCR_Start_output("x", SCR_FLAG_CHECKPOINT) == SCR_FAILURE,
          "Start_output in restart");
    check(SCR_Complete_restart(rank != 1) == SCR_FAILURE, "one rank rejects the restart");
    check(SCR_Have_restart(&flag, buf) == SCR_SUCCESS && flag && !strcmp(buf, "older"),
          "the next Have_restart offers the older checkpoint");
    check(SCR_Start_restart(buf) == SCR_SUCCESS && SCR_Complete_restart(1) == SCR_SUCCESS,
          "restart from the older one succeeds");
    check(SCR_Have_restart(&flag, buf) == SCR_SUCCESS && !flag,
          "no restart after success");
    const char *v = SCR_Config("SCR_CHECKPOINT_INTERVAL");
    check(v && strcmp(v, "3") == 0, "Config query after Init");
    free((void *)v);
    check(SCR_Get_version() && strstr(SCR_Get_version(), "SCR"), "Get_version");
    /* SCR_CHECKPOINT_INTERVAL=3 was set before SCR_Init */
    int f1 = -1, f2 = -1, f3 = -1, f4 = -1;
    SCR_Need_checkpoint(&f1);
    SCR_Need_checkpoint(&f2);
    SCR_Need_checkpoint(&f3);
    SCR_Need_checkpoint(&f4);
    check(f1 == 0 && f2 == 0 && f3 == 1 && f4 == 0,
          "SCR_CHECKPOINT_INTERVAL=3: every third call says yes");
}

/* the memory-protect API called wrongly */
static void mem_misuse(void)
{
    static double buf[16];
    int64_t n = 0;
    check(SCR_Protect(-1, buf, 1, 8) == SCR_FAILURE, "Protect negative id");
    check(SCR_Protect(1, NULL, 4, 8) == SCR_FAILURE, "Protect NULL buffer");
    check(SCR_Protect(1, buf, -4, 8) == SCR_FAILURE, "Protect negative count");
    check(SCR_Protect(1, buf, 4, 0) == SCR_FAILURE, "Protect element size 0");
    check(SCR_Protect(1, buf, INT64_MAX, 8) == SCR_FAILURE, "Protect overflowing size");
    check(SCR_Unprotect(5) == SCR_FAILURE, "Unprotect an unknown id");
    check(SCR_Checkpoint_add(1) == SCR_FAILURE, "Checkpoint_add without begin");
    check(SCR_Checkpoint_end() == SCR_FAILURE, "Checkpoint_end without begin");
    check(SCR_Recover() == SCR_FAILURE, "Recover without a checkpoint");
    check(SCR_Stored_size(1, NULL) == SCR_FAILURE, "Stored_size NULL");
    check(SCR_Protect(1, buf, 16, 8) == SCR_SUCCESS, "Protect");
    check(SCR_Checkpoint_begin("m.1") == SCR_SUCCESS, "Checkpoint_begin");
    check(SCR_Checkpoint_begin("m.2") == SCR_FAILURE, "a second Checkpoint_begin");
    check(SCR_Protect(2, buf, 1, 8) == SCR_FAILURE, "Protect inside begin/end");
    check(SCR_Checkpoint_add(9) == SCR_FAILURE, "Checkpoint_add an unknown id");
    check(SCR_Checkpoint_end() == SCR_SUCCESS, "Checkpoint_end writes the rest");
    check(SCR_Stored_size(1, &n) == SCR_FAILURE,
          "Stored_size: a run's own checkpoints are not on offer for recovery");
    check(SCR_Recover_var(3) == SCR_FAILURE, "Recover_var an unknown id");
    check(SCR_Unprotect(1) == SCR_SUCCESS, "Unprotect");
}

static void disabled(void)
{
    char path[SCR_MAX_FILENAME];
    int flag = 7;
    check(SCR_Init() == SCR_SUCCESS, "Init with SCR_ENABLE=0");
    check(SCR_Have_restart(&flag, path) == SCR_SUCCESS && flag == 0, "no restart");
    check(SCR_Start_checkpoint() == SCR_SUCCESS, "Start passes through");
    check(SCR_Route_file("some/file.dat", path) == SCR_SUCCESS &&
              strcmp(path, "some/file.dat") == 0,
          "Route_file returns the name unchanged");
    check(SCR_Complete_checkpoint(1) == SCR_SUCCESS, "Complete passes through");
    check(SCR_Protect(1, path, 8, 1) == SCR_SUCCESS && SCR_Checkpoint("m") == SCR_SUCCESS,
          "memory checkpoint keeps nothing, succeeds");
    check(SCR_Recover() == SCR_FAILURE, "nothing to recover when disabled");
    check(SCR_Need_checkpoint(&flag) == SCR_SUCCESS && flag == 1,
          "Need_checkpoint says yes");
    check(SCR_Finalize() == SCR_SUCCESS, "Finalize");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "disabled") == 0) {
        disabled();
    } else {
        before_init();
        check(SCR_Init() == SCR_SUCCESS, "Init");
        in_run();
        mem_misuse();
        check(SCR_Finalize() == SCR_SUCCESS, "Finalize");
        check(SCR_Finalize() == SCR_FAILURE, "second Finalize");
        check(SCR_Start_checkpoint() == SCR_FAILURE, "Start after Finalize");
    }
    int totals[2] = {pass, failed}, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("misuse: %d passed, %d failed\n", sums[0], sums[1]);
    MPI_Finalize();
    return failed ? 1 : 0;
}
