/* Node-aware binomial reduce (commutative operations): a binomial tree among the node leaders,
 * a binomial tree inside each node; segments are reduced up both at once
 * (acct_reduce_nodes, acct/layout.h). Each node's link carries the
 * message once.
 * Cost (pLogP, ../cost.h): acct_reduce_hier_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

int acct_reduce_hier_binomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_nodes(c, s, ACCT_TREE_BINOMIAL, 2);
}

/* The node-aware tree's longest path, upwards, one reduction per child and
 * segment (acct_cost_nodes_tree_path). */
double acct_reduce_hier_binomial_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_nodes_tree_path(c, ACCT_TREE_BINOMIAL, 2, ACCT_REDUCE_INTRA, s, ns, true);
}
