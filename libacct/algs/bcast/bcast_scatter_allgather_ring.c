/* Scatter + ring allgather broadcast (any size): binomial scatter of P
 * blocks, then P - 1 ring steps passing one block each.
 * Cost (pLogP, ../cost.h): acct_bcast_scatter_allgather_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_scatter_allgather_ring(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_scatter_allgather(c, s, true);
}

/* Binomial scatter of P blocks of b = m / P, then the ring allgather:
 * sum_{j=0}^{k-1} g(2^j b) + k L + (P - 1)(g(b) + L) (P = 2^k; other P: the
 * scatter's recurrence, acct_cost_binomial_down). */
double acct_bcast_scatter_allgather_ring_cost(const struct acct_cost *c)
{
    if (c->m % (uint64_t)c->p != 0)
        return NAN;
    uint64_t b = c->m / (uint64_t)c->p;
    double sc = cost_pow2(c->p) ? acct_cost_binomial_blocks(c, b) : acct_cost_binomial_down(c, b, NULL);
    return sc + (c->p - 1) * (cost_g(c, b) + cost_L(c));
}
