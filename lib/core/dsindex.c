/* SPDX-License-Identifier: BSD-3-Clause */
/* dsindex.c - inspect, rebuild and index a scavenged dataset, reading its
 * records (dsrec.h) one file at a time */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dsindex.h"
#include "dsrec.h"
#include "ecfile.h"
#include "fault.h"
#include "filemap.h"
#include "kvtree.h"
#include "log.h"
#include "path.h"
#include "pfs.h"
#include "place.h"
#include "r2f.h"

/* What the records say of each rank, a byte per rank: no process holds
 * every rank's record (the old indexer held them all, 10 GiB at 10^6
 * ranks in bench/scr-model), only these flags. */
enum { DS_SEEN = 1, DS_OK = 2, DS_DUP = 4, DS_DONE = 8, DS_TALLIED = 16 };

typedef struct {
    const char *dsetdir;
    int id;
    int ranks;         /* the first record's RANKS, 0 before it */
    unsigned char *st; /* DS_* of ranks below cap */
    int cap;
    long long distinct; /* ranks with a record */
    kvtree_t *dset;     /* the first record's DSETDESC */
    int files;          /* application files in each rank's first record */
    int oom;
    int flags;                /* DSINDEX_* */
    long long picked, landed; /* ranks in the tree, of those landed */
    struct dsr2f *w;          /* the tree being written as the records pass */
} dsscan_t;

static int ds_r2f_add(struct dsr2f *w, int r, const kvtree_t *rk);

/* rank r's flags, or NULL for a rank outside the dataset.  The array grows
 * with the highest rank seen, not with what a record claims RANKS is. */
static unsigned char *ds_flags(dsscan_t *d, int r)
{
    if (r < 0 || r >= d->ranks)
        return NULL;
    if (r >= d->cap) {
        int cap = d->cap ? d->cap : 1024;
        while (cap <= r)
            cap = cap > d->ranks / 2 ? d->ranks : cap * 2;
        unsigned char *st = realloc(d->st, (size_t)cap);
        if (!st) {
            d->oom = 1;
            return NULL;
        }
        memset(st + d->cap, 0, (size_t)(cap - d->cap));
        d->st = st;
        d->cap = cap;
    }
    return &d->st[r];
}

/* Pass 1: which ranks have a whole record, which more than one; and the
 * first whole record of each rank goes into the rank2file tree at once
 * (the first in the order the records are read, as any later pass would
 * take it): reading every node's record twice was half the indexer's work
 * (bench/README.md). */
static int ds_inspect(int r, const kvtree_t *rk, void *arg)
{
    dsscan_t *d = arg;
    if (!d->dset) {
        kvtree_t *desc = kvtree_get(rk, "DSETDESC");
        int n = 0;
        if (kvtree_util_get_int(desc, "RANKS", &n) < 0 || n < 1)
            return 0;
        d->dset = kvtree_dup(desc);
        d->ranks = n;
    }
    unsigned char *f = ds_flags(d, r);
    if (!f)
        return 0;
    if (*f & DS_SEEN) {
        *f |= DS_DUP;
    } else {
        *f |= DS_SEEN;
        d->distinct++;
        d->files += dsrec_user_files(rk);
    }
    if ((*f & DS_DONE) || !dsrec_rank_ok(d->dsetdir, rk))
        return 0;
    *f |= DS_OK | DS_DONE;
    return d->w ? ds_r2f_add(d->w, r, rk) : 0;
}

/* ranks without a whole record, as "3,5,..." in buf; returns how many */
static int ds_missing(const dsscan_t *d, char *buf, size_t len)
{
    int missing = 0;
    buf[0] = '\0';
    for (int r = 0; r < d->ranks; r++) {
        if (r < d->cap && (d->st[r] & DS_OK))
            continue;
        size_t used = strlen(buf);
        if (used + 16 < len)
            snprintf(buf + used, len - used, "%s%d", missing ? "," : "", r);
        missing++;
    }
    return missing;
}

/* 1 if rk is the record of rank r to use (the first whole one), marked
 * DONE so that no other record of r is */
static int ds_pick(dsscan_t *d, int r, const kvtree_t *rk)
{
    unsigned char *f = r >= 0 && r < d->cap ? &d->st[r] : NULL;
    if (!f || (*f & DS_DONE) || !(*f & DS_OK))
        return 0;
    if ((*f & DS_DUP) && !dsrec_rank_ok(d->dsetdir, rk))
        return 0;
    *f |= DS_DONE;
    return 1;
}

