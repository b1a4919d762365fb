/* SPDX-License-Identifier: BSD-3-Clause */
/* namesketch.h - which of this rank's names no other rank holds, from sums
 * of counts in buckets picked by each name's hash.
 *
 * A name alone in its bucket across the job is held by this rank only; a
 * name another rank also holds, or one sharing its bucket with another
 * rank's name, is "maybe shared", and only those go on to an exact join at
 * a home rank (bypass.c).  The sums travel where the application's own
 * sums go: a join sends every name to a rank its hash picks, and over TCP
 * Open MPI keeps each connection it opens and polls all of them at every
 * progress call, so a join at every checkpoint slowed the application's
 * collectives (bench/README.md).  With a file per rank almost every name
 * comes out unique and nothing is sent, and where no bucket sums to more
 * than 1 (every rank sees the same sums) nobody joins at all.
 */
#ifndef SCR_NAMESKETCH_H
#define SCR_NAMESKETCH_H

#include <mpi.h>

/* Buckets: 256 a name, at least 2^14 and at most 2^16 (128 KiB of
 * 16-bit counts to sum).  With more than NAMESKETCH_MAX_NAMES names in the
 * job every name is taken as maybe shared without the sum: at that many a
 * name meets another rank's in its bucket one time in sixteen. */
#define NAMESKETCH_MIN_BUCKETS (1 << 14)
#define NAMESKETCH_MAX_BUCKETS (1 << 16)
#define NAMESKETCH_MAX_NAMES 4096

/* names[i] (n of them, distinct on this rank): shared[i] = 0 when no other
 * rank of comm holds names[i], 1 when one may.  Collective: two
 * MPI_Allreduce calls (the names in all, then the buckets' counts).
 * Returns the number of maybe-shared names here, or -1 on every rank with
 * every name marked maybe shared when a rank had no memory or passed n < 0
 * (it could not list its names).  *crowded (if not NULL), the same on
 * every rank: 0 when no bucket's sum is above 1, so no name of any rank
 * can be another's and nobody needs the exact join, else 1. */
int namesketch_shared(MPI_Comm comm, const char *const *names, int n,
                      unsigned char *shared, int *crowded);

#endif
