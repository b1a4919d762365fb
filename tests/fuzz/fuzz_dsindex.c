/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_dsindex.c - libFuzzer target for the index of a scavenged dataset
 * (dsindex.c, `scr index` and the epilog's indexer): the per-rank filemaps
 * a scavenge leaves in <prefix>/.scr/scr.dataset.<id>/.scr/<rank>.scrfilemap, the
 * files they list, the redundancy files a lost rank is rebuilt from, and
 * the scavenge record <prefix>/.scr/scavenge.<job>.scr the epilogs
 * coordinate with (prolog/scavenge.c).  The input is an archive (fuzzlib.h)
 * of the prefix; archives recorded with the older layout (scr.dataset.<id>/
 * in the prefix itself) are moved to where a scavenge now writes.  The scavenge records
 * are read and marked as an epilog does, what an earlier epilog left unindexed is indexed
 * as SCR_Init does (dsindex_pending), and every dataset directory in the archive is
 * indexed as `scr index` does.  An index that succeeds must leave a complete entry that
 * fetch can pick, and nothing may be written outside the prefix. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dsindex.h"
#include "fuzzlib.h"
#include "nodelist.h"
#include "pfs.h"
#include "scavenge.h"

#define MAX_IDS 4

typedef struct {
    int ids[MAX_IDS], nids;
    char jobs[MAX_IDS][64];
    int njobs;
} found_t;

/* dataset directories and scavenge records named in the archive */
static void note_file(const char *rel, void *arg)
{
    found_t *f = arg;
    const char *tag = ".scr/scavenge.";
    size_t len = strlen(rel), tlen = strlen(tag);
    int id, n = 0;
    if (strncmp(rel, ".scr/", 5) == 0 && strncmp(rel + 5, "scr.dataset.", 12) == 0)
        rel += 5;
    if (sscanf(rel, "scr.dataset.%d/%n", &id, &n) == 1 && n > 0 && f->nids < MAX_IDS) {
        for (int i = 0; i < f->nids; i++)
            if (f->ids[i] == id)
                return;
        f->ids[f->nids++] = id;
    } else if (strncmp(rel, tag, tlen) == 0 && len > tlen + 4 && len - tlen - 4 < 64 &&
               strcmp(rel + len - 4, ".scr") == 0 && !strchr(rel + tlen, '/') &&
               f->njobs < MAX_IDS) {
        snprintf(f->jobs[f->njobs++], sizeof(f->jobs[0]), "%.*s", (int)(len - tlen - 4),
                 rel + tlen);
    }
}

/* an epilog's reads and marks of its job's scavenge record */
static void scavenge_records(const char *prefix, const found_t *f)
{
    nodelist_t *live = nodelist_from_str("node[1-2]", NULL);
    for (int i = 0; i < f->njobs; i++) {
        int newest = scavenge_job_newest(prefix, f->jobs[i]), index_id = -1;
        scavenge_wait(prefix, f->jobs[i], "COPIED", live, 0);
        scavenge_mark(prefix, f->jobs[i], "node1", "FINISHED", newest, live, &index_id,
                      NULL);
    }
    nodelist_delete(&live);
}

/* a dataset indexed complete is in the index, complete, and fetchable */
static void check_indexed(const char *prefix, int id, const dsindex_report_t *rep)
{
    kvtree_t *index = kvtree_new();
    char name[64], dir[4096];
    int complete = 0;
    pfs_dset_name(id, name, sizeof(name));
    if (rep->ranks < 1 || rep->rebuilt > rep->missing ||
        index_read(prefix, index, NULL) < 0 ||
        kvtree_util_get_int(kvtree_getf(index, "DSET %d DIR %s", id, name), "COMPLETE",
                            &complete) < 0 ||
        !complete)
        fuzz_fail("dataset %d was indexed, but the index does not have it complete", id);
    index_pick(index, NULL, id + 1, dir, sizeof(dir));
    kvtree_delete(&index);
}

/* the scratch directory holds the prefix only */
static void check_outside(void)
{
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strcmp(e->d_name, "pfs")) {
            fuzz_fail("the index wrote %s outside the prefix", e->d_name);
        }
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char prefix[4200];
    found_t f = {.nids = 0};
    fuzz_scratch();
    fuzz_path("pfs", prefix, sizeof(prefix));
    fuzz_unpack("pfs", data, size, note_file, &f);
    for (int i = 0; i < f.nids; i++) { /* the older layout's place */
        char old[4300], now[4300];
        snprintf(old, sizeof(old), "%s/scr.dataset.%d", prefix, f.ids[i]);
        snprintf(now, sizeof(now), "%s/.scr/scr.dataset.%d", prefix, f.ids[i]);
        mkdir(prefix, 0700);
        snprintf(now + strlen(prefix), sizeof(now) - strlen(prefix), "/.scr");
        mkdir(now, 0700);
        snprintf(now, sizeof(now), "%s/.scr/scr.dataset.%d", prefix, f.ids[i]);
        rename(old, now);
    }
    scavenge_records(prefix, &f);
    dsindex_pending(prefix, 0);
    for (int i = 0; i < f.nids; i++) {
        dsindex_report_t rep;
        scr_error_t err = {""};
        if (dsindex_dataset(prefix, f.ids[i], 0, &rep, &err) == 0)
            check_indexed(prefix, f.ids[i], &rep);
        else if (!err.text[0])
            fuzz_fail("a failed index must say why");
    }
    check_outside();
    return 0;
}
