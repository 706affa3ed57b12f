/* Scatter + ring allgather broadcast (any size): binomial scatter of P
 * blocks, then P - 1 ring steps passing one block each.
 * Cost (LogGP): (log2(P) + P - 1)(L + 2o) + 2 (P-1)/P · m G. */
#include "../algs.h"

int acct_bcast_scatter_allgather_ring(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_scatter_allgather(c, s, true);
}
