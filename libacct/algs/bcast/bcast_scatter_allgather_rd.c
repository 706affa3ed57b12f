/* Scatter + recursive-doubling allgather broadcast (power-of-two sizes):
 * binomial scatter of P blocks, then log2(P) exchanges of doubling ranges.
 * Cost (pLogP, ../cost.h): acct_bcast_scatter_allgather_rd_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_scatter_allgather_rd(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_scatter_allgather(c, s, false);
}

/* Binomial scatter of P = 2^k blocks of b = m / P, then recursive
 * doubling: 2 (sum_{j=0}^{k-1} g(2^j b) + k L). */
double acct_bcast_scatter_allgather_rd_cost(const struct acct_cost *c)
{
    if (!cost_pow2(c->p) || c->m % (uint64_t)c->p != 0)
        return NAN;
    struct acct_cost b = *c;
    b.m = c->m / (uint64_t)c->p;
    return 2 * acct_cost_binomial_blocks(&b, b.m);
}
