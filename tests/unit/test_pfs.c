/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pfs.c - the prefix index's prune list (SCR_PREFIX_SIZE): the oldest
 * usable checkpoints go, never a base a staying dataset builds on; the
 * flush file's newest dataset on its way to the prefix (scr run's
 * SCR_WATCHDOG_TIMEOUT_PFS) */
#include <stdlib.h>

#include "pfs.h"
#include "tap.h"

/* dataset id in directory scr.dataset.<id>, complete, a checkpoint,
 * differential on base (-1: full) */
static void add(kvtree_t *index, int id, int base)
{
    kvtree_t *d = kvtree_setf(index, NULL, "DSET %d DIR scr.dataset.%d", id, id);
    kvtree_util_set_int(d, "COMPLETE", 1);
    kvtree_t *desc = kvtree_setf(d, NULL, "DSET");
    kvtree_util_set_int(desc, "FLAGS", 1);
    kvtree_util_set_str(desc, "NAME", "x");
    if (base >= 0)
        kvtree_util_set_int(desc, "BASE", base);
}

static int has(const int *ids, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* flush file entries: id's locations and FLUSHING */
static void flushed(kvtree_t *f, int id, int cache, int pfs, int flushing)
{
    kvtree_t *d = kvtree_setf(f, NULL, "DSET %d", id);
    if (cache)
        kvtree_set_kv(d, "LOCATION", "CACHE");
    if (pfs)
        kvtree_set_kv(d, "LOCATION", "PFS");
    if (flushing)
        kvtree_util_set_int(d, "FLUSHING", 1);
}

static void test_flushfile(void)
{
    kvtree_t *f = kvtree_new();
    ok(flushfile_newest_on_pfs(f) == 0, "an empty flush file: the cache's time");
    flushed(f, 9, 1, 0, 1);
    flushed(f, 10, 1, 0, 0);
    ok(flushfile_newest_on_pfs(f) == 0, "newest (10, not 9) cached, not flushing");
    flushed(f, 11, 1, 0, 1);
    ok(flushfile_newest_on_pfs(f) == 1, "newest being flushed");
    flushed(f, 12, 1, 1, 0);
    ok(flushfile_newest_on_pfs(f) == 0, "newest cached and flushed: the cache's time");
    flushed(f, 13, 0, 1, 0);
    ok(flushfile_newest_on_pfs(f) == 1, "newest on the prefix alone (bypass)");
    kvtree_delete(&f);
}

int main(void)
{
    test_flushfile();
    int ids[16];
    kvtree_t *index = kvtree_new();
    for (int id = 1; id <= 5; id++)
        add(index, id, -1);
    int n = index_prune_list(index, 2, ids, 16);
    ok(n == 3 && has(ids, n, 1) && has(ids, n, 2) && has(ids, n, 3),
       "full checkpoints: keep 2 of 5, the three oldest go");
    ok(kvtree_get_val(index_dset_desc(index, 4), "NAME") != NULL,
       "index_dset_desc finds an entry's descriptor");
    ok(index_dset_desc(index, 9) == NULL, "and NULL for an unknown id");
    kvtree_delete(&index);

    /* 1 full, 2 on 1, 3 on 2, 4 on 3, 5 full: keeping 4 keeps 3, 2 and 1 */
    index = kvtree_new();
    add(index, 1, -1);
    for (int id = 2; id <= 4; id++)
        add(index, id, id - 1);
    add(index, 5, -1);
    n = index_prune_list(index, 2, ids, 16);
    ok(n == 0, "keep 2 (5 and 4): 4's chain down to 1 stays (%d to delete)", n);
    n = index_prune_list(index, 1, ids, 16);
    ok(n == 4 && !has(ids, n, 5), "keep 1 (5, full): the whole old chain goes");
    add(index, 6, 5);
    n = index_prune_list(index, 1, ids, 16);
    ok(n == 4 && !has(ids, n, 5) && !has(ids, n, 6), "keep 1 (6 on 5): 5 stays too");
    kvtree_delete(&index);
    return done_testing();
}
