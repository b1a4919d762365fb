/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_icp.c - FTI's incremental checkpoints (FTI_InitICP, FTI_AddVarICP,
 * FTI_FinalizeICP) on SCR_Checkpoint_begin/_add/_end, with FTI 1.6's rules:
 * an inactive one does nothing, a variable goes in once, and the
 * checkpoint fails unless every process added every protected variable. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fti.h"
#include "fti_priv.h"
#include "log.h"
#include "mem.h"
#include "scr.h"
#include "scr_mem.h"

/* the incremental checkpoint of this process */
static struct {
    int active; /* FTI_InitICP(..., true) and no FTI_FinalizeICP yet */
    int open;   /* SCR's checkpoint is begun: FTI_FinalizeICP ends it */
    int failed; /* something failed here: the checkpoint cannot be good */
    int id, lvl;
    double t0;
    int *added; /* ids added so far */
    int nadded;
} icp;

static void icp_reset(void)
{
    free(icp.added);
    memset(&icp, 0, sizeof(icp));
}

int FTI_InitICP(int id, int level, bool activate)
{
    if (!fti_ready("FTI_InitICP"))
        return FTI_NSCS;
    if (!activate)
        return FTI_SCES;
    if (icp.active) {
        log_err(
            "FTI_InitICP: checkpoint %d: checkpoint %d is still open (FTI_FinalizeICP)",
            id, icp.id);
        return FTI_NSCS;
    }
    icp_reset();
    icp.active = 1;
    icp.id = id;
    char name[64];
    mem_opts_t o;
    icp.lvl = fti_ckpt_prepare("FTI_InitICP", id, level, name, sizeof(name), &o);
    icp.added = calloc((size_t)fti_var_count() + 1, sizeof(int));
    icp.failed = !icp.added;
    if (icp.lvl < 0)
        return icp.failed = 1, FTI_NSCS;
    icp.t0 = MPI_Wtime();
    /* collective, and whatever failed here, so every process opens it */
    icp.open = mem_checkpoint_begin(name, &o) == SCR_SUCCESS;
    if (!icp.open)
        icp.failed = 1;
    return icp.failed ? FTI_NSCS : FTI_SCES;
}

static int icp_has(int id)
{
    for (int i = 0; i < icp.nadded; i++)
        if (icp.added[i] == id)
            return 1;
    return 0;
}

int FTI_AddVarICP(int varID)
{
    if (!fti_ready("FTI_AddVarICP"))
        return FTI_NSCS;
    if (!icp.active)
        return FTI_SCES;
    if (icp.failed)
        return FTI_NSCS;
    if (!fti_var_protected(varID)) {
        log_err("FTI_AddVarICP: checkpoint %d: variable %d is not protected", icp.id,
                varID);
        return FTI_NSCS;
    }
    if (icp_has(varID)) {
        log_err("FTI_AddVarICP: checkpoint %d: variable %d is in it already", icp.id,
                varID);
        return FTI_NSCS;
    }
    if (icp.nadded >= fti_var_count() || SCR_Checkpoint_add(varID) != SCR_SUCCESS)
        return FTI_NSCS;
    icp.added[icp.nadded++] = varID;
    return FTI_SCES;
}

/* the protected variables this process did not add; -1 when all were */
static int icp_missing(void)
{
    for (int i = 0; i < fti_var_count(); i++)
        if (!icp_has(fti_var_id(i)))
            return fti_var_id(i);
    return -1;
}

int FTI_FinalizeICP(void)
{
    if (!fti_ready("FTI_FinalizeICP"))
        return FTI_NSCS;
    if (!icp.active)
        return FTI_SCES;
    int missing = icp.failed ? -1 : icp_missing();
    if (missing >= 0)
        log_err(
            "FTI_FinalizeICP: checkpoint %d: variable %d was not added (FTI_AddVarICP)",
            icp.id, missing);
    /* the names and types go in as in FTI_Checkpoint's checkpoints */
    if (!icp.failed && missing < 0 &&
        (fti_names_add_icp() < 0 || fti_types_add_icp() < 0))
        icp.failed = 1;
    int mine = !icp.failed && missing < 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, FTI_COMM_WORLD);
    int rc = FTI_NSCS;
    if (icp.open && mem_checkpoint_end(all) == SCR_SUCCESS && all) {
        fti_ckpt_taken(icp.id, icp.lvl, icp.t0);
        rc = FTI_SCES;
    } else if (fti_my_rank() == 0) {
        log_err("FTI_FinalizeICP: checkpoint %d at level %d failed", icp.id, icp.lvl);
    }
    icp_reset();
    return rc;
}
