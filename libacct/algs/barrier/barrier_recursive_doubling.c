/* Recursive-doubling barrier (Open MPI's recursivedoubling): with
 * q = the largest power of two <= P, ranks r < q exchange zero-byte
 * messages with r XOR 2^k for k = 0 .. log2(q) - 1, each exchange one
 * round. When P is not a power of two, each extra rank r >= q first
 * reports to r - q (which hears it before its first exchange) and is
 * released by r - q after the last one.
 * Cost (LogGP): T = log2(q) (L + 2o + g) + [P != q] 2 (L + 2o)
 * (paper 004 Table 4 dissemination form, ceil(log P)(L + o + g), with
 * the two extra steps of the non-power-of-two case). */
#include "../algs.h"

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
