/* Pipeline reduce: one chain through all ranks (a chain with fan-out 1),
 * segments flowing towards the root, each rank adding its own data.
 * Non-commutative operations: the chain runs P-1 -> ... -> 0 and rank 0
 * sends the result to the root if that is another rank.
 * Cost (LogGP, m bytes in s segments, γ per byte reduced; seeds/001 Table 1
 * "Seg. Chain (Pipeline)", in reverse): T = (P + s - 2)(L + 2o + (m/s - 1)G
 * + γ m/s). */
#include "../algs.h"

int acct_reduce_pipeline(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_CHAIN, 1);
}
