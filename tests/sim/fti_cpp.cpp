/* SPDX-License-Identifier: BSD-3-Clause */
// fti_cpp.cpp - an FTI program in C++, written as FTI's documentation
// writes them, built against libscr's fti.h (tests/sim/test-fti.sh).
//
//   fti_cpp CONFIG STEPS LEVEL EVERY [DIE_AT [RANK]]
//
// Each rank keeps a field (std::vector<double>, a 2-D shape given to
// FTI_DefineDataset in a group made with FTI_InitGroup), particles (an
// array of a struct, a composite type) and the step, each protected under
// an id from FTI_setIDFromString.  Every step changes every byte of them
// in a way that depends on the step and the rank only; rank 0 prints
// "step N sum H", H a hash of every rank's bytes in rank order, so a run
// that recovered prints from there exactly the lines of one that never
// stopped.  FTI_Checkpoint(step / EVERY, LEVEL) every EVERY steps; after
// step DIE_AT every rank dies (SIGKILL), or only RANK.  At the end
// FTI_GetConfig must count this run's checkpoints and variables.  Before
// the loop it checks what
// FTI_GetConfig reports against CONFIG (written by test-fti.sh), FTI's
// rules for groups, datasets and attributes, and that a global dataset
// fails as in an FTI without HDF5; one line each, "... ok" or why not.
#include <fti.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct Particle {
    double x, y, z;
    int32_t id;
};

static const int ROWS = 24, COLS = 40, NPART = 16;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = static_cast<const unsigned char *>(p);
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static void advance(int step, int rank, std::vector<double> &f, std::vector<Particle> &p)
{
    for (size_t i = 0; i < f.size(); i++)
        f[i] = f[i] * 0.75 + step + rank * 0.001 + static_cast<double>(i) * 1e-6;
    for (int i = 0; i < NPART; i++) {
        p[i].x += 0.5 * step + rank;
        p[i].y = p[i].x * 0.25 + i;
        p[i].z -= 1.0 / (step + i + 1);
        p[i].id += step;
    }
}

static void say(int rank, bool good, const std::string &what, const std::string &why)
{
    if (rank == 0)
        std::printf("%s%s%s\n", what.c_str(), good ? " ok" : ": ",
                    good ? "" : why.c_str());
}

// FTI_GetConfig against what test-fti.sh wrote in CONFIG
static void check_config(const char *config, int rank, int size)
{
    FTIT_allConfiguration c = FTI_GetConfig(config, FTI_COMM_WORLD);
    char why[512];
    std::snprintf(why, sizeof(why),
                  "ioMode %d nbProc %d nbNodes %d nodeSize %d groupSize %d blockSize %d "
                  "transferSize %d ckptIntv[1] %d generalTag %d id '%s' initSCES %d",
                  c.configuration.ioMode, c.topology.nbProc, c.topology.nbNodes,
                  c.topology.nodeSize, c.topology.groupSize, c.configuration.blockSize,
                  c.configuration.transferSize, c.checkpoint[1].ckptIntv,
                  c.configuration.generalTag, c.execution.id, c.execution.initSCES);
    bool good = c.configuration.ioMode == FTI_IO_POSIX && c.topology.nbProc == size &&
                c.topology.nbNodes == size / 2 && c.topology.nodeSize == 2 &&
                c.topology.groupSize == 4 && c.configuration.blockSize == 1024 * 1024 &&
                c.configuration.transferSize == 16 * 1024 * 1024 &&
                c.checkpoint[1].ckptIntv == 3 && c.configuration.generalTag == 2612 &&
                std::strcmp(c.execution.id, "2024-01-01_00-00-00") == 0 &&
                c.execution.initSCES == 1 && c.topology.myRank == rank &&
                c.topology.body[0] == rank - rank % 2 &&
                c.topology.body[1] == c.topology.body[0] + 1 &&
                c.topology.headRank == c.topology.body[0];
    say(rank, good, "getconfig: configuration and topology", why);
    // the ring of a group: the same rank on the neighbouring nodes
    int ring = c.topology.left != rank && c.topology.right != rank &&
               c.topology.left % 2 == rank % 2 && c.topology.right % 2 == rank % 2;
    MPI_Allreduce(MPI_IN_PLACE, &ring, 1, MPI_INT, MPI_LAND, FTI_COMM_WORLD);
    say(rank, ring, "getconfig: left and right", "not the same rank on the nodes beside");
    FTIT_allConfiguration bad = FTI_GetConfig("/nonexistent/config.fti", FTI_COMM_WORLD);
    say(rank, bad.configuration.ioMode == -1, "getconfig: a missing file gives ioMode -1",
        "ioMode " + std::to_string(bad.configuration.ioMode));
}

