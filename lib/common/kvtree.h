/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree.h - the SCR hash: a tree of string keys (guide 2.3).
 *
 * A kvtree is an ordered set of elements, each a unique string key with a
 * kvtree of its own.  "Key/value" pairs are a key whose tree holds exactly one
 * key, the value.  Every SCR metadata file (filemaps, index, summary, halt,
 * flush, transfer, nodes, rank2file) is a kvtree stored in the binary format
 * of guide 2.3.4.  Trees are not thread safe.
 */
#ifndef SCR_KVTREE_H
#define SCR_KVTREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

typedef struct kvtree kvtree_t;
typedef struct kvtree_elem kvtree_elem_t;

/* ---- basics (kvtree.c) ---- */
kvtree_t *kvtree_new(void);
void kvtree_delete(kvtree_t **t);
/* Remove every element. */
void kvtree_clear(kvtree_t *t);
int kvtree_size(const kvtree_t *t);
/* Set key to sub (taking ownership; NULL means a new empty tree), replacing
 * any existing element of that key.  Returns sub, or NULL on error. */
kvtree_t *kvtree_set(kvtree_t *t, const char *key, kvtree_t *sub);
kvtree_t *kvtree_get(const kvtree_t *t, const char *key);
/* Remove key and return its tree (caller owns it), or NULL. */
kvtree_t *kvtree_extract(kvtree_t *t, const char *key);
/* Remove and free key; 0 whether or not it existed. */
int kvtree_unset(kvtree_t *t, const char *key);
kvtree_t *kvtree_dup(const kvtree_t *t);
/* Deep-merge src into dst: keys in both are merged recursively. */
int kvtree_merge(kvtree_t *dst, const kvtree_t *src);
/* Structural equality, ignoring element order. */
int kvtree_equal(const kvtree_t *a, const kvtree_t *b);

/* iteration in element order */
kvtree_elem_t *kvtree_first(const kvtree_t *t);
kvtree_elem_t *kvtree_elem_next(const kvtree_elem_t *e);
const char *kvtree_elem_key(const kvtree_elem_t *e);
kvtree_t *kvtree_elem_tree(const kvtree_elem_t *e);
/* key as an integer; 0 and -1 when the key is not a decimal int */
int kvtree_elem_key_int(const kvtree_elem_t *e, int *val);

enum { KVTREE_SORT_ASCENDING = 0, KVTREE_SORT_DESCENDING = 1 };
/* Reorder elements by key as strings, or as integers (non-integers last). */
int kvtree_sort(kvtree_t *t, int direction);
int kvtree_sort_int(kvtree_t *t, int direction);
/* The keys parsed as ints, ascending; non-integer keys are an error. */
int kvtree_list_int(const kvtree_t *t, int *count, int **list);

/* ---- key/value helpers (kvtree_kv.c) ---- */
/* t[key][val] = {}; returns the tree under val */
kvtree_t *kvtree_set_kv(kvtree_t *t, const char *key, const char *val);
kvtree_t *kvtree_set_kv_int(kvtree_t *t, const char *key, int val);
kvtree_t *kvtree_get_kv(const kvtree_t *t, const char *key, const char *val);
kvtree_t *kvtree_get_kv_int(const kvtree_t *t, const char *key, int val);
int kvtree_unset_kv(kvtree_t *t, const char *key, const char *val);
/* the first key below key, for trees used as key -> value */
const char *kvtree_get_val(const kvtree_t *t, const char *key);

/* Formatted key paths: fmt holds space-separated keys, each may contain
 * conversions (%s %d %i %u %ld %lu %lld %llu %zu %x %%); args never split into
 * keys, so a file name with spaces stays one key.  setf creates the path and
 * sets the last key to sub (NULL: empty tree); getf returns it or NULL. */
kvtree_t *kvtree_setf(kvtree_t *t, kvtree_t *sub, const char *fmt, ...);
kvtree_t *kvtree_getf(const kvtree_t *t, const char *fmt, ...);
int kvtree_unsetf(kvtree_t *t, const char *fmt, ...);

/* Single-valued fields: set replaces any previous value; get returns -1 when
 * the key is absent or its value does not parse (no partial parses). */
