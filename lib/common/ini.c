/* SPDX-License-Identifier: BSD-3-Clause */
/* ini.c - INI file parser: sections, key = value, comments */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "ini.h"
#include "io.h"

#define INI_MAX_FILE (1024 * 1024)

typedef struct {
    char *name;
    int line;
} ini_section_t;

struct ini {
    char *name;
    ini_entry_t *entries;
    int n, cap;
    ini_section_t *sections;
    int nsections, sections_cap;
};

void ini_free(ini_t **ini)
{
    if (!ini || !*ini)
        return;
    for (int i = 0; i < (*ini)->n; i++) {
        free((char *)(*ini)->entries[i].key);
        free((char *)(*ini)->entries[i].value);
    }
    for (int i = 0; i < (*ini)->nsections; i++)
        free((*ini)->sections[i].name);
    free((*ini)->entries);
    free((*ini)->sections);
    free((*ini)->name);
    free(*ini);
    *ini = NULL;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* s[0..len) without blanks at either end */
static void trim(const char **s, size_t *len)
{
    while (*len > 0 && is_blank(**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && is_blank((*s)[*len - 1]))
        (*len)--;
}

/* nothing but blanks and an optional comment */
static int only_comment(const char *s, size_t len)
{
    trim(&s, &len);
    return len == 0 || *s == ';' || *s == '#';
}

/* a lower-case copy of a section or key name, or NULL when it is empty
 * or holds a character names may not have */
static char *name_dup(const char *s, size_t len)
{
    if (len == 0)
        return NULL;
    for (size_t i = 0; i < len; i++)
        if (!is_name_char(s[i]))
            return NULL;
    char *d = strndup(s, len);
    for (size_t i = 0; d && i < len; i++)
        d[i] = (char)tolower((unsigned char)d[i]);
    return d;
}

static const char *current_section(const ini_t *ini)
{
    return ini->nsections > 0 ? ini->sections[ini->nsections - 1].name : "";
}

static int add_section(ini_t *ini, char *name, int line)
{
    if (ini->nsections == ini->sections_cap) {
        int cap = ini->sections_cap ? 2 * ini->sections_cap : 8;
        ini_section_t *s = realloc(ini->sections, sizeof(*s) * (size_t)cap);
        if (!s)
            return -1;
        ini->sections = s;
        ini->sections_cap = cap;
    }
    ini->sections[ini->nsections++] = (ini_section_t){name, line};
    return 0;
}

static int add_entry(ini_t *ini, char *key, char *value, int line)
{
    if (ini->n == ini->cap) {
        int cap = ini->cap ? 2 * ini->cap : 16;
        ini_entry_t *e = realloc(ini->entries, sizeof(*e) * (size_t)cap);
        if (!e)
            return -1;
        ini->entries = e;
        ini->cap = cap;
    }
    ini->entries[ini->n++] = (ini_entry_t){current_section(ini), key, value, line};
    return 0;
}

/* "[name]" with an optional comment after it */
static int parse_header(ini_t *ini, const char *s, size_t len, int line, scr_error_t *err)
{
    const char *close = memchr(s, ']', len);
    if (!close)
        return errprintf(err, "%s:%d: missing ']' in section header", ini->name, line);
    const char *nm = s + 1;
    size_t nlen = (size_t)(close - nm);
    trim(&nm, &nlen);
    if (!only_comment(close + 1, len - (size_t)(close + 1 - s)))
        return errprintf(err, "%s:%d: unexpected text after ']'", ini->name, line);
    char *name = name_dup(nm, nlen);
    if (!name)
        return errprintf(err,
                         "%s:%d: bad section name '%.*s' (letters, digits, '_', '-', "
                         "'.')",
                         ini->name, line, (int)(nlen > 60 ? 60 : nlen), nm);
    if (add_section(ini, name, line) < 0) {
        free(name);
        return errprintf(err, "%s:%d: out of memory", ini->name, line);
    }
    return 0;
}

/* the value after '=': quoted, or up to a comment */
static char *value_dup(const ini_t *ini, const char *s, size_t len, int line,
                       scr_error_t *err)
{
    trim(&s, &len);
    if (len > 0 && (*s == '"' || *s == '\'')) {
        const char *close = memchr(s + 1, *s, len - 1);
        if (!close)
            return errprintf(err, "%s:%d: unterminated %c quote", ini->name, line, *s),
                   NULL;
        if (!only_comment(close + 1, len - (size_t)(close + 1 - s)))
            return errprintf(err, "%s:%d: unexpected text after the closing quote",
                             ini->name, line),
                   NULL;
        return strndup(s + 1, (size_t)(close - s - 1));
    }
    size_t vlen = 0;
    while (vlen < len && s[vlen] != ';' && s[vlen] != '#')
        vlen++;
    trim(&s, &vlen);
    return strndup(s, vlen);
}

/* "key = value" */
static int parse_pair(ini_t *ini, const char *s, size_t len, int line, scr_error_t *err)
{
    const char *eq = memchr(s, '=', len);
    if (!eq)
        return errprintf(err,
                         "%s:%d: expected 'key = value' or '[section]', found '%.*s'",
                         ini->name, line, (int)(len > 60 ? 60 : len), s);
    const char *k = s;
    size_t klen = (size_t)(eq - s);
    trim(&k, &klen);
    char *key = name_dup(k, klen);
    if (!key)
        return errprintf(err, "%s:%d: bad key '%.*s' (letters, digits, '_', '-', '.')",
                         ini->name, line, (int)(klen > 60 ? 60 : klen), k);
    char *value = value_dup(ini, eq + 1, len - (size_t)(eq + 1 - s), line, err);
    if (!value) {
        free(key);
        return err && err->text[0]
                   ? -1
                   : errprintf(err, "%s:%d: out of memory", ini->name, line);
    }
    if (add_entry(ini, key, value, line) < 0) {
        free(key);
        free(value);
        return errprintf(err, "%s:%d: out of memory", ini->name, line);
    }
    return 0;
}

static int parse_line(ini_t *ini, const char *s, size_t len, int line, scr_error_t *err)
{
    if (memchr(s, '\0', len))
        return errprintf(err, "%s:%d: NUL byte in line", ini->name, line);
    trim(&s, &len);
    if (len == 0 || *s == ';' || *s == '#')
        return 0;
    if (*s == '[')
        return parse_header(ini, s, len, line, err);
    return parse_pair(ini, s, len, line, err);
}

ini_t *ini_parse_buf(const char *name, const char *buf, size_t len, scr_error_t *err)
{
    if (err)
        err->text[0] = '\0';
    ini_t *ini = calloc(1, sizeof(*ini));
    if (!ini || !(ini->name = strdup(name ? name : "(ini)"))) {
        free(ini);
        errprintf(err, "%s: out of memory", name ? name : "(ini)");
        return NULL;
    }
    size_t start = 0;
    int line = 0;
    while (start < len) {
        const char *nl = memchr(buf + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - buf) : len;
        if (parse_line(ini, buf + start, end - start, ++line, err) < 0) {
            ini_free(&ini);
            return NULL;
        }
        start = end + 1;
    }
    return ini;
}

ini_t *ini_load(const char *path, scr_error_t *err)
{
    FILE *fp = fopen(path, "re");
    if (!fp)
        return errprintf(err, "%s: %s", path, strerror(errno)), NULL;
    struct stat st;
    if (fstat(fileno(fp), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > INI_MAX_FILE) {
        fclose(fp);
        return errprintf(err, "%s: not a regular file of at most %d bytes", path,
                         INI_MAX_FILE),
               NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    ssize_t n = buf ? io_read_full(fileno(fp), buf, (size_t)st.st_size) : -1;
    int saved = errno;
    fclose(fp);
    ini_t *ini = NULL;
    if (!buf)
        errprintf(err, "%s: out of memory", path);
    else if (n < 0)
        errprintf(err, "read %s: %s", path, strerror(saved));
    else
        ini = ini_parse_buf(path, buf, (size_t)n, err);
    free(buf);
    return ini;
}

const char *ini_name(const ini_t *ini)
{
    return ini->name;
}

int ini_count(const ini_t *ini)
{
    return ini ? ini->n : 0;
}

const ini_entry_t *ini_entry(const ini_t *ini, int i)
{
    return ini && i >= 0 && i < ini->n ? &ini->entries[i] : NULL;
}

const ini_entry_t *ini_find(const ini_t *ini, const char *section, const char *key)
{
    for (int i = ini ? ini->n - 1 : -1; i >= 0; i--) {
        const ini_entry_t *e = &ini->entries[i];
        if (strcasecmp(e->section, section) == 0 && strcasecmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

int ini_section_line(const ini_t *ini, const char *section)
{
    for (int i = 0; ini && i < ini->nsections; i++)
        if (strcasecmp(ini->sections[i].name, section) == 0)
            return ini->sections[i].line;
    return 0;
}

/* "name:line: [section] key = 'value'" for messages */
static int where(const ini_t *ini, const ini_entry_t *e, char *buf, size_t len)
{
    return snprintf(buf, len, "%s:%d: [%s] %s = '%.60s'", ini->name, e->line, e->section,
                    e->key, e->value);
}

int ini_get_long(const ini_t *ini, const char *section, const char *key, long min,
                 long max, long *out, scr_error_t *err)
{
    const ini_entry_t *e = ini_find(ini, section, key);
    if (!e)
        return 0;
    char w[512];
    where(ini, e, w, sizeof(w));
    char *end;
    errno = 0;
    long v = strtol(e->value, &end, 10);
    if (e->value[0] == '\0' || *end != '\0' || errno == ERANGE)
        return errprintf(err, "%s: not an integer", w);
    if (v < min || v > max) {
        if (max == LONG_MAX)
            return errprintf(err, "%s: must be at least %ld", w, min);
        return errprintf(err, "%s: must be from %ld to %ld", w, min, max);
    }
    *out = v;
    return 1;
}

int ini_get_bool(const ini_t *ini, const char *section, const char *key, int *out,
                 scr_error_t *err)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    const ini_entry_t *e = ini_find(ini, section, key);
    if (!e)
        return 0;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(e->value, yes[i]) == 0) {
            *out = 1;
            return 1;
        }
        if (strcasecmp(e->value, no[i]) == 0) {
            *out = 0;
            return 1;
        }
    }
    char w[512];
    where(ini, e, w, sizeof(w));
    return errprintf(err, "%s: not a boolean (1/0, true/false, yes/no, on/off)", w);
}

int ini_get_str(const ini_t *ini, const char *section, const char *key, const char **out)
{
    const ini_entry_t *e = ini_find(ini, section, key);
    if (!e)
        return 0;
    *out = e->value;
    return 1;
}
