/* In-order binary reduce (Open MPI's): a binary tree rooted at rank P-1
 * whose every subtree is a contiguous rank range ending at its root
 * (right subtree below the left one), so non-commutative operations are
 * reduced in rank order; segmented. If the root is not P-1, rank P-1 sends
 * it the result at the end. Commutative operations: the same tree rotated
 * so that its top is the root (no final hop).
 * Cost (LogGP, m bytes in s segments, γ per byte reduced; seeds/001 Table 1
 * binary tree, in reverse): T = (log2(P) + s - 1) · 2 · (L + 2o +
 * (m/s - 1)G + γ m/s) [+ L + 2o + (m - 1)G when the root is not P-1]. */
#include "../algs.h"

int acct_reduce_in_order_binary(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_IN_ORDER_BINARY, 2);
}
