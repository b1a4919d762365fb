/* SPDX-License-Identifier: BSD-3-Clause */
/* tap.h - a tiny TAP producer for SCR's unit tests.
 *
 * ok() records one check; done_testing() prints the plan and returns the
 * exit status (non-zero when any check failed), so ctest sees failures.
 */
#ifndef SCR_TAP_H
#define SCR_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tap_count++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

static inline int done_testing(void)
{
    printf("1..%d\n", tap_count);
    if (tap_failed)
        printf("# %d of %d checks failed\n", tap_failed, tap_count);
    return tap_failed ? 1 : 0;
}

#endif
