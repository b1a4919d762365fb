/* SPDX-License-Identifier: BSD-3-Clause */
/* dsindex.c - scan, inspect, rebuild and index a scavenged dataset */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "dsindex.h"
#include "ecfile.h"
#include "fault.h"
#include "filemap.h"
#include "kvtree.h"
#include "log.h"
#include "path.h"
#include "pfs.h"
#include "place.h"
#include "r2f.h"

/* 1 if rank's application files are all there with their recorded sizes */
static int dsindex_rank_ok(const char *dsetdir, const kvtree_t *rk)
{
    int want = -1, have = 0;
    kvtree_util_get_int(rk, "FILES", &want);
    kvtree_t *files = kvtree_get(rk, "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_get(kvtree_elem_tree(e), "META");
        const char *type = kvtree_get_val(m, "TYPE"), *rel = kvtree_elem_key(e);
        uint64_t size = 0;
        struct stat st;
        char path[8400];
        if (!type || strcmp(type, FM_TYPE_USER) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
        if (path_is_safe_relative(rel) && kvtree_util_get_u64(m, "SIZE", &size) == 0 &&
            lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size)
            have++;
    }
    return want >= 0 && have == want;
}

/* Keep rank r's record from one file: the first found, unless a later one
 * is whole where the first is not (a partner copied the rank too, or an
 * older scavenge left a file of its own).  Files are the user's: a record
 * is only taken under the rank it names. */
static void dsindex_scan_take(const char *dsetdir, kvtree_t *scan, int r,
                              const kvtree_t *rk)
{
    kvtree_t *have = kvtree_getf(scan, "RANK %d", r);
    if (have && (dsindex_rank_ok(dsetdir, have) || !dsindex_rank_ok(dsetdir, rk)))
        return;
    kvtree_setf(scan, kvtree_dup(rk), "RANK %d", r);
}

/* the ranks of dataset id one record file holds, into scan */
static void dsindex_scan_file(const char *dsetdir, const char *path, int id,
                              kvtree_t *scan)
{
    scr_error_t ferr;
    kvtree_t *t = kvtree_new();
    if (kvtree_read_file(path, t, &ferr) < 0)
        log_warn("index: ignoring %s", ferr.text);
    kvtree_t *ranks = kvtree_get(t, "RANK");
    for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e)) {
        int r;
        kvtree_t *rk = kvtree_getf(kvtree_elem_tree(e), "DSET %d", id);
        if (rk && kvtree_elem_key_int(e, &r) == 0 && r >= 0)
            dsindex_scan_take(dsetdir, scan, r, rk);
    }
    kvtree_delete(&t);
}

/* 1 if name is one of the records .scr/ holds: node.<host>.scrfilemap,
 * rebuilt.scrfilemap, or an older scavenge's <rank>.scrfilemap */
static int dsindex_is_record(const char *name)
{
    static const char ext[] = ".scrfilemap";
    size_t n = strlen(name), x = sizeof(ext) - 1;
    if (n <= x || strcmp(name + n - x, ext) != 0)
        return 0;
    if (strncmp(name, "node.", 5) == 0 || strcmp(name, "rebuilt.scrfilemap") == 0)
        return 1;
    return strspn(name, "0123456789") == n - x;
}

/* merge every record of .scr/ into scan: RANK <r> {DSETDESC, FILES, FILE
 * <rel> meta} */
