/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree_pack.c - the packed hash of guide 2.3.4, and printing
 *
 * Packed hash: uint32 count (big-endian), then count elements, each a
 * NUL-terminated key followed by the element's packed hash.
 */
#include <arpa/inet.h>
#include <string.h>

#include "kvtree.h"

size_t kvtree_pack_size(const kvtree_t *t)
{
    size_t size = 4;
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e))
        size += strlen(kvtree_elem_key(e)) + 1 + kvtree_pack_size(kvtree_elem_tree(e));
    return size;
}

size_t kvtree_pack(void *buf, const kvtree_t *t)
{
    char *p = buf;
    uint32_t count = htonl((uint32_t)kvtree_size(t));
    memcpy(p, &count, 4);
    p += 4;
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e)) {
        size_t klen = strlen(kvtree_elem_key(e)) + 1;
        memcpy(p, kvtree_elem_key(e), klen);
        p += klen;
        p += kvtree_pack(p, kvtree_elem_tree(e));
    }
    return (size_t)(p - (char *)buf);
}

static int64_t kvtree_unpack_rec(const unsigned char *base, size_t off, size_t size,
                                 int depth, kvtree_t *t, scr_error_t *err)
{
    size_t start = off;
    uint32_t count;
    if (depth > KVTREE_MAX_DEPTH)
        return errprintf(err, "hash nested deeper than %d levels at byte %zu",
                         KVTREE_MAX_DEPTH, off);
    if (size - off < 4)
        return errprintf(err, "truncated hash: element count at byte %zu", off);
    memcpy(&count, base + off, 4);
    count = ntohl(count);
    off += 4;
    /* every element takes at least a NUL and a count: bound count first */
    if (count > (size - off) / 5)
        return errprintf(err, "hash at byte %zu claims %u elements, more than fit",
                         off - 4, count);
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *nul = memchr(base + off, '\0', size - off);
        if (!nul)
            return errprintf(err, "truncated hash: key at byte %zu has no terminator",
                             off);
        const char *key = (const char *)base + off;
        off = (size_t)(nul - base) + 1;
        kvtree_t *sub = kvtree_get(t, key);
        if (!sub && !(sub = kvtree_set(t, key, NULL)))
            return errprintf(err, "out of memory unpacking hash");
        int64_t n = kvtree_unpack_rec(base, off, size, depth + 1, sub, err);
        if (n < 0)
            return -1;
        off += (size_t)n;
    }
    return (int64_t)(off - start);
}

int64_t kvtree_unpack(const void *buf, size_t size, kvtree_t *t, scr_error_t *err)
{
    if (!buf || !t)
        return errprintf(err, "invalid arguments to kvtree_unpack");
    return kvtree_unpack_rec(buf, 0, size, 0, t, err);
}

static void kvtree_print_rec(const kvtree_t *t, int indent, int level, FILE *fp)
{
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e)) {
        fprintf(fp, "%*s%s\n", indent * level, "", kvtree_elem_key(e));
        kvtree_print_rec(kvtree_elem_tree(e), indent, level + 1, fp);
    }
}

void kvtree_print(const kvtree_t *t, int indent, FILE *fp)
{
    kvtree_print_rec(t, indent, 0, fp);
}
