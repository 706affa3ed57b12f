/* Binomial reduce: a binomial tree, segmented; a node combines its own data
 * with its children's partial results (subtree [v, v + span) each).
 * Commutative operations: the tree is rotated to the root. Non-commutative
 * ones: it is rooted at rank 0, where every subtree is a contiguous rank
 * range combined in order, and rank 0 sends the result to the root if that
 * is another rank (as MPICH's binomial reduce).
 * Cost (LogGP, m bytes in s segments, γ per byte reduced; seeds/004
 * Table 4 binomial bcast and seeds/001 Table 1 segmented binomial, in
 * reverse): T = (ceil(log2 P) + s - 1)(L + 2o + (m/s - 1)G + γ m/s), about
 * ceil(log2 P)(L + 2o + (m - 1)G + γ m) unsegmented. */
#include "../algs.h"

int acct_reduce_binomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_BINOMIAL, 2);
}
