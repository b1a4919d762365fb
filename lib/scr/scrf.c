/* SPDX-License-Identifier: BSD-3-Clause */
/* scrf.c - the SCR v3 Fortran interface as external subroutines (libscrf).
 *
 * Programs written for SCR v3 INCLUDE 'scrf.h' and call SCR_INIT(IERROR),
 * SCR_ROUTE_FILE(NAME, FILE, IERROR) and the rest without an interface
 * block; this file gives them those subroutines, each a wrapper of the C
 * call of the same name in scr.h.  (The module of scr.f90, "use scr", is
 * the other way in; its procedures are named __scr_MOD_*, so both live in
 * libscrf side by side.)
 *
 * The calling convention is gfortran's (and that of most Unix compilers):
 *  - the link name is the Fortran name in lower case with one underscore
 *    appended: CALL SCR_INIT(IERR) calls scr_init_
 *  - every argument comes by reference; INTEGER is a C int
 *  - each CHARACTER argument has its length passed by value after all the
 *    others, in the order of the CHARACTER arguments, as a size_t
 *  - CHARACTER values are padded with blanks, not terminated by a NUL.
 * So a name coming in loses its trailing blanks before the C call, and a
 * name or path going out is padded with blanks to the variable's length.
 * A result longer than the variable leaves it blank and sets IERROR to
 * SCR_FAILURE, with one line on stderr; it is never cut short (a cut path
 * could name another file).  IERROR is otherwise what the C call returns.
 *
 * Collective calls always make the C call on every rank, before a result
 * of one rank's is found not to fit, so that rank's error cannot leave the
 * others waiting in the call.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "log.h"
#include "scr.h"

/* Exported for Fortran only: declared here, where they are defined, to keep
 * -Wmissing-prototypes quiet and the argument lists in one place. */
void scr_init_(int *ierror);
void scr_init_comm_(const MPI_Fint *comm, int *ierror);
int scr_init_comm_fint(MPI_Fint comm);
void scr_finalize_(int *ierror);
void scr_config_(const char *config, char *val, int *ierror, size_t config_len,
                 size_t val_len);
void scr_route_file_(const char *name, char *file, int *ierror, size_t name_len,
                     size_t file_len);
void scr_have_restart_(int *flag, char *name, int *ierror, size_t name_len);
void scr_start_restart_(char *name, int *ierror, size_t name_len);
void scr_complete_restart_(const int *valid, int *ierror);
void scr_need_checkpoint_(int *flag, int *ierror);
void scr_start_checkpoint_(int *ierror);
void scr_complete_checkpoint_(const int *valid, int *ierror);
void scr_start_output_(const char *name, const int *flags, int *ierror, size_t name_len);
void scr_complete_output_(const int *valid, int *ierror);
void scr_current_(const char *name, int *ierror, size_t name_len);
void scr_drop_(const char *name, int *ierror, size_t name_len);
void scr_delete_(const char *name, int *ierror, size_t name_len);
void scr_should_exit_(int *flag, int *ierror);
void scr_get_version_(char *version, int *ierror, size_t version_len);

/* A Fortran CHARACTER value as a new C string without its trailing blanks
 * (free() it), or NULL with a message when memory is short. */
static char *fstr_in(const char *call, const char *fstr, size_t len)
{
    while (len > 0 && fstr[len - 1] == ' ')
        len--;
    char *s = malloc(len + 1);
    if (!s) {
        log_err("%s: out of memory for a %zu-character argument", call, len);
        return NULL;
    }
    if (len > 0)
        memcpy(s, fstr, len);
    s[len] = '\0';
    return s;
}

/* Put C string s (NULL: nothing) in the Fortran variable fstr of len
 * characters, padded with blanks.  When s is longer, fstr is left all
 * blank and the call fails, saying so unless call is NULL. */
static int fstr_out(const char *call, const char *arg, const char *s, char *fstr,
                    size_t len)
{
    size_t n = s ? strlen(s) : 0;
    if (n > len) {
        memset(fstr, ' ', len);
        if (call)
            log_err("%s: %s holds %zu characters, the result has %zu: "
                    "declare it CHARACTER(LEN=SCR_MAX_FILENAME)",
                    call, arg, len, n);
        return SCR_FAILURE;
    }
    if (n > 0)
        memcpy(fstr, s, n);
    memset(fstr + n, ' ', len - n);
    return SCR_SUCCESS;
}

/* The result of a C call that returned rc with s: s goes into fstr as
 * fstr_out puts it, and a failure to fit fails the call; when the C call
 * failed, that is the result, and it said why already. */
static int after(int rc, const char *call, const char *arg, const char *s, char *fstr,
                 size_t len)
{
    int out_rc = fstr_out(rc == SCR_SUCCESS ? call : NULL, arg, s, fstr, len);
    return rc == SCR_SUCCESS ? out_rc : rc;
}

void scr_init_(int *ierror)
{
    *ierror = SCR_Init();
}

