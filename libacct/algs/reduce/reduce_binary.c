/* Binary reduce: a complete binary tree in level order rotated to the root,
 * segmented. Its subtrees are not rank ranges, so commutative operations
 * only (as Open MPI's binary reduce); in_order_binary is the
 * order-preserving variant.
 * Cost (pLogP, ../cost.h): acct_reduce_binary_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_binary(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_BINARY, 2);
}

/* The rounds of the segmented tree reduce over the level-order tree
 * (acct_reduce_tree_cost, reduce_tree.c), any P. For P = 2^k > 2 it is
 * 2 (ns - 1) g(s) + max(k (g(s) + L) + (2k - 1) gamma s,
 * (k - 1)(2 g(s) + L) + 2 (k - 1) gamma s) (BM04 Table 1 reversed);
 * P = 2: ns g(s) + L + gamma s. */
double acct_reduce_binary_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_reduce_tree_cost(c, ACCT_REDUCE_TREE_BINARY, s, ns);
}