static int dsindex_scan(const char *dsetdir, int id, kvtree_t *scan, scr_error_t *err)
{
    char meta[4400];
    snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
    DIR *d = opendir(meta);
    if (!d)
        return errprintf(err, "%s: %s", meta, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[4700];
        if (!dsindex_is_record(e->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/%s", meta, e->d_name);
        dsindex_scan_file(dsetdir, path, id, scan);
    }
    closedir(d);
    return 0;
}

/* XOR/RS sets from the scanned redundancy files: SET <key> {MEMBERS, MEMBER
 * <s> {FILE}}; the key is the set's member list, the same in every header */
static void dsindex_sets(const char *dsetdir, const kvtree_t *scan, kvtree_t *sets)
{
    kvtree_t *ranks = kvtree_get(scan, "RANK");
    for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e)) {
        kvtree_t *files = kvtree_get(kvtree_elem_tree(e), "FILE");
        for (kvtree_elem_t *f = kvtree_first(files); f; f = kvtree_elem_next(f)) {
            const char *type =
                kvtree_get_val(kvtree_get(kvtree_elem_tree(f), "META"), "TYPE");
            int s, n, setid;
            char ext[8];
            const char *base = strrchr(kvtree_elem_key(f), '/');
            base = base ? base + 1 : kvtree_elem_key(f);
            /* a name from a user's filemap: only inside the dataset */
            if (!type || strcmp(type, FM_TYPE_USER) == 0 ||
                !path_is_safe_relative(kvtree_elem_key(f)) ||
                sscanf(base, "%d_of_%d_in_%d.%7s", &s, &n, &setid, ext) != 4 || s < 1 ||
                s > n)
                continue;
            char path[8400];
            snprintf(path, sizeof(path), "%s/%s", dsetdir, kvtree_elem_key(f));
            kvtree_t *set = kvtree_getf(sets, "%s.%d", ext, setid);
            if (!set)
                set = kvtree_setf(sets, NULL, "%s.%d", ext, setid);
            kvtree_util_set_int(set, "MEMBERS", n);
            kvtree_util_set_str(kvtree_setf(set, NULL, "MEMBER %d", s - 1), "FILE", path);
        }
    }
}

/* rank r's record, as scavenge_rank writes it, from ecfile_rebuild's
 * description of the rebuilt rank (src) */
static void dsindex_rebuilt_rank(kvtree_t *rec, int id, int r, const kvtree_t *src)
{
    kvtree_t *rk = kvtree_setf(rec, NULL, "RANK %d DSET %d", r, id);
    kvtree_setf(rec, NULL, "DSET %d RANK %d", id, r);
    kvtree_set(rk, "DSETDESC", kvtree_dup(kvtree_get(src, "DSETDESC")));
    kvtree_util_set_int(rk, "FILES", kvtree_size(kvtree_get(src, "FILE")));
    kvtree_t *files = kvtree_get(src, "FILE");
    for (kvtree_elem_t *f = kvtree_first(files); f; f = kvtree_elem_next(f))
        kvtree_setf(rk, kvtree_dup(kvtree_elem_tree(f)), "FILE %s META",
                    kvtree_elem_key(f));
}

/* Rebuild every set with lost members; record the rebuilt ranks in
 * .scr/rebuilt.scrfilemap, beside those an earlier indexer rebuilt. */
static int dsindex_rebuild(const char *dsetdir, int id, const kvtree_t *scan,
                           int *rebuilt)
{
    kvtree_t *sets = kvtree_new(), *out = kvtree_new();
    dsindex_sets(dsetdir, scan, sets);
    int bad = 0;
    for (kvtree_elem_t *e = kvtree_first(sets); e; e = kvtree_elem_next(e)) {
        scr_error_t err;
        int n = ecfile_rebuild(dsetdir, kvtree_elem_tree(e), out, &err);
        if (n < 0) {
            log_err("index: dataset %d, set %s: %s", id, kvtree_elem_key(e), err.text);
            bad++;
        }
    }
    kvtree_t *ranks = kvtree_get(out, "RANK");
    int n = kvtree_size(ranks);
    if (n > 0) { /* rebuilt files in place, not recorded */
        char path[4400];
        scr_error_t err;
        kvtree_t *rec = kvtree_new();
        fault_point("dsindex.rebuilt", -1);
        snprintf(path, sizeof(path), "%s/.scr/rebuilt.scrfilemap", dsetdir);
        kvtree_read_file(path, rec, NULL); /* none yet, or unreadable: begin anew */
        for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e))
            dsindex_rebuilt_rank(rec, id, atoi(kvtree_elem_key(e)), kvtree_elem_tree(e));
        if (kvtree_write_file(path, rec, &err) < 0) {
            log_err("index: %s", err.text);
            bad++;
        } else
            *rebuilt += n;
        kvtree_delete(&rec);
    }
    kvtree_delete(&sets);
    kvtree_delete(&out);
    return bad ? -1 : 0;
}

