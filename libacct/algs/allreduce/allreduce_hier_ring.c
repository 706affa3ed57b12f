/* Node-aware allreduce with ring among the node leaders: each node reduces
 * into its leader, the leaders run allreduce ring among themselves, each
 * leader broadcasts the result over its node (allreduce_nodes.c).
 * Cost (pLogP, ../cost.h): acct_allreduce_hier_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allreduce_hier_ring(const struct acct_call *c, struct acct_sched *s)
{
    return acct_allreduce_nodes(c, s, "ring");
}

/* Intra-node binomial reduce and bcast plus ring among the leaders
 * (acct_allreduce_nodes_cost). */
double acct_allreduce_hier_ring_cost(const struct acct_cost *c)
{
    return acct_allreduce_nodes_cost(c, "ring");
}
