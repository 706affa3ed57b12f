/* Binary broadcast: a complete binary tree in level order, segmented.
 * Cost (pLogP, ../cost.h): acct_bcast_binary_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_binary(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_BINARY, 2);
}

/* P = 2^k: 2 (ns - 1) g(s) + max(k (g(s) + L), (k - 1)(2 g(s) + L))
 * (acct_cost_binary); other P: the tree's longest path (acct_cost_tree_path). */
double acct_bcast_binary_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return cost_pow2(c->p) ? acct_cost_binary(c, s, ns) : acct_cost_tree_path(c, ACCT_TREE_BINARY, 0, s, ns);
}
