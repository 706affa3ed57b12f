/* Binomial broadcast: a binomial tree (largest subtree served first), segmented.
 * Cost (pLogP, ../cost.h): acct_bcast_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_binomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_BINOMIAL, 2);
}

/* The segmented binomial tree's closed form (acct_cost_binomial_tree). */
double acct_bcast_binomial_cost(const struct acct_cost *c)
{
    return acct_cost_binomial_tree(c);
}
