/* SPDX-License-Identifier: BSD-3-Clause */
/* fti.c - FTI's application interface (fti.h) on SCR's memory-protect API.
 *
 * FTI_Init reads FTI's configuration on rank 0 (fti_conf.c), hands it to
 * every process, turns it into SCR_Config settings and calls SCR_Init.
 * Checkpoints are mem_checkpoint calls named "ckpt<id>" with the CKPT=<n>
 * descriptor of their level; recovery is SCR_Recover.  Whether a
 * checkpoint waits for recovery is asked once, collectively, in FTI_Init,
 * so FTI_Status stays a local call as in FTI.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fti.h"
#include "fti_conf.h"
#include "fti_priv.h"
#include "fti_snap.h"
#include "kvtree.h"
#include "log.h"
#include "mem.h"
#include "pfs.h"
#include "scr.h"
#include "scr_mem.h"

MPI_Comm FTI_COMM_WORLD = MPI_COMM_NULL;

fti_id_t FTI_CHAR = 0;
fti_id_t FTI_SHRT = 1;
fti_id_t FTI_INTG = 2;
fti_id_t FTI_LONG = 3;
fti_id_t FTI_UCHR = 4;
fti_id_t FTI_USHT = 5;
fti_id_t FTI_UINT = 6;
fti_id_t FTI_ULNG = 7;
fti_id_t FTI_SFLT = 8;
fti_id_t FTI_DBLE = 9;
fti_id_t FTI_LDBE = 10;

/* sizes of the predefined types, in the order of their handles */
static const size_t fti_basic_size[] = {
    sizeof(char),         sizeof(short),         sizeof(int),
    sizeof(long),         sizeof(unsigned char), sizeof(unsigned short),
    sizeof(unsigned int), sizeof(unsigned long), sizeof(float),
    sizeof(double),       sizeof(long double)};
#define FTI_NBASIC ((int)(sizeof(fti_basic_size) / sizeof(fti_basic_size[0])))

/* a protected variable as FTI sees it */
typedef struct {
    int id;
    fti_id_t type;
    void *ptr;
    int64_t count;
    int64_t stored; /* bytes in the last checkpoint this run took, -1 none */
} fti_var_t;

static struct {
    int initialized;
    int rank;
    int reco; /* FTI_Status: a checkpoint waits for FTI_Recover */
    fti_conf_t conf;
    size_t *user_size; /* FTI_InitType sizes; handle FTI_NBASIC + i */
    int nuser;
    fti_var_t *vars;
    int nvars;
    char **names; /* checkpoints this run wrote or recovered from */
    int nnames;
    int next_id;       /* FTI_Snapshot's next checkpoint id */
    unsigned taken[5]; /* checkpoints taken per level 1-4 */
    int last_id, last_level;
    fti_snap_t snap;
} fti;

/* rank 0 speaks for everyone about what every process sees alike */
int fti_chatty(void)
{
    return fti.rank == 0 && fti.conf.verbosity <= 2;
}

int fti_ready(const char *fn)
{
    if (!fti.initialized)
        log_err("%s: FTI is not initialized (call FTI_Init first)", fn);
    return fti.initialized;
}

static size_t fti_type_size(fti_id_t t)
{
    if (t >= 0 && t < FTI_NBASIC)
        return fti_basic_size[t];
    if (t >= FTI_NBASIC && t - FTI_NBASIC < fti.nuser)
        return fti.user_size[t - FTI_NBASIC];
    return 0;
}

static fti_var_t *fti_var(int id)
{
    for (int i = 0; i < fti.nvars; i++)
        if (fti.vars[i].id == id)
            return &fti.vars[i];
    return NULL;
}

static void fti_warn(const char *msg, void *arg)
{
    log_warn("%s: %s", (const char *)arg, msg);
}

static int fti_apply(const char *setting, void *arg)
{
    (void)arg;
    const char *v = SCR_Config(setting);
    free((void *)v);
    return 0;
}

