/* SPDX-License-Identifier: BSD-3-Clause */
/* ftiff.h - the FTI file format (FTI-FF) as SCR writes it: one
 * self-describing checkpoint file per rank for the memory-protect API.
 *
 * A file is a file block (FB, FTIFF_FB_SIZE bytes) followed by the variable
 * block (VB): a chain of variable chunk blocks, each its metadata (a block
 * header, FTIFF_BMD_SIZE bytes, and one FTIFF_VMD_SIZE entry per chunk)
 * followed by its chunks' data.  Fields are fixed width, little endian;
 * docs/ftiff.md gives every byte.
 *
 * The layout follows FTI's container rules: a protected variable is stored
 * in containers whose size is fixed once created; when a variable grows, or
 * a new one is protected, the extra bytes get new containers in one new
 * block appended to the chain; a variable that shrinks keeps its containers
 * and fills them partly (chunksize < containersize, or 0 and no content).
 * With differential checkpoints (dcp_block > 0) no container is larger than
 * the block size, so a container is the unit whose hash decides whether it
 * is written again.
 *
 * A differential file (FTIFF_FLAG_DIFF) holds only the chunks that changed
 * since its base checkpoint: an unchanged chunk has hascontent 0, its real
 * chunksize and hash, and no bytes in the file; a restart finds it in the
 * base's file (and so on down the chain).  Its blocks carry only metadata;
 * the data of the chunks it holds follows the last block, each at its fptr.
 *
 * Integrity: each chunk's hash covers its bytes, the FB's checksum covers
 * every block's metadata (and so, through the chunk hashes, the data), and
 * myHash covers the FB itself.  The hash is XXH3-128 (FTI used MD5; the
 * field is the same 16 bytes), recorded in the FB.
 */
#ifndef SCR_FTIFF_H
#define SCR_FTIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

#define FTIFF_MAGIC "SCRFTIFF"
#define FTIFF_VERSION 1
#define FTIFF_HASH_XXH3_128 1
#define FTIFF_FB_SIZE 144
#define FTIFF_BMD_SIZE 12
#define FTIFF_VMD_SIZE 64
#define FTIFF_FLAG_DIFF 0x1

typedef struct {
    uint8_t b[16];
} ftiff_hash_t;

/* one chunk of a variable in one container (FTI's FTIFF_dbvar) */
typedef struct {
    int32_t id;          /* protected variable */
    int32_t idx;         /* its position among the protected variables, -1 gone */
    int32_t containerid; /* n-th container of this variable */
    uint8_t hascontent;  /* the chunk's bytes are in this file */
    int64_t dptr;        /* offset of the chunk in the variable */
    int64_t fptr;        /* offset of the chunk in the file */
    int64_t chunksize;   /* bytes of the variable in this container */
    int64_t containersize;
    ftiff_hash_t hash;
} ftiff_chunk_t;

/* one variable chunk block (FTI's FTIFF_db) */
typedef struct {
    int32_t numvars;
    int64_t dbsize; /* metadata + the bytes its chunks occupy in this file */
    ftiff_chunk_t *vars;
} ftiff_block_t;

/* the file block (FTI's FTIFF_metaInfo, plus what SCR adds) */
typedef struct {
    uint32_t version;
    uint32_t hash_alg;
    uint32_t flags;
    char checksum[33];   /* hex hash of the blocks' metadata */
    ftiff_hash_t myhash; /* hash of the FB with this field zero */
    int64_t ckpt_size;   /* data bytes in this file */
    int64_t fs;          /* file size */
    int64_t max_fs;      /* largest fs of the checkpoint's ranks (0: unknown) */
    int64_t pt_fs;       /* fs of the partner's file (0: unknown) */
    int64_t timestamp;   /* ns since the epoch */
    int32_t rank;
    int32_t ranks;
    int64_t base;     /* dataset a differential file builds on, -1 none */
    int64_t seq;      /* checkpoints since the last full one (0: full) */
    uint64_t app_tag; /* identifies the program that wrote the file */
} ftiff_meta_t;

/* the chain of blocks: a whole checkpoint's layout */
typedef struct {
    ftiff_block_t *blocks;
    int nblocks;
} ftiff_layout_t;

/* a protected variable as the layout sees it */
typedef struct {
    int32_t id;
    int64_t size; /* bytes */
} ftiff_var_t;

void ftiff_hash(const void *buf, size_t len, ftiff_hash_t *out);
void ftiff_hash_hex(const ftiff_hash_t *h, char hex[33]);
/* the same hash over pieces: new (NULL when out of memory), add each piece,
 * end (which frees it) */
typedef struct ftiff_hasher ftiff_hasher_t;
ftiff_hasher_t *ftiff_hasher_new(void);
void ftiff_hasher_add(ftiff_hasher_t *h, const void *buf, size_t len);
void ftiff_hasher_end(ftiff_hasher_t *h, ftiff_hash_t *out);
/* appTag: the 64-bit hash of a program's name */
uint64_t ftiff_app_tag(const char *name);

void ftiff_layout_free(ftiff_layout_t *l);
/* Fit the variables (in protection order) into the layout by the container
 * rules, appending at most one block; a variable not in vars keeps its
 * containers, empty, with idx -1.  dcp_block > 0 caps new containers.
 * Chunk hashes of chunks whose size changed are cleared. */
int ftiff_layout_update(ftiff_layout_t *l, const ftiff_var_t *vars, int nvars,
                        int64_t dcp_block, scr_error_t *err);
/* Bytes of metadata in the file: every block's header and entries */
int64_t ftiff_layout_meta_size(const ftiff_layout_t *l);
/* Place the chunks: set fptr, dbsize and the FB's fs and ckpt_size.  A full
 * file keeps every container's bytes inside its block; a differential one
 * (FTIFF_FLAG_DIFF in m->flags) stores only chunks with content, after the
 * last block, in chain order. */
void ftiff_layout_place(ftiff_layout_t *l, ftiff_meta_t *m);
/* total bytes the variable has in the layout, -1 if it has no chunk */
int64_t ftiff_layout_var_size(const ftiff_layout_t *l, int32_t id);
int ftiff_layout_copy(const ftiff_layout_t *src, ftiff_layout_t *dst);

/* Encode the FB (FTIFF_FB_SIZE bytes) and the metadata of block b
 * (FTIFF_BMD_SIZE + numvars * FTIFF_VMD_SIZE bytes). */
void ftiff_meta_encode(ftiff_meta_t *m, uint8_t *buf);
void ftiff_block_encode(const ftiff_block_t *b, uint8_t *buf);
/* checksum over every block's metadata, into m->checksum */
void ftiff_layout_checksum(const ftiff_layout_t *l, ftiff_meta_t *m);

/* Parse a file's FB and blocks from fd (size bytes long): checks the magic,
 * version, hash, the FB's own hash, the blocks' bounds and the checksum.
 * The data is not read.  err names the damage (path is for messages). */
int ftiff_read(int fd, const char *path, int64_t size, ftiff_meta_t *m, ftiff_layout_t *l,
               scr_error_t *err);

/* Print the blocks like FTI's DATASTRUCTURE listing (scr print). */
void ftiff_print(const ftiff_meta_t *m, const ftiff_layout_t *l, FILE *out);

#endif
