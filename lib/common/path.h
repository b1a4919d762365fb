/* SPDX-License-Identifier: BSD-3-Clause */
/* path.h - file paths as lists of components (guide 2.2).
 *
 * "/hello/world" has three components: "", "hello" and "world"; a leading
 * empty component marks an absolute path.  Reduction removes ".", "..", "//"
 * and trailing "/", and path_is_under() is what the security rules use to
 * decide whether a path read from user-writable metadata stays inside a
 * job's trees.
 */
#ifndef SCR_PATH_H
#define SCR_PATH_H

#include <stddef.h>

typedef struct path path_t;

path_t *path_new(void);
path_t *path_from_str(const char *str);
path_t *path_from_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
path_t *path_dup(const path_t *p);
void path_delete(path_t **p);

int path_components(const path_t *p);
int path_is_null(const path_t *p);
int path_is_absolute(const path_t *p);
/* component i (0-based), or NULL */
const char *path_component(const path_t *p, int i);
size_t path_strlen(const path_t *p);
/* malloc'd string form */
char *path_strdup(const path_t *p);

/* insert p2's components (p2 is unchanged) */
int path_prepend(path_t *p, const path_t *p2);
int path_append(path_t *p, const path_t *p2);
int path_insert(path_t *p, int offset, const path_t *p2);
int path_append_str(path_t *p, const char *str);
int path_append_strf(path_t *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int path_prepend_str(path_t *p, const char *str);

/* keep length components from offset (negative offset counts from the end,
 * negative length takes the rest) */
int path_slice(path_t *p, int offset, int length);
int path_dirname(path_t *p);
int path_basename(path_t *p);
/* split at offset: p keeps [0, offset), the rest is returned */
path_t *path_cut(path_t *p, int offset);
path_t *path_sub(const path_t *p, int offset, int length);

/* Remove ".", "..", empty components and trailing "/"; ".." above the root
 * of an absolute path is dropped, and kept at the front of a relative one. */
int path_reduce(path_t *p);
char *path_strdup_reduce_str(const char *str);
/* str made absolute (relative to the current directory) and reduced;
 * malloc'd, NULL on failure */
char *path_abs_reduce_str(const char *str);
/* dst relative to src: /hello/world -> /hello/foo gives ../foo */
path_t *path_relative(const path_t *src, const path_t *dst);

/* 1 if the reduced path equals or lies below the reduced prefix (both must be
 * absolute, or both relative), 0 otherwise */
int path_is_under(const char *path, const char *prefix);
/* 1 if a path read from metadata is safe to join below a directory:
 * relative, no ".." component, no empty string */
int path_is_safe_relative(const char *str);

#endif
