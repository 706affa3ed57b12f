/* Node-aware chain reduce (commutative operations): f chains (f = fan-out, 1 = one pipeline) among the node leaders,
 * a binomial tree inside each node; segments are reduced up both at once
 * (acct_reduce_nodes, acct/layout.h). Each node's link carries the
 * message once.
 * Cost (pLogP, ../cost.h): acct_reduce_hier_chain_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

int acct_reduce_hier_chain(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_nodes(c, s, ACCT_TREE_CHAIN, c->fanout);
}

/* The node-aware tree's longest path, upwards, one reduction per child and
 * segment (acct_cost_nodes_tree_path). */
double acct_reduce_hier_chain_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_nodes_tree_path(c, ACCT_TREE_CHAIN, c->fanout, ACCT_REDUCE_INTRA, s, ns, true);
}
