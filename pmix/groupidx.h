/* SPDX-License-Identifier: BSD-3-Clause */
/* groupidx.h - the group each rank is in, from each rank's group name: its
 * node (topo.c) and its failure group (a host, a power supply) for the
 * redundancy sets (lib/base/desc.c, sets.h).
 *
 * The ranks of one name meet at a home process picked by the name's hash
 * (rdv.h), which tells each how many share its name, its index among them
 * and their lowest rank.  No process holds anything of every rank: rank 0
 * used to gather a 17-byte hash of every rank's name (17 MiB at 10^6
 * ranks), and before that every process gathered the names themselves (768
 * MiB each).  Names are compared whole at the home, so two names of one
 * hash stay two groups.
 */
#ifndef SCR_GROUPIDX_H
#define SCR_GROUPIDX_H

#include <mpi.h>
#include <stdint.h>

/* a 64-bit hash of a NUL-terminated name */
typedef uint64_t (*groupidx_hash_fn)(const char *name);

/* the hash that sends each name to its home (FNV-1a) */
uint64_t groupidx_hash(const char *name);

/* names are at most GROUPIDX_NAME - 1 bytes */
#define GROUPIDX_NAME 512

typedef struct {
    int ngroups;  /* groups in the job, on every rank */
    int size;     /* ranks in this rank's group */
    int row;      /* this rank's index in its group, by rank */
    int first;    /* the lowest rank of its group */
    int *members; /* with members: the group's ranks, ascending; malloc'd */
} groupidx_t;

/* name is this rank's.  want_members (the same on every rank) also gives
 * each rank its group's list: for small groups (a node's ranks),
 * as every rank of a group gets the whole list.  Collective; no memory
 * for the rendezvous ends the job (rdv.h). */
void groupidx_build(MPI_Comm comm, const char *name, int want_members, groupidx_t *gi);

/* the same with another hash (a test's, to send every name to one home) */
void groupidx_build_hashed(MPI_Comm comm, const char *name, int want_members,
                           groupidx_t *gi, groupidx_hash_fn hash);

/* The same facts from a list each rank already holds of its group's ranks
 * (a node's, from PMIx): members (n ranks of comm, any order, malloc'd)
 * becomes gi->members, sorted.  A rank with no list passes NULL.  When any
 * rank has none, or a list that does not hold it once among ranks of comm,
 * every rank gets -1 and frees its list.  Collective: one MPI_Allreduce,
 * whose messages go where the application's collectives already go. */
int groupidx_from_list(MPI_Comm comm, int *members, int n, groupidx_t *gi);

/* A comma-separated list of ranks ("0,1,5", as PMIx lists a node's) into
 * a malloc'd array.  Returns its length, or -1 (empty, not a list of
 * ranks, no memory). */
int groupidx_parse_ranks(const char *list, int **ranks);

/* Rows: row r is the r-th rank of every group that has one.  Gives each
 * rank its row's length (*count) and the number of its row's ranks of
 * lower rank (*pos), from one MPI_Allreduce and one MPI_Exscan of a count
 * per row: first over first_rows rows, the longer groups counted together;
 * when there are any, again over as many rows as the longest group has,
 * unless that is more than max_rows.  *rows becomes the number of rows
 * counted (the same on every rank).  Collective.  Returns the length of
 * the shortest row, -1 on every rank when a group has more than max_rows
 * ranks, or -2 on this rank when it is out of memory. */
int groupidx_rows(MPI_Comm comm, const groupidx_t *gi, int first_rows, int max_rows,
                  int *count, int *pos, int *rows);

void groupidx_free(groupidx_t *gi);

#endif
