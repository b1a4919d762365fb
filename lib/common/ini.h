/* SPDX-License-Identifier: BSD-3-Clause */
/* ini.h - a reader for INI files, the format of FTI's configuration.
 *
 * A file is "[section]" headers, "key = value" lines and comments: a line
 * whose first non-blank character is ';' or '#', or the rest of a line
 * after an unquoted ';' or '#'.  Section and key names are case-insensitive
 * (kept in lower case); a value may be quoted with "..." or '...' to hold
 * ';', '#' or blanks at its ends.  Keys before any header belong to the
 * section "".  A key given twice keeps the later value; ini_find returns
 * it.  Nothing here knows what the keys mean: the caller looks them up,
 * and the typed getters word their errors "FILE:LINE: [section] key = ..."
 * so a message points at the line to fix.  No MPI.
 */
#ifndef SCR_INI_H
#define SCR_INI_H

#include <stddef.h>

#include "error.h"

typedef struct {
    const char *section; /* lower case, "" before any header */
    const char *key;     /* lower case */
    const char *value;   /* unquoted, blanks at both ends removed */
    int line;            /* 1-based */
} ini_entry_t;

typedef struct ini ini_t;

/* Parse len bytes of INI text; name is the file name for messages.  A
 * syntax error returns NULL with "name:line: what" in err. */
ini_t *ini_parse_buf(const char *name, const char *buf, size_t len, scr_error_t *err);
/* Read and parse a file of at most 1 MiB. */
ini_t *ini_load(const char *path, scr_error_t *err);
void ini_free(ini_t **ini);

/* the name given at parse time */
const char *ini_name(const ini_t *ini);
/* the entries in file order, duplicates included */
int ini_count(const ini_t *ini);
const ini_entry_t *ini_entry(const ini_t *ini, int i);
/* the last entry for section/key (any case), or NULL */
const ini_entry_t *ini_find(const ini_t *ini, const char *section, const char *key);
/* the line of the first "[section]" header, 0 if there is none */
int ini_section_line(const ini_t *ini, const char *section);

/* Typed lookups: 0 when the key is absent (*out untouched), 1 when it was
 * found and parsed, -1 with "name:line: [section] key = 'v': why" in err
 * when the value does not parse or lies outside [min, max]. */
int ini_get_long(const ini_t *ini, const char *section, const char *key, long min,
                 long max, long *out, scr_error_t *err);
/* 1/0, true/false, yes/no, on/off (any case) */
int ini_get_bool(const ini_t *ini, const char *section, const char *key, int *out,
                 scr_error_t *err);
/* any value, including "" */
int ini_get_str(const ini_t *ini, const char *section, const char *key, const char **out);

#endif
