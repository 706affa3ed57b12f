/* Node-aware k-nomial broadcast: a radix-k tree (k = fan-out) among the
 * node leaders, a binomial tree inside each node; segments flow through
 * both (acct_bcast_nodes, acct/layout.h).
 * Cost (pLogP, ../cost.h): acct_bcast_hier_knomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

int acct_bcast_hier_knomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_nodes(c, s, ACCT_TREE_KNOMIAL, c->fanout);
}

/* The node-aware tree's longest path (acct_cost_nodes_tree_path). */
double acct_bcast_hier_knomial_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_nodes_tree_path(c, ACCT_TREE_KNOMIAL, c->fanout, ACCT_BCAST_INTRA, s, ns, false);
}
