/* SPDX-License-Identifier: BSD-3-Clause */
/* exitguard.c - preloaded into the ranks of every test launch (simnode's
 * mpirun, the MPI unit tests): a rank that ends with status 0 after
 * MPI_Init but before MPI_Finalize ends with status 86 instead, and says so.
 *
 * The launches run Open MPI with orte_allowed_exit_without_sync: PMIx's
 * client waits at most 2 s for its server's answer to the finalize
 * handshake and then exits anyway, and on a loaded machine mpirun called
 * ranks that had finished MPI_Finalize "exiting improperly".  That setting
 * alone would let a rank that truly quits early pass unseen (the others
 * finalize without it); this keeps it seen, through the exit status that
 * mpirun still checks.  No MPI here at build time: the functions are looked
 * up in the process, so programs without MPI are left alone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define EXITGUARD_STATUS 86

typedef int (*exitguard_flag_fn)(int *);

static int exitguard_flag(const char *name)
{
    exitguard_flag_fn fn = (exitguard_flag_fn)dlsym(RTLD_DEFAULT, name);
    int flag = 0;
    if (fn)
        fn(&flag);
    return flag;
}

static void exitguard_check(int status, void *arg)
{
    (void)arg;
    if (status != 0 || !exitguard_flag("MPI_Initialized") ||
        exitguard_flag("MPI_Finalized"))
        return;
    char host[256] = "?";
    gethostname(host, sizeof(host) - 1);
    fprintf(stderr,
            "exitguard: pid %d on %s: exit status 0 after MPI_Init without MPI_Finalize; "
            "exiting with %d\n",
            (int)getpid(), host, EXITGUARD_STATUS);
    _exit(EXITGUARD_STATUS);
}

__attribute__((constructor)) static void exitguard_init(void)
{
    on_exit(exitguard_check, NULL);
}