/* rank 0 reads the file; everyone gets the result */
int fti_conf_read(const char *fn, const char *path, MPI_Comm comm, fti_conf_t *c)
{
    int ok = 1, rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char cwd[FTI_CONF_PATH];
        scr_error_t err = {""};
        if (!getcwd(cwd, sizeof(cwd)))
            snprintf(cwd, sizeof(cwd), ".");
        int nprocs = 0;
        MPI_Comm_size(comm, &nprocs);
        if (fti_conf_load(path, cwd, nprocs, c, fti_warn, (void *)fn, &err) < 0) {
            log_err("%s: %s", fn, err.text);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Bcast(c, (int)sizeof(*c), MPI_BYTE, 0, comm);
    return ok;
}

static int fti_name_known(const char *name)
{
    for (int i = 0; i < fti.nnames; i++)
        if (strcmp(fti.names[i], name) == 0)
            return 1;
    return 0;
}

static int fti_name_add(const char *name)
{
    char **n = realloc(fti.names, sizeof(*n) * (size_t)(fti.nnames + 1));
    if (!n || !(n[fti.nnames] = strdup(name))) {
        if (n)
            fti.names = n;
        return -1;
    }
    fti.names = n;
    fti.nnames++;
    return 0;
}

/* the id of the checkpoint on offer, from its name "ckpt<id>[.<n>]" */
static int fti_offered_id(void)
{
    int have = 0, id = 0, len = 0;
    char name[SCR_MAX_FILENAME] = "";
    if (SCR_Have_restart(&have, name) != SCR_SUCCESS || !have)
        return 0;
    fti_name_add(name); /* taken in cache */
    if (sscanf(name, "ckpt%d%n", &id, &len) != 1 || (name[len] && name[len] != '.'))
        return 0;
    return id;
}

int FTI_Init(const char *configFile, MPI_Comm globalComm)
{
    int flag = 0, cmp = MPI_UNEQUAL;
    MPI_Initialized(&flag);
    if (!flag) {
        log_err("FTI_Init: MPI is not initialized (call MPI_Init first)");
        return FTI_NSCS;
    }
    if (fti.initialized) {
        log_err("FTI_Init: FTI is already initialized");
        return FTI_NSCS;
    }
    if (globalComm != MPI_COMM_NULL)
        MPI_Comm_compare(globalComm, MPI_COMM_WORLD, &cmp);
    if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT) {
        log_err("FTI_Init: globalComm must hold every process of MPI_COMM_WORLD in its "
                "order (SCR checkpoints all of MPI_COMM_WORLD)");
        return FTI_NSCS;
    }
    MPI_Comm_rank(globalComm, &fti.rank);
    if (!fti_conf_read("FTI_Init", configFile, globalComm, &fti.conf))
        return FTI_NSCS;
    fti_conf_settings(&fti.conf, fti_apply, NULL);
    if (SCR_Init() != SCR_SUCCESS)
        return FTI_NSCS;
    MPI_Comm_dup(globalComm, &FTI_COMM_WORLD);
    fti_inject_reset();
    fti_stage_reset();
    fti.reco = mem_have_recover();
    if (fti.reco)
        fti_names_load();
    fti.next_id = fti.reco ? fti_offered_id() + 1 : 1;
    fti_snap_init(&fti.snap, &fti.conf);
    fti.initialized = 1;
    if (fti_chatty())
        log_msg("FTI_Init: %s, %s", configFile,
                fti.reco ? "a checkpoint waits for FTI_Recover"
                         : "no checkpoint to recover");
    return FTI_SCES;
}

int FTI_Status(void)
{
    return fti.initialized ? fti.reco : 0;
}

int FTI_InitType(fti_id_t *type, int size)
{
    if (!type || size <= 0) {
        log_err("FTI_InitType: %s", !type ? "NULL type" : "the size must be positive");
        return FTI_NSCS;
    }
    size_t *s = realloc(fti.user_size, sizeof(*s) * (size_t)(fti.nuser + 1));
    if (!s) {
        log_err("FTI_InitType: out of memory");
        return FTI_NSCS;
    }
    fti.user_size = s;
    s[fti.nuser] = (size_t)size;
    *type = FTI_NBASIC + fti.nuser++;
    return FTI_SCES;
}

int FTI_Protect(int id, void *ptr, int64_t count, fti_id_t tid)
{
    if (!fti_ready("FTI_Protect"))
        return FTI_NSCS;
    size_t size = fti_type_size(tid);
    int meta = id == FTI_NAMES_ID || id == FTI_TYPES_ID;
    if (id > fti.conf.max_var_id || size == 0 || meta || id < 0) {
        if (size == 0)
            log_err("FTI_Protect: variable %d: %d is not a type handle", id, tid);
        else if (meta || id < 0)
            log_err("FTI_Protect: variable id %d is not one FTI_Protect takes (0 to "
                    "INT_MAX - 2: SCR keeps the names of FTI_setIDFromString under "
                    "INT_MAX and the composite types under INT_MAX - 1)",
                    id);
        else
            log_err("FTI_Protect: variable id %d is over [basic] max_var_id = %ld", id,
                    fti.conf.max_var_id);
        return FTI_NSCS;
    }
    fti_var_t *v = fti_var(id);
    if (!v) {
        fti_var_t *vars = realloc(fti.vars, sizeof(*vars) * (size_t)(fti.nvars + 1));
        if (!vars) {
            log_err("FTI_Protect: out of memory");
            return FTI_NSCS;
        }
        fti.vars = vars;
        v = &fti.vars[fti.nvars];
        *v = (fti_var_t){.id = id, .stored = -1};
    }
    if (SCR_Protect(id, ptr, count, size) != SCR_SUCCESS)
        return FTI_NSCS;
    if (v == &fti.vars[fti.nvars])
        fti.nvars++;
    v->type = tid;
    v->ptr = ptr;
    v->count = count;
    return FTI_SCES;
}

