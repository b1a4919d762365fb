/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fti_conf.c - FTI's configuration file: every key read, accepted,
 * corrected and refused as FTI 1.6 does (its FTI_ReadConf and
 * FTI_TestConfig), warnings with file:line, and the SCR settings the keys
 * become */
#include <stddef.h>

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
    return fti_conf_load(path, "/run/dir", 8, c, capture, NULL, err);
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
                          "ckpt_io = 1\n"
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

/* one key as FTI 1.6 takes it: conf (with its section headers) and the
 * keys FTI needs, with nprocs processes.  want: "=N" loads with the field at N; "!why" is
 * refused with why in the message; "~what" loads and warns what.  field: offsetof into
 * fti_conf_t, or -1. */
typedef struct {
    const char *conf;
    int nprocs;
    const char *want;
    long field;
    const char *what;
} key_case_t;

#define F(f) ((long)offsetof(fti_conf_t, f))

static const key_case_t cases[] = {
    {"[basic]\nhead = 0\n", 8, "=0", F(head), "head 0"},
    {"[basic]\nhead = 1\n", 8, "~SCR runs no FTI head processes", F(head),
     "head 1: warned"},
    {"[basic]\nhead = 2\n", 8, "![basic] head = '2': must be 0 or 1", -1, "head 2"},
    {"[basic]\nhead = -1\n", 8, "!must be 0 or 1", -1, "head -1"},
    {"[basic]\nnode_size = 2\n", 8, "=2", F(node_size), "node_size 2 of 8"},
    {"[basic]\nnode_size = 3\n", 8,
     "!node_size = '3': the 8 processes are not a multiple", -1, "node_size 3 of 8"},
    {"[basic]\nnode_size = 0\n", 8, "!node_size = '0': must not be 0", -1, "node_size 0"},
    {"", 8, "=-1", F(node_size), "node_size not given"},
    {"[basic]\nnode_size = 3\n", 0, "=3", F(node_size),
     "node_size unchecked without nprocs"},
    {"[basic]\nnode_size = 2\ngroup_size = 4\n", 8, "=4", F(group_size),
     "group of 4 nodes"},
    {"[basic]\nnode_size = 2\ngroup_size = 3\n", 8,
     "!group_size = '3': the 4 nodes (8 processes, node_size 2) are not a multiple", -1,
     "4 nodes, groups of 3"},
    {"[basic]\ngroup_size = 0\n", 8, "!group_size = '0': must not be 0", -1, "group 0"},
    {"[basic]\ngroup_size = 3\n", 8,
     "!group_size = '3': without node_size FTI 1.6 counts -8 nodes", -1,
     "groups of 3 without node_size"},
    {"[basic]\ngroup_size = 4\n", 8, "=4", F(group_size),
     "groups of 4 without node_size"},
    {"[basic]\ngroup_size = 1\nckpt_l2 = 5\n", 8,
     "!group_size = '1': must be at least 2 while ckpt_l2 or ckpt_l3 is on", -1,
     "group 1 with level 2"},
    {"[basic]\nckpt_l3 = 5\n", 8, "![basic] group_size is not set: must be at least 2",
     -1, "no group with level 3"},
    {"[basic]\ngroup_size = 1\nckpt_l2 = 0\nckpt_l3 = -1\n", 8, "=1", F(group_size),
     "group 1 with levels 2 and 3 off"},
    {"", 8, "=1", F(group_size), "group_size not given: 1"},
    {"[basic]\nnode_size = 1\ngroup_size = 32\nckpt_l3 = 5\n", 64,
     "!group_size = '32': must be below 32 while ckpt_l3 is on", -1,
     "group 32 with level 3"},
    {"[basic]\nnode_size = 1\ngroup_size = 32\nckpt_l2 = 5\n", 64, "=32", F(group_size),
     "group 32 with level 2 only"},
    {"[basic]\nverbosity = 1\n", 8, "=1", F(verbosity), "verbosity 1"},
    {"[basic]\nverbosity = 3\n", 8, "=3", F(verbosity), "verbosity 3"},
    {"[basic]\nverbosity = 0\n", 8, "!verbosity = '0': must be 1, 2 or 3", -1,
     "verbosity 0"},
    {"[basic]\nverbosity = 4\n", 8, "!must be 1, 2 or 3", -1, "verbosity 4"},
    {"[advanced]\nblock_size = 1\n", 8, "=1", F(block_size), "block_size 1"},
    {"[advanced]\nblock_size = 2048\n", 8, "=2048", F(block_size), "block_size 2048"},
    {"[advanced]\nblock_size = 0\n", 8, "!block_size = '0': must be from 1 to 2048", -1,
     "block_size 0"},
    {"[advanced]\nblock_size = 2049\n", 8, "!must be from 1 to 2048", -1,
     "block_size 2049"},
    {"[basic]\nkeep_heads_alive = 1\n", 8, "!keep_heads_alive = '1': needs head = 1", -1,
     "keep_heads_alive without heads"},
    {"[basic]\nhead = 1\nkeep_heads_alive = true\n", 8, "=1", F(keep_heads_alive),
     "keep_heads_alive with head 1"},
    {"[advanced]\nfast_forward = 10\n", 8, "=10", F(fast_forward), "fast_forward 10"},
    {"[advanced]\nfast_forward = 0\n", 8, "!fast_forward = '0': must be from 1 to 10", -1,
     "fast_forward 0"},
    {"[advanced]\nfast_forward = 11\n", 8, "!must be from 1 to 10", -1,
     "fast_forward 11"},
    {"[advanced]\nlocal_test = 0\n", 8, "=0", F(local_test), "local_test 0"},
    {"[advanced]\nlocal_test = 2\n", 8, "!local_test = '2': must be 0 or 1", -1,
     "local_test 2"},
    {"[basic]\nkeep_last_ckpt = 2\n", 8, "!keep_last_ckpt = '2': must be 0 or 1", -1,
     "keep_last_ckpt 2"},
    {"[basic]\nkeep_last_ckpt = true\n", 8,
     "~keep_last_ckpt = 'true': not an integer; "
     "FTI 1.6 reads it as 0",
     -1, "keep_last_ckpt true: an int for FTI, so 0"},
    {"[basic]\ninline_l3 = 0\n", 8, "!inline_l3 = '0': 0 needs head = 1", -1,
     "inline_l3 0 without heads"},
    {"[basic]\nhead = 1\ninline_l4 = 0\n", 8, "=0", F(inline_l[4]),
     "inline_l4 0 with heads"},
    {"[basic]\ninline_l2 = 7\n", 8, "=1", F(inline_l[2]), "inline_l2 7 is 1"},
    {"[basic]\nh5_single_file_inline = no\n", 8,
     "!h5_single_file_inline = 'no': 0 needs head", -1, "h5_single_file_inline no"},
    {"[basic]\nh5_single_file_inline = x\n", 8, "~neither true nor false", F(h5_inline),
     "h5_single_file_inline x: its default"},
    {"[basic]\nmax_var_id = 500\n", 8, "=500", F(max_var_id), "max_var_id 500"},
    {"", 8, "=102400", F(max_var_id), "max_var_id not given"},
    {"[basic]\nmax_var_id = 5000000000\n", 8, "~above 2147483647; 102400", F(max_var_id),
     "max_var_id above INT_MAX"},
    {"", 8, "=512", F(max_sync_intv), "max_sync_intv not given"},
    {"[basic]\nmax_sync_intv = 0\n", 8, "=512", F(max_sync_intv), "max_sync_intv 0"},
    {"[basic]\nmax_sync_intv = 256\n", 8, "=256", F(max_sync_intv), "max_sync_intv 256"},
    {"[basic]\nmax_sync_intv = 100\n", 8, "~not a power of 2; 64", F(max_sync_intv),
     "max_sync_intv 100"},
    {"", 8, "=16", F(transfer_size), "transfer_size not given"},
    {"[advanced]\ntransfer_size = 64\n", 8, "=64", F(transfer_size), "transfer_size 64"},
    {"[advanced]\ntransfer_size = 4\n", 8, "~not from 8 to 64 (MiB); 16",
     F(transfer_size), "transfer_size 4"},
    {"[basic]\nenable_dcp = 1\n", 8, "~no differential checkpoints with ckpt_io = 0",
     F(enable_dcp), "dCP without ckpt_io"},
    {"[basic]\nenable_dcp = 1\nckpt_io = 2\n", 8, "~with ckpt_io = 2", F(enable_dcp),
     "dCP with MPI-IO"},
    {"[basic]\nenable_dcp = 1\nckpt_io = 1\ndcp_block_size = 4096\n", 8, "=4096",
     F(dcp_block_size), "dCP with POSIX"},
    {"[basic]\nenable_dcp = 1\nckpt_io = 1\ndcp_block_size = -1\n", 8,
     "~dcp_block_size = '-1': not from 512 to 65535; SCR's default", F(enable_dcp),
     "dCP with POSIX and block -1: on"},
    {"[basic]\nenable_dcp = 1\nckpt_io = 3\ndcp_mode = 1\ndcp_block_size = 512\n", 8,
     "=1", F(enable_dcp), "dCP with FTI-FF"},
    {"[basic]\nenable_dcp = 1\nckpt_io = 3\ndcp_block_size = 512\n", 8,
     "~dcp_mode is not set: must be 1 (MD5) or 2 (CRC32)", F(enable_dcp),
     "dCP with FTI-FF, no mode: off"},
    {"[basic]\nenable_dcp = 1\nckpt_io = 3\ndcp_mode = 2\ndcp_block_size = 70000\n", 8,
     "~must be from 512 to 65535; differential checkpoints off", F(enable_dcp),
     "dCP with FTI-FF, block 70000: off"},
    {"[basic]\nenable_dcp = 0\ndcp_block_size = -1\ndcp_mode = 9\n", 8, "=0",
     F(enable_dcp), "dCP off: its keys unchecked"},
    {"[basic]\nenable_dcp = 1\nckpt_io = 1\ndcp_stack_size = 11\n", 8,
     "~dcp_stack_size = '11': must be below 10; 5", F(dcp_stack_size),
     "dcp_stack_size 11"},
    {"[basic]\nckpt_io = 9\n", 8, "=9", F(ckpt_io), "ckpt_io 9 (FTI takes POSIX)"},
    {"[restart]\nfailure = -1\n", 8, "=-1", F(failure), "failure -1"},
    {"[basic]\nckpt_l1 = 0x10\n", 8, "=16", F(ckpt_l[1]), "ckpt_l1 0x10"},
    {"[basic]\nckpt_l1 = often\n", 8,
     "~ckpt_l1 = 'often': not an integer; FTI 1.6 reads it as 0", F(ckpt_l[1]),
     "ckpt_l1 often"},
    {"[basic]\nckpt_l1 = 99999999999\n", 8,
     "!ckpt_l1 = '99999999999': out of the range of an int", -1, "ckpt_l1 beyond an int"},
    {"[basic]\nkeep_l4_ckpt = yes\n", 8, "=1", F(keep_l4_ckpt), "keep_l4_ckpt yes"},
    {"[basic]\nkeep_l4_ckpt = maybe\n", 8, "~FTI 1.6 takes its default, 0",
     F(keep_l4_ckpt), "keep_l4_ckpt maybe"},
    {"[basic]\ndcp_l4 = 5\n", 8, "=5", F(dcp_l4), "dcp_l4 5"},
    {"[injection]\nfrequency = -7\n", 8, "=-7", F(inj_frequency),
     "[injection] frequency -7"},
    {"[injection]\nrank = 3\n", 8, "=3", F(inj_rank), "[injection] rank 3"},
    {"", 8, "=-1", F(inj_frequency), "[injection] frequency not given: -1"},
};

