/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_conf.h - FTI's configuration file, read and turned into SCR settings
 * for the FTI interface (fti.c, docs/fti.md).
 *
 * FTI_Init names an INI file with the sections [basic], [restart],
 * [advanced] and [injection] that FTI documents.  fti_conf_load reads it
 * as FTI 1.6 does and accepts and refuses what FTI 1.6's checks accept and
 * refuse (FTI_ReadConf and FTI_TestConfig): numbers as strtol reads them,
 * booleans by their first letter, FTI's default for a key not given, a
 * value FTI corrects (transfer_size, max_sync_intv, a dCP setting) put
 * right with a warning.  A refusal is one line "FILE:LINE: [section] key
 * = 'value': why" ("FILE: [section] key is not set: why" for a key FTI
 * needs); a key or section FTI does not know, and a value FTI would read
 * other than it is written, is a warning naming its line.  The result
 * holds no pointers, so rank 0 reads the file and broadcasts it.
 * fti_conf_settings turns it into SCR_Config strings (storage, redundancy
 * descriptors for levels 1-3, flush policy, debug level).  No MPI here.
 */
#ifndef SCR_FTI_CONF_H
#define SCR_FTI_CONF_H

#include "error.h"

#define FTI_CONF_PATH 4096
#define FTI_CONF_STR 256 /* FTI's FTI_BUFS */

/* the CKPT=<n> redundancy descriptor of each FTI level (4: 1, flushed) */
#define FTI_CONF_RD_SINGLE 1
#define FTI_CONF_RD_PARTNER 2
#define FTI_CONF_RD_RS 3

typedef struct {
    char ckpt_dir[FTI_CONF_PATH]; /* absolute, "" when not set */
    char glbl_dir[FTI_CONF_PATH];
    /* as FTI 1.6 has them after its checks; FTI's default where not given */
    long ckpt_l[5];      /* [1..4]: minutes between level-n snapshots, <= 0 off */
    long dcp_l4;         /* minutes between differential level-4 snapshots */
    long inline_l[5];    /* [2..4]: 1, or 0 (needs head = 1) */
    long head;           /* 0 or 1 */
    long node_size;      /* processes per node; -1 not given */
    long group_size;     /* nodes per group, at least 1 */
    long keep_last_ckpt; /* 1: the last checkpoint ends up on the prefix */
    long keep_l4_ckpt;   /* 1: every level-4 checkpoint stays on the prefix */
    long keep_heads_alive;
    long verbosity; /* 1 debug, 2 info, 3 warnings */
    long ckpt_io;   /* 1 POSIX, 2 MPI-IO, 3 FTI-FF, 5 HDF5, 6 IME */
    long enable_staging;
    long enable_dcp;     /* 1: differential checkpoints (ckpt_io 1 or 3 only) */
    long dcp_mode;       /* 1 MD5, 2 CRC32; -1 not given */
    long dcp_block_size; /* bytes; 0: SCR's default */
    long dcp_stack_size;
    long h5_inline; /* h5_single_file_inline */
    long max_var_id;
    long max_sync_intv; /* a power of 2 */
    long failure;       /* [restart] failure */
    long block_size;    /* KiB per message in redundancy, 1-2048 */
    long transfer_size; /* MiB per block copied to the prefix, 8-64 */
    long local_test;    /* 0 or 1 */
    long fast_forward;  /* snapshot intervals divided by this, 1-10 */
    /* [injection]: FTI_BitFlip flips bit position of element index of a
     * float or double variable on rank, number times at most, frequency
     * seconds apart */
    long inj_rank, inj_index, inj_position, inj_number, inj_frequency;
    /* read for FTI_GetConfig only (FTI_CONF_STR bytes at most, cut) */
    char meta_dir[FTI_CONF_STR], exec_id[FTI_CONF_STR];
    char h5_dir[FTI_CONF_STR], h5_prefix[FTI_CONF_STR];
    long h5_enable, h5_keep;
    long ckpt_tag, stage_tag, final_tag, general_tag;
    long gpu_host_bufsize;
} fti_conf_t;

/* receives each warning as one line of text */
typedef void (*fti_conf_warn_fn)(const char *msg, void *arg);

/* Read path; relative directories are taken from cwd.  nprocs is the
 * size of FTI_Init's communicator, for FTI's checks of node_size and
 * group_size (0: skip them).  Returns 0, or -1 with the one-line reason in
 * err. */
int fti_conf_load(const char *path, const char *cwd, int nprocs, fti_conf_t *c,
                  fti_conf_warn_fn warn, void *arg, scr_error_t *err);

/* Call fn with each SCR_Config string c translates to, in order; stops at
 * the first non-zero return and returns it. */
int fti_conf_settings(const fti_conf_t *c, int (*fn)(const char *setting, void *arg),
                      void *arg);

#endif
