/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.h - every rank's group as an index, from each rank's group
 * name: its node (topo.c) and its failure group (a host, a power supply,
 * WORLD) for the redundancy sets (lib/base/desc.c, sets.h).
 *
 * One process, the root (rank 0), numbers the groups, and only it holds
 * anything per rank: it gathers a 16-digit hash of each rank's name (17
 * bytes a rank, 17 MiB at 10^6 ranks, where every process gathered the
 * names themselves: 512 bytes a rank for a failure group, 256 for a host,
 * 768 MiB on every process).  The root tells each rank the first rank of
 * its hash, and each rank sends its name there to be compared: a collision
 * (two names, one hash) would join two groups, so it is caught, and the
 * root gathers the names whole instead.
 */
#ifndef SCR_GROUPIDX_H
#define SCR_GROUPIDX_H

#include <mpi.h>
#include <stdint.h>

/* a 64-bit hash of a NUL-terminated name */
typedef uint64_t (*groupidx_hash_fn)(const char *name);

/* names are at most GROUPIDX_NAME - 1 bytes */
#define GROUPIDX_NAME 512

/* name is this rank's.  At rank 0 of comm, idx (as many entries as comm
 * has ranks; ignored elsewhere) becomes every rank's group index: equal
 * names, equal index, numbered by first appearance.  *mine becomes this
 * rank's index.  Collective.  Returns the number of groups on every rank,
 * or -1 on every rank (out of memory). */
int groupidx_build(MPI_Comm comm, const char *name, int *idx, int *mine);

/* the same with another hash (a test's, to force collisions) */
int groupidx_build_hashed(MPI_Comm comm, const char *name, int *idx, int *mine,
                          groupidx_hash_fn hash);

#endif
