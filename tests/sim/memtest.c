/* SPDX-License-Identifier: BSD-3-Clause */
/* memtest.c - an application that only uses the memory-protect API, for the
 * simulated-node tests (test-mem.sh).
 *
 * Variable 0 is the step counter; variables 1..V hold data that changes
 * deterministically: at each step a share (--change PCT) of each variable's
 * 4 KiB blocks is rewritten, and with --grow the variables grow, shrink and
 * a new one (id 9) appears between checkpoints.  A restart learns the stored
 * sizes (SCR_Stored_size), protects buffers of those sizes, recovers, and
 * compares every byte with a replay of the steps from the start.
 *
 *   --steps N --every K --size BYTES --vars V --change PCT --grow
 *   --incremental           SCR_Checkpoint_begin/add/end
 *   --expect-recover S      the step a restart must recover (0: none)
 *   --die-after S           every rank exits after the checkpoint of step S
 *   --die-in-ckpt S         every rank exits halfway through that checkpoint
 *   --misuse                on restart, first try recoveries that must fail
 *   --pause-before-recover  rank 0 writes ./ready and waits for ./go first
 *   --may-fail              a failed checkpoint is reported and the run goes on
 *   --packed                the variables lie back to back in one allocation,
 *                           so neighbours share memory pages (not with --grow)
 *   --first-word            a step changes only each variable's first word
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scr_mem.h"

#define MAXV 10
#define BLOCK 4096

static struct {
    int steps, every, nvars, change, grow, incremental, expect, die_after, die_in, misuse,
        pause, may_fail, packed, first_word;
    int64_t size;
} opt = {8, 1, 3, 100, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 1 << 20};

static int rank;

typedef struct {
    int id;
    uint64_t *buf;
    int64_t bytes;
} var_t;

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x =
        a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
    x ^= (c + (uint64_t)rank * 7919) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* the variables that exist at step s, and their sizes (multiples of 8) */
static int layout_at(int s, int *ids, int64_t *bytes)
{
    int n = 0;
    for (int i = 1; i <= opt.nvars; i++) {
        int64_t f = opt.grow ? 1 + (s / 2 + i) % 3 : 1;
        ids[n] = i;
        bytes[n++] = opt.size * f / 8 * 8 + 8 * i;
    }
    if (opt.grow && s >= 3) {
        ids[n] = 9;
        bytes[n++] = opt.size / 2 / 8 * 8;
    }
    return n;
}

/* --packed: the live variables' memory, handed out back to back */
static struct {
    char *base;
    size_t used, cap;
    int on; /* off while the replay in recover() builds its own copies */
} arena;

static uint64_t *var_alloc(uint64_t *old, int64_t bytes)
{
    if (!arena.on)
        return realloc(old, (size_t)bytes + 8);
    if (!arena.base) {
        arena.cap = (size_t)(opt.size + 16 * MAXV) * MAXV;
        arena.base = malloc(arena.cap);
    }
    if (!arena.base || arena.used + (size_t)bytes + 8 > arena.cap)
        MPI_Abort(MPI_COMM_WORLD, 7);
    uint64_t *p = (uint64_t *)(arena.base + arena.used);
    arena.used += (size_t)bytes + 8; /* variables 8 bytes apart */
    return p;
}

static void var_free(uint64_t *p)
{
    if (!arena.base || (char *)p < arena.base || (char *)p >= arena.base + arena.cap)
        free(p);
}

static var_t *var_get(var_t *v, int id)
{
    for (int i = 0; i < MAXV; i++)
        if (v[i].id == id)
            return &v[i];
    return NULL;
}