int64_t FTI_GetStoredSize(int id)
{
    if (!fti_ready("FTI_GetStoredSize"))
        return 0;
    if (fti.reco) {
        int64_t bytes = -1;
        SCR_Stored_size(id, &bytes);
        return bytes > 0 ? bytes : 0;
    }
    fti_var_t *v = fti_var(id);
    return v && v->stored > 0 ? v->stored : 0;
}

void *FTI_Realloc(int id, void *ptr)
{
    if (!fti_ready("FTI_Realloc"))
        return ptr;
    fti_var_t *v = fti_var(id);
    if (!fti.reco || !v) {
        log_warn("FTI_Realloc: variable %d: %s", id,
                 !fti.reco ? "this is not a recovery" : "not protected");
        return ptr;
    }
    int64_t bytes = -1;
    if (SCR_Stored_size(id, &bytes) != SCR_SUCCESS || bytes <= 0) {
        log_warn("FTI_Realloc: variable %d has no bytes in the checkpoint", id);
        return ptr;
    }
    size_t size = fti_type_size(v->type);
    void *p = realloc(ptr, (size_t)bytes);
    if (!p) {
        log_err("FTI_Realloc: variable %d: out of memory for %lld bytes", id,
                (long long)bytes);
        return ptr;
    }
    if (FTI_Protect(id, p, bytes / (int64_t)size, v->type) != FTI_SCES)
        log_err("FTI_Realloc: variable %d: cannot protect it at its new size", id);
    return p;
}

/* FTI's levels as SCR runs them: 5-7 (differential 1-3) are 1-3, as FTI
 * takes them; 8 (differential 4) is 4, differential when SCR_DCP is set;
 * 9 (HDF5 single file) is 4 */
static int fti_level(const char *fn, int level)
{
    if (level >= FTI_L1_DCP && level <= FTI_L3_DCP) {
        if (fti.rank == 0)
            log_warn("%s: differential checkpoints are for level 4 only; "
                     "level %d taken as level %d",
                     fn, level, level - 4);
        return level - 4;
    }
    if (level == FTI_L4_H5_SINGLE) {
        if (fti.rank == 0)
            log_warn("%s: level %d (HDF5 single file) is not supported; taken as level 4",
                     fn, level);
        return FTI_L4;
    }
    return level == FTI_L4_DCP ? FTI_L4 : level;
}

/* "ckpt<id>", or "ckpt<id>.<n>" when this run already has that name */
static int fti_ckpt_name(int id, char *name, size_t len)
{
    snprintf(name, len, "ckpt%d", id);
    for (int n = 2; fti_name_known(name); n++)
        snprintf(name, len, "ckpt%d.%d", id, n);
    return fti_name_add(name);
}

int fti_ckpt_prepare(const char *fn, int id, int level, char *name, size_t len,
                     mem_opts_t *o)
{
    static const int rd_of_level[] = {0, FTI_CONF_RD_SINGLE, FTI_CONF_RD_PARTNER,
                                      FTI_CONF_RD_RS, FTI_CONF_RD_SINGLE};
    if (level < FTI_MIN_LEVEL_ID || level > FTI_MAX_LEVEL_ID) {
        if (fti.rank == 0)
            log_err("%s: checkpoint %d: level %d is not an FTI level (1-9)", fn, id,
                    level);
        return -1;
    }
    int lvl = fti_level(fn, level);
    if (fti_ckpt_name(id, name, len) < 0) {
        log_err("%s: out of memory", fn);
        return -1;
    }
    if (fti_names_protect() < 0 || fti_types_protect() < 0)
        return -1;
    *o = (mem_opts_t){.rd_index = rd_of_level[lvl], .flush = lvl == FTI_L4};
    return lvl;
}

