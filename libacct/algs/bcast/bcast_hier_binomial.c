/* Node-aware binomial broadcast: a binomial tree among the node leaders, a
 * binomial tree inside each node; segments flow through both
 * (acct_bcast_nodes, acct/layout.h).
 * Cost (pLogP, ../cost.h): acct_bcast_hier_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

int acct_bcast_hier_binomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_nodes(c, s, ACCT_TREE_BINOMIAL, 2);
}

/* The node-aware tree's longest path (acct_cost_nodes_tree_path). */
double acct_bcast_hier_binomial_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_nodes_tree_path(c, ACCT_TREE_BINOMIAL, 2, ACCT_BCAST_INTRA, s, ns, false);
}
