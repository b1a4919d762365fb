/* SPDX-License-Identifier: BSD-3-Clause */
/* scavenge.c - copy a node's cached dataset files to the prefix */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "dsindex.h"
#include "dsrec.h"
#include "fault.h"
#include "filemap.h"
#include "io.h"
#include "kvtree.h"
#include "log.h"
#include "path.h"
#include "pfs.h"
#include "progress.h"
#include "scavenge.h"
#include "scavfile.h"

/* the newest complete checkpoint below id `below` in one filemap, or -1 */
static int scavenge_newest(const kvtree_t *fm, int below, uint64_t *created)
{
    int *ids = NULL, n = 0, best = -1;
    filemap_list_dsets(fm, &n, &ids);
    for (int i = n - 1; i >= 0 && best < 0; i--) {
        if (ids[i] >= below)
            continue;
        kvtree_t *d = filemap_get_desc(fm, ids[i], "DSETDESC");
        int complete = 0;
        kvtree_util_get_int(d, "COMPLETE", &complete);
        if (complete && kvtree_get(d, "CKPT")) {
            best = ids[i];
            kvtree_util_get_u64(d, "CREATED", created);
        }
    }
    free(ids);
    return best;
}

typedef struct {
    int best, below, rank; /* rank: the filemap best was found in */
    uint64_t created;
} newest_t;

static int scavenge_pick_visit(int rank, const char *path, const kvtree_t *fm,
                               const scr_error_t *ferr, void *arg)
{
    (void)rank;
    (void)path;
    (void)ferr;
    newest_t *nw = arg;
    uint64_t c = 0;
    int n = fm ? scavenge_newest(fm, nw->below, &c) : -1;
    if (n > nw->best)
        nw->best = n, nw->created = c, nw->rank = rank;
    return 0;
}

/* the creation time in the record of rank that a scavenge on this node
 * (host) left in dataset id's directory on the prefix, or in an older
 * scavenge's file of that rank (0: none).  The index records one rank's
 * (rank 0's for a flush; every rank's is the same since datasets carry rank
 * 0's): this is how a node without rank 0 knows its part of a scavenged
 * dataset. */
static uint64_t scavenge_copied_created(const char *prefix, int id, int rank,
                                        const char *host)
{
    char dsetdir[4200], path[4400];
    uint64_t created = 0;
    kvtree_t *fm = kvtree_new();
    pfs_dset_dir(prefix, id, dsetdir, sizeof(dsetdir));
    if (host)
        dsrec_node_read(dsetdir, host, fm);
    if (!kvtree_getf(fm, "RANK %d DSET %d", rank, id)) {
        dsrec_rank_name(dsetdir, rank, path, sizeof(path));
        kvtree_read_file(path, fm, NULL);
    }
    kvtree_util_get_u64(kvtree_getf(fm, "RANK %d DSET %d DSETDESC", rank, id), "CREATED",
                        &created);
    kvtree_delete(&fm);
    return created;
}

int scavenge_pick(const char *prefix, const char *cntldir, int *id, scr_error_t *err)
{
    return scavenge_pick_below(prefix, cntldir, NULL, INT_MAX, id, err);
}

int scavenge_pick_below(const char *prefix, const char *cntldir, const char *host,
                        int below, int *id, scr_error_t *err)
{
    newest_t nw = {-1, below, -1, 0};
    if (filemap_foreach(cntldir, scavenge_pick_visit, &nw, err) < 0)
        return -1;
    int best = nw.best;
    uint64_t created = nw.created;
    if (best < 0)
        return 0;
    if (!prefix || !*prefix) { /* only the cache's word */
        *id = best;
        return 1;
    }
    /* already flushed or scavenged: the index has this very dataset (same
     * creation time, the index's or this rank's copy's) */
    kvtree_t *index = kvtree_new();
    uint64_t ic = 0;
    int complete = 0;
    char name[64];
    pfs_dset_name(best, name, sizeof(name));
    index_read(prefix, index, NULL);
    kvtree_t *entry = kvtree_getf(index, "DSET %d DIR %s", best, name);
    kvtree_util_get_int(entry, "COMPLETE", &complete);
    kvtree_util_get_u64(kvtree_get(entry, "DSET"), "CREATED", &ic);
    kvtree_delete(&index);
    if (complete && ic != created && created) /* not the index's rank: its copy */
        ic = scavenge_copied_created(prefix, best, nw.rank, host);
    if (complete && ic == created)
        return 0;
    *id = best;
    return 1;
}

