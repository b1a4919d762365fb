/* scr-epilog: scavenge, index and clean this node after an SCR job (see
 * lifecycle.h).  Run as root from a scheduler's epilog. */
#include <stdio.h>
#include <string.h>

#include "lifecycle.h"
#include "log.h"

int main(int argc, char **argv)
{
    jobopts_t o;
    scr_error_t err;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: scr-epilog [--job ID] [--uid UID] [--gid GID] [--cache-base DIRS]\n"
               "                  [--cntl-base DIR] [--prefix DIR] [--timeout SECS] [--sched NAME]\n");
        return 0;
    }
    if (jobopts_parse(&o, argc, argv, &err) < 0) {
        fprintf(stderr, "scr-epilog: %s\n", err.text);
        return 2;
    }
    const sched_t *sched = sched_get(o.sched[0] ? o.sched : NULL);
    if (!sched) {
        fprintf(stderr, "scr-epilog: --sched: unknown scheduler '%s'\n", o.sched);
        return 2;
    }
    int rc = lifecycle_epilog(&o, sched);
    jobopts_free(&o);
    return rc == 0 ? 0 : 1;
}
