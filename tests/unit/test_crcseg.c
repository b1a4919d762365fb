/* SPDX-License-Identifier: BSD-3-Clause */
/* test_crcseg.c - per-file CRC32 from interleaved streams equals the CRC of
 * each whole file; bytes out of order or missing are reported, not guessed */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32.h"
#include "crcseg.h"
#include "tap.h"

/* visit the concatenation like the XOR/RS encode: piece by piece, all
 * streams interleaved, each stream in order; pad past the end */
static void visit(crcseg_t *c, const unsigned char *all, uint64_t total, uint64_t chunk,
                  int k, uint64_t piece, unsigned char *pad)
{
    for (uint64_t off = 0; off < chunk; off += piece) {
        uint64_t len = chunk - off < piece ? chunk - off : piece;
        for (int q = 0; q < k; q++) {
            uint64_t pos = (uint64_t)q * chunk + off;
            memset(pad, 0, (size_t)len);
            if (pos < total)
                memcpy(pad, all + pos, (size_t)(total - pos < len ? total - pos : len));
            crcseg_update(c, pos, pad, (size_t)len);
        }
    }
}

static int check_layout(int nfiles, const uint64_t *sizes, int k, uint64_t piece)
{
    uint64_t total = 0;
    for (int f = 0; f < nfiles; f++)
        total += sizes[f];
    unsigned char *all = malloc(total + 1), *pad = malloc(piece);
    for (uint64_t i = 0; i < total; i++)
        all[i] = (unsigned char)rand();
    uint64_t chunk = (total + (uint64_t)k - 1) / (uint64_t)k;
    chunk = (chunk + 7) & ~(uint64_t)7;
    crcseg_t c;
    int good = crcseg_init(&c, nfiles, sizes, chunk ? chunk : 8) == 0;
    visit(&c, all, total, chunk, k, piece, pad);
    uint64_t at = 0;
    for (int f = 0; good && f < nfiles; f++) {
        uint32_t got;
        good =
            crcseg_file(&c, f, &got) == 0 && got == crc32_update(0, all + at, sizes[f]);
        at += sizes[f];
    }
    crcseg_free(&c);
    free(all);
    free(pad);
    return good;
}

int main(void)
{
    srand(7);
    uint64_t one[] = {1000003};
    ok(check_layout(1, one, 3, 4096), "one file, 3 streams, 4 KiB pieces");
    uint64_t many[] = {5000, 0, 123457, 1, 0, 77777, 4096};
    ok(check_layout(7, many, 3, 1000), "files of 0, 1 and odd sizes across stream edges");
    ok(check_layout(7, many, 7, 64), "7 streams, 64-byte pieces");
    ok(check_layout(7, many, 1, 4096), "one stream (an in-order copy)");
    int all = 1;
    for (int t = 0; t < 40; t++) {
        uint64_t sz[5];
        for (int f = 0; f < 5; f++)
            sz[f] = (uint64_t)(rand() % 3 == 0 ? 0 : rand() % 50000);
        all &= check_layout(5, sz, 1 + rand() % 8, 8 * (1 + (uint64_t)(rand() % 600)));
    }
    ok(all, "40 random layouts, stream counts and piece sizes");

    /* one stream: CRC of a plain in-order pass */
    unsigned char buf[10000];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (unsigned char)(i * 31);
    uint64_t two[] = {6000, 4000};
    crcseg_t c;
    crcseg_init(&c, 2, two, 0);
    crcseg_update(&c, 0, buf, 3000);
    crcseg_update(&c, 3000, buf + 3000, 7000);
    uint32_t a, b;
    ok(crcseg_file(&c, 0, &a) == 0 && a == crc32_update(0, buf, 6000) &&
           crcseg_file(&c, 1, &b) == 0 && b == crc32_update(0, buf + 6000, 4000),
       "in-order pass across a file boundary");
    crcseg_free(&c);

    crcseg_init(&c, 2, two, 0);
    crcseg_update(&c, 3000, buf + 3000, 7000);
    crcseg_update(&c, 0, buf, 3000);
    ok(crcseg_file(&c, 0, &a) < 0, "bytes out of order: no CRC for the file");
    crcseg_free(&c);

    crcseg_init(&c, 2, two, 0);
    crcseg_update(&c, 0, buf, 5000);
    ok(crcseg_file(&c, 0, &a) < 0, "bytes never seen: no CRC for the file");
    ok(crcseg_file(&c, 1, &a) < 0 && crcseg_file(&c, 2, &a) < 0,
       "a file not reached, and a bad index, give no CRC");
    crcseg_free(&c);

    /* bytes out of order: the file itself is read instead */
    char path[] = "/tmp/test_crcseg.XXXXXX";
    int fd = mkstemp(path);
    ok(fd >= 0 && write(fd, buf, 6000) == 6000 && close(fd) == 0, "wrote %s", path);
    crcseg_init(&c, 2, two, 0);
    crcseg_update(&c, 3000, buf + 3000, 7000);
    scr_error_t err = {""};
    ok(crcseg_file_or_read(&c, 0, path, &a, &err) == 0 && a == crc32_update(0, buf, 6000),
       "out of order: the CRC comes from reading the file");
    unlink(path);
    ok(crcseg_file_or_read(&c, 0, path, &a, &err) < 0 && strstr(err.text, path),
       "out of order and no file: an error naming it (%s)", err.text);
    crcseg_free(&c);

    ok(crcseg_combine(crc32_update(0, buf, 100), crc32_update(0, buf + 100, 900), 900) ==
           crc32_update(0, buf, 1000),
       "combine joins two CRCs");
    return done_testing();
}
