/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_nodes.c - libFuzzer target for the files that say which nodes a job
 * ran on: <prefix>/.scr/nodes.scr (NODES, the count `scr run` needs for a
 * relaunch), <cntl>/job.scrinfo (PREFIX and NODES, the host list the
 * epilogs scavenge with; jobrec.c) and <cntl>/downnodes.scr (the hosts
 * `scr run` found down, with reasons).  The input is written as all three,
 * read as those readers read them, and the node sets are combined as the
 * epilog and `scr run` combine them.  A record read must write back and
 * read again to the same prefix and the same set of nodes. */
#include <stdlib.h>
#include <string.h>

#include "fuzzlib.h"
#include "jobrec.h"
#include "kvtree.h"
#include "nodelist.h"
#include "pfs.h"

/* the record written again must read back the same */
static void jobrec_round_trip(const char *prefix, const nodelist_t *nodes)
{
    char cntl2[4200], back[4096];
    nodelist_t *again = NULL;
    char *list = nodes ? nodelist_compress(nodes) : NULL;
    fuzz_path("cntl2", cntl2, sizeof(cntl2));
    fuzz_write("cntl2/.keep", (const uint8_t *)"", 0);
    if (jobrec_write(cntl2, prefix, list, 1, NULL) < 0 ||
        jobrec_read(cntl2, back, sizeof(back), &again, NULL) != 1 ||
        strcmp(back, prefix) != 0)
        fuzz_fail("job record of prefix %s does not write and read back", prefix);
    for (int i = 0; i < nodelist_count(nodes) && i < 1000; i++)
        if (nodelist_find(again, nodelist_nth(nodes, i)) < 0)
            fuzz_fail("node %s is lost in a write and read", nodelist_nth(nodes, i));
    if (list && *list && nodelist_count(again) > nodelist_count(nodes))
        fuzz_fail("%d nodes read back from %d", nodelist_count(again),
                  nodelist_count(nodes));
    nodelist_delete(&again);
    free(list);
}

/* `scr run`: the nodes that are left; the epilog: the run's live nodes */
static void node_sets(const nodelist_t *nodes, const kvtree_t *reasons)
{
    nodelist_t *down = nodelist_new(), *job = nodelist_from_str("node[1-4]", NULL);
    for (kvtree_elem_t *e = kvtree_first(reasons); e; e = kvtree_elem_next(e))
        if (nodelist_find(down, kvtree_elem_key(e)) < 0)
            nodelist_append(down, kvtree_elem_key(e));
    nodelist_t *live = nodelist_minus(job, down);
    nodelist_t *run_live = nodes ? nodelist_intersect(live, nodes) : NULL;
    char *s = nodelist_compress(down);
    free(s);
    nodelist_delete(&run_live);
    nodelist_delete(&live);
    nodelist_delete(&job);
    nodelist_delete(&down);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scratch = fuzz_scratch();
    char cntl[4200], path[4200], prefix[4096];
    fuzz_path("cntl", cntl, sizeof(cntl));
    if (fuzz_write(".scr/nodes.scr", data, size) < 0 ||
        fuzz_write("cntl/" JOBREC_FILE, data, size) < 0 ||
        fuzz_write("cntl/downnodes.scr", data, size) < 0)
        fuzz_fail("cannot write the input");
    kvtree_t *t = kvtree_new();
    int n = 0;
    pfs_meta_path(scratch, "nodes.scr", path, sizeof(path));
    if (kvtree_read_file(path, t, NULL) == 0)
        kvtree_util_get_int(t, "NODES", &n);
    kvtree_delete(&t);
    nodelist_t *nodes = NULL;
    scr_error_t err = {""};
    int rc = jobrec_read(cntl, prefix, sizeof(prefix), &nodes, &err);
    if (rc < 0 && !err.text[0])
        fuzz_fail("a rejection must say why");
    if (rc == 1)
        jobrec_round_trip(prefix, nodes);
    kvtree_t *reasons = kvtree_new();
    fuzz_path("cntl/downnodes.scr", path, sizeof(path));
    kvtree_read_file(path, reasons, NULL);
    node_sets(nodes, reasons);
    kvtree_delete(&reasons);
    nodelist_delete(&nodes);
    return 0;
}
