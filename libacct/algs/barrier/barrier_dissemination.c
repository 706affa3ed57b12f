/* Dissemination barrier (Hensgen, Finkel & Manber; Open MPI's "bruck"):
 * in step k = 0 .. ceil(log2 P) - 1 rank r sends to r + 2^k and receives
 * from r - 2^k (mod P); after step k a rank has heard, transitively, from
 * the 2^(k+1) - 1 ranks before it, so after the last step from everyone.
 * Any P, no idle ranks, one send and one receive per step.
 * Cost (pLogP, ../cost.h): acct_barrier_dissemination_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_barrier_dissemination(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size;
    for (int d = 1; d < p; d <<= 1) {
        acct_sched_send(s, (c->rank + d) % p, ACCT_BUF_RECV, 0, 0);
        acct_sched_recv(s, (c->rank - d + p) % p, ACCT_BUF_RECV, 0, 0);
        acct_sched_round(s);
    }
    return 0;
}

/* ceil(log2 P)(g(0) + L) (March Table 4 dissemination, in pLogP terms). */
double acct_barrier_dissemination_cost(const struct acct_cost *c)
{
    return cost_clog2(c->p) * (cost_g(c, 0) + cost_L(c));
}
