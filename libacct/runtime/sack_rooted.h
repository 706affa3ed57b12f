/* SACK reordering of the rooted collectives other than bcast (internal;
 * docs/sack.md "Scatter", paper 002 §5). bcast is sack.h.
 *
 * scatter: the root hands out tree positions in SACK arrival order (the
 * fill orders of sack_plan.h, as for bcast), so early processes get the
 * interior positions and late ones the leaves. The data of a position is
 * the block of the RANK placed there, which the root knows only once that
 * rank has arrived: so blocks do not travel as one message per subtree (the
 * static schedule) but one block per message, in the order the positions
 * were handed out, each down the path from the root to its position.
 *
 * Messages use ACCT's private duplicate of the communicator and tags of
 * their own (neither coll.c's nor sack.h's). */
#ifndef ACCT_RT_SACK_ROOTED_H
#define ACCT_RT_SACK_ROOTED_H

#include <stdint.h>

#include <mpi.h>

#include "sack_plan.h"

/* The tags of the scatter protocol (below MPI's guaranteed MPI_TAG_UB). */
enum {
    SACK_TAG_SC_SACK = 0x5345,  /* non-root -> root: start-acknowledge */
    SACK_TAG_SC_CTRL = 0x5346,  /* root -> parent: "position p is rank r" */
    SACK_TAG_SC_FIRST = 0x5347, /* parent -> child: {position, block, fill} */
    SACK_TAG_SC_DATA = 0x5348,  /* parent -> child: one position's block */
};

/* Scatter blocks of `block` bytes from root over tree t (t->size = the
 * communicator size), with reordering, on priv (the private duplicate;
 * rank is this process's rank in it). At the root sbuf holds t->size
 * blocks in rank order; rbuf receives this rank's block (NULL at the root:
 * MPI_IN_PLACE). Every rank of the communicator must call it for the same
 * call. Returns MPI_SUCCESS or an MPI error code. */
int rt_sack_scatter(const char *sbuf, char *rbuf, uint64_t block, int root,
                    const struct sack_tree *t, MPI_Comm priv, int rank);

#endif