/* the dataset descriptor for summary and index, and the rank2file input */
static kvtree_t *dsindex_collect(const kvtree_t *scan, int ranks, kvtree_t *r2f,
                                 int *nfiles)
{
    kvtree_t *dset = NULL;
    *nfiles = 0;
    for (int r = 0; r < ranks; r++) {
        kvtree_t *rk = kvtree_getf(scan, "RANK %d", r);
        if (!dset)
            dset = kvtree_dup(kvtree_get(rk, "DSETDESC"));
        kvtree_t *mine = kvtree_setf(r2f, NULL, "RANK %d FILE", r);
        kvtree_t *files = kvtree_get(rk, "FILE");
        for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
            kvtree_t *m = kvtree_get(kvtree_elem_tree(e), "META");
            const char *type = kvtree_get_val(m, "TYPE");
            if (!type || strcmp(type, FM_TYPE_USER) != 0)
                continue;
            kvtree_t *x = kvtree_set(mine, kvtree_elem_key(e), NULL);
            uint64_t size = 0;
            kvtree_util_get_u64(m, "SIZE", &size);
            kvtree_util_set_u64(x, "SIZE", size);
            if (kvtree_get(m, "CRC"))
                kvtree_util_set_str(x, "CRC", kvtree_get_val(m, "CRC"));
            (*nfiles)++;
        }
    }
    if (dset) {
        kvtree_unset(dset, "DIR");
        kvtree_unset(dset, "FLUSHING");
        kvtree_util_set_int(dset, "FILES", *nfiles);
    }
    return dset;
}

/* ranks that fail inspection, as "3,5,..." in buf; returns how many */
static int dsindex_inspect(const char *dsetdir, const kvtree_t *scan, int ranks,
                           char *buf, size_t len)
{
    int missing = 0;
    buf[0] = '\0';
    for (int r = 0; r < ranks; r++) {
        kvtree_t *rk = kvtree_getf(scan, "RANK %d", r);
        if (rk && dsindex_rank_ok(dsetdir, rk))
            continue;
        size_t used = strlen(buf);
        if (used + 16 < len)
            snprintf(buf + used, len - used, "%s%d", missing ? "," : "", r);
        missing++;
    }
    return missing;
}

int dsindex_dataset(const char *prefix, int id, dsindex_report_t *rep, scr_error_t *err)
{
    char dsetdir[4200], name[64], list[256];
    pfs_dset_dir(prefix, id, dsetdir, sizeof(dsetdir));
    pfs_dset_name(id, name, sizeof(name));
    memset(rep, 0, sizeof(*rep));
    kvtree_t *scan = kvtree_new();
    if (dsindex_scan(dsetdir, id, scan, err) < 0)
        return kvtree_delete(&scan), -1;
    kvtree_elem_t *first = kvtree_first(kvtree_get(scan, "RANK"));
    if (!first ||
        kvtree_util_get_int(kvtree_get(kvtree_elem_tree(first), "DSETDESC"), "RANKS",
                            &rep->ranks) < 0 ||
        rep->ranks < 1) {
        kvtree_delete(&scan);
        return errprintf(err, "%s: no rank filemaps with a rank count", dsetdir);
    }
    /* the filemaps are the user's: more ranks than a rebuild could restore
     * from the scanned ones (a set has at most 255 members) would only keep
     * the loops over every rank below busy for hours */
    long long scanned = kvtree_size(kvtree_get(scan, "RANK"));
    if (rep->ranks > scanned * 255) {
        kvtree_delete(&scan);
        return errprintf(err, "%s: the filemaps say %d ranks, only %lld were scavenged",
                         dsetdir, rep->ranks, scanned);
    }
    rep->missing = dsindex_inspect(dsetdir, scan, rep->ranks, list, sizeof(list));
    if (rep->missing > 0) {
        log_msg("index: dataset %d is missing ranks %s; rebuilding", id, list);
        dsindex_rebuild(dsetdir, id, scan, &rep->rebuilt);
        kvtree_delete(&scan);
        scan = kvtree_new();
        dsindex_scan(dsetdir, id, scan, NULL);
    }
    int still = dsindex_inspect(dsetdir, scan, rep->ranks, list, sizeof(list));
    kvtree_t *r2f = kvtree_new();
    kvtree_t *dset = dsindex_collect(scan, rep->ranks, r2f, &rep->files);
    int rc = 0;
    if (still > 0) {
        rc = errprintf(err,
                       "dataset %d in %s: ranks %s are missing files and cannot be "
                       "rebuilt",
                       id, dsetdir, list);
        if (dset) {
            summary_write(dsetdir, dset, 0, NULL);
            index_add(prefix, id, name, dset, 0, NULL);
        }
    } else if (dsindex_write_r2f(dsetdir, rep->ranks, r2f, err) < 0) {
        rc = -1;
    } else {
        fault_point("dsindex.r2f", -1); /* no summary yet */
        if (summary_write(dsetdir, dset, 1, err) < 0)
            rc = -1;
        if (rc == 0)
            fault_point("dsindex.summary", -1); /* not in the index yet */
        if (rc == 0 && (index_add(prefix, id, name, dset, 1, err) < 0 ||
                        flushfile_set(prefix, id, "PFS", 1, err) < 0))
            rc = -1;
        if (rc == 0)
            fault_point("dsindex.indexed", -1); /* complete, files still staged */
        /* a placement cut short is finished by the next fetch or indexer */
        if (rc == 0 && place_all(prefix, id, name, r2f, err) == 0)
            index_mark_placed(prefix, id, name, NULL);
        else if (rc == 0)
            log_warn("dataset %d: %s; the next restart moves its files", id, err->text);
    }
    kvtree_delete(&dset);
    kvtree_delete(&r2f);
    kvtree_delete(&scan);
    return rc;
}

