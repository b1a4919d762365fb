/* SPDX-License-Identifier: BSD-3-Clause */
/* evlog.h - SCR's event log (guide 2.14): one line per event, written by
 * rank 0 to <prefix>/.scr/log (SCR_LOG_TXT_ENABLE) and/or syslog
 * (SCR_LOG_SYSLOG_ENABLE), when SCR_LOG_ENABLE=1.
 *
 * Line format, for scripts:  <ISO time> <unix time> event=<NAME> job=<id>
 * user=<name> host=<host> time=<unix time with milliseconds> [key=value ...]
 * Values never contain spaces.  Readers (`scr report`) take the keys a line
 * has: a key may be added, never renamed or removed.
 */
#ifndef SCR_EVLOG_H
#define SCR_EVLOG_H

#include "scr_ctx.h"

void evlog_open(scr_ctx_t *ctx);
void evlog_close(scr_ctx_t *ctx);
void evlog_event(scr_ctx_t *ctx, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