/* step s: resize, then rewrite the changed blocks */
static void state_step(var_t *v, int s)
{
    int ids[MAXV];
    int64_t bytes[MAXV];
    int n = layout_at(s, ids, bytes);
    for (int k = 0; k < n; k++) {
        var_t *x = var_get(v, ids[k]);
        if (!x) {
            x = var_get(v, 0 - 1);
            x->id = ids[k];
        }
        int64_t old = x->bytes;
        if (!x->buf || bytes[k] != old) /* the same size stays put, even under ASan */
            x->buf = var_alloc(x->buf, bytes[k]);
        x->bytes = bytes[k];
        for (int64_t j = old / 8; j < x->bytes / 8; j++)
            x->buf[j] = mix((uint64_t)x->id, (uint64_t)j, (uint64_t)s);
        if (opt.first_word && s > 0 && x->bytes >= 8)
            x->buf[0] = mix((uint64_t)x->id, 0, (uint64_t)s) ^ (uint64_t)s;
        for (int64_t b = 0; b * BLOCK < x->bytes && !opt.first_word; b++) {
            if (s > 0 && mix((uint64_t)x->id, (uint64_t)b, (uint64_t)s) % 100 >=
                             (uint64_t)opt.change)
                continue;
            for (int64_t j = b * BLOCK / 8; j < (b + 1) * BLOCK / 8 && j < x->bytes / 8;
                 j++)
                x->buf[j] = mix((uint64_t)x->id, (uint64_t)j, (uint64_t)s);
        }
    }
}

static void state_init(var_t *v)
{
    for (int i = 0; i < MAXV; i++)
        v[i] = (var_t){-1, NULL, 0};
    state_step(v, 0);
}

static void protect_all(var_t *v)
{
    for (int i = 0; i < MAXV; i++)
        if (v[i].id >= 0 &&
            SCR_Protect(v[i].id, v[i].buf, v[i].bytes / 8, 8) != SCR_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 2);
}

static int checkpoint(var_t *v, int s)
{
    char name[64];
    snprintf(name, sizeof(name), "mem.%d", s);
    if (!opt.incremental && opt.die_in != s)
        return SCR_Checkpoint(name);
    if (SCR_Checkpoint_begin(name) != SCR_SUCCESS)
        return SCR_FAILURE;
    if (SCR_Checkpoint_add(1) != SCR_SUCCESS)
        return SCR_FAILURE;
    if (opt.die_in == s) {
        /* said before the barrier: once a rank exits, mpirun may kill the
         * others before their output is out */
        if (rank == 0)
            printf("dying in the middle of checkpoint step %d\n", s);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        _exit(3);
    }
    for (int i = 0; i < MAXV; i++)
        if (v[i].id > 1 && SCR_Checkpoint_add(v[i].id) != SCR_SUCCESS)
            return SCR_FAILURE;
    return SCR_Checkpoint_end();
}

/* recoveries that must fail and leave the buffers alone */
static void misuse(int64_t *step)
{
    int64_t bytes = 0;
    SCR_Stored_size(1, &bytes);
    uint64_t *wrong = calloc(1, (size_t)bytes + 64);
    memset(wrong, 0xa5, (size_t)bytes + 64);
    int bad = SCR_Protect(1, wrong, bytes / 8 + 8, 8) != SCR_SUCCESS ||
              SCR_Recover() == SCR_SUCCESS || SCR_Recover_var(77) == SCR_SUCCESS ||
              SCR_Protect(-1, wrong, 1, 8) == SCR_SUCCESS;
    for (int64_t j = 0; j < bytes / 8 + 8; j++)
        bad |= wrong[j] != 0xa5a5a5a5a5a5a5a5ull;
    bad |= *step != -7;
    SCR_Unprotect(1);
    free(wrong);
    if (rank == 0)
        printf("misuse: %s\n", bad ? "FAILED" : "refused, nothing overwritten");
}