static void ds_undone(dsscan_t *d)
{
    for (int r = 0; r < d->cap; r++)
        d->st[r] &= (unsigned char)~DS_DONE;
}

/* fn(set key, member s (0-based), members n, path) for each XOR/RS file of
 * rank record rk; the key ("<ext>.<set id>") names the set in every
 * member's file name */
typedef void (*ds_parity_fn)(const char *key, int s, int n, const char *path, void *arg);

static void ds_each_parity(const char *dsetdir, const kvtree_t *rk, ds_parity_fn fn,
                           void *arg)
{
    kvtree_t *files = kvtree_get(rk, "FILE");
    for (kvtree_elem_t *f = kvtree_first(files); f; f = kvtree_elem_next(f)) {
        const char *type =
            kvtree_get_val(kvtree_get(kvtree_elem_tree(f), "META"), "TYPE");
        int s, n, setid;
        char ext[8], key[64], path[8400];
        const char *base = strrchr(kvtree_elem_key(f), '/');
        base = base ? base + 1 : kvtree_elem_key(f);
        /* a name from a user's filemap: only inside the dataset */
        if (!type || strcmp(type, FM_TYPE_USER) == 0 ||
            !path_is_safe_relative(kvtree_elem_key(f)) ||
            sscanf(base, "%d_of_%d_in_%d.%7s", &s, &n, &setid, ext) != 4 || s < 1 ||
            s > n)
            continue;
        snprintf(key, sizeof(key), "%s.%d", ext, setid);
        snprintf(path, sizeof(path), "%s/%s", dsetdir, kvtree_elem_key(f));
        fn(key, s - 1, n, path, arg);
    }
}

typedef struct {
    dsscan_t *d;
    kvtree_t *sets; /* tally: key -> MEMBERS, HAVE; then the sets to rebuild */
} dsets_t;

static void ds_count_member(const char *key, int s, int n, const char *path, void *arg)
{
    (void)s;
    (void)path;
    kvtree_t *sets = arg, *set = kvtree_get(sets, key);
    int have = 0;
    if (!set)
        set = kvtree_set(sets, key, NULL);
    kvtree_util_get_int(set, "HAVE", &have);
    kvtree_util_set_int(set, "MEMBERS", n);
    kvtree_util_set_int(set, "HAVE", have + 1);
}

/* pass 2 (after a loss): how many members of each set are whole, one
 * count per set (each whole rank counted once).  A rank with a record but
 * not all its files (a copy failed) is a lost member, even when its parity
 * file was copied. */
static int ds_tally(int r, const kvtree_t *rk, void *arg)
{
    dsets_t *t = arg;
    unsigned char *f = r >= 0 && r < t->d->cap ? &t->d->st[r] : NULL;
    if (!f || (*f & DS_TALLIED) || !(*f & DS_OK))
        return 0;
    *f |= DS_TALLIED;
    ds_each_parity(t->d->dsetdir, rk, ds_count_member, t->sets);
    return 0;
}

static void ds_add_member(const char *key, int s, int n, const char *path, void *arg)
{
    kvtree_t *set = kvtree_get(arg, key);
    if (!set)
        return; /* whole: not rebuilt */
    kvtree_util_set_int(set, "MEMBERS", n);
    kvtree_util_set_str(kvtree_setf(set, NULL, "MEMBER %d", s), "FILE", path);
}

/* pass 3: the parity files of the sets that lost members (ecfile.h) */
static int ds_collect(int r, const kvtree_t *rk, void *arg)
{
    (void)r;
    dsets_t *t = arg;
    ds_each_parity(t->d->dsetdir, rk, ds_add_member, t->sets);
    return 0;
}

/* rank r's record, as scavenge_rank writes it, from ecfile_rebuild's
 * description of the rebuilt rank (src) */
static void ds_rebuilt_rank(kvtree_t *rec, int id, int r, const kvtree_t *src)
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

/* record the rebuilt ranks (out: RANK <r> ...) in .scr/rebuilt.scrfilemap,
 * beside those an earlier indexer rebuilt, and take them into d */
