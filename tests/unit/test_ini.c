/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ini.c - the INI parser: syntax, case, comments, quoting, errors with
 * file:line, typed getters */
#include <limits.h>

#include "ini.h"
#include "tap.h"
#include "testutil.h"

static int is(const char *got, const char *want)
{
    int r = got && strcmp(got, want) == 0;
    if (!r)
        diag("got '%s', want '%s'", got ? got : "(null)", want);
    return r;
}

static int has(const char *text, const char *want)
{
    int r = strstr(text, want) != NULL;
    if (!r)
        diag("'%s' lacks '%s'", text, want);
    return r;
}

static const char *find(const ini_t *ini, const char *section, const char *key)
{
    const ini_entry_t *e = ini_find(ini, section, key);
    return e ? e->value : NULL;
}

/* the error a text gives, "" when it parses */
static const char *parse_error(const char *text)
{
    static scr_error_t err;
    ini_t *ini = ini_parse_buf("t.ini", text, strlen(text), &err);
    if (ini) {
        ini_free(&ini);
        return "";
    }
    return err.text;
}

static const char *fti_text = "; FTI configuration\n"
                              "top = 1\n"
                              "[Basic]\n"
                              "Head            = 0\n"
                              "ckpt_dir        = /local/ckpt   ; node-local\n"
                              "GLBL_DIR=/pfs/ckpt\n"
                              "   # indented comment\n"
                              "ckpt_L1 = 3\r\n"
                              "quoted = \" a ; b # c \"  ; comment\n"
                              "single = 'x'\n"
                              "empty =\n"
                              "ckpt_l1 = 4\n"
                              "\n"
                              "[ restart ]   # spaces inside the brackets\n"
                              "failure = 0\n"
                              "exec_id = 2024-01-01_00-00-00\n"
                              "[advanced]\n"
                              "block_size = 1024\n"
                              "local_test = yes\n"
                              "neg = -7\n"
                              "big = 99999999999999999999\n"
                              "word = abc\n"
                              "float = 1.5\n"
                              "last = no newline at end";

