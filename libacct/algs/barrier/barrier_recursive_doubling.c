/* Recursive-doubling barrier (Open MPI's recursivedoubling): with
 * q = the largest power of two <= P, ranks r < q exchange zero-byte
 * messages with r XOR 2^k for k = 0 .. log2(q) - 1, each exchange one
 * round. When P is not a power of two, each extra rank r >= q first
 * reports to r - q (which hears it before its first exchange) and is
 * released by r - q after the last one.
 * Cost (pLogP, ../cost.h): acct_barrier_recursive_doubling_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_barrier_recursive_doubling(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    if (r >= q) { /* extra rank: report, then wait for the release */
        acct_sched_send(s, r - q, ACCT_BUF_RECV, 0, 0);
        acct_sched_recv(s, r - q, ACCT_BUF_RECV, 0, 0);
        return 0;
    }
    if (r + q < p) {
        acct_sched_recv(s, r + q, ACCT_BUF_RECV, 0, 0);
        acct_sched_round(s);
    }
    for (int mask = 1; mask < q; mask <<= 1) {
        acct_sched_send(s, r ^ mask, ACCT_BUF_RECV, 0, 0);
        acct_sched_recv(s, r ^ mask, ACCT_BUF_RECV, 0, 0);
        acct_sched_round(s);
    }
    if (r + q < p)
        acct_sched_send(s, r + q, ACCT_BUF_RECV, 0, 0);
    return 0;
}

/* log2(q)(g(0) + L) + [P != q] 2 (g(0) + L), q = 2^floor(log2 P). */
double acct_barrier_recursive_doubling_cost(const struct acct_cost *c)
{
    int k = cost_ilog2(c->p);
    return (k + (cost_pow2(c->p) ? 0 : 2)) * (cost_g(c, 0) + cost_L(c));
}