/* progress lines of the round under way (progress.h): a scavenge is one
 * process's work, one round at a time */
static progress_t scavenge_prog;
static unsigned long long scavenge_prog_base; /* s->bytes when the round began */

/* after each block of a copy: the bytes of earlier files plus this one's */
static void scavenge_progress(uint64_t done, double busy, void *arg)
{
    (void)busy;
    scavenge_t *s = arg;
    progress_set(&scavenge_prog, s->bytes - scavenge_prog_base + done);
}

/* the directory of s->trees that holds the dataset's cache directory cdir
 * (cdir itself when the caller names no trees), or NULL: the filemap points
 * outside the job's trees */
static const char *scavenge_root(const scavenge_t *s, const char *cdir)
{
    if (!s->trees)
        return cdir;
    for (int i = 0; i < s->ntrees; i++)
        if (path_is_under(cdir, s->trees[i]))
            return s->trees[i];
    return NULL;
}

/* The copy's size on the prefix is the size written: a device that says a
 * write went whole when it did not (x-sc-file-short) leaves a torn file
 * that the CRC32 of the bytes read cannot show.  Caught here, the file is
 * left out of the node's record and the rank is covered by its partner
 * copy (round 2) or a rebuild; caught only by the indexer, a PARTNER rank
 * was lost. */
static int scavenge_landed(const scavfile_dst_t *d, int64_t n, scr_error_t *err)
{
    struct stat st;
    if (fstat(d->fd, &st) < 0)
        return errprintf(err, "%s: %s", d->shown, strerror(errno));
    if (st.st_size != (off_t)n)
        return errprintf(err, "%s: %lld bytes on the prefix after %lld written", d->shown,
                         (long long)st.st_size, (long long)n);
    return 0;
}

/* copy src (below root) to dsetdir/rel under a temporary name; rename once
 * the CRC is the recorded one (scavfile.h: no link followed at either end) */
static int scavenge_file(scavenge_t *s, const char *dsetdir, const char *root,
                         const char *src, const char *rel, const kvtree_t *meta,
                         scr_error_t *err)
{
    struct stat st;
    int in = scavfile_open_src(root, src, &st, err);
    if (in < 0)
        return -1;
    scavfile_dst_t d;
    if (scavfile_create(dsetdir, rel, s->host, st.st_mode & 0777, &d, err) < 0) {
        close(in);
        return -1;
    }
    int rc = 0;
    uint32_t crc = 0, want;
    uint64_t size = 0;
    io_copy_t o = {.src = src,
                   .dst = d.shown,
                   .progress = scavenge_progress,
                   .arg = s,
                   .direct = s->direct};
    int64_t n = io_copy_fd(in, d.fd, &o, &crc, err);
    close(in);
    if (n < 0)
        rc = -1;
    else if (kvtree_util_get_u64(meta, "SIZE", &size) == 0 && size != (uint64_t)n)
        rc = errprintf(err, "%s: %lld bytes, recorded %llu", src, (long long)n,
                       (unsigned long long)size);
    else if (kvtree_util_get_crc32(meta, "CRC", &want) == 0 && want != crc)
        rc = errprintf(err, "%s: CRC32 0x%08x, recorded 0x%08x", src, crc, want);
    else
        rc = scavenge_landed(&d, n, err);
    if (rc < 0) {
        scavfile_abort(&d);
        return -1;
    }
    if (scavfile_commit(&d, err) < 0)
        return -1;
    fault_point("scavenge.file", -1); /* this file is on the prefix */
    s->bytes += (unsigned long long)n;
    return 0;
}

/* where a cached file goes: application files at their REL path, redundancy
 * files under .scr/red/ (never fetched, read only by a rebuild) */
