/* SPDX-License-Identifier: BSD-3-Clause */
/* beneath.h - opening and creating paths below a directory without
 * following a symbolic link anywhere below it.
 *
 * The epilog's scavenge reads the job's cache and writes the job's dataset
 * directory on the prefix, both trees the user can change while the job
 * runs.  It works as the user, so the kernel already keeps it to what the
 * user may touch; these calls keep it to the job's trees as well: a link
 * planted at any component (a file, the directory of a rank's files, the
 * dataset directory) is refused, never followed, and named in the message.
 */
#ifndef SCR_BENEATH_H
#define SCR_BENEATH_H

#include <sys/types.h>

#include "error.h"

/* Open directory dir itself (its last component not followed).  Returns a
 * descriptor or -1. */
int beneath_open_dir(const char *dir, scr_error_t *err);

/* Open rel (relative, no "..") below dirfd, no component followed when it
 * is a link; flags (O_RDONLY, O_DIRECTORY, ...) apply to the last one.
 * shown names dirfd in messages.  Returns a descriptor or -1. */
int beneath_open(int dirfd, const char *shown, const char *rel, int flags,
                 scr_error_t *err);

/* mkdir -p of rel below dirfd (mode for new directories), every component a
 * real directory.  Returns a descriptor of the last one or -1. */
int beneath_mkdirs(int dirfd, const char *shown, const char *rel, mode_t mode,
                   scr_error_t *err);

#endif
