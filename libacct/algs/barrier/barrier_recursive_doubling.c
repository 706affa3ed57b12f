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

/* P = q = 2^k: k (g(0) + L). Other P, the rounds the builder emits: rank
 * r < e = P - q hears its extra rank r + q (sent at 0) at D = max(g(0) + L,
 * or(0)) and enters the exchanges then, the others at 0; the log2(q)
 * exchanges (acct_rd_exchanges_cost, allreduce_common.c: per rank, as the
 * late and early ranks meet in every exchange); then r releases r + q,
 * whose receive was posted at 0 with its report. The latest rank end. */
double acct_barrier_recursive_doubling_cost(const struct acct_cost *c)
{
    const int p = c->p;
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    const int e = p - q;
    const double g = cost_g(c, 0), L = cost_L(c), os = cost_os(c, 0), orx = cost_or(c, 0);
    if (p < 1)
        return NAN;
    if (e == 0)
        return cost_ilog2(p) * (g + L);
    double *end = calloc((size_t)q, sizeof *end), *nic = calloc((size_t)q, sizeof *nic), t = NAN;
    double pre = g + L > orx ? g + L : orx;
    pre = g > pre ? g : pre;
    if (end != NULL && nic != NULL && acct_rd_exchanges_cost(c, q, e, 0, pre, pre, 0, end, nic) == 0) {
        t = 0;
        for (int x = 0; x < q; x++) {
            double f = end[x];
            if (x < e) { /* the release of x + q */
                double s = nic[x] > end[x] ? nic[x] : end[x], done = s + g + L;
                f = s + os > f ? s + os : f;
                done = orx > done ? orx : done;
                done = g > done ? g : done;
                done = os > done ? os : done; /* its report's send, same round */
                f = done > f ? done : f;
            }
            t = f > t ? f : t;
        }
    }
    free(end);
    free(nic);
    return t;
}
