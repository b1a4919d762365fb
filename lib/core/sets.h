/* SPDX-License-Identifier: BSD-3-Clause */
/* sets.h - partition ranks into redundancy sets across failure groups.
 *
 * A set never holds two processes of one failure group (guide 2.11), so
 * losing a group (a node, a power supply) costs each set at most one member.
 * Ranks are taken row by row: the first rank of every group, then the second
 * of every group, and so on; a set closes when it reaches the wanted size or
 * the next rank's group is already in it.  A set left smaller than min_size
 * joins an earlier set that has none of its groups.  Pure computation, no
 * MPI, so every process computes the same answer from the same input.
 */
#ifndef SCR_SETS_H
#define SCR_SETS_H

/* group[r]: failure group index of world rank r (0..groups-1).
 * On return set_of[r] is the set id of rank r (the lowest rank in its set).
 * Returns the number of sets, or -1 on bad input. */
int sets_partition(const int *group, int ranks, int set_size, int min_size, int *set_of);

#endif
