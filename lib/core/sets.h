/* SPDX-License-Identifier: BSD-3-Clause */
/* sets.h - partition ranks into redundancy sets across failure groups.
 *
 * A set never holds two processes of one failure group (guide 2.11), so
 * losing a group (a node, a power supply) costs each set at most one member.
 * SCR_Init cuts each row (the r-th rank of every group) into sets without
 * any process seeing the whole job (sets_row_piece); when a row is too
 * short for that, rank 0 runs sets_partition over the whole job: ranks are
 * taken row by row, the first rank of every group, then the second of every
 * group, and so on; a set closes when it reaches the wanted size or the next
 * rank's group is already in it.  A set left smaller than min_size borrows
 * a member or joins an earlier set that has none of its groups.  Pure
 * computation, no MPI.
 */
#ifndef SCR_SETS_H
#define SCR_SETS_H

#include <stdint.h>

/* group[r]: failure group index of world rank r (0..groups-1).
 * On return set_of[r] is the set id of rank r (the lowest rank in its set).
 * Returns the number of sets, or -1 on bad input. */
int sets_partition(const int *group, int ranks, int set_size, int min_size, int *set_of);

/* The rule of SCR_Init's distributed partition (lib/base/desc.c), where
 * no process sees every rank.  Row r is the r-th rank (by world rank) of
 * every group that has one, so its n ranks are all of different groups;
 * they are cut, in world rank order, into sets of set_size, and a last
 * piece smaller than min_size joins the piece before it.  Returns the
 * piece of the rank at position pos of its row, or -1 when the row has
 * fewer than min_size ranks (its ranks cannot make a set alone: the job
 * then takes sets_partition, which borrows across rows). */
int sets_row_piece(int n, int set_size, int min_size, int pos);

/* the number of ranks in piece `piece` of a row of n (sets_row_piece's
 * cut), or -1 for a piece the row does not have */
int sets_piece_size(int n, int set_size, int min_size, int piece);

/* Whether every rank's list of its set agrees with its members' lists,
 * from two sums over the job instead of a gather: each rank adds the terms
 * this returns for its list (members, n of them, ascending, self among
 * them) to sums[0] and sums[1], modulo 2^64.  When the lists agree each set
 * adds n * (the sum of h(list, m) over its members m) to both; a rank that
 * lists a member whose own list differs, or that has none, leaves them
 * unequal (but for a chance of 2^-64).  Returns -1, adding nothing, for a
 * list that is not ascending, has a negative rank or lacks self. */
int sets_agree_terms(const int *members, int n, int self, uint64_t sums[2]);

#endif
