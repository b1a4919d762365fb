/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_stage.c - FTI's staging as FTI 1.6 does it without head processes:
 * FTI_GetStageDir names a node-local directory (stage/ in the job's cache
 * directory, which goes with the cache), FTI_SendFile copies a file from
 * there (or anywhere) to a path on the parallel file system before it
 * returns, then removes the local file, and FTI_GetStageStatus gives a
 * request's outcome once (FTI_SI_SCES or FTI_SI_FAIL; FTI_SI_NINI after).
 * All three need [basic] enable_staging = 1. */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fti.h"
#include "fti_priv.h"
#include "io.h"
#include "log.h"
#include "mem.h"

/* FTI's request ids: the lowest free slot */
#define STAGE_MAX 1024

static struct {
    unsigned char status[STAGE_MAX]; /* FTI_SI_*; NINI: free */
    char dir[SCR_PATH_MAX];
} stage;

static int stage_enabled(const char *fn)
{
    if (!fti_ready(fn))
        return 0;
    if (!fti_config()->enable_staging)
        log_warn("%s: staging is off ([basic] enable_staging = 0); nothing done", fn);
    return fti_config()->enable_staging != 0;
}

/* stage/ in the first cache directory of the job, made on first use */
static const char *stage_dir(void)
{
    const char *cache = mem_cache_dir();
    if (!stage.dir[0] && cache) {
        snprintf(stage.dir, sizeof(stage.dir), "%s/stage", cache);
        scr_error_t err = {""};
        if (io_mkdir_p(stage.dir, 0700, &err) < 0) {
            log_err("FTI_GetStageDir: %s", err.text);
            stage.dir[0] = '\0';
        }
    }
    return stage.dir[0] ? stage.dir : NULL;
}

int FTI_GetStageDir(char *stageDir, int maxLen)
{
    if (!stage_enabled("FTI_GetStageDir"))
        return FTI_NSCS;
    const char *dir = stage_dir();
    if (!stageDir || maxLen < 1 || !dir || (size_t)maxLen < strlen(dir) + 1) {
        log_err("FTI_GetStageDir: %s",
                !stageDir ? "NULL stageDir"
                : !dir    ? "no stage directory"
                          : "maxLen is too small for the stage directory");
        return FTI_NSCS;
    }
    memcpy(stageDir, dir, strlen(dir) + 1);
    return FTI_SCES;
}

/* what FTI checks before it copies: NULL when the copy may go ahead */
static const char *stage_refusal(const char *lpath, const char *rpath, char *why,
                                 size_t len)
{
    struct stat st;
    if (lstat(lpath, &st) < 0)
        return snprintf(why, len, "%s: %s", lpath, strerror(errno)), why;
    if (!S_ISREG(st.st_mode))
        return snprintf(why, len, "%s: not a regular file", lpath), why;
    char *copy = strdup(rpath);
    const char *dir = copy ? dirname(copy) : ".";
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        snprintf(why, len, "%s: the directory of the destination does not exist", dir);
    free(copy);
    return why[0] ? why : NULL;
}

int FTI_SendFile(const char *lpath, const char *rpath)
{
    if (!stage_enabled("FTI_SendFile"))
        return FTI_NSCS;
    if (!lpath || !rpath) {
        log_err("FTI_SendFile: NULL %s path", !lpath ? "local" : "remote");
        return FTI_NSCS;
    }
    int id = 0;
    while (id < STAGE_MAX && stage.status[id] != FTI_SI_NINI)
        id++;
    if (id == STAGE_MAX) {
        log_err("FTI_SendFile: %d requests wait for FTI_GetStageStatus", STAGE_MAX);
        return FTI_NSCS;
    }
    char why[SCR_PATH_MAX + 128] = "";
    scr_error_t err = {""};
    io_copy_t o = {.bufsize = (size_t)fti_config()->transfer_size << 20, .serial = 1};
    errno = 0;
    if (stage_refusal(lpath, rpath, why, sizeof(why)) ||
        io_copy_file(lpath, rpath, &o, NULL, &err) < 0 || unlink(lpath) < 0) {
        log_err("FTI_SendFile: %s to %s: %s", lpath, rpath,
                why[0]        ? why
                : err.text[0] ? err.text
                              : strerror(errno));
        return FTI_NSCS;
    }
    stage.status[id] = FTI_SI_SCES;
    return id;
}

int FTI_GetStageStatus(int ID)
{
    if (!stage_enabled("FTI_GetStageStatus"))
        return FTI_NSCS;
    if (ID < 0 || ID >= STAGE_MAX)
        return FTI_NSCS;
    int s = stage.status[ID];
    stage.status[ID] = FTI_SI_NINI; /* told once, as in FTI */
    return s;
}

void fti_stage_reset(void)
{
    memset(&stage, 0, sizeof(stage));
}