static int recover(var_t *v, int64_t *step)
{
    int64_t bytes;
    for (int i = 0; i < MAXV; i++)
        v[i] = (var_t){-1, NULL, 0};
    *step = -7;
    if (opt.misuse)
        misuse(step);
    for (int id = 1, k = 0; id < MAXV; id++) {
        if (SCR_Stored_size(id, &bytes) != SCR_SUCCESS)
            return -1;
        if (bytes >= 0)
            v[k++] = (var_t){id, var_alloc(NULL, bytes), bytes};
    }
    protect_all(v);
    if (opt.pause && rank == 0) {
        FILE *r = fopen("ready", "w");
        if (r)
            fprintf(r, "ready\n"), fclose(r);
        while (access("go", F_OK) != 0)
            usleep(100000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (SCR_Recover() != SCR_SUCCESS)
        return -1;
    /* compare with a replay from the start */
    var_t want[MAXV];
    int packed = arena.on;
    arena.on = 0;
    state_init(want);
    for (int s = 1; s <= *step; s++)
        state_step(want, s);
    arena.on = packed;
    int bad = 0;
    for (int i = 0; i < MAXV; i++) {
        if (want[i].id < 0)
            continue;
        var_t *x = var_get(v, want[i].id);
        bad |= !x || x->bytes != want[i].bytes ||
               memcmp(x->buf, want[i].buf, (size_t)x->bytes) != 0;
        free(want[i].buf);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("recovered step %lld: %s\n", (long long)*step,
               bad ? "WRONG DATA" : "every byte verified");
    return bad ? -1 : 0;
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *n = i + 1 < argc ? argv[i + 1] : "0";
        int used = 1;
        if (!strcmp(a, "--steps"))
            opt.steps = atoi(n);
        else if (!strcmp(a, "--every"))
            opt.every = atoi(n);
        else if (!strcmp(a, "--size"))
            opt.size = atoll(n);
        else if (!strcmp(a, "--vars"))
            opt.nvars = atoi(n) < MAXV - 2 ? atoi(n) : MAXV - 2;
        else if (!strcmp(a, "--change"))
            opt.change = atoi(n);
        else if (!strcmp(a, "--expect-recover"))
            opt.expect = atoi(n);
        else if (!strcmp(a, "--die-after"))
            opt.die_after = atoi(n);
        else if (!strcmp(a, "--die-in-ckpt"))
            opt.die_in = atoi(n);
        else {
            used = 0;
            opt.grow |= !strcmp(a, "--grow");
            opt.incremental |= !strcmp(a, "--incremental");
            opt.misuse |= !strcmp(a, "--misuse");
            opt.pause |= !strcmp(a, "--pause-before-recover");
            opt.may_fail |= !strcmp(a, "--may-fail");
            opt.packed |= !strcmp(a, "--packed");
            opt.first_word |= !strcmp(a, "--first-word");
        }
        i += used;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    parse(argc, argv);
    arena.on = opt.packed && !opt.grow;
    if (SCR_Init() != SCR_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    var_t v[MAXV];
    int64_t step = 0;
    int have = 0;
    SCR_Have_restart(&have, NULL);
    SCR_Protect(0, &step, 1, sizeof(step));
    if (have && recover(v, &step) < 0)
        MPI_Abort(MPI_COMM_WORLD, 4);
    if (!have || step < 0) {
        step = 0;
        state_init(v);
        protect_all(v);
    }
    if (rank == 0 && opt.expect >= 0 && step != opt.expect) {
        printf("expected to recover step %d, got %lld\n", opt.expect, (long long)step);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    for (step = step + 1; step <= opt.steps; step++) {
        state_step(v, (int)step);
        protect_all(v); /* buffers move and resize */
        if (step % opt.every)
            continue;
        if (checkpoint(v, (int)step) != SCR_SUCCESS) {
            if (!opt.may_fail)
                MPI_Abort(MPI_COMM_WORLD, 6);
            if (rank == 0)
                printf("checkpoint step %lld failed, going on\n", (long long)step);
            continue;
        }
        if (rank == 0)
            printf("checkpoint step %lld complete\n", (long long)step);
        if (opt.die_after == step) {
            fflush(stdout);
            MPI_Barrier(MPI_COMM_WORLD);
            _exit(3);
        }
    }
    if (rank == 0)
        printf("done at step %d\n", opt.steps);
    SCR_Finalize();
    for (int i = 0; i < MAXV; i++)
        var_free(v[i].buf);
    free(arena.base);
    MPI_Finalize();
    return 0;
}