void fti_ckpt_taken(int id, int lvl, double t0)
{
    fti.taken[lvl >= 1 && lvl <= 4 ? lvl : 4]++;
    fti.last_id = id;
    fti.last_level = lvl;
    for (int i = 0; i < fti.nvars; i++)
        fti.vars[i].stored = fti.vars[i].count * (int64_t)fti_type_size(fti.vars[i].type);
    if (fti_chatty())
        log_msg("FTI: checkpoint %d (L%d) taken in %.2f s", id, lvl, MPI_Wtime() - t0);
}

int fti_type_known(fti_id_t t)
{
    return fti_type_size(t) > 0;
}

int fti_var_count(void)
{
    return fti.nvars;
}

int fti_var_id(int i)
{
    return fti.vars[i].id;
}

int fti_var_protected(int id)
{
    return fti_var(id) != NULL;
}

int fti_var_info(int id, void **ptr, int64_t *count, fti_id_t *type)
{
    fti_var_t *v = fti_var(id);
    if (!v)
        return -1;
    *ptr = v->ptr;
    *count = v->count;
    *type = v->type;
    return 0;
}

const fti_conf_t *fti_config(void)
{
    return &fti.conf;
}

void fti_exec_fill(FTIT_execution *e, unsigned taken[5])
{
    const fti_snap_t *sn = &fti.snap;
    memcpy(taken, fti.taken, sizeof(fti.taken));
    e->ckptCnt = taken[1] + taken[2] + taken[3] + taken[4];
    e->hasCkpt = e->ckptCnt > 0;
    e->ckptId = (unsigned)fti.last_id;
    e->ckptLvel = e->lastCkptLvel = fti.last_level;
    e->reco = fti.reco;
    e->nbVar = (unsigned)fti.nvars;
    int64_t bytes = 0;
    unsigned stored = 0;
    for (int i = 0; i < fti.nvars; i++) {
        bytes += fti.vars[i].count * (int64_t)fti_type_size(fti.vars[i].type);
        stored += fti.vars[i].stored >= 0;
    }
    e->ckptSize = bytes > INT32_MAX ? INT32_MAX : (int32_t)bytes;
    e->nbVarStored = stored;
    e->nbType = (unsigned)(FTI_NBASIC + fti.nuser);
    e->basicTypesNum = FTI_NBASIC;
    e->meanIterTime = e->globMeanIter = sn->mean;
    e->lastIterTime = sn->calls > 0 ? sn->mean : 0;
    e->iterTime = sn->last;
    e->totalIterTime = sn->busy;
    e->syncIter = (unsigned)sn->sync_every;
    e->minuteCnt = (unsigned)sn->minutes;
    e->ckptIcnt = (unsigned)sn->calls;
    e->ckptNext = (unsigned)sn->next_tick;
    e->ckptLast = (unsigned)sn->last_tick;
}

int fti_initialized(void)
{
    return fti.initialized;
}

int fti_my_rank(void)
{
    return fti.rank;
}

int FTI_Checkpoint(int id, int level)
{
    if (!fti_ready("FTI_Checkpoint"))
        return FTI_NSCS;
    char name[64];
    mem_opts_t o;
    int lvl = fti_ckpt_prepare("FTI_Checkpoint", id, level, name, sizeof(name), &o);
    if (lvl < 0)
        return FTI_NSCS;
    double t0 = MPI_Wtime();
    if (mem_checkpoint(name, &o) != SCR_SUCCESS) {
        if (fti.rank == 0)
            log_err("FTI_Checkpoint: checkpoint %d at level %d failed", id, lvl);
        return FTI_NSCS;
    }
    fti_ckpt_taken(id, lvl, t0);
    return FTI_DONE;
}

int FTI_Recover(void)
{
    if (!fti_ready("FTI_Recover"))
        return FTI_NREC;
    if (!fti.reco) {
        if (fti.rank == 0)
            log_err("FTI_Recover: there is no checkpoint to recover from");
        return FTI_NREC;
    }
    fti_names_unprotect(); /* read at FTI_Init; the program may have named more */
    fti_types_unprotect(); /* for `scr print`; the program made its types again */
    if (SCR_Recover() != SCR_SUCCESS)
        return FTI_NREC;
    fti.reco = 0;
    if (fti_chatty())
        log_msg("FTI_Recover: every protected variable restored");
    return FTI_SCES;
}

int FTI_RecoverVarInit(void)
{
    return fti_ready("FTI_RecoverVarInit") ? FTI_SCES : FTI_NSCS;
}

int FTI_RecoverVar(int id)
{
    if (!fti_ready("FTI_RecoverVar"))
        return FTI_NSCS;
    if (!fti.reco) {
        if (fti.rank == 0)
            log_err("FTI_RecoverVar: variable %d: there is no checkpoint to recover from",
                    id);
        return FTI_NREC;
    }
    return SCR_Recover_var(id) == SCR_SUCCESS ? FTI_SCES : FTI_NREC;
}

