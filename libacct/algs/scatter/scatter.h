/* scatter builders (one file each). They share gather's block helpers
 * (granules, pieces, chains: gather/gather.h). */
#ifndef ACCT_ALGS_SCATTER_H
#define ACCT_ALGS_SCATTER_H

#include "acct/alg.h"
#include "acct/topo.h"

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(scatter, linear);
ACCT_ALG_FUNCTIONS(scatter, chain);
ACCT_ALG_FUNCTIONS(scatter, binomial);
ACCT_ALG_FUNCTIONS(scatter, hier_linear);
ACCT_ALG_FUNCTIONS(scatter, hier_binomial);
/* The node-aware scatters' last phase in their closed forms: a leader of
 * q ranks hands out q - 1 blocks at the intra-node level and copies its
 * own (scatter_hier_linear.c). */
double acct_scatter_hier_nodes_tail(const struct acct_cost *c, int q);

/* The binomial tree's longest path from the root by subtree span, any P,
 * in O(log P) (scatter_binomial.c): a node serves its children largest
 * subtree first, the j-th after the gaps of the first j, each w = g(span m)
 * with blocks (a scatter of m-byte blocks), else g(m) (one segment of a
 * broadcast); the child has it L after its gap. NAN without a tree. */
double acct_binomial_span_path(const struct acct_cost *c, uint64_t m, bool blocks);

#endif
