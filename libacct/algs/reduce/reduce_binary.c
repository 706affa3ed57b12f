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

/* P = 2^k > 2: 2 (ns - 1) g(s) + max(k (g(s) + L) + (2k - 1) gamma s,
 * (k - 1)(2 g(s) + L) + 2 (k - 1) gamma s); P = 2: ns g(s) + L + gamma s;
 * other P: the bcast bound plus 2 ceil(log2 P) gamma s. */
double acct_reduce_binary_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    if (c->p == 2)
        return (double)(ns - 1) * cost_g(c, s) + cost_g(c, s) + cost_L(c) + cost_gamma(c, s);
    if (!cost_pow2(c->p))
        return acct_cost_binary(c, s, ns) + 2 * cost_clog2(c->p) * cost_gamma(c, s);
    int k = cost_ilog2(c->p);
    double a = k * (cost_g(c, s) + cost_L(c)) + (2 * k - 1) * cost_gamma(c, s);
    double b = (k - 1) * (2 * cost_g(c, s) + cost_L(c)) + 2 * (k - 1) * cost_gamma(c, s);
    return 2.0 * (double)(ns - 1) * cost_g(c, s) + (a > b ? a : b);
}
