/* SPDX-License-Identifier: BSD-3-Clause */
/* test_units.c - byte counts, strict numbers and the clock */
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "units.h"

static int bytes_is(const char *s, uint64_t want)
{
    uint64_t v = 0;
    return units_parse_bytes(s, &v) == 0 && v == want;
}

static int bytes_bad(const char *s)
{
    uint64_t v;
    return units_parse_bytes(s, &v) < 0;
}

int main(void)
{
    ok(bytes_is("0", 0), "0");
    ok(bytes_is("100", 100), "plain number");
    ok(bytes_is("4GB", 4ULL << 30), "4GB");
    ok(bytes_is("4gb", 4ULL << 30), "case-insensitive");
    ok(bytes_is("1.5MB", 3ULL << 19), "1.5MB");
    ok(bytes_is("512k", 512ULL << 10), "512k");
    ok(bytes_is("2 TiB", 2ULL << 40), "2 TiB with a space");
    ok(bytes_is("200B", 200), "200B");
    ok(bytes_bad(""), "empty rejected");
    ok(bytes_bad("abc"), "word rejected");
    ok(bytes_bad("-1"), "negative rejected");
    ok(bytes_bad("4XB"), "unknown unit rejected");
    ok(bytes_bad("1e30GB"), "overflow rejected");
    ok(bytes_bad(" 4GB"), "leading space rejected");

    long l;
    unsigned long ul;
    double d;
    ok(units_parse_long("-12", &l) == 0 && l == -12, "long -12");
    ok(units_parse_long("12abc", &l) < 0, "trailing junk rejected");
    ok(units_parse_long("99999999999999999999", &l) < 0, "long overflow rejected");
    ok(units_parse_ulong("-1", &ul) < 0, "negative unsigned rejected");
    ok(units_parse_double("2.5", &d) == 0 && d == 2.5, "double");
    ok(units_parse_double("nan", &d) < 0, "nan rejected");

    char buf[32];
    units_format_bytes(1536, buf, sizeof(buf));
    ok(strcmp(buf, "1.5 KiB") == 0, "format 1536 -> %s", buf);
    units_format_bytes(12, buf, sizeof(buf));
    ok(strcmp(buf, "12 B") == 0, "format 12 -> %s", buf);
    double t0 = scr_now();
    usleep(20000);
    double dt = scr_now() - t0;
    ok(dt >= 0.019 && dt < 5, "scr_now advances with time (%.4f s over a 20 ms sleep)",
       dt);
    units_wait_t w;
    units_wait_start(&w, 10);
    ok(!units_wait_due(&w), "a wait is not due when it starts");
    units_wait_start(&w, 0.05);
    usleep(60000);
    ok(units_wait_due(&w), "due once its period has passed");
    /* three periods and more missed: the next looks answer yes once (twice
     * if a period ends between them), not once per missed period */
    units_wait_start(&w, 0.3);
    usleep(1000000);
    int said = 0;
    for (int i = 0; i < 3; i++)
        said += units_wait_due(&w);
    ok(said >= 1 && said <= 2, "a late look is answered once, not a burst (%d)", said);
    ok(units_wait_elapsed(&w) >= 0.99, "elapsed counts the whole wait (%.3f s)",
       units_wait_elapsed(&w));
    return done_testing();
}
