/* SPDX-License-Identifier: BSD-3-Clause */
/* test_interval.c - the optimal checkpoint interval, the waste it leaves,
 * and MTBF strings */
#include <math.h>

#include "interval.h"
#include "tap.h"

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}

/* no interval on a grid around tau wastes less than tau does */
static int is_minimum(double tau, double cost, double restart, double mtbf)
{
    double w = interval_waste(tau, cost, restart, mtbf);
    for (double f = 0.2; f <= 5.0; f += 0.01)
        if (interval_waste(tau * f, cost, restart, mtbf) < w - 1e-12)
            return 0;
    return w >= 0;
}

int main(void)
{
    /* one minute per checkpoint, a day between failures: Daly's estimate,
     * a little under Young's sqrt(2 * 60 * 86400) = 3219.9 */
    ok(near(interval_optimal(60, 86400), 3180.06, 0.01), "Daly: 60 s, 1 day");
    ok(interval_optimal(60, 86400) < sqrt(2 * 60 * 86400.0), "below Young's");
    ok(near(interval_optimal(0.5, 1e7), sqrt(2 * 0.5 * 1e7), 0.01 * sqrt(1e7)),
       "a cheap checkpoint: Young's within 1 percent");
    ok(is_minimum(interval_optimal(60, 86400), 60, 60, 86400),
       "it minimizes the waste of Daly's model");
    ok(is_minimum(interval_optimal(600, 3600), 600, 300, 3600),
       "also when a checkpoint costs a sixth of the MTBF");
    ok(interval_optimal(9000, 4000) == 4000, "cost past 2 MTBF: the MTBF");
    ok(interval_optimal(0, 100) < 0 && interval_optimal(10, 0) < 0 &&
           interval_optimal(NAN, 10) < 0,
       "no cost or no MTBF: -1");

    ok(near(interval_waste(3180.06, 60, 60, 86400), 0.037475, 1e-5),
       "waste at the optimum: 3.75 percent");
    ok(near(interval_waste(1e9, 0, 0, 1e12), 0.0005, 1e-4), "rare failures: almost none");
    ok(interval_waste(100, 1e6, 1e6, 10) == 1, "hopeless: all of it");
    ok(interval_waste(0, 1, 1, 10) < 0 && interval_waste(10, -1, 1, 10) < 0,
       "out of range: -1");

    ok(interval_job_mtbf(5 * 365 * 86400.0, 1024) > 153984 &&
           interval_job_mtbf(5 * 365 * 86400.0, 1024) < 153985,
       "5 years per node, 1024 nodes: 42.8 h");
    ok(interval_job_mtbf(100, 0) < 0, "no nodes: -1");

    ok(interval_parse_seconds("86400") == 86400, "plain seconds");
    ok(interval_parse_seconds("1.5h") == 5400, "hours");
    ok(interval_parse_seconds("5y") == 5 * 365 * 86400.0, "years of 365 days");
    ok(interval_parse_seconds("30d") == 30 * 86400.0 &&
           interval_parse_seconds("90m") == 5400 && interval_parse_seconds("45s") == 45,
       "days, minutes, seconds");
    ok(interval_parse_seconds("") < 0 && interval_parse_seconds("5w") < 0 &&
           interval_parse_seconds("-3") < 0 && interval_parse_seconds("0") < 0 &&
           interval_parse_seconds("3 d") < 0 && interval_parse_seconds("inf") < 0,
       "malformed, zero or negative: -1");
    return done_testing();
}
