/* SPDX-License-Identifier: BSD-3-Clause */
/* evlog.c - the event log */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "evlog.h"
#include "io.h"
#include "log.h"
#include "pfs.h"

void evlog_open(scr_ctx_t *ctx)
{
    ctx->log_fd = -1;
    ctx->log_syslog = 0;
    if (ctx->rank != 0 || !config_get_int(ctx->cfg, "SCR_LOG_ENABLE", 0))
        return;
    if (config_get_int(ctx->cfg, "SCR_LOG_TXT_ENABLE", 1)) {
        char dir[SCR_PATH_MAX + 16], path[SCR_PATH_MAX + 32];
        scr_error_t err;
        snprintf(dir, sizeof(dir), "%s/.scr", ctx->prefix);
        pfs_meta_path(ctx->prefix, "log", path, sizeof(path));
        if (io_mkdir_p(dir, 0700, &err) < 0 ||
            (ctx->log_fd = open(
                 path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
            log_warn("cannot open the event log %s; events are not logged", path);
    }
    if (config_get_int(ctx->cfg, "SCR_LOG_SYSLOG_ENABLE", 0)) {
        openlog("scr", LOG_PID, LOG_USER);
        ctx->log_syslog = 1;
    }
}

void evlog_close(scr_ctx_t *ctx)
{
    if (ctx->log_fd >= 0)
        close(ctx->log_fd);
    ctx->log_fd = -1;
    if (ctx->log_syslog)
        closelog();
    ctx->log_syslog = 0;
}

void evlog_event(scr_ctx_t *ctx, const char *event, const char *fmt, ...)
{
    if (ctx->rank != 0 || (ctx->log_fd < 0 && !ctx->log_syslog))
        return;
    char extra[1024] = "", line[2048], ts[64];
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(extra, sizeof(extra), fmt, ap);
        va_end(ap);
    }
    /* time= to the millisecond: `scr report` places events of one second */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    pfs_timestamp(ts, sizeof(ts));
    int n = snprintf(line, sizeof(line),
                     "%s %lld event=%s job=%s user=%s host=%s time=%lld.%03ld%s%s\n", ts,
                     (long long)now.tv_sec, event, ctx->jobid, ctx->user,
                     ctx->topo.hostname, (long long)now.tv_sec, now.tv_nsec / 1000000,
                     extra[0] ? " " : "", extra);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(line))
        n = sizeof(line) - 1;
    if (ctx->log_fd >= 0 && io_write_full(ctx->log_fd, line, (size_t)n) < 0)
        log_warn("writing the event log failed");
    if (ctx->log_syslog)
        syslog(LOG_INFO, "%.*s", n - 1, line + 20);
}
