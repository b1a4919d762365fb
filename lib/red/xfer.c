/* SPDX-License-Identifier: BSD-3-Clause */
/* xfer.c - file streams between processes */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigbuf.h"
#include "crcseg.h"
#include "fault.h"
#include "filepool.h"
#include "io.h"
#include "kvtree_mpi.h"
#include "path.h"
#include "xfer.h"

#define XFER_TAG 7601

/* local path for a received REL below dir, with parent directories */
static char *xfer_dest_path(const char *dir, const char *rel, scr_error_t *err)
{
    if (!path_is_safe_relative(rel)) {
        errprintf(err, "refusing unsafe file name '%s' from a peer", rel ? rel : "");
        return NULL;
    }
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, rel) < 0)
        return NULL;
    char *parent = strdup(p);
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (slash)
        *slash = '\0';
    if (!parent || io_mkdir_p(parent, 0700, err) < 0) {
        free(p);
        p = NULL;
    }
    free(parent);
    return p;
}

/* Pieces of a file are sent from, or received into, a mapping of it when
 * that cannot fault and pays.  A file read must hold at least its recorded
 * size (a mapping past the end would raise SIGBUS); sending from a mapping
 * saves the pread (64 MiB in 4 MiB pieces on tmpfs, with the copy MPI
 * makes: 16-27 ms against 40-55 ms).  A file written is mapped only over
 * pages it has already (an evicted file of the pool taken over, at least
 * as long): a page that first comes to be through a mapping is zeroed,
 * and receiving 64 MiB into a new file took 105 ms mapped against 62 ms
 * through a buffer and pwrite; over existing pages the two are about even
 * (35 ms against 31 ms here, mapped ahead in bench/README.md's runs and in
 * test_api's PARTNER checkpoints once the pool is warm).  A file written
 * gets its blocks first, so a full store fails here with ENOSPC instead of
 * in the middle of the transfer or, mapped, at a fault that kills the
 * process.  Returns -1 only when the store is full. */
static int xfer_mappable(xfer_open_t *o, int i, int writing, int reused, scr_error_t *err)
{
    struct stat st;
    int whole = fstat(o->fds[i], &st) == 0 && S_ISREG(st.st_mode) &&
                (uint64_t)st.st_size >= o->sizes[i];
    if (!writing) {
        o->mappable[i] = whole;
        return 0;
    }
    if (o->sizes[i] == 0 || fallocate(o->fds[i], 0, 0, (off_t)o->sizes[i]) == 0) {
        o->mappable[i] = o->sizes[i] > 0 && reused && whole;
        return 0;
    }
    if (errno == ENOSPC || errno == EDQUOT)
        return errprintf(err, "%s: %s", o->names[i], strerror(errno));
    return 0; /* no fallocate here: write through a buffer */
}

