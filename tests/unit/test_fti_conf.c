/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fti_conf.c - FTI's configuration file: the keys FTI documents, their
 * checks, warnings with file:line, and the SCR settings they become */
#include "fti_conf.h"
#include "tap.h"
#include "testutil.h"

static char warnings[8192], settings[8192];

static void capture(const char *msg, void *arg)
{
    (void)arg;
    strncat(warnings, msg, sizeof(warnings) - strlen(warnings) - 2);
    strcat(warnings, "\n");
}

static int collect(const char *s, void *arg)
{
    (void)arg;
    strncat(settings, s, sizeof(settings) - strlen(settings) - 2);
    strcat(settings, "\n");
    return 0;
}

static int has(const char *text, const char *want)
{
    int r = strstr(text, want) != NULL;
    if (!r)
        diag("no '%s' in:\n%s", want, text);
    return r;
}

static int is(const char *got, const char *want)
{
    int r = strcmp(got, want) == 0;
    if (!r)
        diag("got '%s', want '%s'", got, want);
    return r;
}

static char dir[4096], path[4200];

/* load text as config.fti; 0 or -1 with err */
static int load(const char *text, fti_conf_t *c, scr_error_t *err)
{
    warnings[0] = settings[0] = '\0';
    tu_write(path, text, strlen(text));
    return fti_conf_load(path, "/run/dir", c, capture, NULL, err);
}

/* the error a config text gives */
static const char *load_error(const char *text)
{
    static scr_error_t err;
    fti_conf_t c;
    err.text[0] = '\0';
    if (load(text, &c, &err) == 0)
        return "(loaded)";
    /* drop the directory so expectations stay short */
    const char *base = strstr(err.text, "config.fti");
    return base ? base : err.text;
}

static const char *full = "[Basic]\n"
                          "Head = 0\n"
                          "node_size = 2\n"
                          "ckpt_dir = /dev/shm/local\n"
                          "glbl_dir = global\n"
                          "meta_dir = /home/u/.fti\n"
                          "ckpt_L1 = 3\n"
                          "ckpt_L2 = 5\n"
                          "ckpt_L3 = 7\n"
                          "ckpt_L4 = 11\n"
                          "inline_L2 = 1\n"
                          "keep_last_ckpt = 1\n"
                          "group_size = 4\n"
                          "verbosity = 1\n"
                          "enable_dcp = 1\n"
                          "dcp_block_size = 4096\n"
                          "wibble = 2\n"
                          "ckpt_l1 = 2\n"
                          "[restart]\n"
                          "failure = 1\n"
                          "exec_id = 2024-01-01_00-00-00\n"
                          "[advanced]\n"
                          "block_size = 512\n"
                          "transfer_size = 16\n"
                          "mpi_tag = 2612\n"
                          "local_test = 1\n"
                          "fast_forward = 5\n"
                          "[Extra]\n"
                          "a = 1\n"
                          "b = 2\n";