/* One level of the tree: each writer's file with the entries r2f_assign
 * gave it, and in next[w] the pointer to that file.  The ranks are grouped
 * by writer in one counting pass: a search of all ranks per writer made
 * the indexer quadratic (bench/scr-model: 1,578 s at 10^6 ranks). */
static int dsindex_r2f_level(const char *dsetdir, int level, int ranks, kvtree_t **entry,
                             const int *writer, kvtree_t **next, int *last,
                             scr_error_t *err)
{
    int *start = calloc((size_t)ranks + 1, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)(ranks > 0 ? ranks : 1)), rc = 0;
    if (!start || !order)
        rc = errprintf(err, "out of memory");
    for (int r = 0; rc == 0 && r < ranks; r++)
        if (entry[r])
            start[writer[r] + 1]++;
    for (int w = 0; rc == 0 && w < ranks; w++)
        start[w + 1] += start[w];
    for (int r = 0, *at = start; rc == 0 && r < ranks; r++)
        if (entry[r]) /* start[w] counts through w's slots: then it is w's end */
            order[at[writer[r]]++] = r;
    for (int w = 0, from = 0; rc == 0 && w < ranks; from = start[w++]) {
        if (start[w] == from)
            continue;
        kvtree_t *merged = kvtree_new();
        for (int k = from; k < start[w]; k++)
            kvtree_merge(merged, entry[order[k]]);
        kvtree_t *file = r2f_file(level, kvtree_size(kvtree_get(merged, "RANK")), merged);
        char rel[128], path[4400];
        r2f_name(level, w, 0, rel, sizeof(rel));
        snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
        if (kvtree_write_file(path, file, err) < 0)
            rc = -1;
        kvtree_delete(&file);
        kvtree_delete(&merged);
        next[w] = r2f_entry_pointer(level, w);
        *last = w;
    }
    free(start);
    free(order);
    return rc;
}