static int scavenge_rel(const char *src, const kvtree_t *meta, char *rel, size_t len)
{
    const char *type = kvtree_get_val(meta, "TYPE"), *r = kvtree_get_val(meta, "REL");
    if (type && strcmp(type, FM_TYPE_USER) == 0)
        return r && path_is_safe_relative(r) ? snprintf(rel, len, "%s", r), 0 : -1;
    const char *base = strrchr(src, '/');
    base = base ? base + 1 : src;
    if (!*base || strcmp(base, "..") == 0 || strcmp(base, ".") == 0)
        return -1;
    snprintf(rel, len, ".scr/red/%s", base);
    return 0;
}

/* What the indexer believes of rank record rk instead of looking at each
 * file (dsrec.h): every file listed passed scavenge_landed, and whether one
 * of them has a file at its own path already, looked at here on the node,
 * spread over the job, instead of by the one indexer. */
static void scavenge_landed_rank(const scavenge_t *s, kvtree_t *rk)
{
    int taken = 0;
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(rk, "FILE")); e && !taken;
         e = kvtree_elem_next(e)) {
        char path[8400];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", s->prefix, kvtree_elem_key(e));
        taken = dsrec_user_meta(e) && lstat(path, &st) == 0;
    }
    kvtree_util_set_int(rk, DSREC_LANDED, 1);
    kvtree_util_set_int(rk, DSREC_TAKEN, taken);
}

/* copy rank r's files in fm and add its record to the node's (s->record,
 * written by scavenge_record_write); 0 if all copied */
static int scavenge_rank(scavenge_t *s, const kvtree_t *fm, int r, const char *dsetdir)
{
    kvtree_t *desc = kvtree_dup(filemap_get_desc(fm, s->id, "DSETDESC"));
    const char *cdir = kvtree_get_val(desc, "DIR");
    kvtree_t *files = kvtree_get(filemap_get_rank(fm, s->id, r), "FILE");
    if (!s->record)
        s->record = kvtree_new();
    kvtree_t *rk = kvtree_setf(s->record, NULL, "RANK %d DSET %d", r, s->id);
    kvtree_setf(s->record, NULL, "DSET %d RANK %d", s->id, r);
    s->unwritten++;
    int nfiles = 0, bad = 0;
    kvtree_util_get_int(filemap_get_rank(fm, s->id, r), "FILES", &nfiles);
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        const char *src = kvtree_elem_key(e);
        kvtree_t *meta = kvtree_elem_tree(e);
        char rel[4200];
        scr_error_t err = {""};
        int complete = 0;
        kvtree_util_get_int(meta, "COMPLETE", &complete);
        if (!complete)
            continue;
        const char *root = cdir ? scavenge_root(s, cdir) : NULL;
        if (!root)
            errprintf(&err, "%s: dataset %d's cache directory %s is not one of the job's",
                      src, s->id, cdir ? cdir : "(none)");
        else if (!path_is_under(src, cdir) ||
                 scavenge_rel(src, meta, rel, sizeof(rel)) < 0)
            errprintf(&err, "%s: not a file of dataset %d's cache directory", src, s->id);
        else
            scavenge_file(s, dsetdir, root, src, rel, meta, &err);
        if (err.text[0]) {
            log_err("scavenge of rank %d: %s; the rebuild must cover it", r, err.text);
            s->failed++;
            bad++;
            continue;
        }
        kvtree_t *m = kvtree_setf(rk, kvtree_dup(meta), "FILE %s META", rel);
        kvtree_util_set_str(m, "FILE", rel);
        s->files++;
    }
    kvtree_unset(desc, "DIR");
    kvtree_unset(desc, "FLUSHING");
    kvtree_set(rk, "DSETDESC", desc);
    kvtree_util_set_int(rk, "FILES", nfiles);
    scavenge_landed_rank(s, rk);
    fault_point("scavenge.rank", -1); /* the files copied, not recorded */
    return bad ? -1 : 0;
}

/* Write the node's record, .scr/node.<host>.scrfilemap: every rank it has
 * copied so far.  Round 2 writes it again if it copied partner copies.
 * Ranks of a record never written are missing to the indexer, which
 * rebuilds them (XOR, RS) as it would after a lost node. */
