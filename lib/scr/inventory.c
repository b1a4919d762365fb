/* SPDX-License-Identifier: BSD-3-Clause */
/* inventory.c - read and verify a node's cached datasets */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache.h"
#include "config.h"
#include "filemap.h"
#include "inventory.h"
#include "io.h"
#include "log.h"

/* a file's bytes against its recorded CRC32 (none recorded: nothing to
 * check); -1 with a reason */
static int inv_file_crc(const char *path, const kvtree_t *meta, char *why, size_t len)
{
    uint32_t want, got;
    scr_error_t err;
    if (kvtree_util_get_crc32(meta, "CRC", &want) < 0)
        return 0;
    if (io_file_crc(path, &got, NULL, &err) < 0)
        return snprintf(why, len, "%s", err.text), -1;
    if (got != want)
        return snprintf(why, len, "%s: CRC32 mismatch (recorded 0x%08x, found 0x%08x)",
                        path, want, got),
               -1;
    return 0;
}

typedef struct {
    scr_ctx_t *ctx;
    kvtree_t *inv, *maps;
    int read_all;        /* SCR_CRC_ON_RESTART */
    int unchanged, read; /* files whose CRC32 was taken on trust, and read */
} inv_read_t;

/* The file is as SCR_Complete_output found it (inode, size and change
 * time: io_stamp), so the CRC32 taken of it since still holds: reading
 * 64 MiB again cost a restart from cache more than all the rest of
 * SCR_Init (bench/README.md).  SCR_CRC_ON_RESTART=1 reads every file. */
static int inv_unchanged(const inv_read_t *r, const kvtree_t *meta, const struct stat *st)
{
    const char *was = kvtree_get_val(meta, "STAMP");
    char now[IO_STAMP_LEN];
    if (!was || r->read_all)
        return 0;
    io_stamp(st, now, sizeof(now));
    return strcmp(was, now) == 0;
}

/* one file: -1 with a reason when it cannot be trusted; its bytes are read
 * for their CRC32 only with crc set */
static int inv_check_file(inv_read_t *r, const char *path, const kvtree_t *meta, int crc,
                          char *why, size_t len)
{
    const scr_ctx_t *ctx = r->ctx;
    struct stat st;
    uint64_t size;
    int complete = 0;
    if (!cache_path_ok(ctx, path))
        return snprintf(why, len, "%s: outside this job's cache", path), -1;
    if (kvtree_util_get_int(meta, "COMPLETE", &complete) < 0 || !complete)
        return snprintf(why, len, "%s: incomplete", path), -1;
    if (lstat(path, &st) < 0)
        return snprintf(why, len, "%s: missing", path), -1;
    if (!S_ISREG(st.st_mode))
        return snprintf(why, len, "%s: not a regular file", path), -1;
    if (kvtree_util_get_u64(meta, "SIZE", &size) < 0 || (uint64_t)st.st_size != size)
        return snprintf(why, len, "%s: size %lld, expected %llu", path,
                        (long long)st.st_size, (unsigned long long)size),
               -1;
    if (!crc || !kvtree_get(meta, "CRC"))
        return 0;
    if (inv_unchanged(r, meta, &st))
        return r->unchanged++, 0;
    r->read++;
    return inv_file_crc(path, meta, why, len);
}

/* Check every file of a holding, set USER_OK and PARITY_OK.  A partner
 * copy's bytes are not read here: it is used only when the original is
 * lost, and its CRC32 is checked then (CRC_LATER: rebuild.c, xfer.c).
 * Reading them at every restart cost a PARTNER restart from cache more than
 * all else (bench/README.md).  Nor are an XOR or RS parity file's: it is
 * used only when a member of its set is lost, and every byte rebuilt from
 * it is checked then against the lost files' CRC32 (red_ec.c,
 * ec_finish_lost), so a torn parity file fails that rebuild with a reason
 * instead of this restart.  Not reading it took an XOR(4) restart from
 * cache from 0.09 to 0.065 s in SCR's calls (bench/README.md).
 * SCR_CRC_ON_RESTART=1 reads every file. */
