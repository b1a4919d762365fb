/* SPDX-License-Identifier: BSD-3-Clause */
/* interval.c - the optimal checkpoint interval and the waste it leaves
 * (interval.h) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interval.h"

double interval_optimal(double cost, double mtbf)
{
    if (!(cost > 0) || !(mtbf > 0))
        return -1;
    /* past 2M a checkpoint costs more than the work it saves: Daly's
     * answer is the MTBF itself */
    if (cost >= 2 * mtbf)
        return mtbf;
    double r = cost / (2 * mtbf);
    return sqrt(2 * cost * mtbf) * (1 + sqrt(r) / 3 + r / 9) - cost;
}

double interval_waste(double tau, double cost, double restart, double mtbf)
{
    if (!(tau > 0) || cost < 0 || restart < 0 || !(mtbf > 0))
        return -1;
    /* expected wall time per second of work (Daly, eq. 20):
     * M e^(R/M) (e^((tau + delta)/M) - 1) / tau */
    double per_work = mtbf * exp(restart / mtbf) * expm1((tau + cost) / mtbf) / tau;
    if (!isfinite(per_work) || per_work < 1)
        return per_work < 1 ? 0 : 1;
    return 1 - 1 / per_work;
}

double interval_job_mtbf(double node_mtbf, int nodes)
{
    return node_mtbf > 0 && nodes > 0 ? node_mtbf / nodes : -1;
}

double interval_parse_seconds(const char *str)
{
    static const struct {
        char unit;
        double secs;
    } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'y', 365 * 86400.0}};
    char *end;
    if (!str || !*str)
        return -1;
    double v = strtod(str, &end);
    if (end == str || !(v > 0) || !isfinite(v))
        return -1;
    if (*end == '\0')
        return v;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (end[0] == units[i].unit && end[1] == '\0')
            return v * units[i].secs;
    return -1;
}