static int scavenge_record_write(scavenge_t *s, const char *dsetdir)
{
    if (!s->unwritten) /* a record written and nothing added since */
        return 0;
    scr_error_t err;
    fault_point("scavenge.record", -1); /* the ranks copied, the record not written */
    if (dsrec_node_write(dsetdir, s->host, s->record, &err) < 0)
        return log_err("scavenge of dataset %d on %s: %s", s->id, s->host, err.text), -1;
    s->unwritten = 0;
    return 0;
}

/* call fn for each filemap_<rank>.scrinfo of the control directory that
 * knows dataset s->id */
typedef int (*scavenge_fm_fn)(scavenge_t *s, const kvtree_t *fm, int rank,
                              const char *dsetdir);

typedef struct {
    scavenge_t *s;
    scavenge_fm_fn fn;
    char dsetdir[4200];
} each_t;

static int scavenge_each_visit(int rank, const char *path, const kvtree_t *fm,
                               const scr_error_t *ferr, void *arg)
{
    (void)path;
    each_t *x = arg;
    if (!fm) {
        log_err("scavenge: %s", ferr->text);
        return -1;
    }
    if (!filemap_get_desc(fm, x->s->id, "DSETDESC"))
        return 0;
    return x->fn(x->s, fm, rank, x->dsetdir);
}

/* fn for every filemap of the node, then the node's record written */
static int scavenge_each(scavenge_t *s, scavenge_fm_fn fn, scr_error_t *err)
{
    each_t x = {s, fn, ""};
    pfs_dset_dir(s->prefix, s->id, x.dsetdir, sizeof(x.dsetdir));
    scr_error_t lerr = {""};
    int rc = filemap_foreach(s->cntldir, scavenge_each_visit, &x, &lerr);
    if (scavenge_record_write(s, x.dsetdir) < 0 && rc == 0)
        return errprintf(err, "the record of dataset %d on %s could not be written",
                         s->id, s->host);
    if (rc == 0)
        return 0;
    if (lerr.text[0]) /* the directory itself could not be listed */
        return errprintf(err, "%s", lerr.text);
    return errprintf(err, "some files of dataset %d on %s could not be copied", s->id,
                     s->host);
}

/* <prefix>/scr.dataset.<id>/.scr, made below the prefix without following a
 * link: one planted at either name would take the copies elsewhere */
static int scavenge_meta_dir(const scavenge_t *s, scr_error_t *err)
{
    char name[64], rel[128];
    pfs_dset_name(s->id, name, sizeof(name));
    snprintf(rel, sizeof(rel), "%s/.scr", name);
    if (io_mkdir_p(s->prefix, 0700, err) < 0)
        return -1;
    int pfd = open(s->prefix, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return errprintf(err, "%s: %s", s->prefix, strerror(errno));
    int fd = beneath_mkdirs(pfd, s->prefix, rel, 0700, err);
    close(pfd);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int scavenge_own_fm(scavenge_t *s, const kvtree_t *fm, int rank,
                           const char *dsetdir)
{
    int complete = 0;
    kvtree_util_get_int(filemap_get_desc(fm, s->id, "DSETDESC"), "COMPLETE", &complete);
    if (!complete)
        return 0;
    scr_error_t err;
    if (scavenge_meta_dir(s, &err) < 0)
        return log_err("scavenge: %s", err.text), -1;
    int rc = scavenge_rank(s, fm, rank, dsetdir);
    kvtree_t *ranks = kvtree_getf(fm, "DSET %d RANK", s->id);
    for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e)) {
        int r;
        if (kvtree_elem_key_int(e, &r) == 0 && r != rank)
            s->partner_ranks++;
    }
    return rc;
}

/* the bytes round 1 will copy, so its progress lines have a percent */
static int scavenge_size_visit(int rank, const char *path, const kvtree_t *fm,
                               const scr_error_t *ferr, void *arg)
{
    (void)path;
    (void)ferr;
    scavenge_t *s = arg;
    kvtree_t *files = kvtree_get(filemap_get_rank(fm, s->id, rank), "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        uint64_t size = 0;
        if (kvtree_util_get_u64(kvtree_elem_tree(e), "SIZE", &size) == 0)
            scavenge_prog.total += size;
    }
    return 0;
}