/* a Fortran communicator handle, as MPI_Comm_f2c turns it into C's: the
 * module's SCR_INIT_COMM (bind(C)) and the external subroutine share it */
int scr_init_comm_fint(MPI_Fint comm)
{
    return SCR_Init_comm(MPI_Comm_f2c(comm));
}

void scr_init_comm_(const MPI_Fint *comm, int *ierror)
{
    *ierror = scr_init_comm_fint(*comm);
}

void scr_finalize_(int *ierror)
{
    *ierror = SCR_Finalize();
}

/* Set ("KEY=VALUE"), unset ("KEY=") or query ("KEY", "CKPT=0 TYPE") a
 * parameter.  VAL gets the value of a query, blanks otherwise (also for a
 * parameter that is not set).  As SCR v3 documents, IERROR is SCR_SUCCESS
 * whatever the setting did (SCR_Config says on stderr when it refuses
 * one); it fails only when the value does not fit in VAL. */
void scr_config_(const char *config, char *val, int *ierror, size_t config_len,
                 size_t val_len)
{
    char *c = fstr_in("SCR_CONFIG", config, config_len);
    if (!c) {
        *ierror = SCR_FAILURE;
        return;
    }
    char *v = (char *)SCR_Config(c);
    free(c);
    *ierror = fstr_out("SCR_CONFIG", "VAL", v, val, val_len);
    free(v);
}

void scr_route_file_(const char *name, char *file, int *ierror, size_t name_len,
                     size_t file_len)
{
    char *n = fstr_in("SCR_ROUTE_FILE", name, name_len);
    if (!n) {
        *ierror = SCR_FAILURE;
        return;
    }
    char path[SCR_MAX_FILENAME] = "";
    int rc = SCR_Route_file(n, path);
    free(n);
    path[SCR_MAX_FILENAME - 1] = '\0';
    *ierror = after(rc, "SCR_ROUTE_FILE", "FILE", path, file, file_len);
}

/* NAME is the checkpoint's name when FLAG is 1, blank when it is 0 */
void scr_have_restart_(int *flag, char *name, int *ierror, size_t name_len)
{
    char n[SCR_MAX_FILENAME] = "";
    int rc = SCR_Have_restart(flag, n);
    n[SCR_MAX_FILENAME - 1] = '\0';
    *ierror = after(rc, "SCR_HAVE_RESTART", "NAME", *flag ? n : NULL, name, name_len);
}

void scr_start_restart_(char *name, int *ierror, size_t name_len)
{
    char n[SCR_MAX_FILENAME] = "";
    int rc = SCR_Start_restart(n);
    n[SCR_MAX_FILENAME - 1] = '\0';
    *ierror = after(rc, "SCR_START_RESTART", "NAME", n, name, name_len);
}

void scr_complete_restart_(const int *valid, int *ierror)
{
    *ierror = SCR_Complete_restart(*valid);
}

void scr_need_checkpoint_(int *flag, int *ierror)
{
    *ierror = SCR_Need_checkpoint(flag);
}

void scr_start_checkpoint_(int *ierror)
{
    *ierror = SCR_Start_checkpoint();
}

void scr_complete_checkpoint_(const int *valid, int *ierror)
{
    *ierror = SCR_Complete_checkpoint(*valid);
}

/* a blank NAME lets SCR name the dataset (scr.dataset.<id>), as SCR v3
 * does for an empty one */
void scr_start_output_(const char *name, const int *flags, int *ierror, size_t name_len)
{
    char *n = fstr_in("SCR_START_OUTPUT", name, name_len);
    if (!n) {
        *ierror = SCR_FAILURE;
        return;
    }
    *ierror = SCR_Start_output(*n ? n : NULL, *flags);
    free(n);
}

void scr_complete_output_(const int *valid, int *ierror)
{
    *ierror = SCR_Complete_output(*valid);
}

void scr_current_(const char *name, int *ierror, size_t name_len)
{
    char *n = fstr_in("SCR_CURRENT", name, name_len);
    if (!n) {
        *ierror = SCR_FAILURE;
        return;
    }
    *ierror = SCR_Current(n);
    free(n);
}

void scr_drop_(const char *name, int *ierror, size_t name_len)
{
    char *n = fstr_in("SCR_DROP", name, name_len);
    if (!n) {
        *ierror = SCR_FAILURE;
        return;
    }
    *ierror = SCR_Drop(n);
    free(n);
}

void scr_delete_(const char *name, int *ierror, size_t name_len)
{
    char *n = fstr_in("SCR_DELETE", name, name_len);
    if (!n) {
        *ierror = SCR_FAILURE;
        return;
    }
    *ierror = SCR_Delete(n);
    free(n);
}

void scr_should_exit_(int *flag, int *ierror)
{
    *ierror = SCR_Should_exit(flag);
}

/* the string SCR_Get_version returns (not to be freed) */
void scr_get_version_(char *version, int *ierror, size_t version_len)
{
    *ierror =
        fstr_out("SCR_GET_VERSION", "VERSION", SCR_Get_version(), version, version_len);
}
