/* Linear barrier (Open MPI's basic_linear): every rank sends a zero-byte
 * message to rank 0 and posts the receive of its release; rank 0 waits for
 * all P - 1 arrivals, then releases everyone at once.
 * Cost (LogGP): T = 2(L + 2o) + 2(P - 2) max(o, g) — rank 0 handles
 * 2(P - 1) messages (paper 001 Table 1 flat tree with m = 0, twice:
 * 2((P - 1) g(0) + L)). */
#include "../algs.h"

int acct_barrier_linear(const struct acct_call *c, struct acct_sched *s)
{
    if (c->rank != 0) {
        acct_sched_send(s, 0, ACCT_BUF_RECV, 0, 0);
        acct_sched_recv(s, 0, ACCT_BUF_RECV, 0, 0);
        return 0;
    }
    for (int r = 1; r < c->size; r++)
        acct_sched_recv(s, r, ACCT_BUF_RECV, 0, 0);
    acct_sched_round(s);
    for (int r = 1; r < c->size; r++)
        acct_sched_send(s, r, ACCT_BUF_RECV, 0, 0);
    return 0;
}
