/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzzlib.h - what the fuzzers of SCR's metadata files share.
 *
 * Those parsers read files, so each input is written into a private scratch
 * directory and the product's own reader opens it there.  Metadata files are
 * kvtree images with a size field and a CRC32 (fuzz_kvtree_file fuzzes those
 * checks): fuzz_write makes them fit, so mutations reach the hash and what
 * the product does with it (a redundancy file, <s>_of_<n>_in_<set>.<type>,
 * gets its header image fixed).  Parsers that read a tree of files (a dataset on
 * the prefix, a control directory) take an archive:
 *
 *   @@FILE <relative path>\n<bytes>@@FILE <relative path>\n<bytes>...
 *
 * tests/fuzz/make-seeds.sh builds such archives from a real run.
 */
#ifndef SCR_FUZZLIB_H
#define SCR_FUZZLIB_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_ARCHIVE_TAG "@@FILE "

/* The scratch directory, absolute, emptied for the next input and made the
 * current directory.  Created on first use under $TMPDIR (else /dev/shm),
 * removed at exit.  The product's messages go to /dev/null unless
 * FUZZ_VERBOSE is set (sanitizer and libFuzzer reports are not affected). */
const char *fuzz_scratch(void);

/* Write size bytes to rel under the scratch directory (parents created); a
 * kvtree image gets its size field and CRC32 made to fit.  Returns 0 or -1. */
int fuzz_write(const char *rel, const uint8_t *data, size_t size);

/* Write every file of an archive under dir (relative to the scratch
 * directory); names that are not safe relative paths are skipped.  Calls
 * fn (if not NULL) with each name written.  Returns the number written. */
typedef void (*fuzz_file_fn)(const char *rel, void *arg);
int fuzz_unpack(const char *dir, const uint8_t *data, size_t size, fuzz_file_fn fn,
                void *arg);

/* scratch/rel as an absolute path in buf */
void fuzz_path(const char *rel, char *buf, size_t len);

/* A check on what the product did failed: say which (on the real stderr,
 * as "fuzz check failed: ...") and abort, so libFuzzer keeps the input. */
void fuzz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