int FTI_RecoverVarFinalize(void)
{
    return fti_ready("FTI_RecoverVarFinalize") ? FTI_SCES : FTI_NSCS;
}

int FTI_Snapshot(void)
{
    if (!fti_ready("FTI_Snapshot"))
        return FTI_NSCS;
    if (fti.reco)
        return FTI_Recover();
    int level = fti_snap_due(&fti.snap, MPI_Wtime(), FTI_COMM_WORLD);
    if (level == 0)
        return FTI_SCES;
    int rc = FTI_Checkpoint(fti.next_id, level);
    if (rc == FTI_DONE)
        fti.next_id++;
    return rc;
}

/* digits, then the rest */
static const char *fti_skip_number(const char *p)
{
    if (*p == '-')
        p++;
    const char *start = p;
    while (isdigit((unsigned char)*p))
        p++;
    return p > start ? p : NULL;
}

/* a name FTI_Checkpoint gives: "ckpt<id>" or "ckpt<id>.<n>" */
static int fti_is_ckpt_name(const char *name)
{
    const char *p = strncmp(name, "ckpt", 4) == 0 ? fti_skip_number(name + 4) : NULL;
    if (p && *p == '.')
        p = fti_skip_number(p + 1);
    return p && *p == '\0';
}

/* rank 0: the FTI checkpoints the prefix index lists, as "name\n..." */
static char *fti_prefix_names(void)
{
    char *prefix = (char *)SCR_Config("SCR_PREFIX");
    kvtree_t *index = kvtree_new();
    size_t len = 0;
    char *buf = NULL;
    FILE *out = open_memstream(&buf, &len);
    if (prefix && index && out && index_read(prefix, index, NULL) == 0) {
        kvtree_t *dsets = kvtree_get(index, "DSET");
        for (kvtree_elem_t *e = kvtree_first(dsets); e; e = kvtree_elem_next(e)) {
            int id;
            const char *name = kvtree_elem_key_int(e, &id) == 0
                                   ? kvtree_get_val(index_dset_desc(index, id), "NAME")
                                   : NULL;
            if (name && fti_is_ckpt_name(name))
                fprintf(out, "%s\n", name);
        }
    }
    if (out)
        fclose(out);
    kvtree_delete(&index);
    free(prefix);
    return buf;
}

/* keep_last_ckpt = 0: as FTI, a run that ends leaves no checkpoint to
 * restart from.  Every FTI checkpoint this run knows or the prefix lists
 * is deleted; with keep_l4_ckpt = 1 a flushed one only leaves the index,
 * its files stay on the prefix. */
static void fti_clean(void)
{
    char *mine = fti.rank == 0 ? fti_prefix_names() : NULL;
    int len = mine ? (int)strlen(mine) : 0;
    MPI_Bcast(&len, 1, MPI_INT, 0, FTI_COMM_WORLD);
    char *all = calloc((size_t)len + 1, 1);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (fti.rank == 0 && len)
        memcpy(all, mine, (size_t)len);
    MPI_Bcast(all, len, MPI_CHAR, 0, FTI_COMM_WORLD);
    char *save = NULL;
    for (char *n = strtok_r(all, "\n", &save); n; n = strtok_r(NULL, "\n", &save))
        if (!fti_name_known(n))
            fti_name_add(n);
    int (*drop)(const char *) = fti.conf.keep_l4_ckpt ? SCR_Drop : SCR_Delete;
    for (int i = 0; i < fti.nnames; i++)
        drop(fti.names[i]);
    if (fti_chatty())
        log_msg("FTI_Finalize: %d checkpoints %s (keep_last_ckpt = 0)", fti.nnames,
                fti.conf.keep_l4_ckpt ? "dropped" : "deleted");
    free(all);
    free(mine);
}

int FTI_Finalize(void)
{
    if (!fti_ready("FTI_Finalize"))
        return FTI_NSCS;
    fti_stage_finish();
    if (!fti.conf.keep_last_ckpt)
        fti_clean();
    int rc = SCR_Finalize();
    free(fti.vars);
    for (int i = 0; i < fti.nnames; i++)
        free(fti.names[i]);
    free(fti.names);
    free(fti.user_size);
    fti_names_free();
    fti_types_free();
    fti_h5_free();
    int rank = fti.rank;
    memset(&fti, 0, sizeof(fti));
    fti.rank = rank;
    return rc == SCR_SUCCESS ? FTI_SCES : FTI_NSCS;
}
