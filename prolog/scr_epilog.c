/* SPDX-License-Identifier: BSD-3-Clause */
/* scr-epilog: scavenge, index and clean this node after an SCR job (see
 * lifecycle.h).  Run as root from a scheduler's epilog. */
#include "lifecycle.h"

int main(int argc, char **argv)
{
    return lifecycle_main(argc, argv, "scr-epilog",
                          "[--job ID] [--uid UID] [--gid GID] [--prefix DIR]\n"
                          "       [--cache-base DIRS] [--cntl-base DIR] [--timeout SECS] "
                          "[--sched NAME]",
                          lifecycle_epilog);
}
