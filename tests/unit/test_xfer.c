/* SPDX-License-Identifier: BSD-3-Clause */
/* test_xfer.c - file streams between processes (lib/red/xfer.c): each
 * process sends its files to the next process, then to the one two on
 * (PARTNER's ring, a rebuild's pairs), and every file arrives byte for byte
 * with its CRC32 recorded at both ends, whatever the piece size (one piece,
 * many, the last one short) and with an empty list on some processes; a
 * sender whose file is shorter than its list says fails, and its receiver
 * says so; a CRC32 in the list that the bytes do not match is caught by the
 * receiver.  All of it again with the receiver trusting the sender's CRC32
 * (xfer_opts_t.trust): the same files and CRC32s arrive, and the wrong one
 * in the list is caught as sent.  Run under mpirun with any number of
 * processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32.h"
#include "kvtree.h"
#include "xfer.h"

static unsigned char pattern(int from, int file, size_t i)
{
    return (unsigned char)(from * 37 + file * 101 + i * 13 + (i >> 9));
}

/* files of process from, in stream k: none for some, else 1-2 (stream 0)
 * or 3-4 (stream 1) of odd sizes */
static int nfiles(int from, int k)
{
    return (from + k) % 3 == 2 ? 0 : 1 + (from + k) % 3 + 2 * k;
}

/* In stream 1 the second file is empty or one byte, between larger ones:
 * pieces end at the end of a file that has enough left to be mapped
 * (xfer.c), and with 1 MiB pieces some of these files are under that and
 * share a piece with the next */
static size_t fsize(int from, int k, int f)
{
    if (k == 1 && f == 1)
        return (size_t)(from % 2);
    return (size_t)(100000 + 7777 * f + 3 * from + 50000 * k);
}

/* write this process's files of stream k under dir: an xfer list */
static kvtree_t *make_files(const char *dir, int me, int k, int bad_crc)
{
    kvtree_t *list = kvtree_new();
    for (int f = 0; f < nfiles(me, k); f++) {
        char path[512], rel[64];
        size_t n = fsize(me, k, f);
        unsigned char *buf = malloc(n);
        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(me, k * 10 + f, i);
        snprintf(rel, sizeof(rel), "s%d/f%d.dat", k, f);
        snprintf(path, sizeof(path), "%s/out.%d.%d", dir, k, f);
        FILE *fp = fopen(path, "w");
        if (!fp || fwrite(buf, 1, n, fp) != n || fclose(fp) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        kvtree_t *m = kvtree_setf(list, NULL, "%d", f);
        kvtree_util_set_str(m, "PATH", path);
        kvtree_util_set_str(m, "REL", rel);
        kvtree_util_set_u64(m, "SIZE", n);
        uint32_t crc = crc32_update(0, buf, n);
        if (bad_crc)
            kvtree_util_set_crc32(m, "CRC", crc ^ 1);
        free(buf);
    }
    return list;
}

/* every received file of stream k from process from is whole and recorded */
static int check_recv(const kvtree_t *recv, int from, int k)
{
    int bad = kvtree_size(recv) != nfiles(from, k);
    for (int f = 0; f < nfiles(from, k) && !bad; f++) {
        kvtree_t *m = kvtree_getf(recv, "%d", f);
        const char *path = kvtree_get_val(m, "PATH");
        uint32_t crc = 0;
        size_t n = fsize(from, k, f);
        unsigned char *buf = malloc(n + 1);
        FILE *fp = path ? fopen(path, "r") : NULL;
        bad = !fp || fread(buf, 1, n + 1, fp) != n;
        for (size_t i = 0; i < n && !bad; i++)
            bad = buf[i] != pattern(from, k * 10 + f, i);
        bad = bad || kvtree_util_get_crc32(m, "CRC", &crc) < 0 ||
              crc != crc32_update(0, buf, n);
        if (fp)
            fclose(fp);
        free(buf);
    }
    return bad;
}

/* stream k goes k + 1 processes on.  fault: 0 none, 1 the first process's
 * stream 0 file is cut short after its list was made, 2 its stream 1 list
 * carries a wrong CRC32 */
static int run(const char *dir, size_t piece, int fault, int trust)
{
    int me, n, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    xfer_opts_t opt = {.bufsize = piece, .map = 1, .trust = trust};
    for (int k = 0; k < 2; k++) {
        kvtree_t *send = make_files(dir, me, k, fault == 2 && me == 0 && k == 1);
        kvtree_t *recv = kvtree_new();
        char rdir[512], path[512];
        snprintf(rdir, sizeof(rdir), "%s/in%d", dir, k);
        snprintf(path, sizeof(path), "%s/out.0.0", dir);
        if (fault == 1 && k == 0 && me == 0 && nfiles(0, 0) > 0 &&
            truncate(path, 1000) < 0)
            bad++;
        int from = (me + n - (k + 1) % n) % n;
        scr_error_t err = {""};
        int rc = xfer_files(MPI_COMM_WORLD, (me + k + 1) % n, send, from, rdir, recv,
                            &opt, NULL, NULL, &err);
        /* the stream that carries the fault into this process fails here */
        int spoilt = (fault == 1 && k == 0 && from == 0 && nfiles(0, 0) > 0) ||
                     (fault == 2 && k == 1 && from == 0 && nfiles(0, 1) > 0);
        int short_sender = fault == 1 && k == 0 && me == 0 && nfiles(0, 0) > 0;
        if (spoilt || short_sender) {
            /* the receiver's word wins where a process is its own sender */
            const char *want =
                fault == 2 ? (trust ? "as sent, expected" : "after transfer, expected")
                : spoilt   ? "could not read"
                           : "shorter than its recorded size";
            bad += rc == 0 || !strstr(err.text, want);
        } else {
            bad += rc != 0 || check_recv(recv, from, k);
        }
        kvtree_delete(&send);
        kvtree_delete(&recv);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    char dir[] = "/tmp/test_xfer.XXXXXX";
    if (!mkdtemp(dir))
        MPI_Abort(MPI_COMM_WORLD, 2);
    static const size_t pieces[] = {4096, 65536 + 17, 1 << 20};
    for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++)
        for (int fault = 0; fault < 6; fault++) {
            int b = run(dir, pieces[p], fault % 3, fault / 3);
            if (b)
                fprintf(stderr, "rank %d: piece %zu fault %d trust %d: %d wrong\n", me,
                        pieces[p], fault % 3, fault / 3, b);
            bad += b;
        }
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        bad++;
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s - xfer_files: every byte and CRC32 at any piece size, with "
               "empty and one-byte files between others; a short sender and a wrong "
               "CRC32 caught; the same when the receiver trusts the sender's CRC32\n",
               all ? "not ok" : "ok");
    MPI_Finalize();
    return all != 0;
}
