/* fault.c - fault points (see fault.h) */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"

static atomic_long hits;

/* does spec (POINT[#N][@RANK]) name this point and rank; *nth gets N */
static int fault_match(const char *spec, const char *point, int rank, long *nth)
{
    size_t len = strcspn(spec, "#@");
    if (len != strlen(point) || strncmp(spec, point, len) != 0)
        return 0;
    const char *hash = strchr(spec, '#'), *at = strchr(spec, '@');
    *nth = hash ? strtol(hash + 1, NULL, 10) : 1;
    return !at || atoi(at + 1) == rank;
}

void fault_point(const char *point, int rank)
{
    static const char *spec;
    static int looked;
    if (!looked) {
        spec = getenv("SCR_FAULT");
        looked = 1;
    }
    long nth;
    if (!spec || !fault_match(spec, point, rank, &nth))
        return;
    if (atomic_fetch_add(&hits, 1) + 1 < nth)
        return;
    fprintf(stderr, "SCR_FAULT: rank %d dies at %s\n", rank, point);
    fflush(stderr);
    _exit(FAULT_EXIT_STATUS);
}
