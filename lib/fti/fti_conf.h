/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_conf.h - FTI's configuration file, read and turned into SCR settings
 * for the FTI interface (fti.c, docs/fti.md).
 *
 * FTI_Init names an INI file with the sections [basic], [restart],
 * [advanced] and [injection] that FTI documents.  fti_conf_load reads it:
 * a value that does not parse, or lies outside what FTI accepts, fails with
 * one line "FILE:LINE: [section] key = 'value': why"; a key or section FTI
 * does not know is a warning naming its line and is ignored.  The result
 * holds no pointers, so rank 0 reads the file and broadcasts it.
 * fti_conf_settings turns it into SCR_Config strings (storage, redundancy
 * descriptors for levels 1-3, flush policy, debug level).  No MPI here.
 */
#ifndef SCR_FTI_CONF_H
#define SCR_FTI_CONF_H

#include "error.h"

#define FTI_CONF_PATH 4096

/* the CKPT=<n> redundancy descriptor of each FTI level (4: 1, flushed) */
#define FTI_CONF_RD_SINGLE 1
#define FTI_CONF_RD_PARTNER 2
#define FTI_CONF_RD_RS 3

typedef struct {
    char ckpt_dir[FTI_CONF_PATH]; /* absolute, "" when not set */
    char glbl_dir[FTI_CONF_PATH];
    long ckpt_l[5];      /* [1..4]: minutes between level-n snapshots, <= 0 off */
    long dcp_l4;         /* minutes between differential level-4 snapshots */
    long group_size;     /* 0: not set */
    long keep_last_ckpt; /* 1: the last checkpoint ends up on the prefix */
    long keep_l4_ckpt;   /* 1: every level-4 checkpoint stays on the prefix */
    long verbosity;      /* 1 debug, 2 info, 3 warnings; 0: not set */
    long head;
    long enable_dcp;
    long dcp_block_size; /* 0: not set */
    long max_var_id;
    long max_sync_intv; /* <= 0: 512 */
    long fast_forward;  /* snapshot intervals divided by this, 1-10 */
    long block_size;    /* KiB per message in redundancy; 0: not set */
    long transfer_size; /* MiB per block copied to the prefix; 0: not set */
} fti_conf_t;

/* receives each warning as one line of text */
typedef void (*fti_conf_warn_fn)(const char *msg, void *arg);

/* Read path; relative directories are taken from cwd.  Returns 0, or -1
 * with the one-line reason in err. */
int fti_conf_load(const char *path, const char *cwd, fti_conf_t *c, fti_conf_warn_fn warn,
                  void *arg, scr_error_t *err);

/* Call fn with each SCR_Config string c translates to, in order; stops at
 * the first non-zero return and returns it. */
int fti_conf_settings(const fti_conf_t *c, int (*fn)(const char *setting, void *arg),
                      void *arg);

#endif