int kvtree_util_set_str(kvtree_t *t, const char *key, const char *val);
int kvtree_util_set_int(kvtree_t *t, const char *key, int val);
int kvtree_util_set_ul(kvtree_t *t, const char *key, unsigned long val);
int kvtree_util_set_u64(kvtree_t *t, const char *key, uint64_t val);
int kvtree_util_set_double(kvtree_t *t, const char *key, double val);
int kvtree_util_set_crc32(kvtree_t *t, const char *key, uint32_t val);
int kvtree_util_get_str(const kvtree_t *t, const char *key, const char **val);
int kvtree_util_get_int(const kvtree_t *t, const char *key, int *val);
int kvtree_util_get_ul(const kvtree_t *t, const char *key, unsigned long *val);
int kvtree_util_get_u64(const kvtree_t *t, const char *key, uint64_t *val);
int kvtree_util_get_double(const kvtree_t *t, const char *key, double *val);
int kvtree_util_get_crc32(const kvtree_t *t, const char *key, uint32_t *val);
/* byte counts such as "4GB" (see units.h) */
int kvtree_util_get_bytecount(const kvtree_t *t, const char *key, uint64_t *val);

/* ---- packing and printing (kvtree_pack.c) ---- */
#define KVTREE_MAX_DEPTH 256
/* bytes needed to pack t (format of guide 2.3.4 "packed hash") */
size_t kvtree_pack_size(const kvtree_t *t);
/* pack into buf, which must hold kvtree_pack_size(t) bytes; returns bytes */
size_t kvtree_pack(void *buf, const kvtree_t *t);
/* Unpack a packed hash from buf of at most size bytes, merging into t.
 * Returns bytes consumed or -1 for data that is truncated or malformed
 * (never reads past buf+size). */
int64_t kvtree_unpack(const void *buf, size_t size, kvtree_t *t, scr_error_t *err);
/* The tree as indented lines, indent spaces a level (guide 2.3.1). */
void kvtree_print(const kvtree_t *t, int indent, FILE *fp);

/* ---- files (kvtree_file.c) ---- */
#define KVTREE_MAGIC 0x951fc3f5u
#define KVTREE_FILE_TYPE 1
#define KVTREE_FILE_VERSION 1
#define KVTREE_FILE_FLAGS_CRC32 0x1u
#define KVTREE_FILE_HEADER_SIZE 20
/* largest file accepted by readers: metadata, not data */
#define KVTREE_FILE_MAX_SIZE (1ULL << 31)

/* Serialize t as a complete file image (with CRC32) in a malloc'd buffer. */
int kvtree_file_image(const kvtree_t *t, void **buf, size_t *size);
/* Parse a complete file image, validating every header field and the CRC,
 * and merge the hash into t.  name is used in messages. */
int kvtree_read_buf(const void *buf, size_t size, const char *name, kvtree_t *t,
                    scr_error_t *err);
/* Write t to path atomically (temp file, fsync, rename, fsync directory). */
int kvtree_write_file(const char *path, const kvtree_t *t, scr_error_t *err);
/* The same, still atomic, but without the fsyncs: for advisory metadata
 * where losing the last update in a machine crash is harmless. */
int kvtree_write_file_nosync(const char *path, const kvtree_t *t, scr_error_t *err);
/* Read path and merge it into t; the final component is never followed if it
 * is a symlink.  A missing file fails with errno ENOENT. */
int kvtree_read_file(const char *path, kvtree_t *t, scr_error_t *err);

/* Read-modify-write across processes and nodes: lock_open_read takes an
 * exclusive fcntl lock (which works on NFS, unlike flock) on "<path>.lock",
 * then reads path (a missing file reads as empty) into t; write_close_unlock
 * writes t atomically and releases the lock.  close_unlock releases without
 * writing.  read_with_lock reads under a shared lock. */
int kvtree_lock_open_read(const char *path, int *lockfd, kvtree_t *t, scr_error_t *err);
int kvtree_write_close_unlock(const char *path, int *lockfd, const kvtree_t *t,
                              scr_error_t *err);
void kvtree_close_unlock(int *lockfd);
int kvtree_read_with_lock(const char *path, kvtree_t *t, scr_error_t *err);

/* Locked read-modify-write in one call: the parent directory is created,
 * fn changes the tree (return 0 to write it, 1 to leave the file as it was,
 * -1 on error), and the file is written atomically, fsync'd when sync. */
typedef int (*kvtree_update_fn)(kvtree_t *t, void *arg);
int kvtree_update_file(const char *path, kvtree_update_fn fn, void *arg, int sync,
                       scr_error_t *err);

#endif