int scavenge_own(scavenge_t *s, scr_error_t *err)
{
    scavenge_prog_base = s->bytes;
    progress_begin(&scavenge_prog, 0, "scavenge of dataset %d on %s", s->id, s->host);
    if (scavenge_prog.active)
        filemap_foreach(s->cntldir, scavenge_size_visit, s, NULL);
    int rc = scavenge_each(s, scavenge_own_fm, err);
    progress_end(&scavenge_prog);
    return rc;
}

/* 1 if the record of node host lists every file of rank r: its own node
 * copied it in round 1.  The last record read is kept (s->seen): a node's
 * partner copies are mostly of one other node's ranks. */
static int scavenge_recorded(scavenge_t *s, const char *dsetdir, const char *host, int r)
{
    if (!s->seen_host || strcmp(s->seen_host, host) != 0) {
        kvtree_delete(&s->seen);
        free(s->seen_host);
        s->seen = kvtree_new();
        s->seen_host = strdup(host);
        dsrec_node_read(dsetdir, host, s->seen); /* none: the node is gone */
    }
    return dsrec_rank_listed(kvtree_getf(s->seen, "RANK %d DSET %d", r, s->id));
}

/* Round 2 for one filemap: the partner copies it holds of ranks whose own
 * node did not record them.  The library records each copy's owner's HOST;
 * a copy without one (an older library) is copied in any case. */
static int scavenge_partner_fm(scavenge_t *s, const kvtree_t *fm, int rank,
                               const char *dsetdir)
{
    int rc = 0;
    kvtree_t *ranks = kvtree_getf(fm, "DSET %d RANK", s->id);
    for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e)) {
        int r;
        if (kvtree_elem_key_int(e, &r) < 0 || r == rank)
            continue;
        const char *host = kvtree_get_val(kvtree_elem_tree(e), "HOST");
        if (host && scavenge_recorded(s, dsetdir, host, r))
            continue;
        log_msg("scavenge: rank %d's own node did not copy it (gone, or a file "
                "failed); copying its partner copy",
                r);
        if (scavenge_rank(s, fm, r, dsetdir) < 0)
            rc = -1;
    }
    return rc;
}

int scavenge_partners(scavenge_t *s, scr_error_t *err)
{
    if (s->partner_ranks == 0)
        return 0;
    scavenge_prog_base = s->bytes;
    progress_begin(&scavenge_prog, 0, "scavenge of dataset %d on %s, partner copies",
                   s->id, s->host);
    int rc = scavenge_each(s, scavenge_partner_fm, err);
    progress_end(&scavenge_prog);
    return rc;
}

int scavenge_place(const char *prefix, const char *host, int id, int *placed)
{
    char dsetdir[4200], name[64];
    pfs_dset_dir(prefix, id, dsetdir, sizeof(dsetdir));
    pfs_dset_name(id, name, sizeof(name));
    kvtree_t *record = kvtree_new();
    dsrec_node_read(dsetdir, host, record);
    int bad = 0;
    *placed = 0;
    fault_point("scavenge.place", -1); /* indexed, this node's files still staged */
    for (kvtree_elem_t *e = kvtree_first(kvtree_getf(record, "DSET %d RANK", id)); e;
         e = kvtree_elem_next(e)) {
        kvtree_t *rk = kvtree_getf(record, "RANK %s DSET %d", kvtree_elem_key(e), id);
        scr_error_t err;
        int failed =
            dsrec_rank_landed(rk) ? dsrec_place(prefix, name, rk, placed, &err) : 0;
        if (failed && bad == 0)
            log_err("scavenge of dataset %d on %s: %s", id, host, err.text);
        bad += failed;
    }
    kvtree_delete(&record);
    return bad;
}

void scavenge_done(scavenge_t *s)
{
    kvtree_delete(&s->record);
    kvtree_delete(&s->seen);
    free(s->seen_host);
    s->seen_host = NULL;
}
