/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_print.c - scr print: show kvtree files as indented trees, and the
 * memory-protect API's FTI-FF checkpoint files as their block listing */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "kvtree.h"
#ifdef SCR_HAVE_FTIFF
#include "ftiff.h"

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
    close(fd);
    if (rc < 0)
        return -1;
    ftiff_print(&m, &l, stdout);
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
