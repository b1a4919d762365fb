/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_print.c - scr print: show kvtree files as indented trees, and the
 * memory-protect API's FTI-FF checkpoint files as their block listing */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "kvtree.h"
#ifdef SCR_HAVE_FTIFF
#include "ftiff.h"

/* Variables the FTI interface adds to its checkpoints (lib/fti/fti_priv.h):
 * the names of FTI_setIDFromString (per name: int32 id, int32 length, the
 * bytes) and the description of the composite types (text) */
#define FTI_NAMES_VAR 2147483647
#define FTI_TYPES_VAR 2147483646

/* variable id's bytes as this file holds them; NULL when it holds none
 * (a differential file whose base has them) */
static char *var_bytes(int fd, const ftiff_layout_t *l, int32_t id, size_t *len)
{
    int64_t size = 0;
    for (int b = 0; b < l->nblocks; b++)
        for (int v = 0; v < l->blocks[b].numvars; v++) {
            const ftiff_chunk_t *c = &l->blocks[b].vars[v];
            if (c->id == id && c->dptr + c->chunksize > size)
                size = c->dptr + c->chunksize;
        }
    char *buf = size > 0 && size < (1 << 24) ? calloc(1, (size_t)size + 1) : NULL;
    for (int b = 0; buf && b < l->nblocks; b++)
        for (int v = 0; buf && v < l->blocks[b].numvars; v++) {
            const ftiff_chunk_t *c = &l->blocks[b].vars[v];
            if (c->id != id || c->chunksize == 0)
                continue;
            if (!c->hascontent ||
                pread(fd, buf + c->dptr, (size_t)c->chunksize, c->fptr) != c->chunksize) {
                free(buf);
                buf = NULL;
            }
        }
    *len = (size_t)size;
    return buf;
}

/* what the FTI interface recorded: its variable names, its composite
 * types and their fields */
static void print_fti_vars(int fd, const ftiff_layout_t *l)
{
    size_t len, off = 0;
    char *b = var_bytes(fd, l, FTI_NAMES_VAR, &len);
    if (b) {
        printf("\nFTI variable names:");
        while (off + 8 <= len) {
            int32_t h[2];
            memcpy(h, b + off, sizeof(h));
            if (h[1] < 0 || off + 8 + (size_t)h[1] > len)
                break;
            printf(" %.*s=%d", (int)h[1], b + off + 8, (int)h[0]);
            off += 8 + (size_t)h[1];
        }
        printf("\n");
        free(b);
    }
    b = var_bytes(fd, l, FTI_TYPES_VAR, &len);
    if (b) {
        printf("\nFTI composite types:\n%s", b);
        free(b);
    }
}

/* 1: printed, 0: not an FTI-FF file, -1: a damaged one (err says how) */
static int print_ftiff(const char *path, scr_error_t *err)
{
    char magic[8];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
        memcmp(magic, FTIFF_MAGIC, sizeof(magic)) != 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    struct stat st;
    ftiff_meta_t m;
    ftiff_layout_t l;
    int rc = fstat(fd, &st) < 0 ? errprintf(err, "%s: %s", path, strerror(errno))
                                : ftiff_read(fd, path, (int64_t)st.st_size, &m, &l, err);
    if (rc < 0) {
        close(fd);
        return -1;
    }
    ftiff_print(&m, &l, stdout);
    print_fti_vars(fd, &l);
    close(fd);
    ftiff_layout_free(&l);
    return 1;
}
#else
static int print_ftiff(const char *path, scr_error_t *err)
{
    (void)path, (void)err;
    return 0;
}
#endif

int cmd_print(int argc, char **argv)
{
    int rc = 0;
    if (argc < 2 || strcmp(argv[1], "--help") == 0)
        return cmd_usage("print");
    for (int i = 1; i < argc; i++) {
        kvtree_t *t = kvtree_new();
        scr_error_t err;
        if (!t) {
            fprintf(stderr, "scr print: out of memory\n");
            return 1;
        }
        int ff = print_ftiff(argv[i], &err);
        if (ff != 0) {
            if (ff < 0)
                fprintf(stderr, "scr print: %s\n", err.text);
            rc |= ff < 0;
        } else if (kvtree_read_file(argv[i], t, &err) < 0) {
            fprintf(stderr, "scr print: %s\n", err.text);
            rc = 1;
        } else {
            if (argc > 2)
                printf("%s:\n", argv[i]);
            kvtree_print(t, 2, stdout);
        }
        kvtree_delete(&t);
    }
    return rc;
}
