/* reduce builders (one file each). */
#ifndef ACCT_ALGS_REDUCE_H
#define ACCT_ALGS_REDUCE_H

#include "acct/alg.h"
#include "acct/topo.h"

/* The trees of the segmented tree reduce (reduce_tree.c). */
enum acct_reduce_tree {
    ACCT_REDUCE_TREE_CHAIN = 0,           /* fan-out chains (1 = pipeline) */
    ACCT_REDUCE_TREE_BINARY = 1,          /* level-order binary: commutative only */
    ACCT_REDUCE_TREE_BINOMIAL = 2,        /* binomial */
    ACCT_REDUCE_TREE_IN_ORDER_BINARY = 3, /* in-order binary, rooted at P-1 */
};

/* Segmented tree reduce of c->count elements towards c->root, with the
 * buffer roles given explicitly so that composite algorithms (allreduce,
 * reduce_scatter_block) can reuse it:
 *   own  where this rank's contribution is (read only, unless own == out
 *        at the root: in place, own is then also the accumulator)
 *   out  where the result goes at the root (offset 0, count elements)
 *   tmp  the scratch buffer it may use (sized with acct_sched_tmp, typed
 *        like own); the caller must not use it for anything else
 * Non-commutative operations are reduced in rank order for every kind but
 * BINARY (which returns -1): the tree is then laid out on ranks (not on
 * ranks rotated by the root) and its root, rank 0 (P-1 for the in-order
 * tree), sends the result to c->root at the end if they differ. */
int acct_reduce_tree_io(const struct acct_call *c, struct acct_sched *s,
                        enum acct_reduce_tree kind, int fanout, enum acct_buf own,
                        enum acct_buf out, enum acct_buf tmp);
/* The same with MPI_Reduce's buffers: own = SEND (RECV at an in-place
 * root), out = RECV, tmp = TMP0. */
int acct_reduce_tree(const struct acct_call *c, struct acct_sched *s, enum acct_reduce_tree kind,
                     int fanout);

/* The closed form of the segmented reduce over a BINOMIAL, BINARY or
 * IN_ORDER_BINARY tree of c->p ranks (commutative, ns segments of s
 * bytes): the time of the rounds acct_reduce_tree_io emits, any P;
 * NAN for CHAIN (reduce_tree.c states the recurrence). */
double acct_reduce_tree_cost(const struct acct_cost *c, enum acct_reduce_tree kind, uint64_t s,
                             uint64_t ns);

/* Node-aware (commutative operations only; needs c->layout): the reduce
 * over the inter-node tree `inter` among node leaders and an
 * ACCT_REDUCE_INTRA tree on each node (acct_layout_tree), rooted at
 * c->root; buffers as acct_reduce_tree_io and acct_reduce_tree. */
#define ACCT_REDUCE_INTRA ACCT_TREE_BINOMIAL
int acct_reduce_nodes_io(const struct acct_call *c, struct acct_sched *s,
                         enum acct_tree_kind inter, int fanout, enum acct_buf own,
                         enum acct_buf out, enum acct_buf tmp);
int acct_reduce_nodes(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind inter,
                      int fanout);

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(reduce, linear);
ACCT_ALG_FUNCTIONS(reduce, chain);
ACCT_ALG_FUNCTIONS(reduce, pipeline);
ACCT_ALG_FUNCTIONS(reduce, binary);
ACCT_ALG_FUNCTIONS(reduce, binomial);
ACCT_ALG_FUNCTIONS(reduce, in_order_binary);
ACCT_ALG_FUNCTIONS(reduce, rabenseifner);
ACCT_ALG_FUNCTIONS(reduce, hier_chain);
ACCT_ALG_FUNCTIONS(reduce, hier_binomial);
ACCT_ALG_FUNCTIONS(reduce, hier_knomial);

#endif
