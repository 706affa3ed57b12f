/* Chain broadcast: f chains (f = fan-out) hang off the root; each forwards
 * the segments down its chain of consecutive ranks.
 * Cost (LogGP, m bytes in s segments): T = (ceil((P-1)/f) + s - 1) ·
 * (L + 2o + (m/s - 1)G + (f - 1) max(o, g)) — the root serves f chains. */
#include "../algs.h"

int acct_bcast_chain(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_CHAIN, c->fanout);
}
