/* K-nomial broadcast: a radix-k tree (k = fan-out; k = 2 is binomial),
 * segmented, largest subtree first.
 * Cost (pLogP, ../cost.h): acct_bcast_knomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_knomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_KNOMIAL, c->fanout);
}

/* Radix k = f, P = k^d: (ns - 1) d (k - 1) g(s) + d ((k - 1) g(s) + L)
 * (acct_cost_knomial); other P: the tree's longest path (acct_cost_tree_path). */
double acct_bcast_knomial_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    int k = c->fanout;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    double t = acct_cost_knomial(c, k, s, ns);
    long q = 1;
    while (q < c->p)
        q *= k;
    return q == c->p ? t : acct_cost_tree_path(c, ACCT_TREE_KNOMIAL, k, s, ns);
}
