/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_getconf.c - FTI_GetConfig: FTI's configuration, topology and run
 * state in FTI's structs (FTIT_allConfiguration).
 *
 * The configuration is configFile read as FTI_Init reads it (FTI 1.6
 * reads the file again too), in FTI's units: block and transfer sizes in
 * bytes, ioMode as FTI's FTI_IO_* token.  The topology is FTI's for a run
 * without head processes: nodes are the processes that share memory, in
 * the order of their first rank; a group is group_size consecutive nodes
 * (a sector), and the processes of a group with the same rank on their
 * node form FTI's ring (left, right).  The run state (checkpoints taken,
 * the last one, recovery) is this run's after FTI_Init, zero before it. */
#include <stdlib.h>
#include <string.h>

#include "fti.h"
#include "fti_priv.h"
#include "log.h"

/* FTI 1.6 turns ckpt_io into its token; a value it does not know is POSIX */
static int io_mode(long ckpt_io)
{
    return ckpt_io >= 1 && ckpt_io <= 6 && ckpt_io != 4 ? (int)(1000 + ckpt_io)
                                                        : FTI_IO_POSIX;
}

static void conf_fill(FTIT_configuration *o, const fti_conf_t *c, const char *path)
{
    o->stagingEnabled = c->enable_staging != 0;
    o->dcpPosix = c->enable_dcp && c->ckpt_io == 1;
    o->dcpFtiff = c->enable_dcp && c->ckpt_io == 3;
    o->keepL4Ckpt = c->keep_l4_ckpt != 0;
    o->keepHeadsAlive = c->keep_heads_alive != 0;
    o->dcpMode = (int)c->dcp_mode;
    o->dcpBlockSize = (int)c->dcp_block_size;
    snprintf(o->cfgFile, sizeof(o->cfgFile), "%s", path);
    o->saveLastCkpt = (int)c->keep_last_ckpt;
    o->verbosity = (int)c->verbosity;
    o->blockSize = (int)c->block_size * 1024;
    o->transferSize = (int)c->transfer_size * 1024 * 1024;
    o->maxVarId = (int)c->max_var_id;
    o->ckptTag = (int)c->ckpt_tag;
    o->stageTag = (int)c->stage_tag;
    o->finalTag = (int)c->final_tag;
    o->generalTag = (int)c->general_tag;
    o->test = (int)c->local_test;
    o->l3WordSize = FTI_WORD;
    o->ioMode = io_mode(c->ckpt_io);
    o->h5SingleFileEnable = c->h5_enable != 0;
    o->h5SingleFileKeep = c->h5_keep != 0;
    o->h5SingleFileIsInline = c->h5_inline != 0;
    snprintf(o->h5SingleFileDir, FTI_BUFS, "%s", c->h5_dir);
    snprintf(o->h5SingleFilePrefix, FTI_BUFS, "%s", c->h5_prefix);
    snprintf(o->localDir, FTI_BUFS, "%.*s", FTI_BUFS - 1, c->ckpt_dir);
    snprintf(o->glbalDir, FTI_BUFS, "%.*s", FTI_BUFS - 1, c->glbl_dir);
    snprintf(o->metadDir, FTI_BUFS, "%s", c->meta_dir);
    o->cHostBufSize = (size_t)c->gpu_host_bufsize;
    snprintf(o->suffix, sizeof(o->suffix), "fti");
    if (fti_initialized() && c->enable_staging)
        FTI_GetStageDir(o->stageDir, FTI_BUFS);
}

