/* Double-ring barrier (Open MPI's doublering, the "extended ring"): a
 * token goes twice round the ring 0 -> 1 -> ... -> P-1 -> 0. After the
 * first pass rank 0 knows everyone has arrived; the second pass releases
 * rank r once ranks 0..r-1 know it, and rank 0 leaves when the token
 * comes back. Each rank forwards only after it has received.
 * Cost (LogGP): T = 2P (L + 2o) (paper 001 Table 1 chain with m = 0,
 * twice round: 2P (g(0) + L)). */
#include "../algs.h"

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
