/* SPDX-License-Identifier: BSD-3-Clause */
/* scavfile.h - the two ends of one file the scavenge copies: the cached
 * file it reads and the copy it writes on the prefix.
 *
 * The filemap that names a cached file and both trees are the user's, and
 * the user may change them between the checkpoint and the epilog.  A cached
 * file is read only when it lies in the job's cache tree, is reached without
 * following a link, and is a regular file of the user's with no other hard
 * link (a link to someone else's file would pass its content off as the
 * job's).  The copy is made below the dataset directory without following a
 * link, under a temporary name renamed into place once it is complete.
 */
#ifndef SCR_SCAVFILE_H
#define SCR_SCAVFILE_H

#include <sys/stat.h>
#include <sys/types.h>

#include "error.h"

/* Open src for reading.  root is the directory of the job's tree that holds
 * it (src must lie below it); every component below root is opened without
 * following a link.  *st gets the file's status.  Returns a descriptor, or
 * -1 with err naming src and the reason. */
int scavfile_open_src(const char *root, const char *src, struct stat *st,
                      scr_error_t *err);

typedef struct {
    int dirfd, fd;
    char name[256], tmp[512];
    char shown[8400]; /* dsetdir/rel, for messages */
} scavfile_dst_t;

/* Create rel's directories below dsetdir and a new temporary file beside
 * rel's place (name tagged with tag and the pid), mode mode.  Returns 0 with
 * d->fd open for writing, or -1. */
int scavfile_create(const char *dsetdir, const char *rel, const char *tag, mode_t mode,
                    scavfile_dst_t *d, scr_error_t *err);
/* fsync and close the copy and rename it to its place.  Returns 0 or -1
 * (the temporary file is then gone). */
int scavfile_commit(scavfile_dst_t *d, scr_error_t *err);
/* give up on the copy: close and remove the temporary file */
void scavfile_abort(scavfile_dst_t *d);

#endif
