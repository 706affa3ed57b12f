/* In-order binary reduce (Open MPI's): a binary tree rooted at rank P-1
 * whose every subtree is a contiguous rank range ending at its root
 * (right subtree below the left one), so non-commutative operations are
 * reduced in rank order; segmented. If the root is not P-1, rank P-1 sends
 * it the result at the end. Commutative operations: the same tree rotated
 * so that its top is the root (no final hop).
 * Cost (pLogP, ../cost.h): acct_reduce_in_order_binary_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_in_order_binary(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_IN_ORDER_BINARY, 2);
}

/* The rounds of the segmented tree reduce over the in-order tree
 * (acct_reduce_tree_cost, reduce_tree.c), any P: commutative, rotated to
 * the root, so no final hop. Its subtrees have the level-order tree's
 * sizes for P = 2^k, so there it equals acct_reduce_binary_cost. */
double acct_reduce_in_order_binary_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_reduce_tree_cost(c, ACCT_REDUCE_TREE_IN_ORDER_BINARY, s, ns);
}