// what FTI_GetConfig says of this run at its end
static void check_run(const char *config, int rank, int taken, int last_id, int level)
{
    FTIT_allConfiguration c = FTI_GetConfig(config, FTI_COMM_WORLD);
    const FTIT_execution &e = c.execution;
    size_t bytes = sizeof(int) + ROWS * COLS * sizeof(double) + NPART * sizeof(Particle);
    char why[256];
    std::snprintf(
        why, sizeof(why),
        "ckptCnt %u ckptId %u ckptLvel %d nbVar %u nbType %u ckptSize %d hasCkpt %d",
        e.ckptCnt, e.ckptId, e.ckptLvel, e.nbVar, e.nbType, static_cast<int>(e.ckptSize),
        static_cast<int>(e.hasCkpt));
    bool good =
        e.ckptCnt == static_cast<unsigned>(taken) && e.nbVar == 3 && e.nbType == 12 &&
        e.ckptSize == static_cast<int32_t>(bytes) && e.hasCkpt == (taken > 0) &&
        (taken == 0 || (e.ckptId == static_cast<unsigned>(last_id) &&
                        e.ckptLvel == level && c.checkpoint[level].ckptCnt == taken));
    say(rank, good, "getconfig: this run's checkpoints and variables", why);
}

// groups, dataset shapes and attributes, FTI 1.6's rules
static void check_names(int rank, int fid)
{
    FTIT_H5Group fields, hot, again;
    bool good = FTI_InitGroup(&fields, "fields", NULL) == FTI_SCES &&
                FTI_InitGroup(&hot, "hot", &fields) == FTI_SCES &&
                FTI_InitGroup(&again, "hot", &fields) == FTI_NSCS &&
                FTI_RenameGroup(&hot, "warm") == FTI_SCES;
    say(rank, good && std::strcmp(hot.fullName, "/fields/warm") == 0,
        "groups: made, a second child of one name refused, renamed", hot.fullName);
    int dims[2] = {ROWS, COLS}, wrong[2] = {ROWS, COLS + 1};
    good = FTI_DefineDataset(fid, 2, dims, "temperature", &hot) == FTI_SCES &&
           FTI_DefineDataset(fid, 2, wrong, "temperature", &hot) == FTI_NSCS &&
           FTI_DefineDataset(4242, 1, dims, "nothing", NULL) == FTI_NSCS &&
           FTI_DefineDataset(fid, 33, dims, "deep", NULL) == FTI_NSCS;
    say(rank, good, "datasets: a shape that fits taken, others refused", "a return code");
    FTIT_attribute a;
    std::memset(&a, 0, sizeof(a));
    std::snprintf(a.name, sizeof(a.name), "temperature field");
    a.dim.ndims = 2;
    a.dim.count[0] = ROWS;
    a.dim.count[1] = COLS;
    good = FTI_SetAttribute(fid, a, FTI_ATTRIBUTE_NAME | FTI_ATTRIBUTE_DIM) == FTI_SCES &&
           FTI_SetAttribute(4242, a, FTI_ATTRIBUTE_NAME) == FTI_NSCS;
    say(rank, good, "attributes: set on a protected variable only", "a return code");
    FTIT_hsize_t span[2] = {ROWS, COLS};
    good = FTI_DefineGlobalDataset(7, 2, span, "global", NULL, FTI_DBLE) == FTI_NSCS &&
           FTI_AddSubset(fid, 2, span, span, 7) == FTI_NSCS &&
           FTI_GetDatasetSpan(7, 2) == NULL && FTI_GetDatasetRank(7) == FTI_NSCS;
    say(rank, good, "global datasets: FTI_NSCS, as FTI without HDF5", "a return code");
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        std::fprintf(stderr, "usage: fti_cpp CONFIG STEPS LEVEL EVERY [DIE_AT [RANK]]\n");
        return 2;
    }
    int steps = std::atoi(argv[2]), level = std::atoi(argv[3]),
        every = std::atoi(argv[4]);
    int die_at = argc > 5 ? std::atoi(argv[5]) : -1;
    int die_rank = argc > 6 ? std::atoi(argv[6]) : -1;
    MPI_Init(&argc, &argv);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 1);
    int rank, size;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &size);

    std::vector<double> field(ROWS * COLS, 1.0);
    // the padding after id is checkpointed and hashed with the rest: zero
    // every byte first (a vector's value-initialized elements may be copies
    // whose padding is anything), then set a member at a time
    std::vector<Particle> parts(NPART);
    std::memset(static_cast<void *>(parts.data()), 0, parts.size() * sizeof(Particle));
    for (int i = 0; i < NPART; i++) {
        parts[i].x = 1.0 * i;
        parts[i].y = 2.0 * i;
        parts[i].z = 3.0 * i;
        parts[i].id = i;
    }
    fti_id_t ptype = FTI_InitCompositeType("Particle", sizeof(Particle), NULL);
    FTI_AddScalarField(ptype, "x", FTI_DBLE, offsetof(Particle, x));
    FTI_AddScalarField(ptype, "y", FTI_DBLE, offsetof(Particle, y));
    FTI_AddScalarField(ptype, "z", FTI_DBLE, offsetof(Particle, z));
    FTI_AddScalarField(ptype, "id", FTI_INTG, offsetof(Particle, id));
    int step = 0;
    int sid = FTI_setIDFromString("step"), fid = FTI_setIDFromString("field"),
        pid = FTI_setIDFromString("particles");
    FTI_Protect(sid, &step, 1, FTI_INTG);
    FTI_Protect(fid, field.data(), static_cast<int32_t>(field.size()), FTI_DBLE);
    FTI_Protect(pid, parts.data(), NPART, ptype);
    check_config(argv[1], rank, size);
    check_names(rank, fid);

    if (FTI_Status() != 0) {
        if (FTI_Recover() != FTI_SCES)
            MPI_Abort(FTI_COMM_WORLD, 3);
        if (rank == 0)
            std::printf("recovered at step %d\n", step);
    }
    int taken = 0;
    for (step = step + 1; step <= steps; step++) {
        advance(step, rank, field, parts);
        uint64_t h = fnv(fnv(fnv(1469598103934665603ull, &step, sizeof(step)),
                             field.data(), field.size() * sizeof(double)),
                         parts.data(), parts.size() * sizeof(Particle));
        std::vector<uint64_t> all(static_cast<size_t>(size));
        MPI_Gather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, 0, FTI_COMM_WORLD);
        if (rank == 0)
            std::printf(
                "step %d sum %016llx\n", step,
                static_cast<unsigned long long>(fnv(0, all.data(), all.size() * 8)));
        std::fflush(stdout);
        if (every > 0 && step % every == 0) {
            if (FTI_Checkpoint(step / every, level) != FTI_DONE)
                MPI_Abort(FTI_COMM_WORLD, 4);
            taken++;
        }
        if (step == die_at) {
            MPI_Barrier(FTI_COMM_WORLD); // rank 0 has printed the step
            if (die_rank < 0 || die_rank == rank)
                std::raise(SIGKILL);
            MPI_Barrier(FTI_COMM_WORLD); // the others wait to be ended
        }
    }
    check_run(argv[1], rank, taken, every > 0 ? steps / every : 0, level);
    FTI_Finalize();
    MPI_Finalize();
    return 0;
}
