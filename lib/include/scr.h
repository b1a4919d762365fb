/* SPDX-License-Identifier: BSD-3-Clause */
/* scr.h - the SCR application interface.
 *
 * Source-compatible with SCR v3's scr.h.  All calls are collective over
 * MPI_COMM_WORLD (or the communicator given to SCR_Init_comm) except
 * SCR_Route_file, SCR_Config(f) and SCR_Get_version.
 * Every call returns SCR_SUCCESS or SCR_FAILURE; misuse (a call out of order,
 * a NULL argument, a call before SCR_Init) prints one line naming the call
 * and fails without crashing or hanging.
 */
#ifndef SCR_H
#define SCR_H

/* mpi.h, where the compiler finds it (mpicc, or included before this
 * file), for SCR_Init_comm: SCR v3 programs built by a plain compiler still
 * compile this header, as they did SCR v3's */
#if !defined(MPI_VERSION) && defined(__has_include)
#if __has_include(<mpi.h>)
#include <mpi.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* version of the SCR API this library implements (SCR v3 uses strings) */
#define SCR_MAJOR_VERSION "3"
#define SCR_MINOR_VERSION "1"
#define SCR_PATCH_VERSION "0"
#define SCR_VERSION "v3.1.0"

/* return codes: test against SCR_SUCCESS */
#define SCR_SUCCESS (0)
#define SCR_FAILURE (1)

/* characters in a file name returned by SCR, including the NUL */
#define SCR_MAX_FILENAME 1024

/* dataset flags for SCR_Start_output */
#define SCR_FLAG_NONE (0 << 0)
#define SCR_FLAG_CHECKPOINT (1 << 0)
#define SCR_FLAG_OUTPUT (1 << 1)

/* initialize after MPI_Init; rebuilds cached checkpoints of earlier runs */
int SCR_Init(void);
/* SCR on the processes of comm only (SCR_Init is SCR_Init_comm on
 * MPI_COMM_WORLD): every later call is collective over comm, and processes
 * outside it need not call SCR at all.  Groups of one job that each call it
 * need a prefix each (SCR_Config("SCR_PREFIX=...") before the call).
 * Declared where mpi.h is found (see the top of this file). */
#ifdef MPI_VERSION
#define SCR_HAVE_INIT_COMM 1
int SCR_Init_comm(MPI_Comm comm);
#endif
/* shut down before MPI_Finalize */
int SCR_Finalize(void);

/* "KEY=VALUE [KEY2=VALUE2 ...]" sets and "KEY=" unsets a parameter (before
 * SCR_Init); "KEY" or "CKPT=0 TYPE" returns the value as a string the
 * caller must free(), or NULL */
const char *SCR_Config(const char *config);
const char *SCR_Configf(const char *format, ...);

/* the path where the application should open name (in cache) */
int SCR_Route_file(const char *name, char *file);

/* restart: is there a checkpoint, start reading it, done reading it */
int SCR_Have_restart(int *flag, char *name);
int SCR_Start_restart(char *name);
int SCR_Complete_restart(int valid);

/* checkpoint and output datasets */
int SCR_Need_checkpoint(int *flag);
int SCR_Start_output(const char *name, int flags);
int SCR_Complete_output(int valid);
int SCR_Start_checkpoint(void);
int SCR_Complete_checkpoint(int valid);

/* pick the restart checkpoint by name; forget or delete a dataset */
int SCR_Current(const char *name);
int SCR_Drop(const char *name);
int SCR_Delete(const char *name);

/* 1 in *flag when the job should stop (a halt condition holds) */
int SCR_Should_exit(int *flag);

/* the library's version string, e.g. "SCR v3.1.0 (scr 0.1.0)"; never NULL */
char *SCR_Get_version(void);

#ifdef __cplusplus
}
#endif

#endif