int xfer_open(const kvtree_t *list, const char *dir, struct filepool *pool, int map,
              xfer_open_t *o, scr_error_t *err)
{
    int n = kvtree_size(list);
    memset(o, 0, sizeof(*o));
    o->fds = malloc(sizeof(int) * (size_t)(n + 1));
    o->names = calloc((size_t)n + 1, sizeof(char *));
    o->sizes = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    o->mappable = calloc((size_t)n + 1, 1);
    if (!o->fds || !o->names || !o->sizes || !o->mappable)
        return errprintf(err, "out of memory");
    for (int i = 0; i < n; i++) {
        kvtree_t *meta = kvtree_getf(list, "%d", i);
        const char *path = kvtree_get_val(meta, "PATH");
        if (!meta || kvtree_util_get_u64(meta, "SIZE", &o->sizes[i]) < 0)
            return errprintf(err, "file %d of the list has no SIZE", i);
        char *dest = NULL;
        if (dir) {
            if (!(dest = xfer_dest_path(dir, kvtree_get_val(meta, "REL"), err)))
                return -1;
            kvtree_util_set_str(meta, "PATH", dest);
            path = kvtree_get_val(meta, "PATH");
            free(dest);
        }
        if (!path)
            return errprintf(err, "file %d of the list has no PATH", i);
        o->names[i] = path;
        int reused = 0;
        if (dir)
            o->fds[i] = filepool_open(pool, path, o->sizes[i], &reused, err);
        else if ((o->fds[i] = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
            errprintf(err, "open %s: %s", path, strerror(errno));
        if (o->fds[i] < 0)
            return -1;
        o->n = i + 1;
        if (map && xfer_mappable(o, i, dir != NULL, reused, err) < 0)
            return -1;
    }
    return 0;
}

void xfer_close(xfer_open_t *o)
{
    for (int i = 0; i < o->n; i++)
        close(o->fds[i]);
    free(o->fds);
    free(o->names);
    free(o->sizes);
    free(o->mappable);
    memset(o, 0, sizeof(*o));
}

/* after receiving: exact sizes, and the CRC of what arrived (with reread,
 * of what landed on the disk) against what the sender read (crcs:
 * have/value pairs) and any CRC its list recorded */
static int xfer_verify(kvtree_t *recv, const xfer_open_t *o, const crcseg_t *got,
                       const uint32_t *crcs, const xfer_opts_t *opt, scr_error_t *err)
{
    for (int i = 0; i < o->n; i++) {
        if (ftruncate(o->fds[i], (off_t)o->sizes[i]) < 0 || fsync(o->fds[i]) < 0)
            return errprintf(err, "write %s: %s", o->names[i], strerror(errno));
        uint32_t want, crc;
        kvtree_t *meta = kvtree_getf(recv, "%d", i);
        /* trusted: the sender's word, else (it could not say) the bytes */
        int sent = opt->trust && crcs[2 * i];
        if (sent)
            crc = crcs[2 * i + 1];
        else if ((opt->reread ? io_file_crc(o->names[i], &crc, NULL, err)
                              : crcseg_file_or_read(got, i, o->names[i], &crc, err)) < 0)
            return -1;
        if (!sent && crcs[2 * i] && crcs[2 * i + 1] != crc)
            return errprintf(err, "%s: CRC32 0x%08x after transfer, sent 0x%08x",
                             o->names[i], crc, crcs[2 * i + 1]);
        if (kvtree_util_get_crc32(meta, "CRC", &want) == 0 && want != crc)
            return errprintf(err, "%s: CRC32 0x%08x %s, expected 0x%08x", o->names[i],
                             crc, sent ? "as sent" : "after transfer", want);
        kvtree_util_set_crc32(meta, "CRC", crc);
    }
    return 0;
}

typedef struct {
    MPI_Comm comm;
    int peer;
    const xfer_open_t *o;
    uint64_t total;
    uint64_t *lens; /* the list's sizes, in its order: the pieces' bounds */
    int nlens;
    int cur;            /* the file the next piece starts in (xfer_piece) */
    uint64_t cur_start; /* its offset in the concatenation */
    uint64_t poff[2];   /* piece k's offset and length (the receive side) */
    int plen[2];
    int *ok;
    crcseg_t *crc;
    char *buf[2];
    char *at[2];  /* piece k's bytes: buf[k], or inside map[k] */
    void *map[2]; /* a mapping of the file piece k is in, or NULL */
    size_t mlen[2];
    int mfile[2]; /* which file that is */
    MPI_Request req[2];
    const char *stage; /* receive side: its fault points, or NULL */
    int rank;          /* in MPI_COMM_WORLD, for the fault points */
    int trust;         /* receive side: no checksum of its own (xfer_opts_t) */
} xfer_side_t;

/* the receiver's fault points after bytes [off, off + n) were written */
static void xfer_fault(const xfer_side_t *r, uint64_t off, int n)
{
    char name[64];
    if (!r->stage)
        return;
    if (off == 0) {
        snprintf(name, sizeof(name), "%s.block", r->stage);
        fault_point(name, r->rank);
    }
    if (off <= r->total / 2 && off + (uint64_t)n > r->total / 2) {
        snprintf(name, sizeof(name), "%s.half", r->stage);
        fault_point(name, r->rank);
    }
}

/* Where a piece ends.  A piece that ends with a file can be sent from, or
 * received into, a mapping of it; one that spans files goes through a
 * buffer (a copy, and 2 pieces of memory a side).  So a piece stops at the
 * end of its file, unless the file has less than XFER_MAP_MIN left: files
 * that small go on sharing pieces, since a message each would cost more
 * than the copy.  With 100 files of 655 KiB a rank, PARTNER's sender held
 * 9.6 MiB of buffers against 4.2 MiB with one file (bench/README.md).
 * Both ends compute the bounds from the same list (the sender's sizes),
 * so the n-th piece sent is the n-th received whatever either side could
 * open. */
#define XFER_MAP_MIN(bufsize) ((bufsize) / 8)

static int xfer_piece(xfer_side_t *x, uint64_t off, size_t bufsize)
{
    if (off >= x->total)
        return 0;
    while (x->cur < x->nlens && off >= x->cur_start + x->lens[x->cur])
        x->cur_start += x->lens[x->cur++];
    uint64_t n = x->total - off; /* the rest, across files */
    if (x->cur < x->nlens) {
        uint64_t in_file = x->cur_start + x->lens[x->cur] - off;
        if (in_file >= XFER_MAP_MIN(bufsize))
            n = in_file;
    }
    return (int)(n < bufsize ? n : bufsize);
}

/* x's pieces' bounds and total from list (NULL: nothing flows that way),
 * a file without SIZE counting 0: both ends take them from the same list.
 * -1 when out of memory. */
static int xfer_side_sizes(xfer_side_t *x, const kvtree_t *list)
{
    x->nlens = list ? kvtree_size(list) : 0;
    x->total = 0;
    if (!(x->lens = calloc((size_t)x->nlens + 1, sizeof(uint64_t))))
        return -1;
    for (int i = 0; i < x->nlens; i++) {
        if (kvtree_util_get_u64(kvtree_getf(list, "%d", i), "SIZE", &x->lens[i]) < 0)
            x->lens[i] = 0;
        x->total += x->lens[i];
    }
    return 0;
}

/* a piece that is not mapped goes through a buffer, allocated the first
 * time one is needed: mapped transfers take no memory of their own */
static void xfer_buffer(xfer_side_t *x, int k, int n, size_t bufsize)
{
    if (n == 0)
        return;
    if (!x->buf[k] && !(x->buf[k] = bigbuf_alloc(bufsize)))
        MPI_Abort(x->comm, 1);
    x->at[k] = x->buf[k];
}

/* point x->at[k] at bytes [off, off + n) of the concatenation: inside a
 * mapping when they lie in one mappable file, else at the buffer (NULL for
 * an empty piece) */
static void xfer_place(xfer_side_t *x, int k, uint64_t off, int n, int prot,
                       size_t bufsize)
{
    io_concat_t c = {x->o->n, x->o->fds, x->o->names, x->o->sizes};
    x->at[k] = n && *x->ok
                   ? (char *)io_map_concat(&c, x->o->mappable, off, (size_t)n, prot,
                                           &x->map[k], &x->mlen[k], &x->mfile[k])
                   : NULL;
    if (!x->at[k])
        xfer_buffer(x, k, n, bufsize);
}

static void xfer_unmap(xfer_side_t *x, int k)
{
    if (x->map[k])
        munmap(x->map[k], x->mlen[k]);
    x->map[k] = NULL;
}

/* piece k of the receive side has arrived: checksum it, and write it
 * unless it arrived in the file's own pages */
static void xfer_land(xfer_side_t *r, int k, uint64_t off, int n, scr_error_t *err)
{
    io_concat_t c = {r->o->n, r->o->fds, r->o->names, r->o->sizes};
    MPI_Wait(&r->req[k], MPI_STATUS_IGNORE);
    /* a mapped piece is checksummed as it lies in the file, after landing */
    if (n && *r->ok && r->map[k] && io_landed(r->at[k], (size_t)n) < 0)
        *r->ok = errprintf(err, "write %s: %s", r->o->names[r->mfile[k]],
                           strerror(errno)) == 0;
    if (n && *r->ok) {
        if (!r->trust)
            crcseg_update(r->crc, off, r->at[k], (size_t)n);
        if (!r->map[k] && io_write_pad_n(&c, r->buf[k], (size_t)n, off, err) < 0)
            *r->ok = 0;
    }
    if (n && *r->ok)
        xfer_fault(r, off, n);
    xfer_unmap(r, k);
}

/* Move the bytes, checksumming both ends as they pass, with two pieces in
 * flight so reading and writing overlap the transfer.  Both sides loop
 * until their own totals are done.  A side whose files did not open (*ok ==
 * 0) sends zeros or discards, so its peer is never left waiting; read and
 * write errors clear the flags. */
static void xfer_stream(xfer_side_t *s, xfer_side_t *r, size_t bufsize, scr_error_t *err)
{
    io_concat_t sc = {s->o->n, s->o->fds, s->o->names, s->o->sizes};
    for (int k = 0; k < 2; k++) {
        s->buf[k] = r->buf[k] = NULL;
        s->req[k] = r->req[k] = MPI_REQUEST_NULL;
        s->map[k] = r->map[k] = NULL;
    }
    uint64_t soff = 0, roff = 0;
    int i = 0;
    for (; soff < s->total || roff < r->total; i++) {
        int k = i & 1, sn = xfer_piece(s, soff, bufsize),
            rn = xfer_piece(r, roff, bufsize);
        MPI_Wait(&s->req[k], MPI_STATUS_IGNORE); /* piece i-2 is out */
        xfer_unmap(s, k);
        xfer_place(s, k, soff, sn, PROT_READ, bufsize);
        if (sn && !s->map[k] &&
            (!*s->ok || io_read_pad_n(&sc, s->buf[k], (size_t)sn, soff, err) < 0)) {
            memset(s->buf[k], 0, (size_t)sn);
            *s->ok = 0;
        }
        if (sn && *s->ok)
            crcseg_update(s->crc, soff, s->at[k], (size_t)sn);
        xfer_place(r, k, roff, rn, PROT_READ | PROT_WRITE, bufsize);
        MPI_Irecv(r->at[k], rn, MPI_BYTE, rn ? r->peer : MPI_PROC_NULL, XFER_TAG, r->comm,
                  &r->req[k]);
        MPI_Isend(s->at[k], sn, MPI_BYTE, sn ? s->peer : MPI_PROC_NULL, XFER_TAG, s->comm,
                  &s->req[k]);
        r->poff[k] = roff;
        r->plen[k] = rn;
        if (i > 0)
            xfer_land(r, k ^ 1, r->poff[k ^ 1], r->plen[k ^ 1], err);
        soff += (uint64_t)sn;
        roff += (uint64_t)rn;
    }
    if (i > 0)
        xfer_land(r, (i - 1) & 1, r->poff[(i - 1) & 1], r->plen[(i - 1) & 1], err);
    MPI_Waitall(2, s->req, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 2; k++) {
        xfer_unmap(s, k);
        bigbuf_free(s->buf[k]);
        bigbuf_free(r->buf[k]);
    }
}

/* sender's word after the stream: ok, then have/CRC of each file it read */
static uint32_t *xfer_sent_crcs(int ok, const crcseg_t *c, int n)
{
    uint32_t *w = calloc(2 * (size_t)n + 1, sizeof(uint32_t));
    if (!w)
        return NULL;
    w[0] = (uint32_t)ok;
    for (int i = 0; ok && i < n; i++)
        w[1 + 2 * i] = crcseg_file(c, i, &w[2 + 2 * i]) == 0;
    return w;
}

int xfer_files(MPI_Comm comm, int dest, kvtree_t *send, int src, const char *recv_dir,
               kvtree_t *recv, const xfer_opts_t *opt, xfer_hook_fn hook, void *arg,
               scr_error_t *err)
{
    xfer_open_t so = {0}, ro = {0};
    crcseg_t scrc = {0}, rcrc = {0};
    int sok = 1, rok = 1;
    if (kvtree_sendrecv(send, dest, recv, src, comm) < 0)
        return errprintf(err, "cannot exchange file lists");
    if (dest != MPI_PROC_NULL && xfer_open(send, NULL, NULL, opt->map, &so, err) < 0)
        sok = 0;
    if (src != MPI_PROC_NULL && hook && hook(recv, recv_dir, arg, sok ? err : NULL) < 0)
        rok = 0;
    if (src != MPI_PROC_NULL && rok &&
        xfer_open(recv, recv_dir, opt->pool, opt->map, &ro, sok ? err : NULL) < 0)
        rok = 0;
    if (sok && crcseg_init(&scrc, so.n, so.sizes, 0) < 0)
        sok = errprintf(err, "out of memory") == 0;
    if (rok && crcseg_init(&rcrc, ro.n, ro.sizes, 0) < 0)
        rok = errprintf(err, "out of memory") == 0;
    xfer_side_t sx = {
        .comm = comm, .peer = dest, .o = &so, .ok = &sok, .crc = &scrc, .rank = -1};
    xfer_side_t rx = {.comm = comm,
                      .peer = src,
                      .o = &ro,
                      .ok = &rok,
                      .crc = &rcrc,
                      .stage = opt->stage,
                      .rank = -1,
                      .trust = opt->trust};
    MPI_Comm_rank(MPI_COMM_WORLD, &rx.rank);
    if (xfer_side_sizes(&sx, dest == MPI_PROC_NULL ? NULL : send) < 0 ||
        xfer_side_sizes(&rx, src == MPI_PROC_NULL ? NULL : recv) < 0)
        MPI_Abort(comm, 1); /* the peers' pieces could no longer match */
    xfer_stream(&sx, &rx, opt->bufsize, sok && rok ? err : NULL);
    free(sx.lens);
    free(rx.lens);
    /* tell the receiver whether what it got is real, and what it was */
    int ns = dest == MPI_PROC_NULL ? 0 : kvtree_size(send);
    int nr = src == MPI_PROC_NULL ? 0 : kvtree_size(recv);
    uint32_t *mine = xfer_sent_crcs(sok, &scrc, ns);
    uint32_t *theirs = calloc(2 * (size_t)nr + 1, sizeof(uint32_t));
    if (!mine || !theirs)
        MPI_Abort(comm, 1);
    MPI_Sendrecv(mine, 2 * ns + 1, MPI_UINT32_T, dest, XFER_TAG + 1, theirs, 2 * nr + 1,
                 MPI_UINT32_T, src, XFER_TAG + 1, comm, MPI_STATUS_IGNORE);
    for (int i = 0; sok && i < ns; i++) /* the sender learns its own CRCs */
        if (mine[1 + 2 * i])
            kvtree_util_set_crc32(kvtree_getf(send, "%d", i), "CRC", mine[2 + 2 * i]);
    if (src != MPI_PROC_NULL && !theirs[0] && rok) {
        errprintf(err, "rank %d could not read the files it sent", src);
        rok = 0;
    }
    if (rok && src != MPI_PROC_NULL &&
        xfer_verify(recv, &ro, &rcrc, theirs + 1, opt, err) < 0)
        rok = 0;
    free(mine);
    free(theirs);
    crcseg_free(&scrc);
    crcseg_free(&rcrc);
    xfer_close(&so);
    xfer_close(&ro);
    return sok && rok ? 0 : -1;
}
