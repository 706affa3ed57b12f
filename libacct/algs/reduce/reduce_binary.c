/* Binary reduce: a complete binary tree in level order rotated to the root,
 * segmented. Its subtrees are not rank ranges, so commutative operations
 * only (as Open MPI's binary reduce); in_order_binary is the
 * order-preserving variant.
 * Cost (LogGP, m bytes in s segments, γ per byte reduced; seeds/001 Table 1
 * binary tree, in reverse): T = (log2(P) + s - 1) · 2 · (L + 2o +
 * (m/s - 1)G + γ m/s). */
#include "../algs.h"

int acct_reduce_binary(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_BINARY, 2);
}
