/* scr-prolog: prepare this node for an SCR job (see lifecycle.h).  Run as
 * root from a scheduler's prolog; exit status 1 means the node is unfit. */
#include <stdio.h>
#include <string.h>

#include "lifecycle.h"
#include "log.h"

int main(int argc, char **argv)
{
    jobopts_t o;
    scr_error_t err;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: scr-prolog [--job ID] [--uid UID] [--gid GID] [--cache-base DIRS]\n"
               "                  [--cntl-base DIR] [--capacity BYTES] [--sched NAME]\n");
        return 0;
    }
    if (jobopts_parse(&o, argc, argv, &err) < 0) {
        fprintf(stderr, "scr-prolog: %s\n", err.text);
        return 2;
    }
    const sched_t *sched = sched_get(o.sched[0] ? o.sched : NULL);
    if (!sched) {
        fprintf(stderr, "scr-prolog: --sched: unknown scheduler '%s'\n", o.sched);
        return 2;
    }
    int rc = lifecycle_prolog(&o, sched);
    jobopts_free(&o);
    return rc == 0 ? 0 : 1;
}
