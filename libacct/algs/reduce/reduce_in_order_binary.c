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

/* The binary tree's closed form (acct_reduce_binary_cost): the same tree,
 * rooted at P - 1 (the final hop to another root is not in it). */
double acct_reduce_in_order_binary_cost(const struct acct_cost *c)
{
    return acct_reduce_binary_cost(c);
}
