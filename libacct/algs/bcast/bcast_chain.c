/* Chain broadcast: f chains (f = fan-out) hang off the root; each forwards
 * the segments down its chain of consecutive ranks.
 * Cost (pLogP, ../cost.h): acct_bcast_chain_cost at the end of this file.
 * The root serves f chains. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_chain(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_CHAIN, c->fanout);
}

/* f segmented chains (acct_cost_chains): chain i (from 1) of length len
 * has the last segment at ((ns - 1) f + i) g(s) + L + (len - 1)(g(s) + L). */
double acct_bcast_chain_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_chains(c, c->fanout, s, ns);
}
