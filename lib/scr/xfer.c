/* xfer.c - file streams between processes */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int xfer_open(const kvtree_t *list, const char *dir, xfer_open_t *o, scr_error_t *err)
{
    int n = kvtree_size(list);
    memset(o, 0, sizeof(*o));
    o->fds = malloc(sizeof(int) * (size_t)(n + 1));
    o->names = calloc((size_t)n + 1, sizeof(char *));
    o->sizes = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    if (!o->fds || !o->names || !o->sizes)
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
        int flags = dir ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY;
        o->fds[i] = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
        o->names[i] = path;
        if (o->fds[i] < 0)
            return errprintf(err, "open %s: %s", path, strerror(errno));
        o->n = i + 1;
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
    memset(o, 0, sizeof(*o));
}

/* after receiving: exact sizes, and CRCs where the sender knew them */
static int xfer_verify(const kvtree_t *recv, const xfer_open_t *o, scr_error_t *err)
{
    for (int i = 0; i < o->n; i++) {
        if (ftruncate(o->fds[i], (off_t)o->sizes[i]) < 0 || fsync(o->fds[i]) < 0)
            return errprintf(err, "write %s: %s", o->names[i], strerror(errno));
        uint32_t want, got;
        kvtree_t *meta = kvtree_getf(recv, "%d", i);
        if (kvtree_util_get_crc32(meta, "CRC", &want) == 0) {
            if (io_file_crc(o->names[i], &got, NULL, err) < 0)
                return -1;
            if (got != want)
                return errprintf(err, "%s: CRC32 0x%08x after transfer, expected 0x%08x",
                                 o->names[i], got, want);
        }
    }
    return 0;
}

/* sum of SIZE over a list: both ends compute it from the same list */
static uint64_t xfer_total(const kvtree_t *list)
{
    uint64_t total = 0, size;
    for (kvtree_elem_t *e = kvtree_first(list); e; e = kvtree_elem_next(e))
        if (kvtree_util_get_u64(kvtree_elem_tree(e), "SIZE", &size) == 0)
            total += size;
    return total;
}

/* Move the bytes.  Both sides loop until their own totals are done.  A side
 * whose files did not open (*sok, *rok == 0) sends zeros or discards, so its
 * peer is never left waiting; read and write errors clear the flags. */
static void xfer_stream(MPI_Comm comm, int dest, const xfer_open_t *so, uint64_t stotal,
                        int *sok, int src, const xfer_open_t *ro, uint64_t rtotal,
                        int *rok, size_t bufsize, scr_error_t *err)
{
    io_concat_t sc = {so->n, so->fds, so->names, so->sizes};
    io_concat_t rc = {ro->n, ro->fds, ro->names, ro->sizes};
    char *sbuf = malloc(bufsize), *rbuf = malloc(bufsize);
    if (!sbuf || !rbuf)
        MPI_Abort(comm, 1);
    for (uint64_t off = 0; off < stotal || off < rtotal; off += bufsize) {
        int scount =
            off < stotal ? (int)(stotal - off < bufsize ? stotal - off : bufsize) : 0;
        int rcount =
            off < rtotal ? (int)(rtotal - off < bufsize ? rtotal - off : bufsize) : 0;
        if (scount && (!*sok || io_read_pad_n(&sc, sbuf, (size_t)scount, off, err) < 0)) {
            memset(sbuf, 0, (size_t)scount);
            *sok = 0;
        }
        MPI_Sendrecv(sbuf, scount, MPI_BYTE, scount ? dest : MPI_PROC_NULL, XFER_TAG,
                     rbuf, rcount, MPI_BYTE, rcount ? src : MPI_PROC_NULL, XFER_TAG, comm,
                     MPI_STATUS_IGNORE);
        if (rcount && *rok && io_write_pad_n(&rc, rbuf, (size_t)rcount, off, err) < 0)
            *rok = 0;
    }
    free(sbuf);
    free(rbuf);
}

int xfer_files(MPI_Comm comm, int dest, const kvtree_t *send, int src,
               const char *recv_dir, kvtree_t *recv, size_t bufsize, xfer_hook_fn hook,
               void *arg, scr_error_t *err)
{
    xfer_open_t so = {0}, ro = {0};
    int sok = 1, rok = 1, peer_ok = 1;
    if (kvtree_sendrecv(send, dest, recv, src, comm) < 0)
        return errprintf(err, "cannot exchange file lists");
    if (dest != MPI_PROC_NULL && xfer_open(send, NULL, &so, err) < 0)
        sok = 0;
    if (src != MPI_PROC_NULL && hook && hook(recv, recv_dir, arg) < 0)
        rok = 0;
    if (src != MPI_PROC_NULL && rok &&
        xfer_open(recv, recv_dir, &ro, sok ? err : NULL) < 0)
        rok = 0;
    uint64_t stotal = dest == MPI_PROC_NULL ? 0 : xfer_total(send);
    uint64_t rtotal = src == MPI_PROC_NULL ? 0 : xfer_total(recv);
    xfer_stream(comm, dest, &so, stotal, &sok, src, &ro, rtotal, &rok, bufsize,
                sok && rok ? err : NULL);
    /* tell the receiver whether what it got is real */
    MPI_Sendrecv(&sok, 1, MPI_INT, dest, XFER_TAG + 1, &peer_ok, 1, MPI_INT, src,
                 XFER_TAG + 1, comm, MPI_STATUS_IGNORE);
    if (src != MPI_PROC_NULL && !peer_ok && rok) {
        errprintf(err, "rank %d could not read the files it sent", src);
        rok = 0;
    }
    if (rok && src != MPI_PROC_NULL && xfer_verify(recv, &ro, err) < 0)
        rok = 0;
    xfer_close(&so);
    xfer_close(&ro);
    return sok && rok ? 0 : -1;
}
