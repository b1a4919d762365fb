/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_names.c - FTI's named variables: FTI_setIDFromString gives a name
 * the next id, as FTI 1.6 does (the number of variables known so far), and
 * FTI_getIDFromString looks one up.  The names go into every checkpoint as
 * one more variable, FTI_NAMES_ID (which FTI_Protect refuses), so after a
 * restart a name has its id again before the program names anything: the
 * table is read at FTI_Init and left out when the program's variables are
 * recovered (SCR_Recover ignores a variable nobody protected). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fti.h"
#include "fti_priv.h"
#include "log.h"
#include "scr.h"
#include "scr_mem.h"

/* FTI keeps FTI_BUFS bytes of a name */
#define NAME_MAX_LEN (FTI_BUFS - 1)

static struct {
    char **name;
    int *id;
    int n;
    uint8_t *buf; /* the table as checkpointed: per name int32 id, int32 length, bytes */
    size_t len;
} vn;

static int names_find(const char *name)
{
    for (int i = 0; i < vn.n; i++)
        if (strncmp(vn.name[i], name, NAME_MAX_LEN) == 0)
            return vn.id[i];
    return -1;
}

static int names_taken(int id)
{
    for (int i = 0; i < vn.n; i++)
        if (vn.id[i] == id)
            return 1;
    return fti_var_protected(id);
}

static int names_add(const char *name, int id)
{
    char **n = realloc(vn.name, sizeof(*n) * (size_t)(vn.n + 1));
    if (n)
        vn.name = n;
    int *d = n ? realloc(vn.id, sizeof(*d) * (size_t)(vn.n + 1)) : NULL;
    if (d)
        vn.id = d;
    if (!d || !(vn.name[vn.n] = strndup(name, NAME_MAX_LEN)))
        return -1;
    vn.id[vn.n++] = id;
    return 0;
}

int FTI_setIDFromString(const char *name)
{
    if (!fti_ready("FTI_setIDFromString"))
        return FTI_NSCS;
    if (!name) {
        log_err("FTI_setIDFromString: NULL name");
        return FTI_NSCS;
    }
    int id = names_find(name);
    if (id >= 0)
        return id;
    /* FTI's id: how many variables it knows (protected or named); unlike
     * FTI, never one that is in use */
    id = fti_var_count();
    for (int i = 0; i < vn.n; i++)
        id += !fti_var_protected(vn.id[i]);
    while (names_taken(id))
        id++;
    if (names_add(name, id) < 0) {
        log_err("FTI_setIDFromString: out of memory");
        return FTI_NSCS;
    }
    return id;
}

int FTI_getIDFromString(const char *name)
{
    if (!fti_ready("FTI_getIDFromString"))
        return FTI_NSCS;
    return name ? names_find(name) : -1;
}

/* the table in checkpoint form */
static int names_encode(void)
{
    size_t len = 0;
    for (int i = 0; i < vn.n; i++)
        len += 8 + strlen(vn.name[i]);
    uint8_t *b = realloc(vn.buf, len ? len : 1);
    if (!b)
        return -1;
    vn.buf = b;
    vn.len = len;
    for (int i = 0; i < vn.n; i++) {
        int32_t h[2] = {vn.id[i], (int32_t)strlen(vn.name[i])};
        memcpy(b, h, sizeof(h));
        memcpy(b + 8, vn.name[i], (size_t)h[1]);
        b += 8 + (size_t)h[1];
    }
    return 0;
}

int fti_names_protect(void)
{
    if (vn.n == 0)
        return 0;
    if (names_encode() < 0) {
        log_err("FTI: out of memory for the variable names");
        return -1;
    }
    return SCR_Protect(FTI_NAMES_ID, vn.buf, (int64_t)vn.len, 1) == SCR_SUCCESS ? 0 : -1;
}

int fti_names_add_icp(void)
{
    if (vn.n == 0)
        return 0;
    return SCR_Checkpoint_add(FTI_NAMES_ID) == SCR_SUCCESS ? 0 : -1;
}

void fti_names_unprotect(void)
{
    if (vn.n > 0)
        SCR_Unprotect(FTI_NAMES_ID);
}

/* the names in a table read from a checkpoint; -1 if it is not one */
static int names_decode(const uint8_t *b, size_t len)
{
    size_t off = 0;
    while (off + 8 <= len) {
        int32_t h[2];
        memcpy(h, b + off, sizeof(h));
        if (h[0] < 0 || h[1] < 0 || h[1] > NAME_MAX_LEN || off + 8 + (size_t)h[1] > len)
            return -1;
        char name[FTI_BUFS];
        memcpy(name, b + off + 8, (size_t)h[1]);
        name[h[1]] = '\0';
        if (names_find(name) < 0 && names_add(name, h[0]) < 0)
            return -1;
        off += 8 + (size_t)h[1];
    }
    return off == len ? 0 : -1;
}

void fti_names_load(void)
{
    int64_t bytes = -1;
    if (SCR_Stored_size(FTI_NAMES_ID, &bytes) != SCR_SUCCESS || bytes <= 0)
        return; /* a checkpoint without names */
    uint8_t *b = malloc((size_t)bytes);
    int ok = b && SCR_Protect(FTI_NAMES_ID, b, bytes, 1) == SCR_SUCCESS;
    ok = ok && SCR_Recover_var(FTI_NAMES_ID) == SCR_SUCCESS;
    SCR_Unprotect(FTI_NAMES_ID);
    if (!ok || names_decode(b, (size_t)bytes) < 0)
        log_err("FTI_Init: the variable names in the checkpoint cannot be read; "
                "FTI_getIDFromString knows none of them");
    free(b);
}

void fti_names_free(void)
{
    for (int i = 0; i < vn.n; i++)
        free(vn.name[i]);
    free(vn.name);
    free(vn.id);
    free(vn.buf);
    memset(&vn, 0, sizeof(vn));
}