int main(void)
{
    scr_error_t err;
    ini_t *ini = ini_parse_buf("fti.cfg", fti_text, strlen(fti_text), &err);
    ok(ini != NULL, "an FTI-style file parses");
    if (!ini) {
        diag("%s", err.text);
        return done_testing();
    }
    ok(is(ini_name(ini), "fti.cfg"), "the name is kept for messages");
    ok(is(find(ini, "", "top"), "1"), "a key before any header is in section \"\"");
    ok(is(find(ini, "basic", "head"), "0") && is(find(ini, "BASIC", "HEAD"), "0"),
       "sections and keys are case-insensitive");
    ok(is(ini_entry(ini, 1)->section, "basic") && is(ini_entry(ini, 1)->key, "head"),
       "names are kept in lower case");
    ok(is(find(ini, "basic", "ckpt_dir"), "/local/ckpt"), "inline ';' comment cut");
    ok(is(find(ini, "basic", "glbl_dir"), "/pfs/ckpt"), "no blanks around '='");
    ok(is(find(ini, "basic", "quoted"), " a ; b # c "),
       "a quoted value keeps blanks, ';' and '#'");
    ok(is(find(ini, "basic", "single"), "x"), "single quotes");
    ok(is(find(ini, "basic", "empty"), ""), "an empty value is \"\"");
    ok(is(find(ini, "basic", "ckpt_l1"), "4") &&
           ini_find(ini, "basic", "ckpt_l1")->line == 12,
       "a repeated key: the later value (line 12) wins");
    ok(ini_count(ini) == 18, "every entry is listed, duplicates included (%d)",
       ini_count(ini));
    ok(is(find(ini, "restart", "failure"), "0"), "'[ restart ]': blanks in the brackets");
    ok(is(find(ini, "advanced", "last"), "no newline at end"),
       "the last line needs no newline");
    ok(ini_find(ini, "basic", "failure") == NULL, "keys belong to their section");
    ok(ini_section_line(ini, "Restart") == 14 && ini_section_line(ini, "nope") == 0,
       "the line of a section header");
    ok(is(find(ini, "basic", "ckpt_l1"), "4"), "a CRLF line end is a blank");

    long v = 0;
    ok(ini_get_long(ini, "advanced", "block_size", 1, 2048, &v, &err) == 1 && v == 1024,
       "integer in range");
    ok(ini_get_long(ini, "advanced", "missing", 1, 2, &v, &err) == 0 && v == 1024,
       "absent key: 0, value untouched");
    ok(ini_get_long(ini, "advanced", "neg", -10, 0, &v, &err) == 1 && v == -7,
       "negative integer");
    ok(ini_get_long(ini, "advanced", "neg", 0, LONG_MAX, &v, &err) == -1 &&
           is(err.text, "fti.cfg:20: [advanced] neg = '-7': must be at least 0"),
       "below the minimum: file:line, section, key, value");
    ok(ini_get_long(ini, "advanced", "block_size", 1, 512, &v, &err) == -1 &&
           is(err.text,
              "fti.cfg:18: [advanced] block_size = '1024': must be from 1 to 512"),
       "above the maximum");
    ok(ini_get_long(ini, "advanced", "word", 0, 9, &v, &err) == -1 &&
           is(err.text, "fti.cfg:22: [advanced] word = 'abc': not an integer"),
       "a word is not an integer");
    ok(ini_get_long(ini, "advanced", "float", 0, 9, &v, &err) == -1 &&
           has(err.text, "not an integer"),
       "1.5 is not an integer");
    ok(ini_get_long(ini, "advanced", "big", 0, LONG_MAX, &v, &err) == -1 &&
           has(err.text, "not an integer"),
       "an overflowing integer is refused");
    ok(ini_get_long(ini, "basic", "empty", 0, 9, &v, &err) == -1 &&
           has(err.text, "fti.cfg:11: [basic] empty = '': not an integer"),
       "an empty value is not an integer");
    int b = -1;
    ok(ini_get_bool(ini, "advanced", "local_test", &b, &err) == 1 && b == 1,
       "yes is true");
    ok(ini_get_bool(ini, "restart", "failure", &b, &err) == 1 && b == 0, "0 is false");
    ok(ini_get_bool(ini, "advanced", "word", &b, &err) == -1 &&
           has(err.text, "fti.cfg:22: [advanced] word = 'abc': not a boolean"),
       "abc is not a boolean");
    const char *s = NULL;
    ok(ini_get_str(ini, "restart", "exec_id", &s) == 1 && is(s, "2024-01-01_00-00-00"),
       "string value");
    ok(ini_get_str(ini, "restart", "nope", &s) == 0, "absent string: 0");
    ini_free(&ini);
    ok(ini == NULL, "ini_free clears the pointer");
    ini_free(&ini);

    /* syntax errors name the file and line */
    ok(is(parse_error("[basic]\nhead 0\n"),
          "t.ini:2: expected 'key = value' or '[section]', found 'head 0'"),
       "a line without '='");
    ok(is(parse_error("\n[basic\n"), "t.ini:2: missing ']' in section header"),
       "an unterminated header");
    ok(is(parse_error("[basic] x\n"), "t.ini:1: unexpected text after ']'"),
       "text after a header");
    ok(has(parse_error("[]\n"), "t.ini:1: bad section name ''"), "an empty section name");
    ok(has(parse_error("[a b]\n"), "t.ini:1: bad section name 'a b'"),
       "a blank inside a section name");
    ok(has(parse_error("[basic]\n = 3\n"), "t.ini:2: bad key ''"), "an empty key");
    ok(has(parse_error("ckpt l1 = 3\n"), "t.ini:1: bad key 'ckpt l1'"),
       "a blank inside a key");
    ok(is(parse_error("a = \"open\n"), "t.ini:1: unterminated \" quote"),
       "an unterminated quote");
    ok(is(parse_error("a = 'x' y\n"), "t.ini:1: unexpected text after the closing quote"),
       "text after a quoted value");
    const char nul[] = "a = 1\nb = x\0y\n";
    ok(ini_parse_buf("t.ini", nul, sizeof(nul) - 1, &err) == NULL &&
           is(err.text, "t.ini:2: NUL byte in line"),
       "a NUL byte in a line is an error");
    ok(is(parse_error(""), "") && is(parse_error("\n\n; only comments\n"), ""),
       "an empty file and a file of comments parse");
    ok(is(parse_error("a = b = c\n"), ""), "'=' in a value");
    ini = ini_parse_buf("t", "a = b = c\n", 10, &err);
    ok(ini && is(find(ini, "", "a"), "b = c"), "the first '=' splits key and value");
    ini_free(&ini);

    /* from a file */
    char *dir = tu_tmpdir();
    char path[4200];
    snprintf(path, sizeof(path), "%s/config.fti", dir);
    tu_write(path, "[basic]\nverbosity = 2\n", 22);
    ini = ini_load(path, &err);
    ok(ini && is(find(ini, "basic", "verbosity"), "2") && is(ini_name(ini), path),
       "ini_load reads a file and names it");
    ini_free(&ini);
    tu_write(path, "[basic]\nverbosity 2\n", 20);
    char want[4300];
    snprintf(want, sizeof(want), "%s:2: expected", path);
    ok(ini_load(path, &err) == NULL && has(err.text, want),
       "a syntax error in a file names the path and line");
    snprintf(path, sizeof(path), "%s/missing.fti", dir);
    snprintf(want, sizeof(want), "%s: No such file or directory", path);
    ok(ini_load(path, &err) == NULL && is(err.text, want), "a missing file");
    ok(ini_load(dir, &err) == NULL && has(err.text, "not a regular file"),
       "a directory is not a config file");
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