/* the field value after a load (long fields only) */
static long field_of(const fti_conf_t *c, long off)
{
    return *(const long *)((const char *)c + off);
}

static int key_case(const key_case_t *k)
{
    /* the case's lines, then each key FTI needs that they do not give */
    static const char *need[][2] = {{"verbosity", "[basic]\nverbosity = 2\n"},
                                    {"\nblock_size", "[advanced]\nblock_size = 1024\n"},
                                    {"local_test", "[advanced]\nlocal_test = 1\n"}};
    char text[2048];
    snprintf(text, sizeof(text), "%s", k->conf);
    for (int i = 0; i < 3; i++)
        if (!strstr(k->conf, need[i][0]))
            strncat(text, need[i][1], sizeof(text) - strlen(text) - 1);
    fti_conf_t c;
    scr_error_t err = {""};
    warnings[0] = '\0';
    tu_write(path, text, strlen(text));
    int rc = fti_conf_load(path, "/run/dir", k->nprocs, &c, capture, NULL, &err);
    switch (k->want[0]) {
    case '=': /* and quiet, but for head = 1 */
        return rc == 0 && field_of(&c, k->field) == atol(k->want + 1) &&
               (strstr(k->conf, "head = 1") || is(warnings, ""));
    case '!':
        return rc == -1 && has(err.text, k->want + 1) && has(err.text, "config.fti");
    default:
        return rc == 0 && has(warnings, k->want + 1) && has(warnings, "config.fti");
    }
}