/* the topology of comm: nodes by shared memory, FTI's groups and ring */
static void topo_fill(FTIT_topology *t, MPI_Comm comm, long group_size)
{
    MPI_Comm node, leaders, ring;
    int nrank, nsize, nodes = 0, node_id = 0;
    MPI_Comm_size(comm, &t->nbProc);
    MPI_Comm_rank(comm, &t->myRank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, t->myRank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    /* the nodes in the order of their first process */
    MPI_Comm_split(comm, nrank == 0 ? 0 : MPI_UNDEFINED, t->myRank, &leaders);
    if (leaders != MPI_COMM_NULL) {
        MPI_Comm_rank(leaders, &node_id);
        MPI_Comm_size(leaders, &nodes);
        MPI_Comm_free(&leaders);
    }
    MPI_Bcast(&node_id, 1, MPI_INT, 0, node);
    MPI_Bcast(&nodes, 1, MPI_INT, 0, node);
    int gs = group_size > 0 && group_size <= nodes ? (int)group_size : 1;
    t->nbNodes = nodes;
    t->splitRank = t->myRank;
    t->nodeSize = t->nbApprocs = nsize;
    t->groupSize = gs;
    t->nodeID = node_id;
    t->sectorID = node_id / gs;
    t->groupRank = node_id % gs;
    t->groupID = nrank;
    t->nodeRank = nrank;
    /* the node's processes in comm (body holds FTI_BUFS: a larger node's
     * first ones) */
    int local[FTI_BUFS], n = nsize < FTI_BUFS ? nsize : FTI_BUFS;
    MPI_Group ng, wg;
    MPI_Comm_group(node, &ng);
    MPI_Comm_group(comm, &wg);
    for (int i = 0; i < n; i++)
        local[i] = i;
    MPI_Group_translate_ranks(ng, n, local, wg, t->body);
    MPI_Group_free(&ng);
    MPI_Group_free(&wg);
    t->headRank = t->body[0]; /* no heads: the node's first process */
    /* a ring: the same rank on each node of the sector */
    int most = nsize;
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, comm);
    MPI_Comm_split(comm, t->sectorID * most + nrank, t->groupRank, &ring);
    int rsize, rrank, world[2];
    MPI_Comm_size(ring, &rsize);
    MPI_Comm_rank(ring, &rrank);
    int peers[2] = {(rrank + rsize - 1) % rsize, (rrank + 1) % rsize};
    MPI_Group rg, cg;
    MPI_Comm_group(ring, &rg);
    MPI_Comm_group(comm, &cg);
    MPI_Group_translate_ranks(rg, 2, peers, cg, world);
    t->left = world[0];
    t->right = world[1];
    MPI_Group_free(&rg);
    MPI_Group_free(&cg);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&node);
}

static void levels_fill(FTIT_allConfiguration *a, const fti_conf_t *c)
{
    unsigned taken[5] = {0};
    FTIT_execution *e = &a->execution;
    e->initSCES = fti_initialized();
    if (e->initSCES)
        fti_exec_fill(e, taken);
    for (int l = 1; l <= 4; l++) {
        FTIT_checkpoint *k = &a->checkpoint[l];
        snprintf(k->dir, FTI_BUFS, "%.*s", FTI_BUFS - 1,
                 l == 4 ? c->glbl_dir : c->ckpt_dir);
        snprintf(k->metaDir, FTI_BUFS, "%s", c->meta_dir);
        k->ckptIntv = (int)c->ckpt_l[l];
        k->isInline = l == 1 ? 1 : (int)c->inline_l[l];
        k->ckptCnt = (int)taken[l];
        k->hasCkpt = taken[l] > 0;
        k->isDcp = k->hasDcp = l == 4 && c->enable_dcp;
        k->ckptDcpIntv = l == 4 ? (int)c->dcp_l4 : 0;
    }
    snprintf(e->id, FTI_BUFS, "%s", c->exec_id);
    e->nbGroup = e->initSCES ? fti_h5_groups() : 0;
    e->syncIterMax = (int)c->max_sync_intv;
    e->globalComm = e->initSCES ? FTI_COMM_WORLD : MPI_COMM_NULL;
    e->groupComm = e->nodeComm = MPI_COMM_NULL;
}

FTIT_allConfiguration FTI_GetConfig(const char *configFile, MPI_Comm globalComm)
{
    FTIT_allConfiguration a;
    memset(&a, 0, sizeof(a));
    a.configuration.ioMode = -1;
    int mpi = 0;
    MPI_Initialized(&mpi);
    if (!mpi || !configFile || globalComm == MPI_COMM_NULL) {
        log_err("FTI_GetConfig: %s", !mpi          ? "MPI is not initialized"
                                     : !configFile ? "NULL configFile"
                                                   : "MPI_COMM_NULL");
        return a;
    }
    fti_conf_t *c = malloc(sizeof(*c));
    int ok = c != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, globalComm);
    if (!ok || !fti_conf_read("FTI_GetConfig", configFile, globalComm, c)) {
        if (!ok)
            log_err("FTI_GetConfig: out of memory");
        free(c);
        return a;
    }
    conf_fill(&a.configuration, c, configFile);
    topo_fill(&a.topology, globalComm, c->group_size);
    levels_fill(&a, c);
    FTIT_injection *i = &a.injection;
    i->rank = (int)c->inj_rank;
    i->index = (int)c->inj_index;
    i->position = (int)c->inj_position;
    i->number = (int)c->inj_number;
    i->frequency = (int)c->inj_frequency;
    if (fti_initialized())
        fti_inject_state(&i->counter, &i->timer);
    free(c);
    return a;
}
