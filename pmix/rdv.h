/* SPDX-License-Identifier: BSD-3-Clause */
/* rdv.h - processes holding equal keys find each other, and no process
 * holds anything of every rank.
 *
 * Each process sends its key to a home process picked by the key's hash,
 * through xchg.h's sparse exchange: homes need not know how many keys will
 * come.  Once every key has arrived, a home
 * sorts what it got by key and rank and answers each sender: how many hold
 * its key, its index among them by rank, the lowest rank, and optionally
 * the whole ascending list.  Keys are compared whole, so two keys of one
 * hash are told apart.
 *
 * What one process holds is what was sent to it: a few keys each for
 * names spread by a good hash (a node's ranks share a key: one message per
 * rank, one home per node).  This replaces gathers to rank 0 and Open MPI's
 * MPI_Comm_split, which gathers every rank's color and key on every
 * process.  Used for node and failure group numbering (groupidx.h) and for
 * the redundancy sets (lib/base/desc.c).
 */
#ifndef SCR_RDV_H
#define SCR_RDV_H

#include <mpi.h>
#include <stdint.h>

typedef struct {
    int count;    /* processes that gave this key */
    int row;      /* this process's index among them, by rank */
    int first;    /* the lowest rank among them */
    int *members; /* with want_members: all of them, ascending; malloc'd */
    int keys;     /* distinct keys given in the job, on every process */
} rdv_peers_t;

/* Collective over comm.  key (len bytes, at most RDV_KEY_MAX) and its hash,
 * whose value modulo comm's size is the home (equal keys need equal
 * hashes; a hash that spreads the keys spreads the homes' work); key NULL
 * takes part without a key (peers then stays empty: count 0).  want_members must be the
 * same on every process. No memory for what a home was sent or must answer, or a longer
 * key, ends the job (MPI_Abort, with a line saying so): the senders would wait forever.
 */
void rdv_find(MPI_Comm comm, const void *key, int len, uint64_t hash, int want_members,
              rdv_peers_t *peers);

void rdv_peers_free(rdv_peers_t *peers);

/* *out over members (n ranks of comm, ascending), made by the members
 * alone (MPI_Comm_create_group with tag): MPI_Comm_split would have every
 * process gather every rank's color and key (Open MPI 4.1).  Collective
 * over the members.  0, or -1 (an MPI error). */
int rdv_comm_create(MPI_Comm comm, const int *members, int n, int tag, MPI_Comm *out);

#define RDV_KEY_MAX 1024

#endif