int main(void)
{
    char *d = tu_tmpdir();
    snprintf(dir, sizeof(dir), "%s", d);
    snprintf(path, sizeof(path), "%s/config.fti", dir);
    fti_conf_t c;
    scr_error_t err;
    char want[4400];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ok(key_case(&cases[i]), "as FTI 1.6: %s", cases[i].what);

    ok(load(full, &c, &err) == 0, "FTI's documented keys load");
    ok(is(c.ckpt_dir, "/dev/shm/local") && is(c.glbl_dir, "/run/dir/global"),
       "directories: absolute kept, relative taken from the working directory");
    ok(c.ckpt_l[1] == 2 && c.ckpt_l[2] == 5 && c.ckpt_l[3] == 7 && c.ckpt_l[4] == 11,
       "ckpt_L1..L4 (keys in any case; the later ckpt_l1 wins)");
    ok(c.group_size == 4 && c.keep_last_ckpt == 1 && c.verbosity == 1 &&
           c.enable_dcp == 1 && c.dcp_block_size == 4096 && c.block_size == 512 &&
           c.transfer_size == 16 && c.fast_forward == 5 && c.max_var_id == 100 * 1024,
       "numbers and booleans, FTI's max_var_id by default");
    ok(is(c.meta_dir, "/home/u/.fti") && is(c.exec_id, "2024-01-01_00-00-00") &&
           c.ckpt_tag == 711 && c.stage_tag == 406 && c.final_tag == 3107 &&
           c.general_tag == 2612 && c.h5_enable == 0 && c.h5_dir[0] == '\0',
       "what FTI_GetConfig reports: meta_dir and exec_id as written, FTI's MPI tags");
    snprintf(want, sizeof(want), "%s:17: unknown key 'wibble' in [basic]; ignored", path);
    ok(has(warnings, want), "an unknown key is warned with file:line");
    snprintf(want, sizeof(want), "%s:7: [basic] ckpt_l1 is given again on line 18", path);
    ok(has(warnings, want), "a key given twice is warned");
    snprintf(want, sizeof(want), "%s:29: unknown section [extra]", path);
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

    {
        char text[1024], id[300];
        memset(id, 'x', sizeof(id) - 1);
        id[sizeof(id) - 1] = '\0';
        snprintf(text, sizeof(text),
                 "[basic]\nverbosity = 2\n[restart]\nexec_id = %s\n[advanced]\n"
                 "block_size = 1024\nlocal_test = 0\nckpt_tag = 99\n",
                 id);
        ok(load(text, &c, &err) == 0 && c.ckpt_tag == 99 &&
               strlen(c.exec_id) == FTI_CONF_STR - 1 && c.meta_dir[0] == '\0',
           "a tag as given; a string past FTI's 256 bytes is cut; one not given is "
           "empty");
    }
    ok(load("[basic]\nverbosity = 2\n[advanced]\nblock_size = 1024\nlocal_test = 0\n", &c,
            &err) == 0,
       "the keys FTI 1.6 needs are enough");
    fti_conf_settings(&c, collect, NULL);
    ok(is(settings, "CKPT=1 TYPE=SINGLE\nCKPT=2 TYPE=PARTNER\nCKPT=3 TYPE=RS\n"
                    "SCR_DEBUG=1\nSCR_FLUSH=0\nSCR_PREFIX_SIZE=1\n"
                    "SCR_MPI_BUF_SIZE=1048576\nSCR_FILE_BUF_SIZE=16777216\n"),
       "defaults: descriptors, only level 4 on the prefix, one kept there, FTI's 16 MiB");
    ok(is(warnings, ""), "no warnings");
    ok(is(load_error("[basic]\n"),
          "config.fti: [basic] verbosity is not set: must be 1, 2 or 3"),
       "an empty [basic] is refused, as FTI 1.6 refuses it: verbosity first");
    ok(is(load_error("[basic]\nverbosity = 1\n"),
          "config.fti: [advanced] block_size is not set: must be from 1 to 2048 (KiB)"),
       "then block_size");
    ok(is(load_error("[basic]\nverbosity = 1\n[advanced]\nblock_size = 8\n"),
          "config.fti: [advanced] local_test is not set: must be 0 or 1"),
       "then local_test");
    ok(load("[basic]\nkeep_l4_ckpt = true\ngroup_size = 2\nverbosity = 3\n[advanced]\n"
            "block_size = 1\nlocal_test = 1\n",
            &c, &err) == 0,
       "keep_l4_ckpt, group_size 2, verbosity 3");
    fti_conf_settings(&c, collect, NULL);
    ok(has(settings, "SCR_PREFIX_SIZE=0\n") && has(settings, "SCR_SET_SIZE=2\n") &&
           has(settings, "SCR_SET_FAILURES=1\n") && has(settings, "SCR_DEBUG=0\n"),
       "every level-4 checkpoint kept; RS of 2 survives 1; verbosity 3 is quiet");
    ok(load("[basic]\nverbosity = 2\nenable_dcp = 1\ndcp_block_size = -1\n[advanced]\n"
            "block_size = 4\nlocal_test = 1\n",
            &c, &err) == 0,
       "dCP without ckpt_io loads");
    fti_conf_settings(&c, collect, NULL);
    ok(!strstr(settings, "SCR_DCP"),
       "and has no differential checkpoints, as in FTI 1.6");

    ok(load("top = 1\n[basic]\nhead = 1\nverbosity = 1\n[advanced]\nblock_size = 4\n"
            "local_test = 1\n",
            &c, &err) == 0 &&
           c.head == 1,
       "head = 1 loads");
    snprintf(want, sizeof(want),
             "%s:3: [basic] head = '1': SCR runs no FTI head processes", path);
    ok(has(warnings, want), "head = 1 is warned: no head processes");
    snprintf(want, sizeof(want), "%s:1: 'top' is outside any section; ignored", path);
    ok(has(warnings, want), "a key outside a section is warned");

    ok(is(load_error("[basic]\nckpt_dir =\n"),
          "config.fti:2: [basic] ckpt_dir = '': an empty path"),
       "an empty directory");
    ok(is(load_error("[basic]\nckpt_dir = 'a\"b'\n"),
          "config.fti:2: [basic] ckpt_dir = 'a\"b': a path with a quote or control "
          "character"),
       "a directory with a quote");
    ok(is(load_error("[basic]\nckpt_l1 3\n"),
          "config.fti:2: expected 'key = value' or '[section]', found 'ckpt_l1 3'"),
       "a syntax error");
    ok(fti_conf_load(NULL, ".", 8, &c, capture, NULL, &err) == -1 &&
           has(err.text, "no FTI configuration file"),
       "no file name");
    snprintf(path, sizeof(path), "%s/none.fti", dir);
    snprintf(want, sizeof(want), "%s: No such file or directory", path);
    ok(fti_conf_load(path, ".", 8, &c, capture, NULL, &err) == -1 && is(err.text, want),
       "a missing file names the path");
    tu_rmrf(dir);
    free(d);
    return done_testing();
}
