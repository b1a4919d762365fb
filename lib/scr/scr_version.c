/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_version.c - SCR_Get_version */
#include "scr.h"
#include "scr_build.h"

char *SCR_Get_version(void)
{
    static char version[] = "SCR " SCR_VERSION " (scr " SCR_VERSION_STRING ")";
    return version;
}
