/* SPDX-License-Identifier: BSD-3-Clause */
/* interval.h - how often to checkpoint, and what resilience costs, from a
 * checkpoint's cost and the mean time between failures (MTBF).
 *
 * Daly's higher-order estimate of the optimal interval ("A higher order
 * estimate of the optimum checkpoint interval for restart dumps", FGCS
 * 2006), which for a cheap checkpoint is Young's sqrt(2 delta M), and his
 * model of the expected run time, whose waste is the fraction of machine
 * time lost to checkpoints, restarts and rework.  The library's
 * SCR_Need_checkpoint (SCR_MTBF), `scr report` and bench/README's
 * efficiency table share them.
 */
#ifndef SCR_INTERVAL_H
#define SCR_INTERVAL_H

/* seconds of computing between checkpoints that cost `cost` seconds each
 * on a job whose failures come every `mtbf` seconds on average; -1 when
 * either is not positive */
double interval_optimal(double cost, double mtbf);

/* the fraction of wall time that is not useful work (0..1) for a job that
 * computes `tau` seconds between checkpoints costing `cost`, restarts in
 * `restart` seconds after a failure, and fails every `mtbf` seconds on
 * average; -1 for arguments out of range */
double interval_waste(double tau, double cost, double restart, double mtbf);

/* a job's MTBF from each node's: nodes fail independently */
double interval_job_mtbf(double node_mtbf, int nodes);

/* "86400", "30d", "5y", "12h", "90m", "45s": seconds, or -1 when
 * malformed or not positive (a year is 365 days) */
double interval_parse_seconds(const char *str);

#endif
