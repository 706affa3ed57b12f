/* K-nomial broadcast: a radix-k tree (k = fan-out; k = 2 is binomial),
 * segmented, largest subtree first.
 * Cost (LogGP, unsegmented): T = ceil(log_k P) · (k - 1) · (L + 2o + (m - 1)G). */
#include "../algs.h"

int acct_bcast_knomial(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_KNOMIAL, c->fanout);
}