static void inv_verify(inv_read_t *r, kvtree_t *h)
{
    int owner = -1, writer = -1, files = -1, users = 0, user_ok = 1, parity_ok = 0;
    kvtree_util_get_int(h, "OWNER", &owner);
    kvtree_util_get_int(h, "WRITER", &writer);
    kvtree_util_get_int(h, "FILES", &files);
    int crc = owner == writer;
    if (!crc)
        kvtree_util_set_int(h, "CRC_LATER", 1);
    kvtree_t *list = kvtree_get(h, "FILE");
    for (kvtree_elem_t *e = kvtree_first(list); e; e = kvtree_elem_next(e)) {
        const char *type = kvtree_get_val(kvtree_elem_tree(e), "TYPE");
        int is_user = type && strcmp(type, FM_TYPE_USER) == 0;
        char why[4400];
        int good = inv_check_file(r, kvtree_elem_key(e), kvtree_elem_tree(e),
                                  crc && (is_user || r->read_all), why, sizeof(why)) == 0;
        if (!good)
            log_warn("%s (a file of rank %d): it will be restored from redundancy", why,
                     owner);
        users += is_user;
        if (is_user)
            user_ok &= good;
        else
            parity_ok = good;
    }
    if (users != files && user_ok) {
        int id = -1;
        kvtree_util_get_int(h, "DSET", &id);
        if (files < 0)
            log_warn("dataset %d, rank %d: %d files recorded, but not how many to "
                     "expect: they will be restored from redundancy",
                     id, owner, users);
        else
            log_warn("dataset %d, rank %d: %d files recorded, %d expected: they will "
                     "be restored from redundancy",
                     id, owner, users, files);
        user_ok = 0;
    }
    kvtree_util_set_int(h, "USER_OK", user_ok);
    kvtree_util_set_int(h, "PARITY_OK", parity_ok);
}

/* turn one filemap into holdings */
static void inv_add_filemap(inv_read_t *rd, const kvtree_t *fm, int writer)
{
    const scr_ctx_t *ctx = rd->ctx;
    kvtree_t *inv = rd->inv;
    kvtree_t *dsets = kvtree_get(fm, "DSET");
    for (kvtree_elem_t *d = kvtree_first(dsets); d; d = kvtree_elem_next(d)) {
        int id;
        if (kvtree_elem_key_int(d, &id) < 0)
            continue;
        kvtree_t *dt = kvtree_elem_tree(d);
        kvtree_t *ranks = kvtree_get(dt, "RANK");
        for (kvtree_elem_t *r = kvtree_first(ranks); r; r = kvtree_elem_next(r)) {
            int owner;
            if (kvtree_elem_key_int(r, &owner) < 0 || owner < 0 || owner >= ctx->ranks)
                continue;
            kvtree_t *h = kvtree_setf(inv, NULL, "%d", kvtree_size(inv));
            kvtree_util_set_int(h, "DSET", id);
            kvtree_util_set_int(h, "OWNER", owner);
            kvtree_util_set_int(h, "WRITER", writer);
            int files = -1;
            kvtree_util_get_int(kvtree_elem_tree(r), "FILES", &files);
            kvtree_util_set_int(h, "FILES", files);
            kvtree_set(h, "FILE", kvtree_dup(kvtree_get(kvtree_elem_tree(r), "FILE")));
            kvtree_set(h, "DSETDESC", kvtree_dup(kvtree_get(dt, "DSETDESC")));
            if (owner == writer && kvtree_get(dt, "REDDESC"))
                kvtree_set(h, "REDDESC", kvtree_dup(kvtree_get(dt, "REDDESC")));
            inv_verify(rd, h);
        }
    }
}

static int inv_visit(int writer, const char *path, const kvtree_t *fm,
                     const scr_error_t *ferr, void *arg)
{
    inv_read_t *r = arg;
    if (!fm)
        log_warn("ignoring damaged filemap: %s", ferr->text);
    else
        inv_add_filemap(r, fm, writer);
    kvtree_setf(r->maps, NULL, "%d %s", writer, path);
    return 0;
}

kvtree_t *inventory_read(scr_ctx_t *ctx, kvtree_t *maps)
{
    inv_read_t r = {
        ctx, kvtree_new(), maps, config_get_int(ctx->cfg, "SCR_CRC_ON_RESTART", 0), 0, 0};
    filemap_foreach(ctx->cntl_dir, inv_visit, &r, NULL);
    if (r.unchanged + r.read > 0)
        log_dbg(1,
                "cached files: %d unchanged since SCR_Complete_output (CRC32 not read "
                "again), %d read for their CRC32",
                r.unchanged, r.read);
    return r.inv;
}

int inventory_check_later(const kvtree_t *h, scr_error_t *err)
{
    int later = 0;
    kvtree_util_get_int(h, "CRC_LATER", &later);
    kvtree_t *files = kvtree_get(h, "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); later && e; e = kvtree_elem_next(e))
        if (inv_file_crc(kvtree_elem_key(e), kvtree_elem_tree(e), err->text,
                         sizeof(err->text)) < 0)
            return -1;
    return 0;
}
