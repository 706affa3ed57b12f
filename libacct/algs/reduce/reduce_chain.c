/* Chain reduce: f chains (f = fan-out) of consecutive ranks hang off the
 * root; segments flow up each chain, every node adding its own data, and
 * the root combines the f chains. Non-commutative operations: the chains
 * are laid out from rank 0 (each chain a contiguous rank range) and rank 0
 * sends the result to the root if that is another rank.
 * Cost (LogGP, m bytes in s segments, γ per byte reduced; seeds/001 Table 1
 * segmented chain, in reverse): T = (ceil((P-1)/f) + s - 1) ·
 * (L + 2o + (m/s - 1)G + (f - 1) max(o, g) + f γ m/s). */
#include "../algs.h"

int acct_reduce_chain(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_CHAIN, c->fanout);
}
