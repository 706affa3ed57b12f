/* Pipeline reduce: one chain through all ranks (a chain with fan-out 1),
 * segments flowing towards the root, each rank adding its own data.
 * Non-commutative operations: the chain runs P-1 -> ... -> 0 and rank 0
 * sends the result to the root if that is another rank.
 * Cost (pLogP, ../cost.h): acct_reduce_pipeline_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_pipeline(const struct acct_call *c, struct acct_sched *s)
{
    return acct_reduce_tree(c, s, ACCT_REDUCE_TREE_CHAIN, 1);
}

/* Reduce trees mirror the bcast trees (a node receives from its children
 * what it would have sent them, one receive gap apart), plus the
 * reductions on the critical path; exact while a node's reductions of one
 * segment plus or(s) fit in a gap g(s) (so also reduce_binomial.c and
 * reduce_binary.c). Pipeline: the bcast pipeline + (P - 1) gamma s,
 *   (P - 1)(g(s) + L) + (ns - 1) g(s) + (P - 1) gamma s. */
double acct_reduce_pipeline_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_chains(c, 1, s, ns) + (c->p - 1) * cost_gamma(c, s);
}
