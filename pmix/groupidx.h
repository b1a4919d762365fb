/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.h - every rank's group as an index, from each rank's group
 * name: its node (topo.c) and its failure group (a host, a power supply,
 * WORLD) for the redundancy sets (lib/base/desc.c, sets.h).
 *
 * Every rank needs every rank's group to form the sets alike, but not every
 * rank's name: the ranks gather a 16-digit hash of it (17 bytes a rank, 8
 * MiB at 10^6 ranks, where the names themselves were 512 bytes a rank, 512
 * MiB on every process; host names 256 bytes).  Each rank then sends its
 * name to the first rank of its hash, which checks that the names agree: a collision (two
 * names, one hash) would join two groups, so it is caught, and the names are gathered
 * whole instead.
 */
#ifndef SCR_GROUPIDX_H
#define SCR_GROUPIDX_H

#include <mpi.h>
#include <stdint.h>

/* a 64-bit hash of a NUL-terminated name */
typedef uint64_t (*groupidx_hash_fn)(const char *name);

/* idx[r] (ranks entries) becomes rank r's group index: equal names, equal
 * index, numbered by first appearance.  name is this rank's, at most
 * GROUPIDX_NAME - 1 bytes.  Collective.  Returns the number of groups, or
 * -1 (out of memory on some rank; every rank returns -1). */
#define GROUPIDX_NAME 512
int groupidx_build(MPI_Comm comm, const char *name, int *idx);

/* the same with another hash (a test's, to force collisions) */
int groupidx_build_hashed(MPI_Comm comm, const char *name, int *idx,
                          groupidx_hash_fn hash);

#endif
