/* Chain reduce: f chains (f = fan-out) of consecutive ranks hang off the
 * root; segments flow up each chain, every node adding its own data, and
 * the root combines the f chains. Non-commutative operations: the chains
 * are laid out from rank 0 (each chain a contiguous rank range) and rank 0
 * sends the result to the root if that is another rank.
 * Cost (pLogP, ../cost.h): acct_reduce_chain_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_chain(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_CHAIN, c->fanout);
}

/* Mirror of the bcast chains (acct_cost_chains_up): chain i of length
 * len_i delivers its last segment at (ns - 1) f g(s) + len_i (g(s) + L) +
 * (len_i - 1) gamma s; the root takes the f chains one receive gap apart,
 * then reduces: + f gamma s. */
double acct_reduce_chain_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_chains_up(c, c->fanout, s, ns);
}
