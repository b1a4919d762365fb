/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_summary.c - libFuzzer target for a dataset's summary on the prefix,
 * <prefix>/.scr/scr.dataset.<id>/.scr/summary.scr (pfs.c).  The input is the
 * summary file: read as fetch reads it (version, COMPLETE, the dataset
 * descriptor's CKPT, SIZE, NAME), its descriptor indexed as `scr index`
 * does, and written back: what summary_write writes must read back equal. */
#include <stdlib.h>

#include "fuzzlib.h"
#include "pfs.h"

/* the fields fetch and the index take from the descriptor */
static void summary_use(const char *prefix, const kvtree_t *s)
{
    int complete = 0, ckpt = 0, flags = 0;
    uint64_t bytes = 0;
    const char *name = NULL;
    kvtree_t *dset = kvtree_get(s, "DSET");
    kvtree_util_get_int(s, "COMPLETE", &complete);
    kvtree_util_get_int(dset, "CKPT", &ckpt);
    kvtree_util_get_int(dset, "FLAGS", &flags);
    kvtree_util_get_u64(dset, "SIZE", &bytes);
    kvtree_util_get_str(dset, "NAME", &name);
    if (index_add(prefix, 1, ".scr/scr.dataset.1", dset, complete, NULL) == 0) {
        kvtree_t *index = kvtree_new();
        char dir[4096];
        if (index_read(prefix, index, NULL) < 0)
            fuzz_fail("index_add succeeded, but the index does not read back");
        index_pick(index, name, 2, dir, sizeof(dir));
        kvtree_delete(&index);
    }
}

/* rewrite the summary from its descriptor and read it again */
static void summary_round_trip(const char *dsetdir, const kvtree_t *s)
{
    int complete = 0;
    kvtree_util_get_int(s, "COMPLETE", &complete);
    kvtree_t *dset = kvtree_get(s, "DSET"), *back = kvtree_new();
    if (summary_write(dsetdir, dset, complete != 0, NULL) < 0 ||
        summary_read(dsetdir, back, NULL) < 0)
        fuzz_fail("a summary written from a summary read does not read back");
    kvtree_t *empty = kvtree_new(), *got = kvtree_get(back, "DSET");
    if (!kvtree_equal(dset ? dset : empty, got ? got : empty))
        fuzz_fail("the summary's descriptor changed in a write and read");
    kvtree_delete(&empty);
    kvtree_delete(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *prefix = fuzz_scratch();
    char dsetdir[4200];
    pfs_dset_dir(prefix, 1, dsetdir, sizeof(dsetdir));
    if (fuzz_write(".scr/scr.dataset.1/.scr/summary.scr", data, size) < 0)
        fuzz_fail("cannot write the input");
    kvtree_t *s = kvtree_new();
    scr_error_t err = {""};
    if (summary_read(dsetdir, s, &err) == 0) {
        summary_use(prefix, s);
        summary_round_trip(dsetdir, s);
    } else if (!err.text[0]) {
        fuzz_fail("a rejection must say why");
    }
    kvtree_delete(&s);
    return 0;
}
