/* SACK reordering of the rooted collectives other than bcast (internal;
 * docs/sack.md "Scatter" and "Gather and reduce", Vadhiyar et al. 2000, §5). bcast is
 * sack.h.
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
 * their own (tags.h). */
#ifndef ACCT_RT_SACK_ROOTED_H
#define ACCT_RT_SACK_ROOTED_H

#include <stdint.h>

#include <mpi.h>

#include "sack_plan.h"
#include "tags.h"

struct sack_probe; /* sack.h */

/* Scatter blocks of `block` bytes from root over tree t (t->size = the
 * communicator size), with reordering, on priv (the private duplicate;
 * rank is this process's rank in it). At the root sbuf holds t->size
 * blocks in rank order; rbuf receives this rank's block (NULL at the root:
 * MPI_IN_PLACE). Every rank of the communicator must call it for the same
 * call. Returns MPI_SUCCESS or an MPI error code. */
int rt_sack_scatter(const char *sbuf, char *rbuf, uint64_t block, int root,
                    const struct sack_tree *t, MPI_Comm priv, int rank);

/* ---- gather and reduce: data flows up (sack_up.c) -----------------------
 *
 * The root hands out tree positions in SACK arrival order along the same
 * fill orders (parents before children), so the latest processes end up
 * on leaves, and the last one (DF) on the leaf served last. Each process
 * learns its position and its parent's rank from the root (ASSIGN), and
 * each parent its children's ranks (CTRL), as they are placed; data goes
 * up as soon as the parent is known. gather: every block travels as its
 * own message tagged with its position, forwarded hop by hop as it
 * arrives, and the root receives each straight into the rank's place of
 * its receive buffer. reduce (commutative operations only: the order of
 * the operands follows the arrivals): a node reduces each child's
 * segments into its partial result as they arrive and sends segment s up
 * once every child's segment s is in.
 *
 * The automatic mode (sack.h) works as for bcast: with pr (may be NULL),
 * a probe call (pr->probe, the same on every rank) has the root judge
 * with sack_auto_judge_up once every SACK is in and send its vote to
 * every rank (pr->vote on return; the root's pr->gain, pr->cost). Each
 * SACK carries its sender's pr->rate (s per byte, 0: none; the root uses
 * the fastest of those and its own), and on return pr->rate holds what this rank measured: the
 * fastest child's first-to-last piece, or at the root a leaf child's data
 * from its SACK on (0: nothing to measure). The largest communicator whose
 * gather can be reordered is SACK_UP_GATHER_MAX (tags.h). */

/* Gather blocks of `block` bytes to root over tree t, with reordering. sbuf:
 * this rank's block (NULL at the root: MPI_IN_PLACE, its block is already
 * in place); rbuf at the root: t->size blocks in rank order. */
int rt_sack_gather(const char *sbuf, char *rbuf, uint64_t block, int root,
                   const struct sack_tree *t, MPI_Comm priv, int rank, struct sack_probe *pr);

/* Reduce count elements of dt with the commutative op to root over tree t
 * in segments of seg elements (0: one segment), with reordering. sbuf NULL
 * at the root: MPI_IN_PLACE (the root's input is in rbuf). rbuf is
 * significant at the root only. Memory: a copy of the input at every node
 * with children, plus min(segments, 4) segments per child. */
int rt_sack_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   uint64_t seg, int root, const struct sack_tree *t, MPI_Comm priv, int rank,
                   struct sack_probe *pr);

#endif
