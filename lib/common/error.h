/* SPDX-License-Identifier: BSD-3-Clause */
/* error.h - an error text buffer handed down by callers.
 *
 * Functions that can fail for reasons a user must see (a bad file, a bad
 * parameter) fill a scr_error_t instead of printing, so the caller decides
 * whether the failure is fatal, expected (a missing optional file) or worth a
 * warning, and prints one line with its own context (rank, host).
 */
#ifndef SCR_ERROR_H
#define SCR_ERROR_H

typedef struct {
    char text[512];
} scr_error_t;

/* Format a message into err (if not NULL); always returns -1 so callers can
 * write "return errprintf (err, ...);". errno is preserved. */
int errprintf(scr_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
