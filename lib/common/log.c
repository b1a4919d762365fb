/* SPDX-License-Identifier: BSD-3-Clause */
/* log.c - one-line diagnostics with rank and host */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static struct {
    int rank;
    int debug;
    char host[256];
} log_ctx = {.rank = -1};

void log_set_rank(int rank)
{
    log_ctx.rank = rank;
}

void log_set_debug(int level)
{
    log_ctx.debug = level;
}

int log_debug_level(void)
{
    return log_ctx.debug;
}

const char *log_hostname(void)
{
    if (log_ctx.host[0] == '\0') {
        if (gethostname(log_ctx.host, sizeof(log_ctx.host) - 1) < 0)
            strcpy(log_ctx.host, "unknown-host");
    }
    return log_ctx.host;
}

static void log_vline(const char *level, const char *fmt, va_list ap)
{
    char buf[1024];
    int saved = errno;
    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (log_ctx.rank >= 0)
        fprintf(stderr, "SCR %s: rank %d on %s: %s\n", level, log_ctx.rank,
                log_hostname(), buf);
    else
        fprintf(stderr, "scr: %s%s\n", level[0] == 'D' ? "" : level, buf);
    errno = saved;
}

void log_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vline(log_ctx.rank >= 0 ? "ERROR" : "error: ", fmt, ap);
    va_end(ap);
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vline(log_ctx.rank >= 0 ? "WARNING" : "warning: ", fmt, ap);
    va_end(ap);
}

void log_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vline(log_ctx.rank >= 0 ? "INFO" : "", fmt, ap);
    va_end(ap);
}

void log_dbg(int level, const char *fmt, ...)
{
    if (log_ctx.debug < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    log_vline(log_ctx.rank >= 0 ? "DEBUG" : "Debug: ", fmt, ap);
    va_end(ap);
}
