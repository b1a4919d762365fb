/* SPDX-License-Identifier: BSD-3-Clause */
/* xfer.h - stream files between two processes over MPI.
 *
 * One call both sends a list of files to dest and receives a list from src
 * (either may be MPI_PROC_NULL), so a ring of processes (PARTNER) or rounds
 * of pairs (restart distribution) move data without deadlock.  Files flow as
 * one logical concatenation in pieces of at most bufsize bytes, which end
 * where a file ends unless it is nearly done (xfer.c, xfer_piece).  The
 * receiver writes below its own directory, only to safe relative paths, and
 * checks each file's CRC32 against what the sender read and the sender's
 * record.
 *
 * A file list is a kvtree "<index>" -> meta, where meta has PATH (the
 * sender's local path), REL (path below the dataset directory), SIZE and
 * optionally CRC.  The received list has the same form with PATH set to
 * where the receiver put each file.
 */
#ifndef SCR_XFER_H
#define SCR_XFER_H

#include <mpi.h>
#include <stddef.h>

#include "error.h"
#include "kvtree.h"

/* called with the received list, before any received file is created;
 * returns 0, or -1 with err saying why */
typedef int (*xfer_hook_fn)(const kvtree_t *recv, const char *recv_dir, void *arg,
                            scr_error_t *err);

/* the piece of a transfer the application waits for, from SCR_MPI_BUF_SIZE:
 * 4 MiB messages took 0.40 s against 0.45-0.47 s for 1 MiB in PARTNER's
 * SCR_Complete_output, and 2 MiB were as fast as 4 MiB (0.82 against 0.79
 * GB/s, interleaved launches) with half the anonymous memory: two receive
 * buffers of a piece when the received files are new, 4.2 MiB per rank
 * against 8.3 (bench/README.md) */
#define XFER_SYNC_PIECE(bufsize) ((size_t)(bufsize)*2)

typedef struct {
    size_t bufsize;        /* bytes per piece */
    const char *stage;     /* the receiver's fault point names, NULL: none */
    struct filepool *pool; /* received files write over kept ones (filepool.h) */
    int map;               /* move pieces through mappings of the files */
    int reread;            /* the receiver reads each file back from the disk for
                              its CRC32, instead of taking the bytes as they passed:
                              for files nothing else will read (rebuild.c) */
    int trust;             /* the receiver takes the sender's CRC32 for each file
                              instead of checksumming the bytes that arrived: for
                              copies that are checked where they are used (a
                              partner copy, by the rebuild, flush or scavenge that
                              reads it) */
} xfer_opts_t;

/* Both ends checksum the bytes as they pass: the receiver compares what
 * arrived with what the sender read (and any CRC in the list), without
 * reading the files again, and on success each file of send and recv has
 * its CRC set.  With opt->trust the receiver records what the sender read
 * and checksums nothing itself (a pass less over the bytes); what the
 * sender read is still checked against the list's CRC.  opt->stage (NULL:
 * none) names the receiver's fault points (fault.h): <stage>.block after
 * the first piece written, <stage>.half once half of the bytes are. */
int xfer_files(MPI_Comm comm, int dest, kvtree_t *send, int src, const char *recv_dir,
               kvtree_t *recv, const xfer_opts_t *opt, xfer_hook_fn hook, void *arg,
               scr_error_t *err);

/* open every file of a list for reading (or writing below dir when dir is
 * not NULL, over files kept in pool when there are some), filling an io
 * concatenation; with map, marks the files whose pieces can be moved
 * through mappings, giving files to write their blocks (-1 with ENOSPC
 * when the store is full); returns 0 or -1 */
typedef struct {
    int n;
    int *fds;
    const char **names;
    uint64_t *sizes;
    unsigned char *mappable; /* 1: pieces of file i may be mapped (xfer.c) */
} xfer_open_t;

int xfer_open(const kvtree_t *list, const char *dir, struct filepool *pool, int map,
              xfer_open_t *o, scr_error_t *err);
void xfer_close(xfer_open_t *o);

#endif
