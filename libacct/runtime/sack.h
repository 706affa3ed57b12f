/* SACK reordering at run time (internal; docs/sack.md, paper 002 §5).
 *
 * A tree broadcast whose decision has `reorder: true` runs here instead of
 * through a static schedule: every non-root sends a start-acknowledge to
 * the root on entry, the root hands out tree positions in arrival order
 * (sack_plan.h: depth- or breadth-first), tells each parent about its
 * children as they are placed, and each parent tells a child its position
 * piggy-backed on the first data segment. Data flows down the tree in
 * segments, each parent serving each child independently as soon as it is
 * known, so a late process delays only itself (and its own subtree, which
 * it gets only if it arrived early enough to be given one).
 *
 * Messages use ACCT's private duplicate of the communicator and their own
 * tags (never coll.c's): no message can match the application's or a
 * schedule's. */
#ifndef ACCT_RT_SACK_H
#define ACCT_RT_SACK_H

#include <stdint.h>

#include <mpi.h>

#include "sack_plan.h"

/* The tags of the protocol (all below MPI's guaranteed MPI_TAG_UB 32767). */
enum {
    SACK_TAG_SACK = 0x5341,  /* non-root -> root: start-acknowledge */
    SACK_TAG_CTRL = 0x5342,  /* root -> parent: "position p is rank r" */
    SACK_TAG_FIRST = 0x5343, /* parent -> child: position (+ segment 0) */
    SACK_TAG_DATA = 0x5344,  /* parent -> child: the other segments */
};

/* The fill order the root uses: ACCT_SACK_FILL=df|bf, read once (default
 * df). Only the root's value matters (the other ranks learn their places
 * from messages), so it need not be agreed between ranks. */
enum sack_fill rt_sack_fill(void);

/* Broadcast `bytes` bytes at buf (the root's are the input) from root over
 * tree t (t->size = the communicator size) in segments of seg bytes (0: one
 * segment), with reordering, on priv (the private duplicate; rank is this
 * process's rank in it). Every rank of the communicator must call it for
 * the same call. Returns MPI_SUCCESS or an MPI error code. */
int rt_sack_bcast(char *buf, uint64_t bytes, uint64_t seg, int root, const struct sack_tree *t,
                  MPI_Comm priv, int rank);

#endif
