/* SPDX-License-Identifier: BSD-3-Clause */
/* testutil.h - helpers shared by unit tests: temp dirs and whole files */
#ifndef SCR_TESTUTIL_H
#define SCR_TESTUTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a fresh directory under $TMPDIR (or /tmp); caller owns the string */
static inline char *tu_tmpdir(void)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *d = malloc(strlen(base) + 32);
    sprintf(d, "%s/scr-test.XXXXXX", base);
    if (!mkdtemp(d)) {
        perror("mkdtemp");
        exit(99);
    }
    return d;
}

static inline void tu_rmrf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
}

static inline int tu_write(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, buf, len);
    close(fd);
    return n == (ssize_t)len ? 0 : -1;
}

/* read a whole file into a malloc'd buffer */
static inline char *tu_read(const char *path, size_t *len)
{
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, fp);
    buf[*len] = '\0';
    fclose(fp);
    return buf;
}

#endif
