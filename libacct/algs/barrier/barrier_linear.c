/* Linear barrier (Open MPI's basic_linear): every rank sends a zero-byte
 * message to rank 0 and posts the receive of its release; rank 0 waits for
 * all P - 1 arrivals, then releases everyone at once.
 * Cost (pLogP, ../cost.h): acct_barrier_linear_cost at the end of this file.
 * Rank 0 handles 2(P - 1) messages. */
#include "../algs.h"
#include "../cost.h"

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

/* Flat tree in and out (BM04 Table 1, m = 0, twice): 2((P - 1) g(0) + L). */
double acct_barrier_linear_cost(const struct acct_cost *c)
{
    return 2 * acct_cost_flat(c, 0);
}
