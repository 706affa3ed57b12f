/* Binomial broadcast: a binomial tree (largest subtree served first), segmented.
 * Cost (LogGP): T = ceil(log2 P) · (L + 2o + (m - 1)G) unsegmented. */
#include "../algs.h"

int acct_bcast_binomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_BINOMIAL, 2);
}
