/* SPDX-License-Identifier: BSD-3-Clause */
/* error.c - fill a caller's scr_error_t */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

int errprintf(scr_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof(err->text), fmt, ap);
        va_end(ap);
    }
    errno = saved;
    return -1;
}
