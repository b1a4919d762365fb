/* SPDX-License-Identifier: BSD-3-Clause */
/* test_path.c - path components, reduce, relative, is-under */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "tap.h"

static int str_is(char *s, const char *want)
{
    int r = s && strcmp(s, want) == 0;
    if (!r)
        diag("got '%s', want '%s'", s ? s : "(null)", want);
    free(s);
    return r;
}

static int reduce_is(const char *in, const char *want)
{
    return str_is(path_strdup_reduce_str(in), want);
}

int main(void)
{
    path_t *p = path_from_str("/hello/world");
    ok(path_components(p) == 3, "/hello/world has 3 components");
    ok(strcmp(path_component(p, 0), "") == 0, "first component is empty");
    ok(path_is_absolute(p), "absolute");
    ok(path_strlen(p) == 12, "strlen 12");
    ok(str_is(path_strdup(p), "/hello/world"), "round trip");
    path_append_str(p, "a/b");
    ok(str_is(path_strdup(p), "/hello/world/a/b"), "append_str");
    path_t *q = path_from_str("x");
    path_insert(p, 2, q);
    ok(str_is(path_strdup(p), "/hello/x/world/a/b"), "insert at 2");
    path_slice(p, -2, -1);
    ok(str_is(path_strdup(p), "a/b"), "slice -2");
    path_prepend_str(p, "/root");
    path_dirname(p);
    ok(str_is(path_strdup(p), "/root/a"), "prepend and dirname");
    path_basename(p);
    ok(str_is(path_strdup(p), "a"), "basename");
    path_delete(&p);
    path_delete(&q);

    p = path_from_str("/a/b/c/d");
    q = path_cut(p, 2);
    ok(str_is(path_strdup(p), "/a") && str_is(path_strdup(q), "b/c/d"), "cut at 2");
    path_delete(&p);
    path_delete(&q);
    p = path_from_strf("/%s/%d", "dir", 7);
    q = path_sub(p, 1, 1);
    ok(str_is(path_strdup(q), "dir"), "from_strf and sub");
    path_delete(&p);
    path_delete(&q);
    p = path_from_str("/");
    ok(str_is(path_strdup(p), "/") && path_is_absolute(p), "root");
    path_dirname(p);
    ok(str_is(path_strdup(p), "/"), "dirname of root is root");
    path_delete(&p);
    p = path_new();
    ok(path_is_null(p) && str_is(path_strdup(p), ""), "null path");
    path_delete(&p);

    ok(reduce_is("/hello/world/../foo/bar/.././", "/hello/foo"), "reduce example");
    ok(reduce_is("//a///b/", "/a/b"), "reduce slashes");
    ok(reduce_is("/../../x", "/x"), "reduce .. above root");
    ok(reduce_is("../a/../../b", "../../b"), "relative keeps leading ..");
    ok(reduce_is("./a/.", "a"), "reduce dots");

    path_t *src = path_from_str("/hello/world"), *dst = path_from_str("/hello/foo");
    path_t *rel = path_relative(src, dst);
    ok(str_is(path_strdup(rel), "../foo"), "relative /hello/world -> /hello/foo");
    path_delete(&rel);
    rel = path_relative(dst, dst);
    ok(str_is(path_strdup(rel), ""), "relative to itself is empty");
    path_delete(&rel);
    path_delete(&src);
    path_delete(&dst);

    ok(path_is_under("/a/b/c", "/a/b"), "/a/b/c under /a/b");
    ok(path_is_under("/a/b", "/a/b/"), "a dir is under itself");
    ok(!path_is_under("/a/bc", "/a/b"), "/a/bc not under /a/b");
    ok(!path_is_under("/a/b/../../etc/passwd", "/a/b"), ".. escape detected");
    ok(!path_is_under("a/b", "/a"), "relative not under absolute");
    ok(path_is_safe_relative("ckpt/rank_1.dat"), "plain relative is safe");
    ok(!path_is_safe_relative("../x"), ".. is unsafe");
    ok(!path_is_safe_relative("a/../../x"), "inner .. is unsafe");
    ok(!path_is_safe_relative("/etc/passwd"), "absolute is unsafe");
    ok(!path_is_safe_relative(""), "empty is unsafe");
    return done_testing();
}
