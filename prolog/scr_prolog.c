/* SPDX-License-Identifier: BSD-3-Clause */
/* scr-prolog: prepare this node for an SCR job (see lifecycle.h).  Run as
 * root from a scheduler's prolog; exit status 1 means the node is unfit. */
#include "lifecycle.h"

int main(int argc, char **argv)
{
    return lifecycle_main(argc, argv, "scr-prolog",
                          "[--job ID] [--uid UID] [--gid GID] [--cache-base DIRS]\n"
                          "       [--cntl-base DIR] [--capacity BYTES] [--sched NAME]",
                          lifecycle_prolog);
}
