/* fault.h - fault points: named places where a test can make a process die,
 * armed by the environment in every build, so the tests exercise the code
 * that ships.
 *
 *   SCR_FAULT=POINT[#N][@RANK]
 *
 * kills the process (_exit(99), no cleanup, as a crash or a lost node would)
 * the N-th time (default: the first) it reaches POINT, on every process or
 * only on rank RANK.  Unset, a fault point costs one cached getenv.
 */
#ifndef SCR_FAULT_H
#define SCR_FAULT_H

#define FAULT_EXIT_STATUS 99

/* rank: the caller's rank, -1 when it has none */
void fault_point(const char *point, int rank);

#endif
