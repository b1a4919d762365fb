/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_halt.c - libFuzzer target for the halt file, <prefix>/.scr/halt.scr
 * (halt.c), and the times `scr halt` parses.  The input is the halt file:
 * it is read as SCR_Init and every completed checkpoint read it, checked at
 * several clock times (with and without a job end time), and changed as
 * SCR_Finalize, a checkpoint and `scr halt` change it; the same bytes, as a
 * string, go through halt_parse_time.  A set field must read back. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzzlib.h"
#include "halt.h"

static void halt_checks(const kvtree_t *t)
{
    static const time_t nows[] = {0, 1700000000, 0x7fffffff, -1};
    char reason[256];
    halt_finished(t);
    for (size_t i = 0; i < sizeof(nows) / sizeof(nows[0]); i++)
        for (int flags = 0; flags <= HALT_IGNORE_FINISHED; flags++) {
            halt_check(t, nows[i], 0, 0, flags, reason, sizeof(reason));
            halt_check(t, nows[i], nows[i] + 60, 120, flags, reason, sizeof(reason));
        }
}

/* what SCR_Finalize, a checkpoint and `scr halt` do to the file */
static void halt_updates(const char *prefix)
{
    kvtree_t *t = kvtree_new();
    halt_decrement(prefix, NULL);
    if (halt_set(prefix, "ExitReason", HALT_FINALIZE_CALLED, NULL) == 0 &&
        (halt_read(prefix, t, NULL) < 0 || !halt_finished(t)))
        fuzz_fail("halt_set of ExitReason succeeded, but it does not read back");
    halt_unset(prefix, "ExitReason", NULL);
    halt_remove(prefix, NULL);
    kvtree_delete(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *prefix = fuzz_scratch();
    if (fuzz_write(".scr/halt.scr", data, size) < 0)
        fuzz_fail("cannot write the input");
    kvtree_t *t = kvtree_new();
    scr_error_t err = {""};
    if (halt_read(prefix, t, &err) == 0)
        halt_checks(t);
    else if (!err.text[0])
        fuzz_fail("a rejection must say why");
    kvtree_delete(&t);
    halt_updates(prefix);
    char *s = strndup((const char *)data, size < 64 ? size : 64);
    time_t when;
    halt_parse_time(s, 1700000000, &when);
    free(s);
    return 0;
}
