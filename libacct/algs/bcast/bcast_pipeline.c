/* Pipeline broadcast: a single chain through all ranks, segments flowing down it (a chain with fan-out 1).
 * Cost (LogGP): T = (P + s - 2)(L + 2o + (m/s - 1)G). */
#include "../algs.h"

int acct_bcast_pipeline(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_CHAIN, 1);
}
