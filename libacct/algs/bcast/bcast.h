/* bcast builders (one file each). */
#ifndef ACCT_ALGS_BCAST_H
#define ACCT_ALGS_BCAST_H

#include "acct/alg.h"
#include "acct/topo.h"

int acct_bcast_tree(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind kind,
                    int fanout);
/* The segmented broadcast over tree t, given in ranks (parent -1 at the
 * root; children in serving order): the mechanism of acct_bcast_tree and
 * acct_bcast_nodes. */
int acct_bcast_over(const struct acct_call *c, struct acct_sched *s, const struct acct_tree *t);
/* Node-aware: the inter-node tree `inter` (fan-out as acct_tree_build
 * takes it) among node leaders, an ACCT_BCAST_INTRA tree on each node
 * (acct_layout_tree); needs c->layout. */
#define ACCT_BCAST_INTRA ACCT_TREE_BINOMIAL
int acct_bcast_nodes(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind inter,
                     int fanout);
int acct_bcast_scatter_allgather(const struct acct_call *c, struct acct_sched *s, bool ring);

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(bcast, linear);
ACCT_ALG_FUNCTIONS(bcast, chain);
ACCT_ALG_FUNCTIONS(bcast, pipeline);
ACCT_ALG_FUNCTIONS(bcast, binary);
ACCT_ALG_FUNCTIONS(bcast, binomial);
ACCT_ALG_FUNCTIONS(bcast, knomial);
ACCT_ALG_FUNCTIONS(bcast, scatter_allgather_rd);
ACCT_ALG_FUNCTIONS(bcast, scatter_allgather_ring);
ACCT_ALG_FUNCTIONS(bcast, split_binary);
ACCT_ALG_FUNCTIONS(bcast, hier_chain);
ACCT_ALG_FUNCTIONS(bcast, hier_binomial);
ACCT_ALG_FUNCTIONS(bcast, hier_knomial);

#endif
