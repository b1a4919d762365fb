/* SPDX-License-Identifier: BSD-3-Clause */
/* test_kvtree.c - tree operations, key/value helpers, pack/unpack */
#include <stdlib.h>
#include <string.h>

#include "kvtree.h"
#include "tap.h"

static void test_basics(void)
{
    kvtree_t *t = kvtree_new();
    kvtree_t *a = kvtree_set(t, "A", NULL);
    ok(a && kvtree_get(t, "A") == a && kvtree_size(t) == 1, "set and get");
    kvtree_set(t, "B", NULL);
    kvtree_t *a2 = kvtree_set(t, "A", kvtree_new());
    ok(kvtree_get(t, "A") == a2 && kvtree_size(t) == 2, "set replaces an existing key");
    kvtree_t *x = kvtree_extract(t, "A");
    ok(x == a2 && !kvtree_get(t, "A") && kvtree_size(t) == 1, "extract");
    kvtree_delete(&x);
    ok(kvtree_unset(t, "nope") == 0 && kvtree_size(t) == 1, "unset of a missing key");
    kvtree_unset(t, "B");
    ok(kvtree_size(t) == 0 && !kvtree_first(t), "unset leaves the tree empty");
    ok(kvtree_get(NULL, "x") == NULL && kvtree_size(NULL) == 0, "NULL tree is safe");
    kvtree_delete(&t);
    ok(t == NULL, "delete clears the pointer");
}

static void test_kv(void)
{
    kvtree_t *t = kvtree_new();
    kvtree_set_kv(t, "FILES", "2");
    ok(strcmp(kvtree_get_val(t, "FILES"), "2") == 0, "set_kv / get_val");
    kvtree_util_set_int(t, "FILES", 3);
    int i = 0;
    ok(kvtree_util_get_int(t, "FILES", &i) == 0 && i == 3 &&
           kvtree_size(kvtree_get(t, "FILES")) == 1,
       "util_set_int replaces the value");
    kvtree_util_set_str(t, "JUNK", "12abc");
    ok(kvtree_util_get_int(t, "JUNK", &i) < 0, "partial integer is rejected");
    kvtree_util_set_u64(t, "SIZE", 1ULL << 40);
    uint64_t u = 0;
    ok(kvtree_util_get_u64(t, "SIZE", &u) == 0 && u == 1ULL << 40, "u64");
    kvtree_util_set_double(t, "T", 0.125);
    double d = 0;
    ok(kvtree_util_get_double(t, "T", &d) == 0 && d == 0.125, "double");
    kvtree_util_set_crc32(t, "CRC", 0xdeadbeef);
    uint32_t c = 0;
    ok(kvtree_util_get_crc32(t, "CRC", &c) == 0 && c == 0xdeadbeef &&
           strcmp(kvtree_get_val(t, "CRC"), "0xdeadbeef") == 0,
       "crc32 as 0x hex");
    kvtree_util_set_str(t, "BYTES", "4GB");
    ok(kvtree_util_get_bytecount(t, "BYTES", &u) == 0 && u == 4ULL << 30, "bytecount");
    ok(kvtree_util_get_int(t, "MISSING", &i) < 0, "missing key");
    ok(kvtree_get_kv_int(kvtree_set_kv_int(t, "RANK", 5) ? t : NULL, "RANK", 5) != NULL,
       "kv_int");
    kvtree_unset_kv(t, "RANK", "5");
    ok(kvtree_get(t, "RANK") == NULL, "unset_kv removes an emptied key");

    kvtree_setf(t, NULL, "RANK %d FILE %s SIZE %lu", 3, "my file.dat", 1024UL);
    kvtree_t *f = kvtree_getf(t, "RANK %d FILE %s", 3, "my file.dat");
    ok(f && kvtree_get(f, "SIZE") && kvtree_get(kvtree_get(f, "SIZE"), "1024"),
       "setf/getf keep an argument with a space as one key");
    ok(kvtree_getf(t, "RANK %d", 4) == NULL, "getf of a missing path");
    kvtree_unsetf(t, "RANK %d FILE %s", 3, "my file.dat");
    ok(kvtree_getf(t, "RANK %d FILE", 3) &&
           kvtree_size(kvtree_getf(t, "RANK 3 FILE")) == 0,
       "unsetf");
    ok(kvtree_setf(t, NULL, "BAD %q") == NULL, "unsupported conversion fails");
    kvtree_delete(&t);
}

