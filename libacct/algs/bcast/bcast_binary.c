/* Binary broadcast: a complete binary tree in level order, segmented.
 * Cost (LogGP): T = (log2(P) + s - 1) · 2 · (L + 2o + (m/s - 1)G). */
#include "../algs.h"

int acct_bcast_binary(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_BINARY, 2);
}
