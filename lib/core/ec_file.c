/* SPDX-License-Identifier: BSD-3-Clause */
/* ec_file.c - reading XOR/RS redundancy files outside the encoder */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ec_file.h"
#include "io.h"

/* read the header image at the front of a redundancy file */
int ec_read_header(const char *path, kvtree_t *h, int *fd, uint64_t *data_off,
                   scr_error_t *err)
{
    unsigned char hdr[KVTREE_FILE_HEADER_SIZE];
    *fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0)
        return errprintf(err, "open %s: %s", path, strerror(errno));
    if (io_read_full(*fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr))
        return errprintf(err, "%s: truncated redundancy header", path);
    uint64_t size = 0;
    for (int b = 8; b < 16; b++)
        size = (size << 8) | hdr[b];
    if (size < sizeof(hdr) || size > (64u << 20))
        return errprintf(err, "%s: bad redundancy header size %llu", path,
                         (unsigned long long)size);
    unsigned char *buf = malloc(size);
    if (!buf)
        return errprintf(err, "out of memory");
    int rc = 0;
    if (io_pread_full(*fd, buf, size, 0) != (ssize_t)size)
        rc = errprintf(err, "%s: truncated redundancy header", path);
    else
        rc = kvtree_read_buf(buf, size, path, h, err);
    free(buf);
    *data_off = size;
    return rc;
}
