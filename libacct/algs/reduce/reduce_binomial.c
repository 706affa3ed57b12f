/* Binomial reduce: a binomial tree, segmented; a node combines its own data
 * with its children's partial results (subtree [v, v + span) each).
 * Commutative operations: the tree is rotated to the root. Non-commutative
 * ones: it is rooted at rank 0, where every subtree is a contiguous rank
 * range combined in order, and rank 0 sends the result to the root if that
 * is another rank (as MPICH's binomial reduce).
 * Cost (pLogP, ../cost.h): acct_reduce_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_binomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_BINOMIAL, 2);
}

/* The rounds of the segmented tree reduce (acct_reduce_tree_cost,
 * reduce_tree.c), any P. For P = 2^k it is the bcast binomial form plus
 * the reductions on the critical path (BM04 Table 1 reversed):
 * (ns - 1) k g(s) + k (g(s) + L) + k (k + 1) / 2 gamma s (a node with
 * subtree 2^i reduces i children's segments). */
double acct_reduce_binomial_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_reduce_tree_cost(c, ACCT_REDUCE_TREE_BINOMIAL, s, ns);
}