int main(void)
{
    char *d = tu_tmpdir();
    snprintf(dir, sizeof(dir), "%s", d);
    snprintf(path, sizeof(path), "%s/config.fti", dir);
    fti_conf_t c;
    scr_error_t err;
    char want[4400];

    ok(load(full, &c, &err) == 0, "FTI's documented keys load");
    ok(is(c.ckpt_dir, "/dev/shm/local") && is(c.glbl_dir, "/run/dir/global"),
       "directories: absolute kept, relative taken from the working directory");
    ok(c.ckpt_l[1] == 2 && c.ckpt_l[2] == 5 && c.ckpt_l[3] == 7 && c.ckpt_l[4] == 11,
       "ckpt_L1..L4 (keys in any case; the later ckpt_l1 wins)");
    ok(c.group_size == 4 && c.keep_last_ckpt == 1 && c.verbosity == 1 &&
           c.enable_dcp == 1 && c.dcp_block_size == 4096 && c.block_size == 512 &&
           c.transfer_size == 16 && c.fast_forward == 5 && c.max_var_id == 100 * 1024,
       "numbers and booleans, FTI's max_var_id by default");
    snprintf(want, sizeof(want), "%s:17: unknown key 'wibble' in [basic]; ignored", path);
    ok(has(warnings, want), "an unknown key is warned with file:line");
    snprintf(want, sizeof(want), "%s:7: [basic] ckpt_l1 is given again on line 18", path);
    ok(has(warnings, want), "a key given twice is warned");
    snprintf(want, sizeof(want), "%s:28: unknown section [extra]", path);
    ok(has(warnings, want), "an unknown section is warned");
    ok(strstr(warnings, "unknown key 'a'") == NULL &&
           strstr(warnings, "unknown key 'b'") == NULL,
       "its keys are not warned one by one");
    ok(strstr(warnings, "meta_dir") == NULL && strstr(warnings, "failure") == NULL &&
           strstr(warnings, "mpi_tag") == NULL,
       "keys SCR ignores are not warned about");

    fti_conf_settings(&c, collect, NULL);
    ok(is(settings, "CKPT=1 TYPE=SINGLE\n"
                    "CKPT=2 TYPE=PARTNER\n"
                    "CKPT=3 TYPE=RS\n"
                    "SCR_CACHE_BASE=\"/dev/shm/local\"\n"
                    "SCR_PREFIX=\"/run/dir/global\"\n"
                    "SCR_SET_SIZE=4\n"
                    "SCR_SET_FAILURES=2\n"
                    "SCR_DEBUG=2\n"
                    "SCR_FLUSH=1000000000\n"
                    "SCR_PREFIX_SIZE=1\n"
                    "SCR_DCP=1\n"
                    "SCR_DCP_BLOCK=4096\n"
                    "SCR_MPI_BUF_SIZE=524288\n"
                    "SCR_FILE_BUF_SIZE=16777216\n"),
       "the SCR settings of a full configuration");

    ok(load("[basic]\n", &c, &err) == 0, "an empty [basic] loads");
    fti_conf_settings(&c, collect, NULL);
    ok(is(settings, "CKPT=1 TYPE=SINGLE\nCKPT=2 TYPE=PARTNER\nCKPT=3 TYPE=RS\n"
                    "SCR_FLUSH=0\nSCR_PREFIX_SIZE=1\n"),
       "defaults: descriptors, only level 4 on the prefix, one kept there");
    ok(is(warnings, ""), "no warnings");
    ok(load("[basic]\nkeep_l4_ckpt = true\ngroup_size = 2\nverbosity = 3\n", &c, &err) ==
           0,
       "keep_l4_ckpt, group_size 2, verbosity 3");
    fti_conf_settings(&c, collect, NULL);
    ok(has(settings, "SCR_PREFIX_SIZE=0\n") && has(settings, "SCR_SET_SIZE=2\n") &&
           has(settings, "SCR_SET_FAILURES=1\n") && has(settings, "SCR_DEBUG=0\n"),
       "every level-4 checkpoint kept; RS of 2 survives 1; verbosity 3 is quiet");

    ok(load("top = 1\n[basic]\nhead = 1\n", &c, &err) == 0 && c.head == 1,
       "head = 1 loads");
    snprintf(want, sizeof(want), "%s:3: [basic] head = 1: SCR runs no FTI head processes",
             path);
    ok(has(warnings, want), "head = 1 is warned: no head processes");
    snprintf(want, sizeof(want), "%s:1: 'top' is outside any section; ignored", path);
    ok(has(warnings, want), "a key outside a section is warned");

    /* bad values: one line naming file:line, section, key, value */
    ok(is(load_error("[basic]\nverbosity = 7\n"),
          "config.fti:2: [basic] verbosity = '7': must be from 1 to 3"),
       "verbosity out of range");
    ok(is(load_error("[basic]\n\nckpt_l1 = often\n"),
          "config.fti:3: [basic] ckpt_l1 = 'often': not an integer"),
       "an interval that is not a number");
    ok(is(load_error("[BASIC]\nckpt_l2 = 3\nGroup_Size = 1\n"),
          "config.fti:3: [basic] group_size = '1': must be from 2 to 32"),
       "a group of one node with level 2 on");
    ok(is(load_error("[basic]\nckpt_l3 = 3\ngroup_size = 40\n"),
          "config.fti:3: [basic] group_size = '40': must be from 2 to 32"),
       "a group of 40 nodes with level 3 on");
    ok(is(load_error("[basic]\nenable_dcp = 1\ndcp_block_size = -1\n"),
          "config.fti:3: [basic] dcp_block_size = '-1': must be from 512 to 65535"),
       "dcp_block_size = -1 with dCP on");

    /* FTI checks a key only where its feature is on (FTI's own template
     * has dcp_block_size = -1 and group_size = 1 with those off) */
    ok(load("[basic]\nckpt_l2 = 0\nckpt_l3 = 0\ngroup_size = 1\nenable_dcp = 0\n"
            "dcp_block_size = -1\ndcp_mode = 9\n",
            &c, &err) == 0,
       "group_size = 1 without levels 2 and 3, dcp_block_size = -1 and dcp_mode = 9 "
       "without dCP load");
    snprintf(want, sizeof(want),
             "%s:4: [basic] group_size = 1 is outside 2..32; ignored, as FTI does, since "
             "ckpt_l2 and ckpt_l3 are off",
             path);
    ok(has(warnings, want), "the group size is warned and ignored: %s", warnings);
    snprintf(want, sizeof(want),
             "%s:6: [basic] dcp_block_size = -1 is outside 512..65535; ignored, as FTI "
             "does, since enable_dcp is 0",
             path);
    ok(has(warnings, want), "so is the dCP block size");
    ok(c.group_size == 0 && c.dcp_block_size == 0, "neither is kept");
    fti_conf_settings(&c, collect, NULL);
    ok(!strstr(settings, "SCR_SET_SIZE") && !strstr(settings, "SCR_DCP"),
       "and neither reaches SCR's settings");
    ok(is(load_error("[basic]\ngroup_size = many\n"),
          "config.fti:2: [basic] group_size = 'many': not an integer"),
       "a key whose feature is off must still be a number");
    ok(is(load_error("[basic]\nkeep_last_ckpt = maybe\n"),
          "config.fti:2: [basic] keep_last_ckpt = 'maybe': not a boolean (1/0, "
          "true/false, yes/no, on/off)"),
       "a boolean that is not one");
    ok(is(load_error("[basic]\nckpt_dir =\n"),
          "config.fti:2: [basic] ckpt_dir = '': an empty path"),
       "an empty directory");
    ok(is(load_error("[basic]\nckpt_dir = 'a\"b'\n"),
          "config.fti:2: [basic] ckpt_dir = 'a\"b': a path with a quote or control "
          "character"),
       "a directory with a quote");
    ok(is(load_error("[advanced]\nblock_size = 4096\n"),
          "config.fti:2: [advanced] block_size = '4096': must be from 1 to 2048"),
       "block_size over FTI's 2048 KiB");
    ok(is(load_error("[restart]\nfailure = -1\n"),
          "config.fti:2: [restart] failure = '-1': must be from 0 to 3"),
       "keys SCR ignores are still checked");
    ok(is(load_error("[basic]\nckpt_l1 3\n"),
          "config.fti:2: expected 'key = value' or '[section]', found 'ckpt_l1 3'"),
       "a syntax error");
    ok(fti_conf_load(NULL, ".", &c, capture, NULL, &err) == -1 &&
           has(err.text, "no FTI configuration file"),
       "no file name");
    snprintf(path, sizeof(path), "%s/none.fti", dir);
    snprintf(want, sizeof(want), "%s: No such file or directory", path);
    ok(fti_conf_load(path, ".", &c, capture, NULL, &err) == -1 && is(err.text, want),
       "a missing file names the path");
    tu_rmrf(dir);
    free(d);
    return done_testing();
}
