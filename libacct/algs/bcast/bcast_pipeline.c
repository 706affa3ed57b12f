/* Pipeline broadcast: a single chain through all ranks, segments flowing down it (a chain with fan-out 1).
 * Cost (pLogP, ../cost.h): acct_bcast_pipeline_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_pipeline(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_tree(c, s, ACCT_TREE_CHAIN, 1);
}

/* One segmented chain, BM04 Table 1 "Seg. Chain (Pipeline)":
 * (P - 1)(g(s) + L) + (ns - 1) g(s). */
double acct_bcast_pipeline_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_chains(c, 1, s, ns);
}
