/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_priv.h - what the parts of libscr's FTI interface share.  fti.c owns
 * the state FTI_Init sets up (the configuration, the protected variables,
 * the checkpoint names of the run); the other parts (fti_icp.c,
 * fti_names.c, fti_inject.c, fti_stage.c, fti_types.c, fti_h5.c,
 * fti_getconf.c) reach it through these. */
#ifndef SCR_FTI_PRIV_H
#define SCR_FTI_PRIV_H

#include <limits.h>
#include <stddef.h>

#include <stdint.h>

#include <mpi.h>

#include "fti.h"
#include "fti_conf.h"
#include "mem.h"

/* 1 once FTI_Init succeeded; else 0 and one line naming fn */
int fti_ready(const char *fn);
/* 1 on the rank that reports for everyone, at verbosity 1 and 2 */
int fti_chatty(void);
int fti_my_rank(void);

/* checkpoint id at FTI level (1-9): its name and how SCR takes it; the
 * level SCR runs (1-4), or -1 with one line naming fn */
int fti_ckpt_prepare(const char *fn, int id, int level, char *name, size_t len,
                     mem_opts_t *o);
/* checkpoint id was taken at lvl, begun at t0 (MPI_Wtime) */
void fti_ckpt_taken(int id, int lvl, double t0);

/* the protected variables */
int fti_var_count(void);
int fti_var_id(int i);
int fti_var_protected(int id);
/* where a protected variable is, its element count and type; -1 if id is
 * not protected */
int fti_var_info(int id, void **ptr, int64_t *count, fti_id_t *type);
/* the configuration FTI_Init read */
const fti_conf_t *fti_config(void);

/* fti_names.c: the variable that holds the names of FTI_setIDFromString
 * (FTI_Protect refuses its id) */
#define FTI_NAMES_ID INT_MAX
/* before a checkpoint: the names as variable FTI_NAMES_ID; 0 or -1 */
int fti_names_protect(void);
/* before the program's variables are recovered: without the names */
void fti_names_unprotect(void);
/* at FTI_Init, a checkpoint on offer: the names it holds (collective) */
void fti_names_load(void);
void fti_names_free(void);

/* fti_types.c: the description of the composite types (text), as
 * variable FTI_TYPES_ID, which FTI_Protect refuses too */
#define FTI_TYPES_ID (INT_MAX - 1)
/* before a checkpoint; 0 or -1 */
int fti_types_protect(void);
/* before the program's variables are recovered */
void fti_types_unprotect(void);
/* FTI_FinalizeICP: the names and the types into the checkpoint, when
 * there are any; 0 or -1 */
int fti_names_add_icp(void);
int fti_types_add_icp(void);

/* fti_inject.c: FTI_BitFlip counts from here (FTI_Init) */
void fti_inject_reset(void);
/* FTI_GetConfig: the flips so far, when the last was (MPI_Wtime) */
void fti_inject_state(int *counter, double *timer);
/* fti_stage.c: no stage requests, the directory not made yet */
void fti_stage_reset(void);
/* FTI_Finalize: every queued file copied (or failed), the thread gone */
void fti_stage_finish(void);
/* fti_types.c: forget the composite types (FTI_Finalize) */
void fti_types_free(void);
/* fti_h5.c: forget the groups and dataset names (FTI_Finalize) */
void fti_h5_free(void);
/* fti_h5.c: the groups made so far, the root among them */
int fti_h5_groups(void);
/* the configuration file as FTI_Init reads it (FTI_GetConfig reads it
 * the same way): rank 0 reads path (relative directories from its working
 * directory), every process of comm gets it; 1, or 0 with one line naming
 * fn */
int fti_conf_read(const char *fn, const char *path, MPI_Comm comm, fti_conf_t *c);
/* FTI_GetConfig (after FTI_Init): what fti.c knows of the run in FTI's
 * execution struct (checkpoints, recovery, variables, sizes, FTI_Snapshot's
 * clock), and the checkpoints taken per level (1-4) in taken */
void fti_exec_fill(FTIT_execution *e, unsigned taken[5]);
/* FTI_Init succeeded (no line when not) */
int fti_initialized(void);
/* 1 if t is a type handle (predefined, FTI_InitType's, a composite) */
int fti_type_known(fti_id_t t);

#endif