static void test_sort_merge(void)
{
    kvtree_t *t = kvtree_new();
    const char *keys[] = {"10", "9", "x", "100", "-1"};
    for (int i = 0; i < 5; i++)
        kvtree_set(t, keys[i], NULL);
    kvtree_sort_int(t, KVTREE_SORT_ASCENDING);
    char got[64] = "";
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e))
        strcat(strcat(got, kvtree_elem_key(e)), " ");
    ok(strcmp(got, "-1 9 10 100 x ") == 0, "sort_int ascending: %s", got);
    kvtree_sort_int(t, KVTREE_SORT_DESCENDING);
    got[0] = '\0';
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e))
        strcat(strcat(got, kvtree_elem_key(e)), " ");
    ok(strcmp(got, "100 10 9 -1 x ") == 0, "sort_int descending: %s", got);
    kvtree_sort(t, KVTREE_SORT_ASCENDING);
    ok(strcmp(kvtree_elem_key(kvtree_first(t)), "-1") == 0, "string sort");
    int n, *list;
    ok(kvtree_list_int(t, &n, &list) < 0, "list_int rejects a non-integer key");
    kvtree_unset(t, "x");
    ok(kvtree_list_int(t, &n, &list) == 0 && n == 4 && list[0] == -1 && list[3] == 100,
       "list_int sorted");
    free(list);

    kvtree_t *a = kvtree_new(), *b = kvtree_new();
    kvtree_setf(a, NULL, "R 0 F x");
    kvtree_setf(b, NULL, "R 0 F y");
    kvtree_setf(b, NULL, "R 1");
    kvtree_merge(a, b);
    ok(kvtree_getf(a, "R 0 F x") && kvtree_getf(a, "R 0 F y") && kvtree_getf(a, "R 1"),
       "merge is deep");
    kvtree_t *d = kvtree_dup(a);
    ok(kvtree_equal(a, d), "dup is equal");
    kvtree_setf(d, NULL, "R 2");
    ok(!kvtree_equal(a, d), "a change breaks equality");
    kvtree_delete(&a);
    kvtree_delete(&b);
    kvtree_delete(&d);
    kvtree_delete(&t);
}

static void test_pack(void)
{
    kvtree_t *t = kvtree_new();
    for (int r = 0; r < 50; r++) {
        kvtree_setf(t, NULL, "RANK %d FILE rank_%d.ckpt SIZE %d", r, r, r * 1000);
        kvtree_setf(t, NULL, "RANK %d FILE rank_%d.ckpt COMPLETE 1", r, r);
    }
    size_t size = kvtree_pack_size(t);
    char *buf = malloc(size);
    ok(kvtree_pack(buf, t) == size, "pack writes pack_size bytes");
    kvtree_t *u = kvtree_new();
    ok(kvtree_unpack(buf, size, u, NULL) == (int64_t)size && kvtree_equal(t, u),
       "unpack round trip");
    int all_fail = 1;
    for (size_t n = 0; n < size; n++) {
        kvtree_t *v = kvtree_new();
        scr_error_t err;
        if (kvtree_unpack(buf, n, v, &err) >= 0)
            all_fail = 0;
        kvtree_delete(&v);
    }
    ok(all_fail, "every truncation of %zu bytes is rejected", size);
    /* a count that cannot fit */
    unsigned char huge[8] = {0xff, 0xff, 0xff, 0xff, 'a', 0, 0, 0};
    scr_error_t err;
    ok(kvtree_unpack(huge, sizeof(huge), u, &err) < 0 && strstr(err.text, "claims"),
       "impossible element count rejected: %s", err.text);
    /* nesting beyond the limit */
    size_t dsize = (KVTREE_MAX_DEPTH + 10) * 6 + 4;
    unsigned char *deep = calloc(1, dsize);
    for (int i = 0; i < KVTREE_MAX_DEPTH + 10; i++) {
        deep[i * 6 + 3] = 1;
        deep[i * 6 + 4] = 'k';
    }
    ok(kvtree_unpack(deep, dsize, u, &err) < 0 && strstr(err.text, "nested"),
       "deep nesting rejected: %s", err.text);
    free(deep);
    free(buf);
    kvtree_delete(&t);
    kvtree_delete(&u);
}

static void test_print(void)
{
    kvtree_t *t = kvtree_new();
    kvtree_setf(t, NULL, "RANK 0 FILES 2");
    kvtree_setf(t, NULL, "RANK 0 FILE foo_0.txt SIZE 1024");
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    kvtree_print(t, 2, fp);
    fclose(fp);
    ok(strcmp(text, "RANK\n  0\n    FILES\n      2\n    FILE\n      foo_0.txt\n"
                    "        SIZE\n          1024\n") == 0,
       "print indents 2 spaces a level");
    free(text);
    kvtree_delete(&t);
}

/* large trees use a hash index: lookups must survive unsets and sorts */
static void test_large(void)
{
    kvtree_t *t = kvtree_new();
    char key[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        kvtree_set_kv_int(t, key, i);
    }
    int good = kvtree_size(t) == 20000;
    for (int i = 0; i < 20000; i += 2) {
        snprintf(key, sizeof(key), "k%d", i);
        kvtree_unset(t, key);
    }
    for (int i = 0; i < 20000 && good; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        good = (kvtree_get(t, key) != NULL) == (i % 2 == 1);
    }
    ok(good && kvtree_size(t) == 10000, "20000 keys, half unset: lookups right");
    for (int i = 0; i < 20000; i += 2) {
        snprintf(key, sizeof(key), "k%d", i);
        kvtree_set(t, key, NULL);
    }
    kvtree_sort(t, KVTREE_SORT_DESCENDING);
    good = kvtree_size(t) == 20000;
    for (int i = 0; i < 20000 && good; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        good = kvtree_get(t, key) != NULL;
    }
    ok(good, "re-set and sorted: every key found");
    kvtree_t *d = kvtree_dup(t);
    ok(kvtree_equal(t, d), "large dup is equal");
    kvtree_delete(&d);
    kvtree_delete(&t);
}

int main(void)
{
    test_large();
    test_basics();
    test_kv();
    test_sort_merge();
    test_pack();
    test_print();
    return done_testing();
}
