/* Node-aware allreduce with recursive_doubling among the node leaders: each node reduces
 * into its leader, the leaders run allreduce recursive_doubling among themselves, each
 * leader broadcasts the result over its node (allreduce_nodes.c).
 * Cost (pLogP, ../cost.h): acct_allreduce_hier_recursive_doubling_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allreduce_hier_recursive_doubling(const struct acct_call *c, struct acct_sched *s)
{
    return acct_allreduce_nodes(c, s, "recursive_doubling");
}

/* Intra-node binomial reduce and bcast plus recursive_doubling among the leaders
 * (acct_allreduce_nodes_cost). */
double acct_allreduce_hier_recursive_doubling_cost(const struct acct_cost *c)
{
    return acct_allreduce_nodes_cost(c, "recursive_doubling");
}
