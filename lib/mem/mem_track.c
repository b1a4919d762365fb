/* SPDX-License-Identifier: BSD-3-Clause */
/* mem_track.c - changed pages of protected variables (mem_track.h) */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "mem_track.h"
#include "wtrack.h"

static void bits_set(uint64_t *b, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        b[i / 64] |= 1ULL << (i % 64);
}

static int bits_any(const uint64_t *b, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (i % 64 == 0 && to - i >= 64) {
            if (b[i / 64])
                return 1;
            i += 63;
        } else if (b[i / 64] & (1ULL << (i % 64)))
            return 1;
    }
    return 0;
}

static size_t words(const mem_var_t *v)
{
    return (v->npages + 63) / 64;
}

/* the kernel interface, opened at the first checkpoint that wants it */
static int track_on(scr_ctx_t *ctx, struct mem_state *m)
{
    if (!config_get_int(ctx->cfg, "SCR_DCP", 0) ||
        !config_get_int(ctx->cfg, "SCR_DCP_TRACK", 0))
        return 0;
    if (m->wt_state == 0) {
        scr_error_t err = {""};
        m->wt = wtrack_open(&err);
        m->wt_state = m->wt ? 1 : -1;
        if (!m->wt)
            log_warn("SCR_DCP_TRACK: %s: hashing every block instead", err.text);
    }
    return m->wt_state == 1;
}

/* register v's pages, every one of them pending */
static int var_start(struct mem_state *m, mem_var_t *v, scr_error_t *err)
{
    uintptr_t s, e;
    wtrack_page_span(m->wt, v->ptr, (size_t)v->size, &s, &e);
    mem_track_reset(v);
    v->first = s;
    v->page = wtrack_page_size(m->wt);
    v->npages = (e - s) / v->page;
    v->pending = calloc(words(v), sizeof(uint64_t));
    v->taken = calloc(words(v), sizeof(uint64_t));
    if (!v->pending || !v->taken)
        return errprintf(err, "out of memory");
    bits_set(v->pending, 0, v->npages);
    if (wtrack_add(m->wt, v->ptr, (size_t)v->size, err) < 0)
        return -1;
    v->track = 1;
    return 0;
}

/* a scan's written pages go to every tracked variable holding them */
static void mark_written(struct mem_state *m, const wtrack_range_t *r, ssize_t n)
{
    for (int j = 0; j < m->nvars; j++) {
        mem_var_t *w = &m->vars[j];
        uintptr_t end = w->first + w->npages * w->page;
        for (ssize_t k = 0; w->track == 1 && k < n; k++) {
            uintptr_t s = r[k].start > w->first ? r[k].start : w->first;
            uintptr_t e = r[k].end < end ? r[k].end : end;
            if (s < e)
                bits_set(w->pending, (s - w->first) / w->page, (e - w->first) / w->page);
        }
    }
}

/* v's written pages since its last scan; -1 when it cannot be tracked */
static int var_scan(struct mem_state *m, mem_var_t *v, scr_error_t *err)
{
    wtrack_range_t *r;
    ssize_t n = wtrack_scan(m->wt, v->ptr, (size_t)v->size, &r);
    if (n < 0) {
        /* remapped behind us (realloc, munmap): all of it may be new */
        bits_set(v->pending, 0, v->npages);
        if (wtrack_add(m->wt, v->ptr, (size_t)v->size, err) < 0)
            return -1;
        n = wtrack_scan(m->wt, v->ptr, (size_t)v->size, &r);
        if (n < 0)
            return errprintf(err, "the kernel cannot scan it");
    }
    mark_written(m, r, n);
    free(r);
    return 0;
}

void mem_track_take(scr_ctx_t *ctx, struct mem_state *m, int i)
{
    mem_var_t *v = &m->vars[i];
    if (v->track < 0 || v->size == 0 || !track_on(ctx, m))
        return;
    scr_error_t err = {""};
    if ((v->track == 0 && var_start(m, v, &err) < 0) || var_scan(m, v, &err) < 0) {
        log_dbg(1, "SCR_DCP_TRACK: variable %d: %s: its blocks are hashed", v->id,
                err.text);
        v->track = -1;
        return;
    }
    for (size_t k = 0; k < words(v); k++) {
        v->taken[k] |= v->pending[k];
        v->pending[k] = 0;
    }
}

int mem_track_changed(const mem_var_t *v, int64_t off, int64_t len)
{
    if (v->track != 1)
        return 1;
    uintptr_t s = (uintptr_t)v->ptr + (uintptr_t)off - v->first;
    uintptr_t e = s + (uintptr_t)len;
    return bits_any(v->taken, s / v->page, (e + v->page - 1) / v->page);
}

void mem_track_settle(struct mem_state *m, int ok)
{
    for (int i = 0; i < m->nvars; i++) {
        mem_var_t *v = &m->vars[i];
        for (size_t k = 0; v->taken && v->pending && k < words(v); k++) {
            if (!ok)
                v->pending[k] |= v->taken[k];
            v->taken[k] = 0;
        }
    }
}

void mem_track_reset(mem_var_t *v)
{
    free(v->pending);
    free(v->taken);
    v->pending = v->taken = NULL;
    v->npages = 0;
    v->track = 0;
}

void mem_track_free(struct mem_state *m)
{
    wtrack_close(m->wt);
    m->wt = NULL;
    m->wt_state = 0;
}
