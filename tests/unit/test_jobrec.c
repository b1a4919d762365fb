/* SPDX-License-Identifier: BSD-3-Clause */
/* test_jobrec.c - the prefix and nodes a run records for the epilog */
#include <sys/stat.h>

#include "jobrec.h"
#include "kvtree.h"
#include "tap.h"
#include "testutil.h"

static int reads(const char *dir, const char *want_prefix, const char *want_nodes)
{
    char prefix[4096] = "";
    nodelist_t *nodes = NULL;
    scr_error_t err = {""};
    int rc = jobrec_read(dir, prefix, sizeof(prefix), &nodes, &err);
    char *got = nodes ? nodelist_compress(nodes) : NULL;
    int r = rc == 1 && strcmp(prefix, want_prefix) == 0 &&
            (want_nodes ? got && strcmp(got, want_nodes) == 0 : !got);
    if (!r)
        diag("rc %d prefix '%s' nodes '%s' err '%s'", rc, prefix, got ? got : "(none)",
             err.text);
    free(got);
    nodelist_delete(&nodes);
    return r;
}

/* a record written by hand, as a user could plant it */
static int refuses(const char *dir, const char *prefix, const char *nodes,
                   const char *want_err)
{
    char path[4200], buf[4096];
    scr_error_t err = {""};
    kvtree_t *t = kvtree_new();
    if (prefix)
        kvtree_util_set_str(t, "PREFIX", prefix);
    if (nodes)
        kvtree_util_set_str(t, "NODES", nodes);
    snprintf(path, sizeof(path), "%s/%s", dir, JOBREC_FILE);
    kvtree_write_file(path, t, NULL);
    kvtree_delete(&t);
    nodelist_t *got = NULL;
    int rc = jobrec_read(dir, buf, sizeof(buf), &got, &err);
    int r = rc == -1 && !got && strstr(err.text, want_err) && strstr(err.text, path);
    nodelist_delete(&got);
    if (!r)
        diag("rc %d err '%s'", rc, err.text);
    return r;
}

/* the stores of dir's record, as "a b ..." */
static int stores_are(const char *dir, const char *want)
{
    char **bases = NULL, got[1024] = "";
    scr_error_t err = {""};
    int n = jobrec_read_stores(dir, &bases, &err);
    for (int i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "",
                 bases[i]);
    jobrec_free_stores(bases, n);
    if (n < 0 || strcmp(got, want) != 0)
        diag("rc %d stores '%s' err '%s'", n, got, err.text);
    return n >= 0 && strcmp(got, want) == 0;
}

/* the stores a run records for the epilog: kept across runs and rewrites */
static void test_stores(const char *dir)
{
    scr_error_t err = {""};
    const char *first[] = {"/dev/shm", "/tmp/ssd"}, *second[] = {"/dev/shm", "/nvme"};
    ok(stores_are(dir, ""), "no stores recorded: none");
    ok(jobrec_write(dir, "/p", NULL, 1, &err) == 0 &&
           jobrec_add_stores(dir, first, 2, &err) == 0 &&
           stores_are(dir, "/dev/shm /tmp/ssd"),
       "a run's stores are recorded");
    ok(jobrec_write(dir, "/q", "node1", 1, &err) == 0 && reads(dir, "/q", "node1") &&
           stores_are(dir, "/dev/shm /tmp/ssd"),
       "a later run's record keeps them");
    ok(jobrec_add_stores(dir, second, 2, &err) == 0 &&
           stores_are(dir, "/dev/shm /tmp/ssd /nvme"),
       "and adds its own, each once");
    const char *bad[] = {"/dev/shm/../../etc"};
    ok(jobrec_add_stores(dir, bad, 1, &err) == 0 &&
           jobrec_read_stores(dir, &(char **){NULL}, &err) == -1 &&
           strstr(err.text, "STORE '/dev/shm/../../etc'"),
       "a store that is not a reduced absolute directory is refused, named");
}

/* the run's SCR_FLUSH_DIRECT for the scavenge: 1 unless a run turned it off */
static void test_direct(const char *dir)
{
    scr_error_t err = {""};
    ok(jobrec_read_direct(dir) == 1, "no record: the scavenge writes direct");
    ok(jobrec_write(dir, "/p", NULL, 0, &err) == 0 && jobrec_read_direct(dir) == 0 &&
           reads(dir, "/p", NULL),
       "a run with SCR_FLUSH_DIRECT=0 records it, and the record still reads");
    ok(jobrec_write(dir, "/p", NULL, 1, &err) == 0 && jobrec_read_direct(dir) == 1,
       "the newest run's setting wins");
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, JOBREC_FILE);
    ok(tu_write(path, "garbage", 7) == 0 && jobrec_read_direct(dir) == 1,
       "a damaged record: direct, as without one");
    unlink(path);
}

int main(void)
{
    char *dir = tu_tmpdir();
    char path[4200], buf[64];
    scr_error_t err;
    ok(jobrec_read(dir, buf, sizeof(buf), NULL, &err) == 0, "no record: 0");
    ok(jobrec_write(dir, "/p/lustre/run1", "node[1-2,4]", 1, &err) == 0, "write");
    ok(reads(dir, "/p/lustre/run1", "node[1-2,4]"), "read back prefix and nodes");
    ok(jobrec_write(dir, "/p/other", NULL, 1, &err) == 0 && reads(dir, "/p/other", NULL),
       "the newest run wins; no nodes recorded");
    ok(jobrec_write(dir, "/a/very/long/prefix/name/that/does/not/fit", NULL, 1, &err) ==
               0 &&
           jobrec_read(dir, buf, 16, NULL, &err) == -1 && strstr(err.text, "too long"),
       "a prefix longer than the buffer is an error");
    ok(refuses(dir, "relative/dir", NULL, "not an absolute, reduced directory"),
       "a relative prefix is refused");
    ok(refuses(dir, "/p/../etc", NULL, "not an absolute, reduced directory"),
       "a prefix with .. is refused");
    ok(refuses(dir, NULL, NULL, "no PREFIX"), "a record without PREFIX is refused");
    ok(refuses(dir, "/p", "node[1-", "node[1-"), "a malformed node list is refused");
    snprintf(path, sizeof(path), "%s/%s", dir, JOBREC_FILE);
    ok(tu_write(path, "garbage", 7) == 0 &&
           jobrec_read(dir, buf, sizeof(buf), NULL, &err) == -1 &&
           strstr(err.text, JOBREC_FILE),
       "a damaged record names the file");
    unlink(path);
    char target[4200];
    snprintf(target, sizeof(target), "%s/elsewhere", dir);
    jobrec_write(dir, "/p", NULL, 1, &err);
    rename(path, target);
    ok(symlink(target, path) == 0 &&
           jobrec_read(dir, buf, sizeof(buf), NULL, &err) == -1 &&
           strstr(err.text, "symbolic link"),
       "a planted symlink is not followed");
    ok(jobrec_write("/nonexistent/dir", "/p", NULL, 1, &err) == -1 &&
           strstr(err.text, "/nonexistent/dir"),
       "an unwritable control directory is an error naming it");
    unlink(path);
    test_stores(dir);
    unlink(path);
    test_direct(dir);
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