/* the same grouping as r2f_write_tree, computed in one process */
int dsindex_write_r2f(const char *dsetdir, int ranks, const kvtree_t *files,
                      scr_error_t *err)
{
    kvtree_t **entry = calloc((size_t)ranks, sizeof(kvtree_t *));
    uint64_t *sizes = calloc((size_t)ranks, sizeof(uint64_t));
    int *writer = calloc((size_t)ranks, sizeof(int)), rc = 0, level = 0, last = -1;
    if (!entry || !sizes || !writer)
        rc = errprintf(err, "out of memory");
    for (int r = 0; rc == 0 && r < ranks; r++)
        entry[r] = r2f_entry_files(r, kvtree_getf(files, "RANK %d FILE", r));
    while (rc == 0) {
        for (int r = 0; r < ranks; r++)
            sizes[r] = entry[r] ? kvtree_pack_size(entry[r]) : 0;
        int nwriters = r2f_assign(sizes, ranks, writer);
        kvtree_t **next = calloc((size_t)ranks, sizeof(kvtree_t *));
        if (!next)
            rc = errprintf(err, "out of memory");
        else if (dsindex_r2f_level(dsetdir, level, ranks, entry, writer, next, &last,
                                   err) < 0)
            rc = -1;
        for (int r = 0; r < ranks; r++)
            kvtree_delete(&entry[r]);
        free(entry);
        entry = next;
        level++;
        if (rc < 0 || nwriters <= 1)
            break;
    }
    if (rc == 0 && last >= 0) {
        kvtree_t *root = r2f_file(level, ranks, entry[last]);
        char path[4400];
        snprintf(path, sizeof(path), "%s/.scr/rank2file.scr", dsetdir);
        rc = kvtree_write_file(path, root, err);
        kvtree_delete(&root);
    }
    for (int r = 0; entry && r < ranks; r++)
        kvtree_delete(&entry[r]);
    free(entry);
    free(sizes);
    free(writer);
    return rc;
}

/* 1 if the epilog's indexer gave up (or never answered), so that the
 * dataset deserves one more try: its failure may have been the prefix's
 * (full, unwritable), not the dataset's */
static int dsindex_unsettled(const kvtree_t *t)
{
    const char *who = kvtree_get_val(t, "INDEXER");
    int ok = 0;
    kvtree_util_get_int(kvtree_get(t, "VERDICT"), "OK", &ok);
    return !who || (strcmp(who, "SCR_Init") != 0 && !ok);
}

/* Under the file's lock: still nobody's (else -1, and the caller moves
 * on); SCR_Init tries once, never again */
static int dsindex_claim(kvtree_t *t, void *arg)
{
    (void)arg;
    if (!dsindex_unsettled(t))
        return -1;
    kvtree_util_set_str(t, "INDEXER", "SCR_Init");
    return 0;
}

/* 1 if the index has dataset id complete */
static int dsindex_indexed(const char *prefix, int id)
{
    kvtree_t *index = kvtree_new();
    char name[64];
    int complete = 0;
    pfs_dset_name(id, name, sizeof(name));
    if (index_read(prefix, index, NULL) == 0)
        kvtree_util_get_int(kvtree_getf(index, "DSET %d DIR %s", id, name), "COMPLETE",
                            &complete);
    kvtree_delete(&index);
    return complete;
}

/* The newest id a job's nodes copied, if it still needs indexing and the
 * last epilog wrote more than grace seconds ago; else -1.  It needs it
 * when nobody was elected, or the one elected gave up or never answered
 * and the index does not have it complete (`scr postrun` answers nothing
 * but indexes). */
static int dsindex_orphan(const char *prefix, const char *path, double grace)
{
    struct stat st;
    kvtree_t *t = kvtree_new();
    int best = -1, id;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        difftime(time(NULL), st.st_mtime) >= grace &&
        kvtree_read_with_lock(path, t, NULL) == 0 && dsindex_unsettled(t)) {
        kvtree_t *c = kvtree_get(t, "COPIED");
        for (kvtree_elem_t *e = kvtree_first(c); e; e = kvtree_elem_next(e))
            if (kvtree_util_get_int(kvtree_elem_tree(e), "ID", &id) == 0 && id > best)
                best = id;
        if (best >= 0 && kvtree_get(t, "INDEXER") && dsindex_indexed(prefix, best))
            best = -1;
    }
    kvtree_delete(&t);
    return best;
}

