/* Binomial broadcast: a binomial tree (largest subtree served first), segmented.
 * Cost (pLogP, ../cost.h): acct_bcast_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_binomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_BINOMIAL, 2);
}

/* P = 2^k: the k-nomial form with radix 2 (BM04 Table 1 "Seg. Binomial
 * Tree"): (ns - 1) k g(s) + k (g(s) + L); other P: the tree's longest path
 * (acct_cost_tree_path). */
double acct_bcast_binomial_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return cost_pow2(c->p) ? acct_cost_knomial(c, 2, s, ns) : acct_cost_tree_path(c, ACCT_TREE_BINOMIAL, 2, s, ns);
}
