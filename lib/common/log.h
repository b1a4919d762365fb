/* SPDX-License-Identifier: BSD-3-Clause */
/* log.h - one-line diagnostics for SCR components.
 *
 * Every line names the component identity (rank when known, and host) so a
 * message in a job's combined output can be traced to its process.  The
 * identity and debug level are the only process-wide state; the library sets
 * them once from its context in SCR_Init.
 */
#ifndef SCR_LOG_H
#define SCR_LOG_H

void log_set_rank(int rank);
void log_set_debug(int level);
int log_debug_level(void);
const char *log_hostname(void);

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* printed only when the debug level is >= level */
void log_dbg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
