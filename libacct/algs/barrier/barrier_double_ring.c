/* Double-ring barrier (Open MPI's doublering, the "extended ring"): a
 * token goes twice round the ring 0 -> 1 -> ... -> P-1 -> 0. After the
 * first pass rank 0 knows everyone has arrived; the second pass releases
 * rank r once ranks 0..r-1 know it, and rank 0 leaves when the token
 * comes back. Each rank forwards only after it has received.
 * Cost (pLogP, ../cost.h): acct_barrier_double_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_barrier_double_ring(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, right = (c->rank + 1) % p, left = (c->rank - 1 + p) % p;
    if (p == 1)
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        if (c->rank == 0) {
            acct_sched_send(s, right, ACCT_BUF_RECV, 0, 0);
            acct_sched_round(s);
            acct_sched_recv(s, left, ACCT_BUF_RECV, 0, 0);
        } else {
            acct_sched_recv(s, left, ACCT_BUF_RECV, 0, 0);
            acct_sched_round(s);
            acct_sched_send(s, right, ACCT_BUF_RECV, 0, 0);
        }
        acct_sched_round(s);
    }
    return 0;
}

/* The token twice round the ring: 2P (g(0) + L). */
double acct_barrier_double_ring_cost(const struct acct_cost *c)
{
    return 2.0 * c->p * (cost_g(c, 0) + cost_L(c));
}