static int ds_record_rebuilt(dsscan_t *d, const kvtree_t *out, int *rebuilt)
{
    kvtree_t *ranks = kvtree_get(out, "RANK");
    int n = kvtree_size(ranks);
    if (n == 0)
        return 0;
    char path[4400];
    scr_error_t err;
    kvtree_t *rec = kvtree_new();
    fault_point("dsindex.rebuilt", -1); /* rebuilt files in place, not recorded */
    snprintf(path, sizeof(path), "%s/.scr/rebuilt.scrfilemap", d->dsetdir);
    kvtree_read_file(path, rec, NULL); /* none yet, or unreadable: begin anew */
    for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e))
        ds_rebuilt_rank(rec, d->id, atoi(kvtree_elem_key(e)), kvtree_elem_tree(e));
    int rc = kvtree_write_file(path, rec, &err);
    kvtree_delete(&rec);
    if (rc < 0)
        return log_err("index: %s", err.text), -1;
    *rebuilt += n;
    return dsrec_each_in(path, d->id, ds_inspect, d);
}

/* Rebuild every set that lost members: three passes over the records
 * (count members, collect the incomplete sets' files, then ecfile). */
static int ds_rebuild(dsscan_t *d, int *rebuilt)
{
    dsets_t t = {d, kvtree_new()};
    int bad = 0;
    dsrec_each(d->dsetdir, d->id, ds_tally, &t, NULL);
    kvtree_t *want = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(t.sets); e; e = kvtree_elem_next(e)) {
        int n = 0, have = 0;
        kvtree_util_get_int(kvtree_elem_tree(e), "MEMBERS", &n);
        kvtree_util_get_int(kvtree_elem_tree(e), "HAVE", &have);
        if (have < n)
            kvtree_set(want, kvtree_elem_key(e), NULL);
    }
    kvtree_delete(&t.sets);
    t.sets = want;
    if (kvtree_size(want) > 0)
        dsrec_each(d->dsetdir, d->id, ds_collect, &t, NULL);
    kvtree_t *out = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(want); e; e = kvtree_elem_next(e)) {
        scr_error_t err;
        if (ecfile_rebuild(d->dsetdir, kvtree_elem_tree(e), out, &err) < 0) {
            log_err("index: dataset %d, set %s: %s", d->id, kvtree_elem_key(e), err.text);
            bad++;
        }
    }
    if (ds_record_rebuilt(d, out, rebuilt) < 0)
        bad++;
    kvtree_delete(&out);
    kvtree_delete(&want);
    return bad ? -1 : 0;
}

/* The rank2file tree written as the records stream by (pass 1): level 0
 * files of whole ranks up to R2F_BUCKET bytes each, named by their first
 * rank, which is also the rank that reads the file (r2f.h) */
typedef struct dsr2f {
    dsscan_t *d;
    const char *prefix;
    kvtree_t *bucket; /* RANK <r> FILE ... of the level 0 file being filled */
    size_t bytes;
    int writer;     /* its first rank */
    kvtree_t **ptr; /* [cap]: the pointer to each level 0 file, by writer */
    int cap;
    int last, count, files, clash, rc;
    scr_error_t *err;
} dsr2f_t;

/* w->ptr holds at least need entries (the array grows with the ranks
 * written, never past the dataset's) */
static int ds_r2f_grow(dsr2f_t *w, int need)
{
    if (need <= w->cap)
        return 0;
    int cap = w->cap;
    while (cap < need)
        cap = cap > w->d->ranks / 2 ? w->d->ranks : cap * 2;
    kvtree_t **ptr = realloc(w->ptr, (size_t)cap * sizeof(*ptr));
    if (!ptr)
        return errprintf(w->err, "out of memory");
    memset(ptr + w->cap, 0, (size_t)(cap - w->cap) * sizeof(*ptr));
    w->ptr = ptr;
    w->cap = cap;
    return 0;
}

static int ds_r2f_flush(dsr2f_t *w)
{
    if (w->bytes == 0)
        return 0;
    char rel[128], path[4400];
    /* the bucket's entries move into the file, not copied */
    kvtree_t *file = r2f_file_take(0, kvtree_extract(w->bucket, "RANK"));
    r2f_name(0, w->writer, 0, rel, sizeof(rel));
    snprintf(path, sizeof(path), "%s/%s", w->d->dsetdir, rel);
    int rc = kvtree_write_file(path, file, w->err);
    kvtree_delete(&file);
    kvtree_clear(w->bucket);
    w->bytes = 0;
    if (ds_r2f_grow(w, w->writer + 1) < 0)
        return -1;
    w->ptr[w->writer] = r2f_entry_pointer(0, w->writer);
    w->last = w->writer;
    w->count++;
    return rc;
}