int dsindex_pending(const char *prefix, double grace)
{
    char meta[4200];
    pfs_meta_path(prefix, "", meta, sizeof(meta));
    DIR *d = opendir(meta);
    if (!d)
        return 0;
    int done = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "scavenge.", 9) != 0 || len < 13 ||
            strcmp(e->d_name + len - 4, ".scr") != 0)
            continue;
        char path[4500];
        snprintf(path, sizeof(path), "%s/%s", meta, e->d_name);
        int id = dsindex_orphan(prefix, path, grace);
        if (id < 0 || kvtree_update_file(path, dsindex_claim, NULL, 1, NULL) < 0)
            continue;
        dsindex_report_t rep;
        scr_error_t err;
        if (dsindex_dataset(prefix, id, &rep, &err) == 0) {
            log_msg("dataset %d, scavenged by an earlier job's epilog, indexed now "
                    "(%d ranks rebuilt)",
                    id, rep.rebuilt);
            done++;
        } else
            log_warn("dataset %d, scavenged by an earlier job's epilog: %s", id,
                     err.text);
    }
    closedir(d);
    return done;
}

void dsindex_rank_filemap(const char *dsetdir, int rank, char *buf, size_t len)
{
    snprintf(buf, len, "%s/.scr/%d.scrfilemap", dsetdir, rank);
}

void dsindex_node_record(const char *dsetdir, const char *host, int part, char *buf,
                         size_t len)
{
    char safe[256];
    size_t i = 0;
    for (; host[i] && i < sizeof(safe) - 1; i++)
        safe[i] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789._-",
                         host[i])
                      ? host[i]
                      : '_';
    safe[i] = '\0';
    if (part == 0)
        snprintf(buf, len, "%s/.scr/node.%s.scrfilemap", dsetdir, safe);
    else /* '+' is never in a safe name: no host's part 0 looks like this */
        snprintf(buf, len, "%s/.scr/node.%s+%d.scrfilemap", dsetdir, safe, part);
}

/* write part k of a node's record; 0 or -1 */
static int dsindex_node_part(const char *dsetdir, const char *host, int k,
                             const kvtree_t *part, scr_error_t *err)
{
    char path[4400];
    dsindex_node_record(dsetdir, host, k, path, sizeof(path));
    return kvtree_write_file(path, part, err);
}

int dsindex_node_write(const char *dsetdir, const char *host, const kvtree_t *record,
                       scr_error_t *err)
{
    kvtree_t *part = kvtree_new();
    size_t bytes = 0;
    int k = 0, rc = 0;
    kvtree_t *ranks = kvtree_get(record, "RANK");
    for (kvtree_elem_t *e = kvtree_first(ranks); e && rc == 0; e = kvtree_elem_next(e)) {
        size_t n = kvtree_pack_size(kvtree_elem_tree(e));
        if (bytes > 0 && bytes + n > DSINDEX_PART_BYTES) {
            rc = dsindex_node_part(dsetdir, host, k++, part, err);
            kvtree_clear(part);
            bytes = 0;
        }
        kvtree_t *dsets = kvtree_get(kvtree_elem_tree(e), "DSET");
        kvtree_setf(part, kvtree_dup(kvtree_elem_tree(e)), "RANK %s", kvtree_elem_key(e));
        for (kvtree_elem_t *d = kvtree_first(dsets); d; d = kvtree_elem_next(d))
            kvtree_setf(part, NULL, "DSET %s RANK %s", kvtree_elem_key(d),
                        kvtree_elem_key(e));
        bytes += n;
    }
    if (rc == 0 && (bytes > 0 || k == 0))
        rc = dsindex_node_part(dsetdir, host, k, part, err);
    kvtree_delete(&part);
    return rc;
}

int dsindex_node_read(const char *dsetdir, const char *host, kvtree_t *record)
{
    int k = 0;
    for (;; k++) {
        char path[4400];
        kvtree_t *part = kvtree_new();
        dsindex_node_record(dsetdir, host, k, path, sizeof(path));
        int rc = kvtree_read_file(path, part, NULL);
        if (rc == 0)
            kvtree_merge(record, part);
        kvtree_delete(&part);
        if (rc < 0)
            return k;
    }
}

int dsindex_rank_listed(const kvtree_t *rk)
{
    int want = -1, have = 0;
    kvtree_util_get_int(rk, "FILES", &want);
    kvtree_t *files = kvtree_get(rk, "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        const char *type =
            kvtree_get_val(kvtree_get(kvtree_elem_tree(e), "META"), "TYPE");
        if (type && strcmp(type, FM_TYPE_USER) == 0)
            have++;
    }
    return want >= 0 && have == want;
}
