/* Recursive-doubling exscan (MPICH's MPIR_Exscan_intra_recursive_doubling,
 * Open MPI's ompi_coll_base_exscan_intra_recursivedoubling), any number of
 * ranks.
 *
 * As the recursive-doubling scan (../scan/scan_recursive_doubling.c): each
 * rank exchanges its partial result (its aligned block of 2^k ranks) with
 * rank ^ 2^k. The result leaves the rank's own input out: the first
 * partial a rank receives from a lower partner is copied into RECV, later
 * ones go in front of it (in op result). Rank 0 never has a lower partner,
 * so its RECV is never written (undefined by MPI).
 *
 *     rank       0     1     2     3
 *     step 0     0 <-> 1     2 <-> 3     result  -   x0     -     x2
 *     step 1     0 <-------> 2           result  -   x0     x0..1 x0..2
 *                      1 <-------> 3
 *
 * Operands always meet in rank order, for commutative operations too.
 * Buffers: the partial and the incoming partial alternate between TMP0
 * and TMP1; the input is copied into the partial first (in place too,
 * before RECV is written).
 *
 * Cost (pLogP, ../cost.h): acct_exscan_recursive_doubling_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_exscan_recursive_doubling(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count;
    enum acct_buf part = ACCT_BUF_TMP0, in = ACCT_BUF_TMP1;
    bool have = false; /* RECV holds a result */

    if (n == 0 || p == 1)
        return 0;
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, n);
    acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, n);
    acct_sched_copy(s, c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND, 0, n, part, 0, n);
    for (int mask = 1; mask < p; mask <<= 1) {
        const int peer = r ^ mask;
        if (peer >= p)
            continue;
        acct_sched_send(s, peer, part, 0, n);
        acct_sched_recv(s, peer, in, 0, n);
        if (r > peer) {
            acct_sched_reduce(s, in, 0, part, 0, n);
            if (have)
                acct_sched_reduce(s, in, 0, ACCT_BUF_RECV, 0, n);
            else
                acct_sched_copy(s, in, 0, n, ACCT_BUF_RECV, 0, n);
            have = true;
        } else {
            enum acct_buf t = part;
            acct_sched_reduce(s, part, 0, in, 0, n);
            part = in;
            in = t;
        }
    }
    return 0;
}

/* P = 2^k: the recursive-doubling scan's exchanges; at the highest rank
 * the first step copies instead of reducing into the result:
 *   2 delta m + ceil(log2 P)(g(m) + L) + (2 ceil(log2 P) - 1) gamma m.
 * Other P: the rounds, per rank (acct_scan_rd_rounds_cost,
 * scan/scan_recursive_doubling.c). */
double acct_exscan_recursive_doubling_cost(const struct acct_cost *c)
{
    if (!cost_pow2(c->p))
        return c->p >= 1 && c->m > 0 ? acct_scan_rd_rounds_cost(c, true) : NAN;
    const int k = cost_clog2(c->p);
    return 2 * cost_delta(c, c->m) + k * (cost_g(c, c->m) + cost_L(c)) +
           (2 * k - 1) * cost_gamma(c, c->m);
}