/* rank r's level 0 entry, RANK <r> FILE <rel> {SIZE, CRC} of rk's
 * application files (what r2f_entry_files makes, built in place); a clash
 * is a file already at its own path on the prefix (an older dataset's:
 * place_supersede_staged) */
static kvtree_t *ds_r2f_entry(dsr2f_t *w, int r, const kvtree_t *rk)
{
    kvtree_t *entry = kvtree_new(), *out = kvtree_setf(entry, NULL, "RANK %d FILE", r);
    int taken = dsrec_rank_taken(rk);
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(rk, "FILE")); e;
         e = kvtree_elem_next(e)) {
        kvtree_t *m = dsrec_user_meta(e);
        if (!m)
            continue;
        kvtree_t *x = kvtree_set(out, kvtree_elem_key(e), NULL);
        uint64_t size = 0;
        kvtree_util_get_u64(m, "SIZE", &size);
        kvtree_util_set_u64(x, "SIZE", size);
        if (kvtree_get(m, "CRC"))
            kvtree_util_set_str(x, "CRC", kvtree_get_val(m, "CRC"));
        w->files++;
        char path[8400];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", w->prefix, kvtree_elem_key(e));
        if (!w->clash && taken < 0 && lstat(path, &st) == 0)
            w->clash = 1;
    }
    if (taken > 0) /* its node looked as it copied */
        w->clash = 1;
    return entry;
}

static int ds_r2f_add(dsr2f_t *w, int r, const kvtree_t *rk)
{
    w->d->picked++;
    w->d->landed += dsrec_rank_landed(rk);
    kvtree_t *entry = ds_r2f_entry(w, r, rk);
    size_t n = kvtree_pack_size(entry);
    if (n > R2F_ENTRY_MAX) { /* its file would be one no reader takes */
        kvtree_delete(&entry);
        w->rc = errprintf(w->err,
                          "%s: rank %d: its list of %d files takes %zu bytes in the "
                          "rank2file map, more than %d",
                          w->d->dsetdir, r, dsrec_user_files(rk), n, R2F_ENTRY_MAX);
        return w->rc;
    }
    if (w->bytes > 0 && w->bytes + n > R2F_BUCKET && ds_r2f_flush(w) < 0)
        w->rc = -1;
    if (w->bytes == 0)
        w->writer = r;
    /* moved, not copied: a rank comes into the bucket once (ds_pick) */
    char key[16];
    snprintf(key, sizeof(key), "%d", r);
    kvtree_setf(w->bucket, kvtree_extract(kvtree_get(entry, "RANK"), key), "RANK %d", r);
    w->bytes += n;
    kvtree_delete(&entry);
    return w->rc;
}

static int dsindex_r2f_up(const char *dsetdir, int ranks, kvtree_t **entry, int level,
                          int last, scr_error_t *err);

static void ds_r2f_begin(dsr2f_t *w, dsscan_t *d, const char *prefix, scr_error_t *err)
{
    memset(w, 0, sizeof(*w));
    w->d = d;
    w->prefix = prefix;
    w->bucket = kvtree_new();
    w->last = -1;
    w->err = err;
    w->cap = 1024;
    w->ptr = calloc((size_t)w->cap, sizeof(kvtree_t *));
    d->w = w->bucket && w->ptr ? w : NULL;
}

/* the level 0 files written so far go again: the dataset is incomplete */
static void ds_r2f_abort(dsr2f_t *w)
{
    for (int r = 0; w->ptr && r < w->cap; r++) {
        char rel[128], path[4400];
        if (!w->ptr[r])
            continue;
        r2f_name(0, r, 0, rel, sizeof(rel));
        snprintf(path, sizeof(path), "%s/%s", w->d->dsetdir, rel);
        unlink(path);
        kvtree_delete(&w->ptr[r]);
    }
    free(w->ptr);
    w->ptr = NULL;
    kvtree_delete(&w->bucket);
    w->d->w = NULL;
}

/* the last level 0 file and the levels above; *files, *clash as
 * ds_r2f_entry found */
