/* Node-aware chain broadcast: f chains (f = fan-out, 1 = one pipeline)
 * among the node leaders, a binomial tree inside each node; segments flow
 * through both (acct_bcast_nodes, acct/layout.h). Each node's link carries
 * the message once.
 * Cost (pLogP, ../cost.h): acct_bcast_hier_chain_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

int acct_bcast_hier_chain(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_nodes(c, s, ACCT_TREE_CHAIN, c->fanout);
}

/* The node-aware tree's longest path (acct_cost_nodes_tree_path). */
double acct_bcast_hier_chain_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_nodes_tree_path(c, ACCT_TREE_CHAIN, c->fanout, ACCT_BCAST_INTRA, s, ns, false);
}
