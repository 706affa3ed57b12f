/* Scatter + recursive-doubling allgather broadcast (power-of-two sizes):
 * binomial scatter of P blocks, then log2(P) exchanges of doubling ranges.
 * Cost (LogGP): 2 log2(P)(L + 2o) + 2 (P-1)/P · m G. */
#include "../algs.h"

int acct_bcast_scatter_allgather_rd(const struct acct_call *c, struct acct_sched *s)
{
    return acct_bcast_scatter_allgather(c, s, false);
}