static int ds_r2f_finish(dsr2f_t *w, int *files, int *clash, scr_error_t *err)
{
    dsscan_t *d = w->d;
    if (!d->w)
        return ds_r2f_abort(w), errprintf(err, "out of memory");
    int rc = w->rc < 0 || ds_r2f_flush(w) < 0 ? -1 : 0;
    *files = w->files;
    *clash = w->clash;
    if (rc == 0 && w->count == 0)
        rc = errprintf(err, "%s: no rank to index", d->dsetdir);
    /* the levels above take one entry per rank of the dataset */
    if (rc < 0 || ds_r2f_grow(w, d->ranks) < 0) {
        ds_r2f_abort(w);
        return -1;
    }
    kvtree_t **ptr = w->ptr;
    w->ptr = NULL;
    kvtree_delete(&w->bucket);
    d->w = NULL;
    /* levels above, as dsindex_write_r2f writes them */
    return dsindex_r2f_up(d->dsetdir, d->ranks, ptr, 1, w->count > 1 ? -1 : w->last, err);
}

/* pass 5: each picked rank's files moved to their own paths */
typedef struct {
    dsscan_t *d;
    const char *prefix, *dir;
    int bad, left;
    scr_error_t *err;
} dsplace_t;

static int ds_place_rank(int r, const kvtree_t *rk, void *arg)
{
    dsplace_t *p = arg;
    if (!ds_pick(p->d, r, rk))
        return 0;
    if ((p->d->flags & DSINDEX_NODES_PLACE) && dsrec_rank_landed(rk)) {
        p->left++; /* its node moves them once it hears the verdict */
        return 0;
    }
    p->bad += dsrec_place(p->prefix, p->dir, rk, NULL, p->bad ? NULL : p->err);
    return 0;
}

/* Files of the dataset at their own paths (but those left to their nodes,
 * counted in *left), after the older datasets that name one of them were
 * superseded. */
static int ds_place(dsscan_t *d, const char *prefix, const char *name, int clash,
                    int *left, scr_error_t *err)
{
    /* an older dataset naming one of its files leaves the index before any
     * of them moves (reading that dataset's tree a file at a time) */
    if (clash && place_supersede_staged(prefix, d->id, name, err) < 0)
        return 1;
    /* every rank landed: all are the nodes' to place, no record to read */
    if ((d->flags & DSINDEX_NODES_PLACE) && d->landed == d->picked) {
        *left = (int)d->landed;
        return 0;
    }
    dsplace_t p = {d, prefix, name, 0, 0, err};
    ds_undone(d);
    dsrec_each(d->dsetdir, d->id, ds_place_rank, &p, NULL);
    *left = p.left;
    return p.bad;
}

/* the dataset descriptor for summary and index */
static kvtree_t *ds_desc(const dsscan_t *d, int files)
{
    kvtree_t *dset = kvtree_dup(d->dset);
    kvtree_unset(dset, "DIR");
    kvtree_unset(dset, "FLUSHING");
    kvtree_util_set_int(dset, "FILES", files);
    return dset;
}

/* the tree, summary, index entry and flush file of a dataset every rank of
 * which has a whole record; then its files at their own paths */
static int ds_complete(dsscan_t *d, const char *prefix, const char *name,
                       dsindex_report_t *rep, scr_error_t *err)
{
    int clash = 0;
    if (ds_r2f_finish(d->w, &rep->files, &clash, err) < 0)
        return -1;
    fault_point("dsindex.r2f", -1); /* no summary yet */
    kvtree_t *dset = ds_desc(d, rep->files);
    int rc = summary_write(d->dsetdir, dset, 1, err);
    if (rc == 0)
        fault_point("dsindex.summary", -1); /* not in the index yet */
    if (rc == 0 && (index_add(prefix, d->id, name, dset, 1, err) < 0 ||
                    flushfile_set(prefix, d->id, "PFS", 1, err) < 0))
        rc = -1;
    kvtree_delete(&dset);
    if (rc < 0)
        return -1;
    fault_point("dsindex.indexed", -1); /* complete, files still staged */
    /* a placement cut short is finished by the next fetch or indexer */
    if (ds_place(d, prefix, name, clash, &rep->left, err) != 0)
        log_warn("dataset %d: %s; the next restart moves its files", d->id, err->text);
    else if (rep->left == 0)
        index_mark_placed(prefix, d->id, name, NULL);
    else
        log_dbg(1, "dataset %d: %d ranks' files are left to the nodes that copied them",
                d->id, rep->left);
    return 0;
}

