/* SPDX-License-Identifier: BSD-3-Clause */
/* units.h - parse and print byte counts and plain numbers from parameters,
 * and the clock durations are measured with.
 *
 * Parameters such as SCR_CACHE_SIZE, SCR_FLUSH_ASYNC_BW or SCR_CONTAINER_SIZE
 * take human byte counts ("4GB", "1.5MiB", "512k"); a suffix multiplies by a
 * power of 1024, as in SCR.  Anything unparsable is an error, not zero.
 */
#ifndef SCR_UNITS_H
#define SCR_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "4GB" -> 4294967296.  Returns 0, or -1 for a malformed or overflowing value. */
int units_parse_bytes(const char *str, uint64_t *val);
/* strict decimal integers and doubles: the whole string must parse */
int units_parse_long(const char *str, long *val);
int units_parse_ulong(const char *str, unsigned long *val);
int units_parse_double(const char *str, double *val);
/* 1536 -> "1.5 KiB" */
void units_format_bytes(uint64_t val, char *buf, size_t len);

/* seconds on the monotonic clock, for durations (never goes back) */
double scr_now(void);

/* The clock of a wait that says what it waits for: units_wait_due answers 1
 * once `every` seconds have passed since units_wait_start, then at most once
 * per `every` seconds; a caller that looked late gets one answer, not a
 * burst.  Time is the monotonic clock's, not a sum of naps, so a loaded
 * machine does not stretch a wait past its limit. */
typedef struct {
    double t0, next, every;
} units_wait_t;
void units_wait_start(units_wait_t *w, double every);
double units_wait_elapsed(const units_wait_t *w);
int units_wait_due(units_wait_t *w);

#endif