int dsindex_dataset(const char *prefix, int id, int flags, dsindex_report_t *rep,
                    scr_error_t *err)
{
    char dsetdir[4200], name[64], list[256];
    pfs_dset_dir(prefix, id, dsetdir, sizeof(dsetdir));
    pfs_dset_name(id, name, sizeof(name));
    memset(rep, 0, sizeof(*rep));
    dsscan_t d = {.dsetdir = dsetdir, .id = id, .flags = flags};
    dsr2f_t w;
    ds_r2f_begin(&w, &d, prefix, err);
    int rc = dsrec_each(dsetdir, id, ds_inspect, &d, err);
    if (rc == 0 && !d.dset)
        rc = errprintf(err, "%s: no rank filemaps with a rank count", dsetdir);
    /* the records are the user's: more ranks than a rebuild could restore
     * from the scanned ones (a set has at most 255 members) would only keep
     * the loops over every rank below busy for hours */
    else if (rc == 0 && d.ranks > d.distinct * 255)
        rc = errprintf(err, "%s: the filemaps say %d ranks, only %lld were scavenged",
                       dsetdir, d.ranks, d.distinct);
    else if (rc == 0 && d.oom)
        rc = errprintf(err, "%s: out of memory for %d ranks", dsetdir, d.ranks);
    rep->ranks = d.ranks;
    if (rc == 0 && (rep->missing = ds_missing(&d, list, sizeof(list))) > 0) {
        log_msg("index: dataset %d is missing ranks %s; rebuilding", id, list);
        ds_rebuild(&d, &rep->rebuilt);
    }
    if (rc == 0 && ds_missing(&d, list, sizeof(list)) > 0) {
        rc = errprintf(err,
                       "dataset %d in %s: ranks %s are missing files and cannot be "
                       "rebuilt",
                       id, dsetdir, list);
        kvtree_t *dset = ds_desc(&d, d.files);
        summary_write(dsetdir, dset, 0, NULL);
        index_add(prefix, id, name, dset, 0, NULL);
        kvtree_delete(&dset);
    } else if (rc == 0) {
        rc = ds_complete(&d, prefix, name, rep, err);
    }
    if (d.w) /* not complete: no tree */
        ds_r2f_abort(&w);
    kvtree_delete(&d.dset);
    free(d.st);
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

/* The levels from `level` up, entry[r] (NULL: none) being that level's
 * entries by rank, then the root; entry is freed.  last >= 0: entry holds
 * that one entry alone, which the root then holds. */
static int dsindex_r2f_up(const char *dsetdir, int ranks, kvtree_t **entry, int level,
                          int last, scr_error_t *err)
{
    uint64_t *sizes = calloc((size_t)ranks, sizeof(uint64_t));
    int *writer = calloc((size_t)ranks, sizeof(int)), rc = 0;
    if (!sizes || !writer)
        rc = errprintf(err, "out of memory");
    while (rc == 0 && last < 0) {
        kvtree_t **next = calloc((size_t)ranks, sizeof(kvtree_t *));
        if (!next) {
            rc = errprintf(err, "out of memory");
            break;
        }
        for (int r = 0; r < ranks; r++)
            sizes[r] = entry[r] ? kvtree_pack_size(entry[r]) : 0;
        int nwriters = r2f_assign(sizes, ranks, writer);
        if (dsindex_r2f_level(dsetdir, level, ranks, entry, writer, next, &last, err) < 0)
            rc = -1;
        for (int r = 0; r < ranks; r++)
            kvtree_delete(&entry[r]);
        free(entry);
        entry = next;
        level++;
        if (nwriters > 1)
            last = -1;
    }
    if (rc == 0 && last >= 0) {
        kvtree_t *root = r2f_file(level, ranks, entry[last]);
        char path[4400];
        snprintf(path, sizeof(path), "%s/.scr/rank2file.scr", dsetdir);
        rc = kvtree_write_file(path, root, err);
        kvtree_delete(&root);
    }
    for (int r = 0; r < ranks; r++)
        kvtree_delete(&entry[r]);
    free(entry);
    free(sizes);
    free(writer);
    return rc;
}

/* the same grouping as r2f_write_tree, computed in one process */
int dsindex_write_r2f(const char *dsetdir, int ranks, const kvtree_t *files,
                      scr_error_t *err)
{
    kvtree_t **entry = calloc((size_t)ranks, sizeof(kvtree_t *));
    if (!entry)
        return errprintf(err, "out of memory");
    for (int r = 0; r < ranks; r++)
        entry[r] = r2f_entry_files(r, kvtree_getf(files, "RANK %d FILE", r));
    return dsindex_r2f_up(dsetdir, ranks, entry, 0, -1, err);
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
        if (dsindex_dataset(prefix, id, 0, &rep, &err) == 0) {
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
